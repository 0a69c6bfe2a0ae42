// Every collective type and algorithm across real processes over UCX, each
// rank's memory (src, dst and guard bytes) checked byte for byte against the
// model after every post.
//
// Run under a launcher, one process per rank:
//   ucc_run -n 4 build/mp_ucx_colls [--quick] [--large]
//   mpirun -np 4 build/mp_ucx_colls --oob mpi     (MPI_Allgather as the OOB)
//
// Every rank builds the whole scenario (all ranks' inputs, the model's images)
// and uses its own part, so no data but the collective's crosses processes.
// Cases: every algorithm of every type (the hierarchical ones on nodes of
// two processes), counts 0/1/odd/multi-block (and, with
// --large, 4 and 64 MiB: UCX rendezvous), in place, 64-bit v-arrays with zero
// blocks, persistent re-posts, teams made from the context (id agreed over
// UCX) and from the OOB, unordered teams with tags posted in rank-dependent
// orders, active sets, ucc_team_create_from_parent, several teams per
// context. Exit 0 when every check passed on this rank.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "lib/coll/coll.h"
#include "lib/core/core.h"
#include "tests/common/scenario.h"
#include "tests/mp/world.h"
#include "ucc/api/ucc.h"

using ucc::testkit::PreparedColl;
using ucc::testkit::Scenario;

namespace {

struct Env {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    std::vector<ucc_team_h> teams;
};

int g_failures = 0;
int g_cases = 0;
uint32_t g_rank = 0;

void fail(const std::string &what) {
    ++g_failures;
    std::fprintf(stderr, "FAIL rank %u: %s\n", g_rank, what.c_str());
}

#define CHECK_OK(call)                                                        \
    do {                                                                      \
        ucc_status_t st_ = (call);                                            \
        if (st_ != UCC_OK) {                                                  \
            fail(std::string(#call) + " returned " + ucc_status_string(st_)); \
            return false;                                                     \
        }                                                                     \
    } while (0)

const char *type_env(ucc_coll_type_t t) {
    switch (t) {
        case UCC_COLL_TYPE_ALLGATHER:
            return "ALLGATHER_ALG";
        case UCC_COLL_TYPE_ALLGATHERV:
            return "ALLGATHERV_ALG";
        case UCC_COLL_TYPE_ALLREDUCE:
            return "ALLREDUCE_ALG";
        case UCC_COLL_TYPE_ALLTOALL:
            return "ALLTOALL_ALG";
        case UCC_COLL_TYPE_ALLTOALLV:
            return "ALLTOALLV_ALG";
        case UCC_COLL_TYPE_BARRIER:
            return "BARRIER_ALG";
        case UCC_COLL_TYPE_BCAST:
            return "BCAST_ALG";
        case UCC_COLL_TYPE_FANIN:
            return "FANIN_ALG";
        case UCC_COLL_TYPE_FANOUT:
            return "FANOUT_ALG";
        case UCC_COLL_TYPE_GATHER:
            return "GATHER_ALG";
        case UCC_COLL_TYPE_GATHERV:
            return "GATHERV_ALG";
        case UCC_COLL_TYPE_REDUCE:
            return "REDUCE_ALG";
        case UCC_COLL_TYPE_REDUCE_SCATTER:
            return "REDUCE_SCATTER_ALG";
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            return "REDUCE_SCATTERV_ALG";
        case UCC_COLL_TYPE_SCATTER:
            return "SCATTER_ALG";
        default:
            return "SCATTERV_ALG";
    }
}

// The algorithms of type t for plain buffers (the one-sided ones need
// mapped memory: mp_ucx_onesided).
std::vector<const char *> two_sided(ucc_coll_type_t t) {
    std::vector<const char *> v;
    for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(t)) {
        if (!a.onesided) {
            v.push_back(a.name);
        }
    }
    return v;
}

bool hierarchical(ucc_coll_type_t t, const std::string &name) {
    for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(t)) {
        if (a.hierarchical && name == a.name) {
            return true;
        }
    }
    return false;
}

// The k-th algorithm of type t (the last one when t has fewer).
const char *alg_name(ucc_coll_type_t t, size_t k) {
    const std::vector<const char *> algs = two_sided(t);
    return algs[std::min(k, algs.size() - 1)];
}

size_t max_algs() {
    size_t m = 0;
    for (ucc_coll_type_t t : ucc::testkit::kAllCollTypes) {
        m = std::max(m, two_sided(t).size());
    }
    return m;
}

bool wait_team(Env &e, ucc_team_h team) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    ucc_status_t st;
    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
        ucc_context_progress(e.ctx);
        if (std::chrono::steady_clock::now() > deadline) {
            fail("team creation did not finish in 60 s");
            return false;
        }
    }
    CHECK_OK(st);
    return true;
}

