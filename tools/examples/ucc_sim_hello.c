/*
 * ucc_sim_hello: the smallest user program for `ucc_sim --program`.
 *
 * Build it as a shared library and run it on 16 simulated ranks:
 *   cc -std=c99 -shared -fPIC -I include tools/examples/ucc_sim_hello.c -o hello.so
 *   build/ucc_sim -np 16 --program ./hello.so -- 1000
 *
 * Every rank calls ucc_sim_main() once, as a process calls main(): it creates
 * a UCC library, a context and a team over all ranks, allreduces `count`
 * int32 values (default 4; the first argument) with SUM, checks the result,
 * tears everything down and returns 0 on success. Rank 0 prints one line.
 * The library's symbols (ucc_init, ucc_sim_rank, ...) resolve against the
 * libucc.so that ucc_sim itself is linked with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ucc/api/ucc.h>
#include <ucc/sim/ucc_sim.h>

static ucc_status_t wait_coll(ucc_coll_req_h req, ucc_context_h ctx) {
    ucc_status_t st;
    while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    return st;
}

int ucc_sim_main(int argc, char **argv) {
    uint32_t rank = ucc_sim_rank();
    uint32_t n = ucc_sim_size();
    size_t count = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 4;
    ucc_lib_config_h lib_config;
    ucc_lib_params_t lib_params;
    ucc_lib_h lib;
    ucc_context_params_t ctx_params;
    ucc_context_h ctx;
    ucc_team_params_t team_params;
    ucc_team_h team;
    ucc_coll_args_t args;
    ucc_coll_req_h req;
    ucc_status_t st;
    int32_t *src, *dst;
    size_t i;
    int wrong = 0;

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

    /* Allreduce: element i of rank r is r + i; the sum is n(n-1)/2 + n*i. */
    src = malloc((count ? count : 1) * sizeof(int32_t));
    dst = malloc((count ? count : 1) * sizeof(int32_t));
    for (i = 0; i < count; ++i) {
        src[i] = (int32_t)(rank + i);
    }
    memset(&args, 0, sizeof(args));
    args.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    args.src.info.buffer = src;
    args.src.info.count = count;
    args.src.info.datatype = UCC_DT_INT32;
    args.src.info.mem_type = UCC_MEMORY_TYPE_HOST;
    args.dst.info.buffer = dst;
    args.dst.info.count = count;
    args.dst.info.datatype = UCC_DT_INT32;
    args.dst.info.mem_type = UCC_MEMORY_TYPE_HOST;
    args.op = UCC_OP_SUM;
    st = ucc_collective_init(&args, &req, team);
    if (st == UCC_OK) {
        st = ucc_collective_post(req);
        if (st == UCC_OK) {
            st = wait_coll(req, ctx);
        }
        ucc_collective_finalize(req);
    }
    for (i = 0; st == UCC_OK && i < count; ++i) {
        if (dst[i] != (int32_t)((uint64_t)n * (n - 1) / 2 + (uint64_t)n * i)) {
            wrong = 1;
            break;
        }
    }
    if (rank == 0) {
        printf("hello from rank 0 of %u: allreduce of %zu int32 %s at t=%.3f us\n", n, count,
               st != UCC_OK ? ucc_status_string(st) : (wrong ? "WRONG" : "verified"),
               ucc_sim_now() * 1e6);
    }
    free(src);
    free(dst);
    while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    ucc_context_destroy(ctx);
    ucc_finalize(lib);
    return st == UCC_OK && !wrong ? 0 : 1;
}
