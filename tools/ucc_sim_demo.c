/*
 * ucc_sim_demo: an ordinary UCC program (plain C99, only <ucc/api/ucc.h>,
 * <ucc/sim/ucc_sim.h> and <ucc/boot/ucc_boot.h>) whose one rank body runs
 * either as N simulated ranks inside this one process or, started by a
 * launcher (ucc_run, mpirun, srun, torchrun-style variables), as one real
 * process per rank over UCX.
 *
 * Every rank initialises UCC, creates a context and a team over the OOB it was
 * given (the simulator's or the bootstrap's), runs a float32 SUM allreduce and
 * an int32 bcast, checks both results, and tears everything down. Simulated,
 * it prints the virtual time of each collective, the run's total virtual time
 * and its trace hash (same seed, same hash); as real processes, rank 0 prints
 * the wall time of each collective and whether every rank verified.
 *
 *   ucc_sim_demo [--ranks N] [--seed S] [--network SPEC] [--count ELEMS]
 *   ucc_run -n 4 ucc_sim_demo [--count ELEMS]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ucc/api/ucc.h>
#include <ucc/boot/ucc_boot.h>
#include <ucc/sim/ucc_sim.h>

/* Where a rank runs: its rank, the world's size, an OOB and a clock. */
typedef struct {
    uint32_t rank;
    uint32_t size;
    ucc_oob_coll_t oob;
    double (*now)(void);
} world_t;

typedef struct {
    size_t count;
    unsigned long errors;   /* ranks whose results were wrong */
    unsigned long failures; /* ranks where an API call failed */
    double t_allreduce;     /* seconds (virtual when simulated), measured on rank 0 */
    double t_bcast;
} demo_t;

static double wall_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define CHECK(call)                                                                           \
    do {                                                                                      \
        ucc_status_t st_ = (call);                                                            \
        if (st_ != UCC_OK) {                                                                  \
            fprintf(stderr, "rank %u: %s failed: %s\n", rank, #call, ucc_status_string(st_)); \
            d->failures++;                                                                    \
            return;                                                                           \
        }                                                                                     \
    } while (0)

static ucc_status_t run_coll(ucc_coll_args_t *args, ucc_team_h team, ucc_context_h ctx) {
    ucc_coll_req_h req;
    ucc_status_t st = ucc_collective_init(args, &req, team);
    if (st != UCC_OK) {
        return st;
    }
    st = ucc_collective_post(req);
    if (st == UCC_OK) {
        while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
    }
    ucc_collective_finalize(req);
    return st;
}

/* The program body: the same for a simulated rank and a real process. */
static void rank_body(demo_t *d, const world_t *w) {
    uint32_t rank = w->rank;
    uint32_t n = w->size;
    size_t count = d->count;
    size_t i;
    ucc_lib_config_h lib_config;
    ucc_lib_params_t lib_params;
    ucc_lib_h lib;
    ucc_context_params_t ctx_params;
    ucc_context_h ctx;
    ucc_team_params_t team_params;
    ucc_team_h team;
    ucc_coll_args_t args;
    ucc_status_t st;
    float *src, *dst;
    int32_t *buf;
    double t0;
    int ok = 1;

    CHECK(ucc_lib_config_read(NULL, NULL, &lib_config));
    memset(&lib_params, 0, sizeof(lib_params));
    lib_params.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lib_params.thread_mode = UCC_THREAD_SINGLE;
    CHECK(ucc_init(&lib_params, lib_config, &lib));
    ucc_lib_config_release(lib_config);

    memset(&ctx_params, 0, sizeof(ctx_params));
    ctx_params.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ctx_params.oob = w->oob;
    CHECK(ucc_context_create(lib, &ctx_params, NULL, &ctx));

    memset(&team_params, 0, sizeof(team_params));
    team_params.mask =
        UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    team_params.oob = w->oob;
    team_params.ep = rank;
    team_params.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    CHECK(ucc_team_create_post(&ctx, 1, &team_params, &team));
    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
    }
    CHECK(st);

    /* Allreduce: element i of rank r is (r % 8) + (i % 3); the sum is exact. */
    src = malloc(count * sizeof(float));
    dst = malloc(count * sizeof(float));
    for (i = 0; i < count; ++i) {
        src[i] = (float)(rank % 8) + (float)(i % 3);
    }
    memset(&args, 0, sizeof(args));
    args.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    args.src.info.buffer = src;
    args.src.info.count = count;
    args.src.info.datatype = UCC_DT_FLOAT32;
    args.src.info.mem_type = UCC_MEMORY_TYPE_HOST;
    args.dst.info.buffer = dst;
    args.dst.info.count = count;
    args.dst.info.datatype = UCC_DT_FLOAT32;
    args.dst.info.mem_type = UCC_MEMORY_TYPE_HOST;
    args.op = UCC_OP_SUM;
    t0 = w->now();
    CHECK(run_coll(&args, team, ctx));
    if (rank == 0) {
        d->t_allreduce = w->now() - t0;
    }
    {
        double base = 0;
        uint32_t r;
        for (r = 0; r < n; ++r) {
            base += (double)(r % 8);
        }
        for (i = 0; i < count; ++i) {
            if (dst[i] != (float)(base + (double)n * (double)(i % 3))) {
                ok = 0;
                break;
            }
        }
    }

    /* Bcast from the middle rank. */
    buf = malloc(count * sizeof(int32_t));
    for (i = 0; i < count; ++i) {
        buf[i] = rank == n / 2 ? (int32_t)(i * 2654435761u) : -1;
    }
    memset(&args, 0, sizeof(args));
    args.coll_type = UCC_COLL_TYPE_BCAST;
    args.root = n / 2;
    args.src.info.buffer = buf;
    args.src.info.count = count;
    args.src.info.datatype = UCC_DT_INT32;
    args.src.info.mem_type = UCC_MEMORY_TYPE_HOST;
    t0 = w->now();
    CHECK(run_coll(&args, team, ctx));
    if (rank == 0) {
        d->t_bcast = w->now() - t0;
    }
    for (i = 0; i < count; ++i) {
        if (buf[i] != (int32_t)(i * 2654435761u)) {
            ok = 0;
            break;
        }
    }
    if (!ok) {
        d->errors++;
    }
    free(src);
    free(dst);
    free(buf);

    while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS) {
    }
    CHECK(st);
    CHECK(ucc_context_destroy(ctx));
    CHECK(ucc_finalize(lib));
}