// A library and a context whose k-th algorithm round is forced, with teams:
// [0] the whole context (no OOB: id agreed over UCX), [1] from the OOB,
// [2] unordered, from the context. The hierarchical algorithms run on nodes
// of two processes (UCC_CLS=basic,hier, NODE_SIZE=2): at 3 processes and
// more, their rounds run two levels.
bool setup(const ucc::mp::World &w, size_t k, Env *e) {
    ucc_lib_config_h lcfg;
    CHECK_OK(ucc_lib_config_read(nullptr, nullptr, &lcfg));
    if (ucc_status_t st = ucc_lib_config_modify(lcfg, "CLS", "basic,hier"); st != UCC_OK) {
        ucc_lib_config_release(lcfg);
        CHECK_OK(st);
    }
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_status_t st = ucc_init(&lp, lcfg, &e->lib);
    ucc_lib_config_release(lcfg);
    CHECK_OK(st);
    ucc_context_config_h ccfg;
    CHECK_OK(ucc_context_config_read(e->lib, nullptr, &ccfg));
    for (ucc_coll_type_t t : ucc::testkit::kAllCollTypes) {
        CHECK_OK(ucc_context_config_modify(ccfg, nullptr, type_env(t), alg_name(t, k)));
    }
    CHECK_OK(ucc_context_config_modify(ccfg, nullptr, "NODE_SIZE", "2"));
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    cp.oob = w.oob;
    st = ucc_context_create(e->lib, &cp, ccfg, &e->ctx);
    ucc_context_config_release(ccfg);
    CHECK_OK(st);
    for (int i = 0; i < 3; ++i) {
        ucc_team_params_t tp{};
        if (i == 1) {
            tp.mask = UCC_TEAM_PARAM_FIELD_OOB;
            tp.oob = w.oob;
        } else {
            tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
            tp.ep = w.rank;
            tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
        }
        if (i == 2) {
            tp.mask |= UCC_TEAM_PARAM_FIELD_ORDERING;
            tp.ordering = UCC_COLLECTIVE_POST_UNORDERED;
        }
        ucc_team_h team;
        CHECK_OK(ucc_team_create_post(&e->ctx, 1, &tp, &team));
        if (!wait_team(*e, team)) {
            return false;
        }
        e->teams.push_back(team);
    }
    return true;
}

void teardown(Env *e) {
    for (ucc_team_h t : e->teams) {
        ucc_status_t st;
        while ((st = ucc_team_destroy(t)) == UCC_INPROGRESS) {
            ucc_context_progress(e->ctx);
        }
        if (st != UCC_OK) {
            fail(std::string("ucc_team_destroy: ") + ucc_status_string(st));
        }
    }
    e->teams.clear();
    if (e->ctx != nullptr && ucc_context_destroy(e->ctx) != UCC_OK) {
        fail("ucc_context_destroy");
    }
    if (e->lib != nullptr && ucc_finalize(e->lib) != UCC_OK) {
        fail("ucc_finalize");
    }
    *e = Env{};
}

// Waits for every request (progressing the context), bounded in time.
bool wait_all(Env &e, std::vector<ucc_coll_req_h> &reqs, const std::string &what) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    for (ucc_coll_req_h r : reqs) {
        ucc_status_t st;
        while ((st = ucc_collective_test(r)) == UCC_INPROGRESS) {
            ucc_context_progress(e.ctx);
            if (std::chrono::steady_clock::now() > deadline) {
                fail(what + ": did not complete in 120 s");
                return false;
            }
        }
        if (st != UCC_OK) {
            fail(what + ": completed with " + ucc_status_string(st));
            return false;
        }
    }
    return true;
}

