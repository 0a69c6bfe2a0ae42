/*
 * train_loop: what a data-parallel training loop asks of UCC, as a plain C99
 * program whose one rank body runs as real processes under a launcher
 * (ucc_run, mpirun, srun) over UCX, or as N simulated ranks in this process.
 * The sample traces of traces/samples/ are its recordings (record.sh).
 *
 * Every step: three gradient buckets (float32 sum allreduce of 256K, 64K and
 * 1K elements) posted together and waited for together, an allgather of 32
 * float64 "parameters", a bcast of an int32 "continue" flag from rank 0; every
 * second step an int64 max allreduce on the team of the even ranks (a split of
 * the world). Results are checked on every rank.
 *
 * --desync R makes rank R post a bcast where the others post their second
 * bucket at step 2 (every collective of that step then has a 2 s timeout, so
 * the run ends): the recording of a desynchronised job.
 *
 *   ucc_run -n 4 train_loop [--steps N] [--desync R]
 *   train_loop --ranks N [--steps N] [--desync R]        (simulated)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ucc/api/ucc.h>
#include <ucc/boot/ucc_boot.h>
#include <ucc/sim/ucc_sim.h>

typedef struct {
    int steps;
    int desync; /* -1: none */
    unsigned long wrong;
    unsigned long failed;
} job_t;

#define NB 3
static const size_t kBucket[NB] = {262144, 65536, 1024};
#define NPARAM 32

static ucc_status_t wait_req(ucc_coll_req_h req, ucc_context_h ctx) {
    ucc_status_t st;
    while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    return st;
}

static ucc_status_t run(ucc_coll_args_t *a, ucc_team_h team, ucc_context_h ctx) {
    ucc_coll_req_h req;
    ucc_status_t st = ucc_collective_init(a, &req, team);
    if (st != UCC_OK) {
        return st;
    }
    st = ucc_collective_post(req);
    if (st == UCC_OK) {
        st = wait_req(req, ctx);
    }
    ucc_collective_finalize(req);
    return st;
}

static void info(ucc_coll_buffer_info_t *b, void *p, size_t n, ucc_datatype_t dt) {
    b->buffer = p;
    b->count = n;
    b->datatype = dt;
    b->mem_type = UCC_MEMORY_TYPE_HOST;
}

/* One step; 0 on success. */
static int step(job_t *j, int s, uint32_t rank, uint32_t n, ucc_context_h ctx, ucc_team_h world,
                ucc_team_h even, float **grad, float **sum, double *param, double *all) {
    ucc_coll_args_t a[NB];
    ucc_coll_req_h req[NB];
    ucc_status_t st;
    size_t b, i;
    int desync = j->desync >= 0 && s == 2;
    int32_t flag;
    for (b = 0; b < NB; ++b) {
        for (i = 0; i < kBucket[b]; ++i) {
            grad[b][i] = (float)((rank + i + (size_t)s) % 4);
        }
        memset(&a[b], 0, sizeof(a[b]));
        a[b].coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a[b].op = UCC_OP_SUM;
        info(&a[b].src.info, grad[b], kBucket[b], UCC_DT_FLOAT32);
        info(&a[b].dst.info, sum[b], kBucket[b], UCC_DT_FLOAT32);
        if (desync && (int)rank == j->desync && b == 1) {
            memset(&a[b], 0, sizeof(a[b]));
            a[b].coll_type = UCC_COLL_TYPE_BCAST;
            a[b].root = 0;
            info(&a[b].src.info, grad[b], 16, UCC_DT_FLOAT32);
        }
        if (desync) {
            a[b].mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a[b].flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
            a[b].timeout = 2.0;
        }
        if ((st = ucc_collective_init(&a[b], &req[b], world)) != UCC_OK ||
            (st = ucc_collective_post(req[b])) != UCC_OK) {
            fprintf(stderr, "rank %u: step %d bucket %zu: %s\n", rank, s, b,
                    ucc_status_string(st));
            return 1;
        }
    }
    {
        int failed = 0;
        for (b = 0; b < NB; ++b) { /* every bucket ends (a failed one too) before any check */
            st = wait_req(req[b], ctx);
            ucc_collective_finalize(req[b]);
            if (st != UCC_OK) {
                fprintf(stderr, "rank %u: step %d bucket %zu: %s\n", rank, s, b,
                        ucc_status_string(st));
                failed = 1;
            }
        }
        if (failed) {
            return 1;
        }
    }
    for (b = 0; b < NB; ++b) {
        for (i = 0; i < kBucket[b]; i += 997) {
            size_t r, want = 0;
            for (r = 0; r < n; ++r) {
                want += (r + i + (size_t)s) % 4;
            }
            if (sum[b][i] != (float)want) {
                j->wrong++;
                break;
            }
        }
    }
    memset(&a[0], 0, sizeof(a[0]));
    a[0].coll_type = UCC_COLL_TYPE_ALLGATHER;
    for (i = 0; i < NPARAM; ++i) {
        param[i] = rank * 100.0 + (double)i;
    }
    info(&a[0].src.info, param, NPARAM, UCC_DT_FLOAT64);
    info(&a[0].dst.info, all, NPARAM * n, UCC_DT_FLOAT64);
    if ((st = run(&a[0], world, ctx)) != UCC_OK) {
        return 1;
    }
    if (all[NPARAM * (n - 1) + 1] != (n - 1) * 100.0 + 1) {
        j->wrong++;
    }
    flag = rank == 0 ? s + 1 : -1;
    memset(&a[0], 0, sizeof(a[0]));
    a[0].coll_type = UCC_COLL_TYPE_BCAST;
    info(&a[0].src.info, &flag, 1, UCC_DT_INT32);
    if ((st = run(&a[0], world, ctx)) != UCC_OK) {
        return 1;
    }
    if (flag != s + 1) {
        j->wrong++;
    }
    if (s % 2 == 1 && rank % 2 == 0) {
        int64_t v = rank, m = -1;
        memset(&a[0], 0, sizeof(a[0]));
        a[0].coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a[0].op = UCC_OP_MAX;
        info(&a[0].src.info, &v, 1, UCC_DT_INT64);
        info(&a[0].dst.info, &m, 1, UCC_DT_INT64);
        if ((st = run(&a[0], even, ctx)) != UCC_OK) {
            return 1;
        }
        if (m != (int64_t)((n - 1) / 2 * 2)) {
            j->wrong++;
        }
    }
    return 0;
}

