// P37 and "never abort": an allocation that fails anywhere in the library
// becomes a status. Before, a std::bad_alloc inside a collective reached the
// coroutine's unhandled_exception, which terminated the process (`ulimit -v
// 1300000; ucc_sim -np 2 -c allreduce -b 256M -e 256M -i 1 --alg ring`), and
// scratch memory was allocated by the first post instead of by
// ucc_collective_init.
//
// This binary replaces the global allocation functions so that the k-th
// allocation after arming fails, and sweeps k over every allocation a
// simulated rank's program makes: library, context and team creation, the
// initialisation, posts and tests of collectives whose algorithms use scratch
// memory, and their destruction. For every k the program must see an error
// status (never a crash or a terminate), no call may hand back a handle when
// it failed, and what it created must then be destroyed cleanly (the ASan
// build's leak checker sees anything left behind). The sweep ends when a run
// makes no failed allocation: every allocation site has been failed in turn.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "include/ucc/sim/ucc_sim.h"
#include "tests/common/scenario.h"
#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace {
// Allocations left before the failing one (armed when >= 0), counted only
// while the simulator runs rank 0's code (its library calls included), and
// how many failed.
std::atomic<int64_t> g_countdown{-1};
std::atomic<uint64_t> g_failed{0};

bool in_rank_zero() {
    const ucc::sim::Cluster *c = ucc::sim::Cluster::current();
    return c != nullptr && c->running_rank() == 0;
}

void *counted_alloc(size_t n) {
    int64_t left = g_countdown.load(std::memory_order_relaxed);
    while (left >= 0 && in_rank_zero()) {
        if (g_countdown.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) {
            if (left == 0) {
                g_failed.fetch_add(1, std::memory_order_relaxed);
                return nullptr;
            }
            break;
        }
    }
    return std::malloc(n == 0 ? 1 : n);
}
}  // namespace

void *operator new(size_t n) {
    if (void *p = counted_alloc(n)) {
        return p;
    }
    throw std::bad_alloc();
}
void *operator new(size_t n, const std::nothrow_t &) noexcept {
    return counted_alloc(n);
}
void *operator new[](size_t n) {
    if (void *p = counted_alloc(n)) {
        return p;
    }
    throw std::bad_alloc();
}
void *operator new[](size_t n, const std::nothrow_t &) noexcept {
    return counted_alloc(n);
}
void operator delete(void *p) noexcept {
    std::free(p);
}
void operator delete(void *p, size_t) noexcept {
    std::free(p);
}
void operator delete[](void *p) noexcept {
    std::free(p);
}
void operator delete[](void *p, size_t) noexcept {
    std::free(p);
}

