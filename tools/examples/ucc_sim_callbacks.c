/*
 * ucc_sim_callbacks: a UCC program in completion-callback style on simulated
 * ranks without a fiber (UCC_SIM_FLAG_FIBERLESS): no stack per rank.
 *
 *   cc -std=c99 -I include tools/examples/ucc_sim_callbacks.c -L build -lucc -o cb
 *   ./cb [ranks (default 4096)] [iterations (default 10)]
 *
 * Each rank's start creates a library and a context without an OOB, posts a
 * team over the simulator's OOB and returns (a context over ucc_sim_oob()
 * with a team over its eps works too: the context learns its peers in the
 * rank's later passes, and the team waits for that). A progress hook
 * (ucc_sim_on_progress) waits for the team and posts the first allreduce;
 * each allreduce's callback checks the sum and asks for the next one, which
 * the hook posts (a hook, not the callback, posts: a collective that
 * completes inside its post never recurses); after the last, the hook tears
 * everything down and completes. Prints one line; exit status 0 when every
 * rank got every sum right.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <ucc/api/ucc.h>
#include <ucc/sim/ucc_sim.h>

enum { COUNT = 4 };

struct rank {
    ucc_lib_h lib;
    ucc_context_h ctx;
    ucc_team_h team;
    ucc_coll_req_h req; /* in flight, or completed and not yet finalized */
    int completed;      /* req's callback has run */
    unsigned done;      /* allreduces checked */
    int64_t src[COUNT];
    int64_t dst[COUNT];
};

static struct rank *ranks;
static unsigned iterations = 10;
static unsigned long wrong, failed, finished;

static void on_allreduce(void *data, ucc_status_t status) {
    struct rank *r = data;
    r->completed = 1;
    if (status != UCC_OK) {
        failed++;
    }
}

static int post_allreduce(struct rank *r) {
    ucc_coll_args_t a = {0};
    uint32_t me = ucc_sim_rank();
    for (int i = 0; i < COUNT; ++i) {
        r->src[i] = (int64_t)me + i + r->done;
    }
    a.mask = UCC_COLL_ARGS_FIELD_CB;
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = (ucc_coll_buffer_info_t){r->src, COUNT, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.dst.info = (ucc_coll_buffer_info_t){r->dst, COUNT, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.cb.cb = on_allreduce;
    a.cb.data = r;
    r->completed = 0;
    return ucc_collective_init(&a, &r->req, r->team) == UCC_OK &&
           ucc_collective_post(r->req) == UCC_OK;
}

/* The rank's program after its start: run after every pass of progress. */
static ucc_status_t drive(void *arg) {
    struct rank *r = arg;
    int64_t n = ucc_sim_size();
    if (r->req == NULL) { /* the team is being made */
        ucc_status_t st = ucc_team_create_test(r->team);
        if (st == UCC_INPROGRESS) {
            return st;
        }
        if (st != UCC_OK || !post_allreduce(r)) {
            failed++;
            ucc_sim_exit();
            return UCC_OK;
        }
    }
    while (r->completed) {
        ucc_collective_finalize(r->req);
        for (int i = 0; i < COUNT; ++i) { /* sum over ranks q of q + i + done */
            wrong += r->dst[i] != n * (n - 1) / 2 + n * (i + (int64_t)r->done);
        }
        if (++r->done < iterations) {
            if (!post_allreduce(r)) {
                failed++;
                ucc_sim_exit();
                return UCC_OK;
            }
            continue;
        }
        ucc_team_destroy(r->team);
        ucc_context_destroy(r->ctx);
        ucc_finalize(r->lib);
        finished++;
        return UCC_OK;
    }
    return UCC_INPROGRESS;
}

static void start(void *arg) {
    struct rank *r = &ranks[ucc_sim_rank()];
    ucc_lib_config_h lcfg;
    ucc_lib_params_t lp = {.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE,
                           .thread_mode = UCC_THREAD_SINGLE};
    ucc_context_params_t cp = {0}; /* no OOB: creating the context is local */
    ucc_team_params_t tp = {.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP |
                                    UCC_TEAM_PARAM_FIELD_EP_RANGE,
                            .ep = ucc_sim_rank(),
                            .ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG};
    (void)arg;
    ucc_sim_oob(&tp.oob);
    if (ucc_lib_config_read(NULL, NULL, &lcfg) != UCC_OK) {
        failed++;
        return;
    }
    ucc_status_t st = ucc_init(&lp, lcfg, &r->lib);
    ucc_lib_config_release(lcfg);
    if (st != UCC_OK || ucc_context_create(r->lib, &cp, NULL, &r->ctx) != UCC_OK ||
        ucc_team_create_post(&r->ctx, 1, &tp, &r->team) != UCC_OK ||
        ucc_sim_on_progress(drive, r) != UCC_OK) {
        failed++;
        ucc_sim_exit();
    }
}

int main(int argc, char **argv) {
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 4096;
    if (argc > 2) {
        iterations = (unsigned)strtoul(argv[2], NULL, 10);
    }
    if (n == 0 || iterations == 0 || (ranks = calloc(n, sizeof(*ranks))) == NULL) {
        fprintf(stderr, "usage: %s [ranks > 0] [iterations > 0]\n", argv[0]);
        return 2;
    }
    ucc_sim_params_t p = {.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS,
                          .n_ranks = n,
                          .flags = UCC_SIM_FLAG_QUIET | UCC_SIM_FLAG_FIBERLESS};
    ucc_status_t st = ucc_sim_run(&p, start, NULL);
    printf("%u ranks without a fiber, %u allreduces each: %s (%lu wrong, %lu failed, %lu "
           "finished); %.3f us virtual, %llu events, %llu stack switches\n",
           n, iterations, st == UCC_OK && wrong == 0 && failed == 0 && finished == n ? "ok" : "FAILED",
           wrong, failed, finished, ucc_sim_last_time() * 1e6,
           (unsigned long long)ucc_sim_last_events(), (unsigned long long)ucc_sim_last_resumes());
    free(ranks);
    return st == UCC_OK && wrong == 0 && failed == 0 && finished == n ? 0 : 1;
}
