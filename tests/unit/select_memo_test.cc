// Remembered selections by cost (lib/select/memo.h): the memo answers what
// the prediction answers, tells apart what the prediction tells apart,
// stays bounded, and a simulated world's ranks share one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/coll/coll.h"
#include "lib/coll/topology.h"
#include "lib/core/core.h"
#include "lib/net/network_arg.h"
#include "lib/net/network_model.h"
#include "lib/select/memo.h"
#include "lib/select/select.h"
#include "tools/perf/lifecycle.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using ucc::select::Memo;
using ucc::select::MemoBook;
using ucc::select::MemoSettings;
using ucc::select::Query;

ucc::cost::Params network(const char *spec) {
    ucc::net::NetworkArg arg;
    ucc::net::NetworkModel model;
    std::string error;
    EXPECT_TRUE(ucc::net::resolve_network(spec, &arg, &error, &model)) << error;
    return ucc::net::cost_params(model);
}

ucc::coll::Args args_of(ucc_coll_type_t type, uint64_t count, const ucc::coll::Topology *topo) {
    ucc::coll::Args a;
    a.type = type;
    a.dt = UCC_DT_FLOAT32;
    a.esize = 4;
    a.count = count;
    a.src_count = count;
    a.dst_count = count;
    a.topo = topo;
    return a;
}

// Over collectives, sizes, team sizes, ranks per node and with or without
// a topology for the hierarchical algorithms: the memo's answer, when it
// predicts and when it remembers, is the prediction's.
TEST(SelectMemo, AnswersWhatThePredictionAnswers) {
    ucc::cost::Params net = network("hdr");
    Memo memo;
    size_t cells = 0;
    size_t predicted = 0;
    for (const ucc_coll_type_t type :
         {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_BCAST, UCC_COLL_TYPE_REDUCE,
          UCC_COLL_TYPE_ALLGATHER, UCC_COLL_TYPE_ALLTOALL, UCC_COLL_TYPE_BARRIER,
          UCC_COLL_TYPE_REDUCE_SCATTER, UCC_COLL_TYPE_GATHER, UCC_COLL_TYPE_SCATTER}) {
        for (const uint64_t count : {1ull, 300ull, 1ull << 16, 1ull << 20}) {
            for (const uint32_t n : {2u, 5u, 64u, 300u}) {
                for (const uint32_t ppn : {0u, 8u, 40u}) {
                    const ucc::coll::Topology topo =
                        ucc::coll::Topology::regular(n, 0, ppn == 0 ? n : ppn);
                    for (const bool hier : {false, true}) {
                        net.ppn = ppn;
                        const ucc::coll::Args a = args_of(type, count, hier ? &topo : nullptr);
                        Query q{type, count, 4, n, UCC_MEMORY_TYPE_HOST, a.topo};
                        q.net = &net;
                        const ucc::coll::Algorithm *want = ucc::select::cheapest(q, a, nullptr);
                        q.memo = &memo;
                        const size_t before = memo.size();
                        const ucc::coll::Algorithm *first = ucc::select::cheapest(q, a, nullptr);
                        EXPECT_EQ(memo.size(), before + 1) << "a new key is remembered";
                        const ucc::coll::Algorithm *again = ucc::select::cheapest(q, a, nullptr);
                        EXPECT_EQ(memo.size(), before + 1) << "a known key is looked up";
                        const std::string what = std::string(want ? want->name : "none") +
                                                 " type " + std::to_string(type) + " count " +
                                                 std::to_string(count) + " n " + std::to_string(n) +
                                                 " ppn " + std::to_string(ppn);
                        EXPECT_EQ(first, want) << what;
                        EXPECT_EQ(again, want) << what;
                        cells++;
                        predicted += want != nullptr ? 1 : 0;
                    }
                }
            }
        }
    }
    EXPECT_EQ(memo.size(), cells);
    EXPECT_EQ(predicted, cells) << "every cell has an algorithm with a formula";
}