namespace {

constexpr int kSentinel = 0x5e;
template <class H>
H sentinel() {
    return reinterpret_cast<H>(const_cast<int *>(&kSentinel));
}

constexpr uint64_t kCount = 1000;  // elements per block of the collectives

struct Program {
    uint32_t n = 1;
    int64_t fail_at = -1;  // rank 0's allocation to fail, counted from arming
    // Armed once the team exists (with a peer: a rank that fails before its
    // peer's context and team creation completes leaves that peer waiting in
    // the OOB exchange, which has no timeout in UCC 1.3).
    bool arm_after_team = false;
    std::vector<std::string> errors;  // per rank: what went wrong (a defect)
    std::vector<ucc_status_t> first_error;
    std::vector<std::vector<int32_t>> src;  // per rank, kCount * n elements
    std::vector<std::vector<int32_t>> dst;
};

std::string check_handle(const char *call, ucc_status_t st, const void *h, const void *sentinel) {
    if (st != UCC_OK && h != sentinel && h != nullptr) {
        return std::string(call) + " failed (" + ucc_status_string(st) + ") but set a handle";
    }
    if (st != UCC_OK && st != UCC_ERR_NO_MEMORY && st != UCC_ERR_TIMED_OUT &&
        st != UCC_ERR_NO_MESSAGE && st != UCC_ERR_NO_RESOURCE) {
        return std::string(call) + " failed with " + ucc_status_string(st) +
               " (an allocation failure is UCC_ERR_NO_MEMORY)";
    }
    return "";
}

// One collective: init, post, wait (with a timeout: a peer whose own
// allocation failed may never join), finalize.
// `src` and `dst` hold kCount * n elements (allocated before arming: only
// the library's allocations are failed).
ucc_status_t run_coll(ucc_team_h team, ucc_context_h ctx, ucc_coll_type_t type, bool inplace,
                      uint32_t n, int32_t *src, int32_t *dst, std::string *error) {
    const uint64_t count = kCount;
    ucc_coll_args_t a{};
    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT | (inplace ? UCC_COLL_ARGS_FLAG_IN_PLACE : 0);
    a.timeout = 1.0;
    a.coll_type = type;
    a.op = UCC_OP_SUM;
    // Allreduce: count elements in and out; allgather: count in, n blocks
    // out; alltoall: n blocks in and out.
    const uint64_t total = type == UCC_COLL_TYPE_ALLREDUCE ? count : count * n;
    a.src.info = {src, type == UCC_COLL_TYPE_ALLTOALL ? total : count, UCC_DT_INT32,
                  UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst, total, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    ucc_coll_req_h req = sentinel<ucc_coll_req_h>();
    ucc_status_t st = ucc_collective_init(&a, &req, team);
    *error = check_handle("ucc_collective_init", st, req, sentinel<ucc_coll_req_h>());
    if (st != UCC_OK) {
        return st;
    }
    st = ucc_collective_post(req);
    if (st == UCC_OK) {
        ucc_status_t progressed = UCC_OK;
        while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
            const ucc_status_t pst = ucc_context_progress(ctx);
            if (pst < 0 && progressed == UCC_OK) {
                progressed = pst;  // reported; the request still completes or times out
            }
        }
        if (st == UCC_OK && progressed != UCC_OK) {
            st = progressed;
        }
    }
    if (st != UCC_OK) {
        *error = check_handle("a collective", st, nullptr, nullptr);
    }
    const ucc_status_t fin = ucc_collective_finalize(req);
    if (fin != UCC_OK && error->empty()) {
        *error = std::string("ucc_collective_finalize: ") + ucc_status_string(fin);
    }
    return st;
}

void rank_program(Program &p, uint32_t rank) {
    auto arm = [&p, rank] {
        if (p.fail_at >= 0 && rank == 0) {
            g_countdown.store(p.fail_at, std::memory_order_relaxed);
        }
    };
    if (!p.arm_after_team) {
        arm();
    }
    ucc_status_t first = UCC_OK;
    std::string &error = p.errors[rank];
    auto note = [&](const char *call, ucc_status_t st, const void *h, const void *sentinel) {
        if (st != UCC_OK && first == UCC_OK) {
            first = st;
        }
        if (error.empty()) {
            error = check_handle(call, st, h, sentinel);
        }
        return st == UCC_OK;
    };
    ucc::testkit::RankEnv env;
    ucc_lib_config_h lcfg = sentinel<ucc_lib_config_h>();
    ucc_status_t st = ucc_lib_config_read(nullptr, nullptr, &lcfg);
    if (note("ucc_lib_config_read", st, lcfg, sentinel<ucc_lib_config_h>())) {
        ucc_lib_params_t lp{};
        lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
        lp.thread_mode = UCC_THREAD_SINGLE;
        env.lib = sentinel<ucc_lib_h>();
        st = ucc_init(&lp, lcfg, &env.lib);
        if (!note("ucc_init", st, env.lib, sentinel<ucc_lib_h>())) {
            env.lib = nullptr;
        }
        ucc_lib_config_release(lcfg);
    }
    ucc_context_config_h ccfg = sentinel<ucc_context_config_h>();
    if (env.lib != nullptr) {
        st = ucc_context_config_read(env.lib, nullptr, &ccfg);
        if (!note("ucc_context_config_read", st, ccfg, sentinel<ucc_context_config_h>())) {
            ccfg = nullptr;
        }
        // Algorithms that use scratch memory, in place and not.
        static const char *const kAlgs[][2] = {{"ALLREDUCE_ALG", "recursive_doubling"},
                                               {"ALLGATHER_ALG", "bruck"},
                                               {"ALLTOALL_ALG", "bruck"}};
        for (const auto &kv : kAlgs) {
            if (ccfg != nullptr) {
                st = ucc_context_config_modify(ccfg, nullptr, kv[0], kv[1]);
                note("ucc_context_config_modify", st, nullptr, nullptr);
            }
        }
    }
    if (env.lib != nullptr && ccfg != nullptr) {
        ucc_context_params_t cp{};
        cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
        st = ucc_sim_oob(&cp.oob);
        if (note("ucc_sim_oob", st, nullptr, nullptr)) {
            env.ctx = sentinel<ucc_context_h>();
            st = ucc_context_create(env.lib, &cp, ccfg, &env.ctx);
            if (!note("ucc_context_create", st, env.ctx, sentinel<ucc_context_h>())) {
                env.ctx = nullptr;
            }
        }
        ucc_context_config_release(ccfg);
    }
    if (env.ctx != nullptr) {
        ucc_team_params_t tp{};
        tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE |
                  UCC_TEAM_PARAM_FIELD_TEAM_SIZE | UCC_TEAM_PARAM_FIELD_EP_MAP;
        tp.ep = rank;
        tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
        tp.team_size = p.n;
        tp.ep_map.type = UCC_EP_MAP_FULL;
        tp.ep_map.ep_num = p.n;
        env.team = sentinel<ucc_team_h>();
        st = ucc_team_create_post(&env.ctx, 1, &tp, &env.team);
        if (!note("ucc_team_create_post", st, env.team, sentinel<ucc_team_h>())) {
            env.team = nullptr;
        } else {
            // Bounded: a peer whose own allocation failed never joins.
            for (int i = 0; i < 200000 && (st = ucc_team_create_test(env.team)) == UCC_INPROGRESS;
                 ++i) {
                note("ucc_context_progress", ucc_context_progress(env.ctx), nullptr, nullptr);
                ucc_sim_compute(1e-5);
            }
            note("ucc_team_create_test", st, nullptr, nullptr);
        }
    }
    if (env.team != nullptr && first == UCC_OK) {
        if (p.arm_after_team) {
            arm();
        }
        for (ucc_coll_type_t type :
             {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_ALLGATHER, UCC_COLL_TYPE_ALLTOALL}) {
            for (bool inplace : {false, true}) {
                std::string e;
                st = run_coll(env.team, env.ctx, type, inplace, p.n, p.src[rank].data(),
                              p.dst[rank].data(), &e);
                if (st != UCC_OK && first == UCC_OK) {
                    first = st;
                }
                if (!e.empty() && error.empty()) {
                    error = e;
                }
                if (st != UCC_OK && rank == 0) {
                    break;  // as an application would: its peer then times out
                }
            }
            if (first != UCC_OK && rank == 0) {
                break;
            }
        }
    }
    if (rank == 0) {
        g_countdown.store(-1, std::memory_order_relaxed);  // destruction: nothing fails
    }
    const std::string down = ucc::testkit::teardown(&env);
    if (!down.empty() && error.empty()) {
        error = "teardown: " + down;
    }
    p.first_error[rank] = first;
}

// Runs the program with allocation `fail_at` failing; returns whether it failed.
bool run_once(Program &p) {
    p.errors.assign(p.n, "");
    p.first_error.assign(p.n, UCC_OK);
    p.src.assign(p.n, std::vector<int32_t>(kCount * p.n, 1));
    p.dst.assign(p.n, std::vector<int32_t>(kCount * p.n, 0));
    g_failed.store(0);
    ucc::sim::ClusterParams cp;
    cp.n_ranks = p.n;
    const ucc::sim::RunResult run = ucc::sim::run(cp, [&p](uint32_t r) { rank_program(p, r); });
    g_countdown.store(-1);
    EXPECT_EQ(run.status, UCC_OK) << "fail_at " << p.fail_at << ": " << run.report;
    for (uint32_t r = 0; r < p.n; ++r) {
        EXPECT_EQ(p.errors[r], "") << "fail_at " << p.fail_at << ", rank " << r;
    }
    // A failed allocation may also be absorbed (a pool that could not grow
    // frees instead of keeping): then every call may succeed.
    const bool failed = g_failed.load() > 0;
    return failed;
}

void sweep(uint32_t n) {
    Program p;
    p.n = n;
    p.arm_after_team = n > 1;
    // The clean run first: everything succeeds.
    p.fail_at = -1;
    ASSERT_FALSE(run_once(p));
    ASSERT_EQ(p.first_error[0], UCC_OK);
    int64_t k = 0;
    if (const char *at = std::getenv("UCC_TEST_FAIL_AT")) {  // one site, to debug it
        p.fail_at = std::atoll(at);
        run_once(p);
        return;
    }
    for (; k < 100000; ++k) {
        p.fail_at = k;
        if (!run_once(p)) {
            break;
        }
        if (::testing::Test::HasFailure()) {
            return;
        }
    }
    EXPECT_GT(k, 10) << "the sweep failed suspiciously few allocation sites";
    std::printf("allocation sites failed in turn: %lld (%u rank(s))\n", static_cast<long long>(k),
                n);
}

}  // namespace

TEST(Regress, EveryAllocationOfOneRankFailsIntoAStatus) {
    sweep(1);
}

TEST(Regress, EveryAllocationOfRankZeroFailsIntoAStatusWhileItsPeerGoesOn) {
    sweep(2);
}
