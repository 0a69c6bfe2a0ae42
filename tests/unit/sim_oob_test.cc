// The cluster's OOB allgather, the C API (ucc_sim.h) and OOB deadlocks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "transports/sim/cluster.h"
#include "transports/sim/sim_transport.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::sim {
namespace {

ClusterParams params(uint32_t n, const char *net, uint64_t seed = 1) {
    ClusterParams p;
    p.n_ranks = n;
    p.seed = seed;
    std::string err;
    EXPECT_EQ(parse_network(net, &p.net, &err), UCC_OK) << err;
    return p;
}

// One blocking allgather through the OOB callbacks, as a UCC context would do it.
ucc_status_t allgather(ucc_oob_coll_t &o, const void *src, void *dst, size_t size) {
    void *req = nullptr;
    ucc_status_t st = o.allgather(const_cast<void *>(src), dst, size, o.coll_info, &req);
    if (st != UCC_OK) {
        return st;
    }
    while ((st = o.req_test(req)) == UCC_INPROGRESS) {
    }
    o.req_free(req);
    return st;
}

void check_allgathers(uint32_t n) {
    RunResult res = run(params(n, "hdr", n), [n](uint32_t r) {
        ucc_oob_coll_t o;
        ASSERT_EQ(oob(&o), UCC_OK);
        EXPECT_EQ(o.n_oob_eps, n);
        EXPECT_EQ(o.oob_ep, r);
        // Two rounds of different sizes; the k-th call matches everyone's k-th.
        uint64_t mine = uint64_t(r) * 3 + 1;
        std::vector<uint64_t> all(n, 0);
        ASSERT_EQ(allgather(o, &mine, all.data(), sizeof(mine)), UCC_OK);
        for (uint32_t i = 0; i < n; ++i) {
            ASSERT_EQ(all[i], uint64_t(i) * 3 + 1);
        }
        char name[24] = {};  // 21 bytes written: the rest must be defined too
        std::snprintf(name, sizeof(name), "rank-%07u-abcdefg", r);
        std::vector<char> names(size_t{n} * sizeof(name));
        ASSERT_EQ(allgather(o, name, names.data(), sizeof(name)), UCC_OK);
        for (uint32_t i = 0; i < n; ++i) {
            char want[24] = {};
            std::snprintf(want, sizeof(want), "rank-%07u-abcdefg", i);
            ASSERT_EQ(std::memcmp(names.data() + i * sizeof(name), want, sizeof(want)), 0);
        }
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

TEST(SimOob, Allgather1) {
    check_allgathers(1);
}
TEST(SimOob, Allgather7) {
    check_allgathers(7);
}
TEST(SimOob, Allgather64) {
    check_allgathers(64);
}

TEST(SimOob, CompletesAfterLogDepthLatency) {
    // 7 ranks: completion at the latest entry + ceil(log2 7) = 3 inter-node latencies.
    RunResult res = run(params(7, "ideal,lat_inter=1us"), [](uint32_t r) {
        ucc_oob_coll_t o;
        oob(&o);
        auto t = make_transport();
        if (r == 6) {
            t->idle(4e-6);  // the last one enters at 4us
        }
        uint32_t v = r, all[7];
        ASSERT_EQ(allgather(o, &v, all, 4), UCC_OK);
        EXPECT_EQ(t->now(), 7e-6);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
    EXPECT_EQ(res.virtual_time_s, 7e-6);
}

TEST(SimOob, Allgather1024Ranks) {
    const uint32_t n = 1024;
    RunResult res = run(params(n, "hdr"), [n](uint32_t r) {
        ucc_oob_coll_t o;
        ASSERT_EQ(oob(&o), UCC_OK);
        uint64_t mine = uint64_t(r) << 20 | 7;
        std::vector<uint64_t> all(n);
        ASSERT_EQ(allgather(o, &mine, all.data(), 8), UCC_OK);
        for (uint32_t i = 0; i < n; ++i) {
            ASSERT_EQ(all[i], uint64_t(i) << 20 | 7);
        }
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

TEST(SimOob, SizeMismatchIsAnError) {
    RunResult res = run(params(3, "hdr"), [](uint32_t r) {
        ucc_oob_coll_t o;
        oob(&o);
        uint64_t v[2] = {r, r};
        std::vector<uint64_t> all(6);
        EXPECT_EQ(allgather(o, v, all.data(), r == 2 ? 16 : 8), UCC_ERR_INVALID_PARAM);
    });
    EXPECT_NE(res.report.find("OOB allgather #0"), std::string::npos) << res.report;
    EXPECT_EQ(res.status, UCC_ERR_INVALID_PARAM);
}

TEST(SimOob, MissingParticipantDeadlocks) {
    RunResult res = run(params(4, "hdr"), [](uint32_t r) {
        if (r == 3) {
            return;  // never joins
        }
        ucc_oob_coll_t o;
        oob(&o);
        uint32_t v = r, all[4];
        EXPECT_EQ(allgather(o, &v, all, 4), UCC_ERR_NO_MESSAGE);
    });
    EXPECT_EQ(res.status, UCC_ERR_NO_MESSAGE);
    EXPECT_NE(res.report.find("inside OOB allgather #0"), std::string::npos) << res.report;
    EXPECT_NE(res.report.find("3 of 4 ranks have called it"), std::string::npos) << res.report;
}

// ---- the C API ----

struct CArgs {
    uint32_t n;
    int failures;
};

void c_rank_main(void *arg) {
    auto *a = static_cast<CArgs *>(arg);
    uint32_t r = ucc_sim_rank();
    if (ucc_sim_size() != a->n) {
        ++a->failures;
    }
    ucc_oob_coll_t o;
    if (ucc_sim_oob(&o) != UCC_OK || o.oob_ep != r || o.n_oob_eps != a->n) {
        ++a->failures;
        return;
    }
    std::vector<uint32_t> all(a->n);
    if (allgather(o, &r, all.data(), 4) != UCC_OK) {
        ++a->failures;
    }
    for (uint32_t i = 0; i < a->n; ++i) {
        if (all[i] != i) {
            ++a->failures;
        }
    }
    if (a->n > 1 && !(ucc_sim_now() > 0)) {  // log-depth latency of the OOB
        ++a->failures;
    }
}

TEST(SimCApi, RunsAndReportsHash) {
    CArgs a{8, 0};
    ucc_sim_params_t p;
    std::memset(&p, 0, sizeof(p));
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_NETWORK |
             UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_STACK_SIZE;
    p.n_ranks = 8;
    p.seed = 99;
    p.network = "eth100,jitter=1us";
    p.flags = UCC_SIM_FLAG_QUIET;
    p.stack_size = 64 * 1024;
    ASSERT_EQ(ucc_sim_run(&p, c_rank_main, &a), UCC_OK);
    EXPECT_EQ(a.failures, 0);
    uint64_t h = ucc_sim_trace_hash();
    double t = ucc_sim_last_time();
    EXPECT_NE(h, 0u);
    EXPECT_GT(t, 0);
    ASSERT_EQ(ucc_sim_run(&p, c_rank_main, &a), UCC_OK);
    EXPECT_EQ(ucc_sim_trace_hash(), h);
    EXPECT_EQ(ucc_sim_last_time(), t);
    // Defaults: one rank, not quiet (prints its seed line).
    ucc_sim_params_t d;
    std::memset(&d, 0, sizeof(d));
    CArgs one{1, 0};
    EXPECT_EQ(ucc_sim_run(&d, c_rank_main, &one), UCC_OK);
    EXPECT_EQ(one.failures, 0);
}

// A rank whose OOB allgather fails gives up (ucc_sim_exit), as a process
// that exits on the error.
void gives_up_on_error(void *arg) {
    auto *failed = static_cast<std::vector<int> *>(arg);
    ucc_oob_coll_t o;
    if (ucc_sim_oob(&o) != UCC_OK) {
        return;
    }
    uint32_t r = ucc_sim_rank();
    std::vector<uint32_t> all(ucc_sim_size());
    if (allgather(o, &r, all.data(), sizeof(r)) != UCC_OK) {
        ++(*failed)[r];
        ucc_sim_exit();
    }
}

TEST(SimCApi, FaultsThroughTheCApi) {
    char buf[256];
    ASSERT_EQ(ucc_sim_faults_describe("oob=1#0,nomem_p=0.5", 4, 1, buf, sizeof buf), UCC_OK);
    EXPECT_STREQ(buf, "nomem_p=0.5,oob=1#0");
    ASSERT_EQ(ucc_sim_faults_describe("", 4, 1, buf, sizeof buf), UCC_OK);
    EXPECT_STREQ(buf, "");
    char again[256];
    ASSERT_EQ(ucc_sim_faults_describe("swarm:1e-3", 64, 7, buf, sizeof buf), UCC_OK);
    ASSERT_EQ(ucc_sim_faults_describe("swarm:1e-3", 64, 7, again, sizeof again), UCC_OK);
    EXPECT_STREQ(buf, again);  // drawn from the seed
    EXPECT_EQ(ucc_sim_faults_describe("crash=4@0", 4, 1, buf, sizeof buf), UCC_ERR_INVALID_PARAM);
    EXPECT_NE(std::string(buf).find("crash=<rank below 4>"), std::string::npos) << buf;
    EXPECT_EQ(ucc_sim_faults_describe("swarm:0", 4, 1, buf, sizeof buf), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_sim_faults_describe("", 0, 1, buf, sizeof buf), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_sim_faults_describe("", 4, 1, nullptr, 0), UCC_OK);

    // Rank 1's allgather fails; it exits, and so the others' fails too
    // instead of waiting for it forever.
    std::vector<int> failed(4, 0);
    ucc_sim_params_t p;
    std::memset(&p, 0, sizeof(p));
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_FAULTS;
    p.n_ranks = 4;
    p.flags = UCC_SIM_FLAG_QUIET;
    p.faults = "oob=1#0";
    ASSERT_EQ(ucc_sim_run(&p, gives_up_on_error, &failed), UCC_OK);
    EXPECT_EQ(failed, std::vector<int>(4, 1));
    // Late, not failed: everyone's allgather succeeds, 50 us later.
    std::fill(failed.begin(), failed.end(), 0);
    p.faults = "oob=1#0:5e-5";
    ASSERT_EQ(ucc_sim_run(&p, gives_up_on_error, &failed), UCC_OK);
    EXPECT_EQ(failed, std::vector<int>(4, 0));
    EXPECT_GT(ucc_sim_last_time(), 5e-5);
    p.faults = "oob=1";
    EXPECT_EQ(ucc_sim_run(&p, gives_up_on_error, &failed), UCC_ERR_INVALID_PARAM);
    ucc_sim_exit();  // outside a rank: nothing
}

TEST(SimCApi, BadParameters) {
    CArgs a{1, 0};
    ucc_sim_params_t p;
    std::memset(&p, 0, sizeof(p));
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS;
    p.n_ranks = 0;
    EXPECT_EQ(ucc_sim_run(&p, c_rank_main, &a), UCC_ERR_INVALID_PARAM);
    p.n_ranks = (1u << 20) + 1;
    EXPECT_EQ(ucc_sim_run(&p, c_rank_main, &a), UCC_ERR_INVALID_PARAM);
    p.n_ranks = 2;
    p.mask |= UCC_SIM_PARAM_FIELD_NETWORK;
    p.network = "hdr,warp=9";
    EXPECT_EQ(ucc_sim_run(&p, c_rank_main, &a), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_sim_run(nullptr, c_rank_main, &a), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_sim_run(&p, nullptr, &a), UCC_ERR_INVALID_PARAM);
    // Outside a rank.
    EXPECT_EQ(ucc_sim_rank(), 0u);
    EXPECT_EQ(ucc_sim_size(), 0u);
    EXPECT_EQ(ucc_sim_now(), 0.0);
    ucc_oob_coll_t o;
    EXPECT_EQ(ucc_sim_oob(&o), UCC_ERR_INVALID_PARAM);
}

}  // namespace
}  // namespace ucc::sim