// What changes the prediction changes the key: the ranks per node, the
// team's size, the count, a topology, a radix.
TEST(SelectMemo, KeysTellApartWhatThePredictionTellsApart) {
    ucc::cost::Params net = network("hdr");
    net.ppn = 8;
    const ucc::coll::Topology topo = ucc::coll::Topology::regular(64, 0, 8);
    const ucc::coll::Args a = args_of(UCC_COLL_TYPE_ALLREDUCE, 1024, nullptr);
    Query q{UCC_COLL_TYPE_ALLREDUCE, 1024, 4, 64, UCC_MEMORY_TYPE_HOST};
    q.net = &net;
    const ucc::select::MemoKey base = ucc::select::memo_key(q, a);
    EXPECT_EQ(ucc::select::memo_key(q, a), base);
    std::vector<ucc::select::MemoKey> others;
    ucc::cost::Params net4 = net;
    net4.ppn = 4;
    Query q4 = q;
    q4.net = &net4;
    others.push_back(ucc::select::memo_key(q4, a));
    Query q63 = q;
    q63.team_size = 63;
    others.push_back(ucc::select::memo_key(q63, a));
    ucc::coll::Args b = a;
    b.count = 1025;
    others.push_back(ucc::select::memo_key(q, b));
    ucc::coll::Args t = a;
    t.topo = &topo;
    Query qt = q;
    qt.topo = &topo;
    others.push_back(ucc::select::memo_key(qt, t));
    ucc::coll::Args r = a;
    r.radix = 8;
    others.push_back(ucc::select::memo_key(q, r));
    ucc::coll::Args i = a;
    i.inplace = true;
    others.push_back(ucc::select::memo_key(q, i));
    for (size_t k = 0; k < others.size(); ++k) {
        EXPECT_FALSE(others[k] == base) << "variant " << k;
    }
    // The buffers are not part of it.
    ucc::coll::Args bufs = a;
    int x = 0;
    bufs.src = &x;
    bufs.dst = &x;
    EXPECT_EQ(ucc::select::memo_key(q, bufs), base);
}

TEST(SelectMemo, StaysBounded) {
    Memo memo;
    const ucc::coll::Algorithm *alg = &ucc::coll::algorithms(UCC_COLL_TYPE_ALLREDUCE)[0];
    Query q{UCC_COLL_TYPE_ALLREDUCE, 0, 4, 16, UCC_MEMORY_TYPE_HOST};
    for (uint64_t c = 1; c <= 3 * Memo::kMaxEntries; ++c) {
        memo.remember(ucc::select::memo_key(q, args_of(UCC_COLL_TYPE_ALLREDUCE, c, nullptr)), alg);
        ASSERT_LE(memo.size(), Memo::kMaxEntries);
    }
    MemoBook book;
    MemoSettings s;
    s.net = network("hdr");
    Memo *first = book.memo_for(s);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(book.memo_for(s), first) << "alike settings share a memo";
    for (size_t k = 1; k < MemoBook::kMaxMemos; ++k) {
        MemoSettings other = s;
        other.radixes.fallback = static_cast<uint32_t>(100 + k);
        EXPECT_NE(book.memo_for(other), first);
    }
    MemoSettings beyond = s;
    beyond.radixes.fallback = 7;
    EXPECT_EQ(book.memo_for(beyond), nullptr) << "a full book lends no more";
    EXPECT_EQ(book.memo_for(s), first);
}

// The contexts of a simulated world's ranks remember in one memo.
std::vector<const Memo *> g_memos;

void rank_memo(void *) {
    ucc::perf::RankSetup s;
    ucc_sim_oob(&s.oob);
    s.rank = ucc_sim_rank();
    s.size = ucc_sim_size();
    s.team_from_ep_map = true;
    ucc::perf::Lifecycle lc;
    const std::string err = lc.setup(s);
    EXPECT_EQ(err, "");
    if (err.empty()) {
        g_memos[s.rank] = lc.ctx->ctx.memo;
    }
    EXPECT_EQ(lc.teardown(), "");
}

TEST(SelectMemo, SimulatedRanksShareOne) {
    const uint32_t n = 6;
    g_memos.assign(n, nullptr);
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = n;
    p.flags = UCC_SIM_FLAG_QUIET;
    ASSERT_EQ(ucc_sim_run(&p, rank_memo, nullptr), UCC_OK);
    ASSERT_NE(g_memos[0], nullptr);
    for (uint32_t r = 1; r < n; ++r) {
        EXPECT_EQ(g_memos[r], g_memos[0]) << "rank " << r;
    }
}

}  // namespace
