/*
 * The UCC side of bench/smpi_compare.sh: every rank runs the whole public-API
 * lifecycle (library, context, team), one barrier, one allreduce of one
 * int64 (8 B, SUM, checked), and tears everything down, as
 * mpi_barrier_allreduce.c does under SMPI (MPI_Init to MPI_Finalize).
 *   build/ucc_sim -np 1024 --program ./ucc_barrier_allreduce.so
 * Returns 0 on success; rank 0 prints the virtual time of the two collectives.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <ucc/api/ucc.h>
#include <ucc/sim/ucc_sim.h>

static ucc_status_t run(ucc_context_h ctx, ucc_team_h team, ucc_coll_args_t *args) {
    ucc_coll_req_h req;
    ucc_status_t st = ucc_collective_init(args, &req, team);
    if (st != UCC_OK) {
        return st;
    }
    st = ucc_collective_post(req);
    while (st == UCC_OK && (st = ucc_collective_test(req)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
        st = UCC_OK;
    }
    ucc_collective_finalize(req);
    return st;
}

int ucc_sim_main(int argc, char **argv) {
    const uint32_t rank = ucc_sim_rank();
    const uint32_t n = ucc_sim_size();
    ucc_lib_config_h lib_config;
    ucc_lib_params_t lib_params;
    ucc_lib_h lib;
    ucc_context_params_t ctx_params;
    ucc_context_h ctx;
    ucc_team_params_t team_params;
    ucc_team_h team;
    ucc_coll_args_t args;
    ucc_status_t st;
    int64_t mine = rank, sum = -1;
    double t0, t1;
    (void)argc;
    (void)argv;

    if (ucc_lib_config_read(NULL, NULL, &lib_config) != UCC_OK) {
        return 1;
    }
    memset(&lib_params, 0, sizeof(lib_params));
    lib_params.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lib_params.thread_mode = UCC_THREAD_SINGLE;
    st = ucc_init(&lib_params, lib_config, &lib);
    ucc_lib_config_release(lib_config);
    if (st != UCC_OK) {
        return 1;
    }
    memset(&ctx_params, 0, sizeof(ctx_params));
    ctx_params.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc_sim_oob(&ctx_params.oob);
    if (ucc_context_create(lib, &ctx_params, NULL, &ctx) != UCC_OK) {
        return 1;
    }
    memset(&team_params, 0, sizeof(team_params));
    team_params.mask =
        UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    ucc_sim_oob(&team_params.oob);
    team_params.ep = rank;
    team_params.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    if (ucc_team_create_post(&ctx, 1, &team_params, &team) != UCC_OK) {
        return 1;
    }
    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    if (st != UCC_OK) {
        return 1;
    }
    t0 = ucc_sim_now();
    memset(&args, 0, sizeof(args));
    args.coll_type = UCC_COLL_TYPE_BARRIER;
    st = run(ctx, team, &args);
    if (st == UCC_OK) {
        memset(&args, 0, sizeof(args));
        args.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        args.src.info.buffer = &mine;
        args.src.info.count = 1;
        args.src.info.datatype = UCC_DT_INT64;
        args.src.info.mem_type = UCC_MEMORY_TYPE_HOST;
        args.dst.info.buffer = &sum;
        args.dst.info.count = 1;
        args.dst.info.datatype = UCC_DT_INT64;
        args.dst.info.mem_type = UCC_MEMORY_TYPE_HOST;
        args.op = UCC_OP_SUM;
        st = run(ctx, team, &args);
    }
    t1 = ucc_sim_now();
    if (st == UCC_OK && sum != (int64_t)n * (n - 1) / 2) {
        st = UCC_ERR_NO_MESSAGE;
    }
    if (rank == 0) {
        printf("ucc: %u ranks, barrier + allreduce 8 B: %s, %.3f us virtual\n", n,
               ucc_status_string(st), (t1 - t0) * 1e6);
    }
    while (ucc_team_destroy(team) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    ucc_context_destroy(ctx);
    ucc_finalize(lib);
    return st == UCC_OK ? 0 : 1;
}
