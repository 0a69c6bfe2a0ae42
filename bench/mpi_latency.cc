// mpi_latency: the collectives of ucx_latency through plain MPI (MPI_Allreduce,
// MPI_Bcast, MPI_Allgather, MPI_Alltoall, MPI_Reduce_scatter_block,
// MPI_Barrier), timed the same way (bench/coll_bench.h): the peer an MPI user
// compares UCC with. It links MPI only, never libucc.
//
//   mpirun -np 2 build/mpi_latency [options]
//
// Prints one line naming the MPI library, {"bench":"mpi_library",...}, then
// one JSON line per (collective, size) from rank 0, with the fields of
// ucx_latency and "bench":"mpi".
#include <mpi.h>

#include <cstdio>
#include <string>

#include "bench/coll_bench.h"

namespace {

using ucc::bench::Buffer;
using ucc::bench::CollKind;
using ucc::bench::Shape;

void check(int rc, const char *call) {
    if (rc != MPI_SUCCESS) {
        std::fprintf(stderr, "mpi_latency: %s failed (%d)\n", call, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

// One point, for ucc::bench::measure(): blocking MPI calls.
class Point {
  public:
    Point(CollKind k, const Shape &s, Buffer &src, Buffer &dst)
        : k_(k), s_(s), src_(src.data()), dst_(dst.data()) {}

    void iterate() {
        const auto block = static_cast<int>(s_.block);
        switch (k_) {
            case CollKind::kAllreduce:
                check(MPI_Allreduce(src_, dst_, block, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
                      "MPI_Allreduce");
                break;
            case CollKind::kBcast:
                check(MPI_Bcast(src_, block, MPI_FLOAT, 0, MPI_COMM_WORLD), "MPI_Bcast");
                break;
            case CollKind::kAllgather:
                check(MPI_Allgather(src_, block, MPI_FLOAT, dst_, block, MPI_FLOAT, MPI_COMM_WORLD),
                      "MPI_Allgather");
                break;
            case CollKind::kAlltoall:
                check(MPI_Alltoall(src_, block, MPI_FLOAT, dst_, block, MPI_FLOAT, MPI_COMM_WORLD),
                      "MPI_Alltoall");
                break;
            case CollKind::kReduceScatter:
                check(
                    MPI_Reduce_scatter_block(src_, dst_, block, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
                    "MPI_Reduce_scatter_block");
                break;
            case CollKind::kBarrier:
                check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
                break;
        }
    }

    void barrier() { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

    double max_over_ranks(double v) {
        double out = 0;
        check(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
        return out;
    }

  private:
    CollKind k_;
    Shape s_;
    float *src_;
    float *dst_;
};

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const auto n = static_cast<uint32_t>(size);
    ucc::bench::Options o;
    std::string err;
    if (!ucc::bench::parse_options(argc, argv, &o, &err, [](int, char **) { return 0; })) {
        if (rank == 0) {
            std::fprintf(stderr, "mpi_latency: %s\nusage: mpirun -np N mpi_latency [options]\n%s",
                         err.c_str(), ucc::bench::kUsage);
        }
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(lib, &len);
        std::string first(lib, static_cast<size_t>(len));
        first = first.substr(0, first.find_first_of(",\n"));
        for (char &ch : first) {
            if (ch == '"' || ch == '\\') {
                ch = ' ';
            }
        }
        std::printf("{\"bench\":\"mpi_library\",\"np\":%d,\"library\":\"%s\"}\n", size,
                    first.c_str());
        std::fflush(stdout);
    }
    for (CollKind k : o.colls) {
        const std::vector<Shape> shapes = ucc::bench::sweep(o, k, n);
        Buffer src(shapes.back().src_count);
        Buffer dst(shapes.back().dst_count);
        for (const Shape &s : shapes) {
            ucc::bench::fill_inputs(k, static_cast<uint32_t>(rank), src, dst);
            Point p(k, s, src, dst);
            const ucc::bench::Measured m = ucc::bench::measure(p, o);
            if (o.check &&
                !ucc::bench::expect_ok(k, static_cast<uint32_t>(rank), n, s, src, dst, &err)) {
                std::fprintf(stderr, "mpi_latency: wrong result: %s\n", err.c_str());
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (rank == 0) {
                std::printf("%s\n", ucc::bench::json_line("mpi", n, k, s, m, o, "").c_str());
                std::fflush(stdout);
            }
        }
    }
    MPI_Finalize();
    return 0;
}