static void sim_rank_main(void *arg) {
    world_t w;
    w.rank = ucc_sim_rank();
    w.size = ucc_sim_size();
    w.now = ucc_sim_now;
    if (ucc_sim_oob(&w.oob) != UCC_OK) {
        ((demo_t *)arg)->failures++;
        return;
    }
    rank_body((demo_t *)arg, &w);
}

/* One real process of a launched job: the same body over the bootstrap's OOB. */
static int run_launched(demo_t *d) {
    ucc_boot_h boot;
    world_t w;
    uint32_t mine[2], *all, r;
    unsigned long wrong = 0, failed = 0;
    void *req;
    ucc_status_t st = ucc_boot_init(NULL, &boot);
    if (st != UCC_OK) {
        fprintf(stderr, "ucc_boot_init failed: %s\n", ucc_status_string(st));
        return 1;
    }
    w.rank = ucc_boot_rank(boot);
    w.size = ucc_boot_size(boot);
    w.now = wall_now;
    if (ucc_boot_oob(boot, &w.oob) != UCC_OK) {
        return 1;
    }
    if (w.rank == 0) {
        printf("UCC %s: %u processes, allreduce (float32 sum) and bcast (int32) of %zu elements\n",
               ucc_get_version_string(), w.size, d->count);
        fflush(stdout);
    }
    rank_body(d, &w);
    /* Rank 0 reports for everyone: each rank's verdict through the OOB. */
    mine[0] = (uint32_t)d->errors;
    mine[1] = (uint32_t)d->failures;
    all = malloc(sizeof(mine) * w.size);
    if (all == NULL || w.oob.allgather(mine, all, sizeof(mine), w.oob.coll_info, &req) != UCC_OK) {
        return 1;
    }
    while ((st = w.oob.req_test(req)) == UCC_INPROGRESS) {
    }
    w.oob.req_free(req);
    for (r = 0; r < w.size; ++r) {
        wrong += all[2 * r] != 0;
        failed += all[2 * r + 1] != 0;
    }
    free(all);
    if (w.rank == 0) {
        printf("allreduce: %.3f us wall\n", d->t_allreduce * 1e6);
        printf("bcast:     %.3f us wall\n", d->t_bcast * 1e6);
        printf("results:   %s (%lu ranks wrong, %lu ranks with API failures)\n",
               st == UCC_OK && wrong == 0 && failed == 0 ? "verified on every rank" : "WRONG",
               wrong, failed);
    }
    ucc_boot_finalize(boot);
    return st == UCC_OK && wrong == 0 && failed == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    ucc_sim_params_t params;
    demo_t d;
    struct timespec w0, w1;
    ucc_status_t st;
    int i;

    memset(&params, 0, sizeof(params));
    memset(&d, 0, sizeof(d));
    params.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED;
    params.n_ranks = 1024;
    params.seed = 1;
    d.count = 16384; /* 64 KiB of float32 */
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--ranks") == 0) {
            params.n_ranks = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--seed") == 0) {
            params.seed = strtoull(argv[i + 1], NULL, 10);
        } else if (strcmp(argv[i], "--network") == 0) {
            params.mask |= UCC_SIM_PARAM_FIELD_NETWORK;
            params.network = argv[i + 1];
        } else if (strcmp(argv[i], "--count") == 0) {
            d.count = (size_t)strtoull(argv[i + 1], NULL, 10);
        } else {
            fprintf(stderr, "usage: %s [--ranks N] [--seed S] [--network SPEC] [--count ELEMS]\n",
                    argv[0]);
            return 2;
        }
    }
    if (i < argc) {
        fprintf(stderr, "usage: %s [--ranks N] [--seed S] [--network SPEC] [--count ELEMS]\n",
                argv[0]);
        return 2;
    }
    if (ucc_boot_launched()) {
        return run_launched(&d);
    }
    printf(
        "UCC %s: simulating %u ranks, allreduce (float32 sum) and bcast (int32) of %zu "
        "elements\n",
        ucc_get_version_string(), params.n_ranks, d.count);
    fflush(stdout);
    clock_gettime(CLOCK_MONOTONIC, &w0);
    st = ucc_sim_run(&params, sim_rank_main, &d);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    if (st != UCC_OK) {
        printf("simulation failed: %s\n", ucc_status_string(st));
        return 1;
    }
    printf("allreduce: %.3f us virtual\n", d.t_allreduce * 1e6);
    printf("bcast:     %.3f us virtual\n", d.t_bcast * 1e6);
    printf("results:   %s (%lu ranks wrong, %lu API failures)\n",
           d.errors == 0 && d.failures == 0 ? "verified on every rank" : "WRONG", d.errors,
           d.failures);
    printf("Simulated time: %.9f seconds.\n", ucc_sim_last_time());
    printf("Trace hash: 0x%016llx (seed %llu)\n", (unsigned long long)ucc_sim_trace_hash(),
           (unsigned long long)params.seed);
    printf("Wall time: %.3f s\n",
           (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) * 1e-9);
    return d.errors == 0 && d.failures == 0 ? 0 : 1;
}