// One scenario on one team, checked after each post.
void run_case(Env &e, ucc_team_h team, const Scenario &s) {
    PreparedColl pc(s);
    if (!pc.failure().empty()) {
        return;  // the model refuses this combination (e.g. in place where illegal)
    }
    ++g_cases;
    const std::string what = ucc::testkit::describe(s);
    if (!ucc::testkit::is_member(s, g_rank)) {
        return;
    }
    ucc_coll_args_t &args = pc.args(g_rank);
    ucc_coll_req_h req = nullptr;
    ucc_status_t st = ucc_collective_init(&args, &req, team);
    if (st != UCC_OK) {
        fail(what + ": ucc_collective_init returned " + ucc_status_string(st));
        return;
    }
    // (A zero-size collective runs no algorithm.)
    const std::string ran = ucc::core::request_algorithm(req);
    if (hierarchical(s.type, s.alg) && s.n >= 3 && !s.active_set && ran.rfind("none", 0) != 0 &&
        ran != s.alg) {
        fail(what + ": ran " + ran + " on two nodes, not " + s.alg);
    }
    for (uint32_t post = 0; post < s.posts; ++post) {
        if (post > 0) {
            pc.refill(g_rank, post);
        }
        st = ucc_collective_post(req);
        if (st != UCC_OK) {
            fail(what + ": ucc_collective_post returned " + ucc_status_string(st));
            break;
        }
        std::vector<ucc_coll_req_h> one{req};
        if (!wait_all(e, one, what)) {
            break;
        }
        std::string diff = pc.check(g_rank, post);
        if (!diff.empty()) {
            fail(what + " post " + std::to_string(post) + ": " + diff);
            break;
        }
    }
    ucc_collective_finalize(req);
}

// Counts per case: element counts (block counts for block collectives).
std::vector<uint64_t> counts(bool quick, bool large, ucc_datatype_t dt) {
    std::vector<uint64_t> c = {0, 1, 7, 1000};
    if (!quick) {
        c.push_back(65536 / 4 + 3);  // past UCX's eager threshold
    }
    if (large) {
        const uint64_t es = dt == UCC_DT_FLOAT64 ? 8 : 4;
        c.push_back((4u << 20) / es);
        c.push_back((64u << 20) / es);
    }
    return c;
}

void sweep(Env &e, const ucc::mp::World &w, size_t k, bool quick, bool large) {
    for (ucc_coll_type_t t : ucc::testkit::kAllCollTypes) {
        if (k > 0 && two_sided(t).size() <= k) {
            continue;  // this type's algorithms were all run in earlier rounds
        }
        const bool reduction = ucc::testkit::coll_has_reduction(t);
        for (uint64_t count : counts(quick, large && k == 0, UCC_DT_INT32)) {
            const bool big = count > (1u << 20);
            if (big && t != UCC_COLL_TYPE_ALLREDUCE && t != UCC_COLL_TYPE_BCAST &&
                t != UCC_COLL_TYPE_ALLGATHER && t != UCC_COLL_TYPE_ALLTOALL &&
                t != UCC_COLL_TYPE_REDUCE_SCATTER) {
                continue;
            }
            for (int inplace = 0; inplace < (big ? 1 : 2); ++inplace) {
                Scenario s;
                s.n = w.size;
                s.type = t;
                s.dt = reduction && count % 2 ? UCC_DT_FLOAT64 : UCC_DT_INT32;
                s.op = UCC_OP_SUM;
                s.count = big && (t == UCC_COLL_TYPE_ALLGATHER || t == UCC_COLL_TYPE_ALLTOALL ||
                                  t == UCC_COLL_TYPE_REDUCE_SCATTER)
                              ? count / w.size
                              : count;
                s.inplace = inplace != 0;
                s.root = static_cast<uint32_t>((count + k) % w.size);
                s.posts = big ? 1 : (count == 7 ? 3 : 1);
                s.wide_counts = count == 1000;
                s.wide_displs = count == 1000;
                s.value_seed = count * 31 + k;
                s.alg = alg_name(t, k);
                if (!ucc::testkit::alg_can_run(s)) {
                    continue;  // refused on this team size (allgather neighbor, odd n)
                }
                run_case(e, e.teams[count % 2], s);
            }
        }
    }
}