static void body(job_t *j, uint32_t rank, uint32_t n, ucc_oob_coll_t oob) {
    ucc_lib_config_h lc;
    ucc_lib_params_t lp;
    ucc_lib_h lib;
    ucc_context_params_t cp;
    ucc_context_h ctx;
    ucc_team_params_t tp;
    ucc_team_h world, even;
    ucc_status_t st;
    float *grad[NB], *sum[NB];
    double param[NPARAM], *all;
    size_t b;
    int s, bad = 0;

    memset(&lp, 0, sizeof(lp));
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    if (ucc_lib_config_read(NULL, NULL, &lc) != UCC_OK || ucc_init(&lp, lc, &lib) != UCC_OK) {
        j->failed++;
        return;
    }
    ucc_lib_config_release(lc);
    memset(&cp, 0, sizeof(cp));
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    cp.oob = oob;
    if (ucc_context_create(lib, &cp, NULL, &ctx) != UCC_OK) {
        j->failed++;
        return;
    }
    memset(&tp, 0, sizeof(tp));
    tp.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.oob = oob;
    tp.ep = rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    st = ucc_team_create_post(&ctx, 1, &tp, &world);
    if (st == UCC_OK) {
        while ((st = ucc_team_create_test(world)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
    }
    if (st == UCC_OK) {
        st = ucc_team_create_from_parent(rank, rank % 2 == 0, world, &even);
        if (st == UCC_OK) {
            while ((st = ucc_team_create_test(even)) == UCC_INPROGRESS) {
                ucc_context_progress(ctx);
            }
        }
    }
    if (st != UCC_OK) {
        fprintf(stderr, "rank %u: team creation: %s\n", rank, ucc_status_string(st));
        j->failed++;
        return;
    }
    for (b = 0; b < NB; ++b) {
        grad[b] = malloc(kBucket[b] * sizeof(float));
        sum[b] = malloc(kBucket[b] * sizeof(float));
    }
    all = malloc(NPARAM * n * sizeof(double));
    for (s = 0; s < j->steps && !bad; ++s) {
        bad = step(j, s, rank, n, ctx, world, even, grad, sum, param, all);
    }
    if (bad) {
        j->failed++;
    }
    for (b = 0; b < NB; ++b) {
        free(grad[b]);
        free(sum[b]);
    }
    free(all);
    while (ucc_team_destroy(even) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    while (ucc_team_destroy(world) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    ucc_context_destroy(ctx);
    ucc_finalize(lib);
}

static void sim_rank(void *arg) {
    ucc_oob_coll_t oob;
    if (ucc_sim_oob(&oob) != UCC_OK) {
        ((job_t *)arg)->failed++;
        return;
    }
    body((job_t *)arg, ucc_sim_rank(), ucc_sim_size(), oob);
}

int main(int argc, char **argv) {
    job_t j;
    ucc_sim_params_t p;
    int i;
    memset(&j, 0, sizeof(j));
    memset(&p, 0, sizeof(p));
    j.steps = 4;
    j.desync = -1;
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS;
    p.n_ranks = 4;
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--steps") == 0) {
            j.steps = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--desync") == 0) {
            j.desync = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--ranks") == 0) {
            p.n_ranks = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        } else {
            break;
        }
    }
    if (i < argc) {
        fprintf(stderr, "usage: %s [--ranks N] [--steps N] [--desync R]\n", argv[0]);
        return 2;
    }
    if (ucc_boot_launched()) {
        ucc_boot_h boot;
        ucc_oob_coll_t oob;
        uint32_t rank;
        if (ucc_boot_init(NULL, &boot) != UCC_OK || ucc_boot_oob(boot, &oob) != UCC_OK) {
            return 1;
        }
        rank = ucc_boot_rank(boot);
        body(&j, rank, ucc_boot_size(boot), oob);
        ucc_boot_finalize(boot);
        if (rank == 0 || j.wrong > 0 || j.failed > 0) {
            printf("train_loop: rank %u: %d steps, %s\n", rank, j.steps,
                   j.wrong == 0 && j.failed == 0 ? "results verified" : "FAILED");
        }
        return j.wrong == 0 && j.failed == 0 ? 0 : 1;
    }
    if (ucc_sim_run(&p, sim_rank, &j) != UCC_OK) {
        return 1;
    }
    printf("train_loop: %u simulated ranks, %d steps, %s\n", p.n_ranks, j.steps,
           j.wrong == 0 && j.failed == 0 ? "results verified" : "FAILED");
    return j.wrong == 0 && j.failed == 0 ? 0 : 1;
}
