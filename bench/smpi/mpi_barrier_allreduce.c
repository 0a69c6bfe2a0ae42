/*
 * The SMPI side of bench/smpi_compare.sh: MPI_Init, one barrier, one
 * allreduce of one int64 (8 B, SUM, checked), MPI_Finalize, as
 * ucc_barrier_allreduce.c does with UCC on ucc_sim.
 *   smpicc -O2 mpi_barrier_allreduce.c -o mpi_barrier_allreduce
 * Returns 0 on success; rank 0 prints the simulated time of the two collectives.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, n, ok;
    int64_t mine, sum = -1;
    double t0, t1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    mine = rank;
    t0 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    t1 = MPI_Wtime();
    ok = sum == (int64_t)n * (n - 1) / 2;
    if (rank == 0) {
        printf("smpi: %d ranks, barrier + allreduce 8 B: %s, %.3f us virtual\n", n,
               ok ? "ok" : "WRONG", (t1 - t0) * 1e6);
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