// Unordered team: every rank posts the same tagged collectives in its own order.
void unordered(Env &e, const ucc::mp::World &w) {
    const ucc_coll_type_t types[] = {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_BCAST,
                                     UCC_COLL_TYPE_ALLGATHER, UCC_COLL_TYPE_ALLTOALL};
    std::vector<std::unique_ptr<PreparedColl>> pcs;
    for (size_t i = 0; i < 4; ++i) {
        Scenario s;
        s.n = w.size;
        s.type = types[i];
        s.count = 33 + i;
        s.tag = static_cast<int64_t>(100 + i);
        s.value_seed = 900 + i;
        pcs.push_back(std::make_unique<PreparedColl>(s));
        if (!pcs.back()->failure().empty()) {
            fail("unordered: " + pcs.back()->failure());
            return;
        }
    }
    ++g_cases;
    std::vector<ucc_coll_req_h> reqs(4);
    for (size_t j = 0; j < 4; ++j) {
        const size_t i = (j + g_rank) % 4;  // rank-dependent order
        ucc_coll_args_t &a = pcs[i]->args(g_rank);
        if (ucc_collective_init_and_post(&a, &reqs[i], e.teams[2]) != UCC_OK) {
            fail("unordered: init_and_post");
            return;
        }
    }
    if (wait_all(e, reqs, "unordered")) {
        for (size_t i = 0; i < 4; ++i) {
            std::string diff = pcs[i]->check(g_rank, 0);
            if (!diff.empty()) {
                fail("unordered op " + std::to_string(i) + ": " + diff);
            }
        }
    }
    for (ucc_coll_req_h r : reqs) {
        ucc_collective_finalize(r);
    }
}

// Active sets and a split team.
void subsets(Env &e, const ucc::mp::World &w) {
    if (w.size >= 2) {
        Scenario s;
        s.n = w.size;
        s.type = UCC_COLL_TYPE_ALLREDUCE;
        s.count = 100;
        s.active_set = true;
        s.as_start = 1;
        s.as_stride = 1;
        s.as_size = w.size - 1;
        s.root = 1;
        run_case(e, e.teams[0], s);
        s.type = UCC_COLL_TYPE_BCAST;
        run_case(e, e.teams[0], s);
    }
    // Split: the even ranks form a team and run an allreduce on it.
    ucc_team_h child;
    const uint32_t included = g_rank % 2 == 0;
    if (ucc_team_create_from_parent(g_rank, included, e.teams[0], &child) != UCC_OK) {
        fail("ucc_team_create_from_parent");
        return;
    }
    if (!wait_team(e, child)) {
        return;
    }
    ++g_cases;
    if (included) {
        Scenario s;
        s.n = (w.size + 1) / 2;
        s.type = UCC_COLL_TYPE_ALLREDUCE;
        s.count = 257;
        s.value_seed = 77;
        PreparedColl pc(s);
        const uint32_t me = g_rank / 2;
        ucc_coll_req_h req;
        if (ucc_collective_init_and_post(&pc.args(me), &req, child) == UCC_OK) {
            std::vector<ucc_coll_req_h> one{req};
            if (wait_all(e, one, "split allreduce")) {
                uint32_t saved = g_rank;
                std::string diff = pc.check(me, 0);
                g_rank = saved;
                if (!diff.empty()) {
                    fail("split allreduce: " + diff);
                }
            }
            ucc_collective_finalize(req);
        } else {
            fail("split allreduce: init_and_post");
        }
    }
    ucc_status_t st;
    while ((st = ucc_team_destroy(child)) == UCC_INPROGRESS) {
        ucc_context_progress(e.ctx);
    }
}

}  // namespace

int main(int argc, char **argv) {
    bool quick = false;
    bool large = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (std::strcmp(argv[i], "--large") == 0) {
            large = true;
        }
    }
    ucc::mp::World w;
    std::string err;
    if (!ucc::mp::world_init(argc, argv, &w, &err)) {
        std::fprintf(stderr, "mp_ucx_colls: %s\n", err.c_str());
        return 2;
    }
    g_rank = w.rank;
    const size_t rounds = max_algs();
    for (size_t k = 0; k < rounds; ++k) {
        Env e;
        if (setup(w, k, &e)) {
            sweep(e, w, k, quick, large);
            if (k == 0) {
                unordered(e, w);
                subsets(e, w);
            }
        }
        teardown(&e);
    }
    ucc::mp::world_finalize(&w);
    std::printf("rank %u: %d cases, %d failures\n", w.rank, g_cases, g_failures);
    return g_failures == 0 ? 0 : 1;
}
