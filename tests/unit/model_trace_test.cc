// The event-trace checkers (model/trace.h) on real traces: each base trace,
// recorded from the library on the simulator, is clean under every checker;
// each checker fires on a copy broken in exactly the way its property forbids
// (a checker that cannot fail is a defect).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "model/trace.h"
#include "tests/common/scenario.h"
#include "tests/common/workload.h"

namespace {

using ucc::TraceBuffer;
using ucc::TraceEvent;
using ucc::TraceKind;
using ucc::UserMark;
using ucc::model::Trace;
using ucc::testkit::Scenario;
using ucc::testkit::Workload;
using ucc::testkit::WorkloadOp;
using ucc::testkit::WorkloadTeam;

Trace scenario_trace(Scenario s) {
    s.record_events = true;
    const ucc::testkit::Outcome out = ucc::testkit::run_scenario(s);
    EXPECT_EQ(out.failure, "") << ucc::testkit::describe(s);
    return out.run.trace;
}

Scenario coll(ucc_coll_type_t t, uint32_t n, uint64_t count, uint32_t root = 0) {
    Scenario s;
    s.type = t;
    s.n = n;
    s.count = count;
    s.root = root;
    s.dt = UCC_DT_INT32;
    s.network = "slow";
    return s;
}

const Trace &sync_allreduce() {
    static const Trace t = [] {
        Scenario s = coll(UCC_COLL_TYPE_ALLREDUCE, 4, 16);
        s.sync = true;
        s.skew_ps = 5'000'000;
        return scenario_trace(s);
    }();
    return t;
}

const Trace &barrier() {
    static const Trace t = [] {
        Scenario s = coll(UCC_COLL_TYPE_BARRIER, 5, 0);
        s.skew_ps = 5'000'000;
        return scenario_trace(s);
    }();
    return t;
}

const Trace &fanin() {
    static const Trace t = scenario_trace(coll(UCC_COLL_TYPE_FANIN, 4, 0, 1));
    return t;
}

const Trace &fanout() {
    static const Trace t = scenario_trace(coll(UCC_COLL_TYPE_FANOUT, 4, 0, 2));
    return t;
}

const Trace &inplace_allreduce() {
    static const Trace t = [] {
        Scenario s = coll(UCC_COLL_TYPE_ALLREDUCE, 4, 32);
        s.inplace = true;
        return scenario_trace(s);
    }();
    return t;
}

WorkloadOp op_on(uint32_t team, Scenario c, uint16_t tag) {
    WorkloadOp op;
    op.team = team;
    op.coll = c;
    op.tag = tag;
    return op;
}

// Ordered and unordered teams, persistent re-posts, callbacks (one finalizing
// from inside), an active set, a frozen rank, two create/destroy cycles and
// calls on destroyed handles.
const Trace &mixed_workload() {
    static const Trace t = [] {
        Workload w;
        w.n = 4;
        w.seed = 3;
        w.network = "hdr";
        w.teams.push_back(WorkloadTeam{{0, 1, 2, 3}, false, false});
        w.teams.push_back(WorkloadTeam{{1, 2, 3}, true, false});
        Scenario ar = coll(UCC_COLL_TYPE_ALLREDUCE, 4, 8);
        ar.posts = 3;
        WorkloadOp persistent = op_on(0, ar, 1);
        persistent.callback = true;
        w.ops.push_back(persistent);
        w.ops.push_back(op_on(1, coll(UCC_COLL_TYPE_BCAST, 3, 5, 2), 2));
        w.ops.push_back(op_on(1, coll(UCC_COLL_TYPE_ALLGATHER, 3, 3), 3));
        WorkloadOp fin = op_on(0, coll(UCC_COLL_TYPE_GATHER, 4, 4, 3), 4);
        fin.callback = true;
        fin.finalize_in_cb = true;
        w.ops.push_back(fin);
        Scenario as = coll(UCC_COLL_TYPE_ALLREDUCE, 4, 6);
        as.active_set = true;
        as.as_start = 0;
        as.as_stride = 2;
        as.as_size = 2;  // {0, 2}
        w.ops.push_back(op_on(0, as, 5));
        w.freeze_rank = 1;
        w.cycles = 2;
        w.probe_use_after_destroy = true;
        const ucc::testkit::WorkloadOutcome out = ucc::testkit::run_workload(w);
        EXPECT_EQ(out.failure, "") << ucc::testkit::describe(w);
        return out.run.trace;
    }();
    return t;
}

// Triggered collectives (one engine per team and rank): a persistent
// allreduce with a callback, a bcast on an unordered team, with skew between
// each triggered post and its trigger.
const Trace &triggered_workload() {
    static const Trace t = [] {
        Workload w;
        w.n = 3;
        w.seed = 7;
        w.network = "hdr";
        w.skew_ps = 20'000'000;
        w.teams.push_back(WorkloadTeam{{0, 1, 2}, false, false});
        w.teams.push_back(WorkloadTeam{{0, 1, 2}, true, false});
        Scenario ar = coll(UCC_COLL_TYPE_ALLREDUCE, 3, 8);
        ar.posts = 3;
        WorkloadOp persistent = op_on(0, ar, 1);
        persistent.callback = true;
        persistent.triggered = true;
        w.ops.push_back(persistent);
        WorkloadOp bcast = op_on(1, coll(UCC_COLL_TYPE_BCAST, 3, 5, 1), 2);
        bcast.triggered = true;
        w.ops.push_back(bcast);
        w.ops.push_back(op_on(0, coll(UCC_COLL_TYPE_ALLGATHER, 3, 2), 3));
        const ucc::testkit::WorkloadOutcome out = ucc::testkit::run_workload(w);
        EXPECT_EQ(out.failure, "") << ucc::testkit::describe(w);
        return out.run.trace;
    }();
    return t;
}

// Triggered ops through CUDA stream engines (simulated streams): a
// persistent allreduce and a bcast on one ordered team's stream.
const Trace &stream_workload() {
    static const Trace t = [] {
        Workload w;
        w.n = 3;
        w.seed = 9;
        w.network = "hdr";
        w.skew_ps = 20'000'000;
        WorkloadTeam team{{0, 1, 2}, false, false};
        team.stream_engine = true;
        w.teams.push_back(team);
        Scenario ar = coll(UCC_COLL_TYPE_ALLREDUCE, 3, 8);
        ar.posts = 3;
        WorkloadOp persistent = op_on(0, ar, 1);
        persistent.triggered = true;
        w.ops.push_back(persistent);
        WorkloadOp bcast = op_on(0, coll(UCC_COLL_TYPE_BCAST, 3, 5, 1), 2);
        bcast.triggered = true;
        w.ops.push_back(bcast);
        const ucc::testkit::WorkloadOutcome out = ucc::testkit::run_workload(w);
        EXPECT_EQ(out.failure, "") << ucc::testkit::describe(w);
        return out.run.trace;
    }();
    return t;
}

constexpr double kTau = 100e-6;

// Rank 0 posts 3 timeouts late: the others time out.
const Trace &timeouts() {
    static const Trace t = [] {
        Workload w;
        w.n = 3;
        w.seed = 5;
        w.network = "hdr";
        w.teams.push_back(WorkloadTeam{{0, 1, 2}, false, false});
        WorkloadOp op = op_on(0, coll(UCC_COLL_TYPE_ALLREDUCE, 3, 4), 1);
        op.timeout = kTau;
        w.ops.push_back(op);
        w.late_rank = 0;
        w.late_ps = static_cast<uint64_t>(3 * kTau * 1e12);
        const ucc::testkit::WorkloadOutcome out = ucc::testkit::run_workload(w);
        EXPECT_EQ(out.failure, "") << ucc::testkit::describe(w);
        EXPECT_GT(out.posts_failed, 0u);
        return out.run.trace;
    }();
    return t;
}

// Whether a finding of property p is reported for t.
bool fires(const Trace &t, int p) {
    for (const ucc::model::Finding &f : ucc::model::check_all(t)) {
        if (f.property == p) {
            return true;
        }
    }
    return false;
}

// Index of the first event satisfying `pred` (fails the test when none does).
size_t find(const Trace &t, const std::function<bool(const TraceEvent &)> &pred, size_t from = 0) {
    for (size_t i = from; i < t.size(); ++i) {
        if (pred(t[i])) {
            return i;
        }
    }
    ADD_FAILURE() << "no such event in the trace";
    return 0;
}

auto kind(TraceKind k) {
    return [k](const TraceEvent &e) { return e.kind == k; };
}

// The post event of the first instance of `type` on rank r.
size_t post_of(const Trace &t, uint32_t rank, ucc_coll_type_t type) {
    return find(t, [&](const TraceEvent &e) {
        return e.kind == TraceKind::kPost && e.rank == rank && e.coll == type;
    });
}

// The first event of `k` for the request (rank, req) after index `from`.
size_t next_of(const Trace &t, size_t from, TraceKind k) {
    const TraceEvent &p = t[from];
    return find(
        t, [&](const TraceEvent &e) { return e.kind == k && e.rank == p.rank && e.req == p.req; },
        from);
}

TEST(ModelTrace, RealTracesAreClean) {
    for (const Trace *t :
         {&sync_allreduce(), &barrier(), &fanin(), &fanout(), &inplace_allreduce(),
          &mixed_workload(), &timeouts(), &triggered_workload(), &stream_workload()}) {
        ASSERT_FALSE(t->empty());
        const ucc::model::Findings f = ucc::model::check_all(*t);
        EXPECT_TRUE(f.empty()) << ucc::model::format(f);
    }
}

TEST(ModelTrace, EveryListedPropertyHasAChecker) {
    const std::vector<int> want = {14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 25, 27, 28, 29, 30, 31,
                                   32, 33, 34, 35, 36, 37, 38, 39, 40, 42, 44, 45, 48, 49, 50};
    EXPECT_EQ(ucc::model::checked_properties(), want);
}

TEST(ModelTrace, P14BarrierCompletingBeforeTheLastPostFires) {
    Trace t = barrier();
    t[next_of(t, post_of(t, 3, UCC_COLL_TYPE_BARRIER), TraceKind::kComplete)].time_ps = 0;
    EXPECT_TRUE(fires(t, 14));
}

TEST(ModelTrace, P15SyncEntryAndExitFire) {
    Trace entry = sync_allreduce();
    entry[find(entry, kind(TraceKind::kAccess))].time_ps = 0;
    EXPECT_TRUE(fires(entry, 15));
    // Exit: a completion before another rank's last buffer access.
    Trace exit = sync_allreduce();
    size_t last_access = 0;
    for (size_t i = 0; i < exit.size(); ++i) {
        if (exit[i].kind == TraceKind::kAccess) {
            last_access = i;
        }
    }
    const uint32_t other = (exit[last_access].rank + 1) % 4;
    const size_t done =
        next_of(exit, post_of(exit, other, UCC_COLL_TYPE_ALLREDUCE), TraceKind::kComplete);
    exit[done].time_ps = exit[last_access].time_ps - 1;
    EXPECT_TRUE(fires(exit, 15));
}

TEST(ModelTrace, P16AccessAfterCompletionFires) {
    Trace t = inplace_allreduce();
    const size_t post = post_of(t, 2, UCC_COLL_TYPE_ALLREDUCE);
    const size_t access = next_of(t, post, TraceKind::kAccess);
    const size_t done = next_of(t, post, TraceKind::kComplete);
    TraceEvent late = t[access];
    late.time_ps = t[done].time_ps + 1000;
    t.insert(t.begin() + static_cast<ptrdiff_t>(done) + 1, late);
    EXPECT_TRUE(fires(t, 16));
}

TEST(ModelTrace, P17FaninRootAndFanoutLeafCompletingEarlyFire) {
    Trace in = fanin();
    in[next_of(in, post_of(in, 1, UCC_COLL_TYPE_FANIN), TraceKind::kComplete)].time_ps = 0;
    EXPECT_TRUE(fires(in, 17));
    Trace out = fanout();
    out[next_of(out, post_of(out, 0, UCC_COLL_TYPE_FANOUT), TraceKind::kComplete)].time_ps = 0;
    EXPECT_TRUE(fires(out, 17));
}

TEST(ModelTrace, P18WrongSequenceAndDesyncFire) {
    Trace seq = mixed_workload();
    seq[post_of(seq, 0, UCC_COLL_TYPE_ALLREDUCE)].key += 7;
    EXPECT_TRUE(fires(seq, 18));
    Trace desync = mixed_workload();
    // Rank 2's first post on the ordered team claims to be a bcast.
    TraceEvent &p = desync[post_of(desync, 2, UCC_COLL_TYPE_ALLREDUCE)];
    p.signature ^= uint64_t{0x3} << 58;
    EXPECT_TRUE(fires(desync, 18));
}

TEST(ModelTrace, P19TagMismatchAndDuplicateOutstandingTagFire) {
    Trace sig = mixed_workload();
    sig[post_of(sig, 3, UCC_COLL_TYPE_BCAST)].signature ^= 1;  // another size under that tag
    EXPECT_TRUE(fires(sig, 19));
    // Both unordered collectives of rank 1 outstanding under one tag.
    Trace dup = mixed_workload();
    const uint32_t key = dup[post_of(dup, 1, UCC_COLL_TYPE_BCAST)].key;
    dup[post_of(dup, 1, UCC_COLL_TYPE_ALLGATHER)].key = key;
    EXPECT_TRUE(fires(dup, 19));
}

TEST(ModelTrace, P20MissingCompletionAndDivergentResultFire) {
    Trace missing = mixed_workload();
    missing.erase(missing.begin() + static_cast<ptrdiff_t>(next_of(
                                        missing, post_of(missing, 3, UCC_COLL_TYPE_ALLGATHER),
                                        TraceKind::kComplete)));
    EXPECT_TRUE(fires(missing, 20));
    Trace diverge = mixed_workload();
    diverge[next_of(diverge, post_of(diverge, 2, UCC_COLL_TYPE_ALLREDUCE), TraceKind::kComplete)]
        .hash ^= 1;
    EXPECT_TRUE(fires(diverge, 20));
}

TEST(ModelTrace, P21MessageConsumedElsewhereFires) {
    Trace t = mixed_workload();
    t.erase(t.begin() + static_cast<ptrdiff_t>(find(t, kind(TraceKind::kRecv))));
    EXPECT_TRUE(fires(t, 21));
}

TEST(ModelTrace, P22CompletionOnlyAfterTheThawFires) {
    Trace t = mixed_workload();
    const size_t frozen = find(t, [](const TraceEvent &e) {
        return e.kind == TraceKind::kUser && e.mark == UserMark::kFrozen;
    });
    const size_t thawed = find(
        t,
        [](const TraceEvent &e) {
            return e.kind == TraceKind::kUser && e.mark == UserMark::kThawed;
        },
        frozen);
    // An instance rank 1 completed before it froze: another member's
    // completion of it moves after the thaw (as if it needed rank 1's progress).
    size_t moved = 0;
    const ucc::model::TraceIndex ix(t);
    for (const ucc::model::Instance &in : ix.instances()) {
        const ucc::model::RankOp *mine = nullptr;
        const ucc::model::RankOp *other = nullptr;
        for (const ucc::model::RankOp *op : in.ops) {
            if (op->done == nullptr) {
                continue;
            }
            if (op->rank == 1 && static_cast<size_t>(op->done - t.data()) < frozen) {
                mine = op;
            } else if (op->rank != 1) {
                other = op;
            }
        }
        if (mine != nullptr && other != nullptr) {
            moved = static_cast<size_t>(other->done - t.data());
            break;
        }
    }
    ASSERT_NE(moved, 0u) << "rank 1 completed nothing shared before it froze";
    TraceEvent done = t[moved];
    t.insert(t.begin() + static_cast<ptrdiff_t>(thawed) + 1, done);
    t.erase(t.begin() + static_cast<ptrdiff_t>(moved));
    EXPECT_TRUE(fires(t, 22));
}

TEST(ModelTrace, P23ReadOfTheIgnoredSrcFires) {
    Trace t = inplace_allreduce();
    t[find(t, kind(TraceKind::kAccess))].buffer = TraceBuffer::kSrc;
    EXPECT_TRUE(fires(t, 23));
}

TEST(ModelTrace, P25AccessBeforePostAndUserWriteFire) {
    Trace t = inplace_allreduce();
    const size_t post = post_of(t, 1, UCC_COLL_TYPE_ALLREDUCE);
    t[next_of(t, post, TraceKind::kAccess)].time_ps = t[post].time_ps - 1;
    EXPECT_TRUE(fires(t, 25));
    Trace user = inplace_allreduce();
    TraceEvent w;
    w.kind = TraceKind::kUser;
    w.mark = UserMark::kUserWrite;
    w.rank = 1;
    w.req = user[post].req;
    w.buffer = TraceBuffer::kDst;
    w.time_ps = user[post].time_ps;
    user.insert(user.begin() + static_cast<ptrdiff_t>(post) + 1, w);
    EXPECT_TRUE(fires(user, 25));
}

TEST(ModelTrace, P27RepostOfANonPersistentRequestFires) {
    Trace t = mixed_workload();
    const size_t post = post_of(t, 0, UCC_COLL_TYPE_ALLREDUCE);
    const size_t init = find(t, [&](const TraceEvent &e) {
        return e.kind == TraceKind::kInit && e.rank == 0 && e.req == t[post].req;
    });
    t[init].flags &= ~uint64_t{UCC_COLL_ARGS_FLAG_PERSISTENT};
    EXPECT_TRUE(fires(t, 27));
}

TEST(ModelTrace, P28MissingOrDoubleCallbackFires) {
    Trace missing = mixed_workload();
    const size_t cb = find(missing, kind(TraceKind::kCallback));
    missing.erase(missing.begin() + static_cast<ptrdiff_t>(cb));
    EXPECT_TRUE(fires(missing, 28));
    Trace twice = mixed_workload();
    const size_t cb2 = find(twice, kind(TraceKind::kCallback));
    twice.insert(twice.begin() + static_cast<ptrdiff_t>(cb2), twice[cb2]);
    EXPECT_TRUE(fires(twice, 28));
}

TEST(ModelTrace, P29UnfinalizedRequestFires) {
    Trace t = timeouts();  // finalized after an error
    t.erase(t.begin() + static_cast<ptrdiff_t>(find(t, kind(TraceKind::kFinalize))));
    EXPECT_TRUE(fires(t, 29));
}

TEST(ModelTrace, P30TimeoutWithoutTheFlagFires) {
    Trace t = mixed_workload();
    t[next_of(t, post_of(t, 1, UCC_COLL_TYPE_BCAST), TraceKind::kComplete)].status =
        UCC_ERR_TIMED_OUT;
    EXPECT_TRUE(fires(t, 30));
}

TEST(ModelTrace, P31MessageToANonMemberFires) {
    Trace t = mixed_workload();
    const size_t send = find(t, [&](const TraceEvent &e) {
        if (e.kind != TraceKind::kSend) {
            return false;
        }
        const size_t p = find(t, [&](const TraceEvent &q) {
            return q.kind == TraceKind::kPost && q.rank == e.rank && q.req == e.req;
        });
        return t[p].active_set;
    });
    t[send].peer = 1;  // the set is {0, 2}
    EXPECT_TRUE(fires(t, 31));
}

TEST(ModelTrace, P32ActiveSetMessageLostToAnotherInstanceFires) {
    Trace t = mixed_workload();
    const size_t as_post = find(t, [](const TraceEvent &e) {
        return e.kind == TraceKind::kPost && e.active_set && e.rank == 2;
    });
    t.erase(t.begin() + static_cast<ptrdiff_t>(next_of(t, as_post, TraceKind::kRecv)));
    EXPECT_TRUE(fires(t, 32));
}

TEST(ModelTrace, P33DuplicateTeamRankFires) {
    Trace t = fanin();
    const size_t a = find(
        t, [](const TraceEvent &e) { return e.kind == TraceKind::kTeamCreated && e.rank == 3; });
    t[a].team_rank = 0;
    EXPECT_TRUE(fires(t, 33));
}

TEST(ModelTrace, P34TeamNeverDestroyedFires) {
    Trace t = mixed_workload();
    t.erase(t.begin() + static_cast<ptrdiff_t>(find(t, kind(TraceKind::kTeamDestroyed))));
    EXPECT_TRUE(fires(t, 34));
}

TEST(ModelTrace, P35LeftoverMessagesAfterDestroyFire) {
    Trace t = mixed_workload();
    t[find(t, kind(TraceKind::kTeamDestroyed))].resources = 2;
    EXPECT_TRUE(fires(t, 35));
}

TEST(ModelTrace, P36UseAfterDestroySucceedingFires) {
    Trace t = mixed_workload();
    t[find(t, [](const TraceEvent &e) {
        return e.kind == TraceKind::kUser && e.mark == UserMark::kUseAfterDestroy;
    })].status = UCC_OK;
    EXPECT_TRUE(fires(t, 36));
}

TEST(ModelTrace, P38DestroyThatNeverReturnsOrStaysInProgressFires) {
    auto is_mark = [](UserMark m) {
        return [m](const TraceEvent &e) { return e.kind == TraceKind::kUser && e.mark == m; };
    };
    {
        Trace t = mixed_workload();
        ASSERT_FALSE(fires(t, 38));
        t.erase(t.begin() + static_cast<ptrdiff_t>(find(t, is_mark(UserMark::kDestroyEnd))));
        EXPECT_TRUE(fires(t, 38));  // a team destroy that never returned
    }
    {
        Trace t = mixed_workload();
        size_t last = 0;
        for (size_t i = 0; i < t.size(); ++i) {
            if (is_mark(UserMark::kDestroyEnd)(t[i]) && t[i].key == 0) {
                last = i;
            }
        }
        ASSERT_NE(last, 0u);
        t[last].status = UCC_INPROGRESS;
        EXPECT_TRUE(fires(t, 38));  // the context destroy left in progress
    }
}

TEST(ModelTrace, P42ParticipantsChoosingDifferentAlgorithmsFire) {
    Trace t = mixed_workload();
    ASSERT_FALSE(fires(t, 42));
    const size_t init = find(t, [](const TraceEvent &e) {
        return e.kind == TraceKind::kInit && e.rank == 1 && e.alg != 0;
    });
    t[init].alg = static_cast<uint16_t>(t[init].alg + 1);
    EXPECT_TRUE(fires(t, 42));
}

TEST(ModelTrace, P39EarlyAndLateTimeoutsFire) {
    const auto timed_out = [](const TraceEvent &e) {
        return e.kind == TraceKind::kComplete && e.status == UCC_ERR_TIMED_OUT;
    };
    Trace early = timeouts();
    const size_t i = find(early, timed_out);
    early[i].time_ps -= static_cast<int64_t>(kTau * 1e12) / 2;
    EXPECT_TRUE(fires(early, 39));
    Trace late = timeouts();
    late[find(late, timed_out)].time_ps += static_cast<int64_t>(kTau * 1e12);
    EXPECT_TRUE(fires(late, 39));
}

TEST(ModelTrace, P40WriteAfterFailureFires) {
    Trace t = timeouts();
    const size_t done = find(t, [](const TraceEvent &e) {
        return e.kind == TraceKind::kComplete && e.status == UCC_ERR_TIMED_OUT;
    });
    TraceEvent w;
    w.kind = TraceKind::kAccess;
    w.rank = t[done].rank;
    w.req = t[done].req;
    w.buffer = TraceBuffer::kDst;
    w.write = true;
    w.bytes = 4;
    w.time_ps = t[done].time_ps + 10;
    t.insert(t.begin() + static_cast<ptrdiff_t>(done) + 1, w);
    EXPECT_TRUE(fires(t, 40));
}

// P37: the simulator failed an allocation of rank 0 (a kAllocFailed mark)
// during its ucc_collective_init or its post.
TEST(ModelTrace, P37CallThatSucceedsAfterAFailedAllocationFires) {
    auto mark = [](const TraceEvent &at, ucc::UserMark m, uint32_t key, ucc_status_t st) {
        TraceEvent e;
        e.kind = TraceKind::kUser;
        e.mark = m;
        e.rank = at.rank;
        e.key = key;
        e.status = st;
        e.time_ps = at.time_ps;
        return e;
    };
    const auto request = static_cast<uint32_t>(ucc::AllocSite::kCollRequest);
    const Trace base = fanin();
    EXPECT_FALSE(fires(base, 37));
    const size_t init =
        find(base, [](const TraceEvent &e) { return e.kind == TraceKind::kInit && e.rank == 0; });
    // The init made its request anyway.
    Trace t = base;
    t.insert(t.begin() + static_cast<ptrdiff_t>(init),
             mark(t[init], ucc::UserMark::kAllocFailed, request, UCC_OK));
    EXPECT_TRUE(fires(t, 37));
    // The call returned another status.
    for (ucc_status_t st : {UCC_OK, UCC_ERR_NO_MESSAGE}) {
        Trace c = base;
        c.insert(c.begin() + static_cast<ptrdiff_t>(init),
                 {mark(c[init], ucc::UserMark::kAllocFailed, request, UCC_OK),
                  mark(c[init], ucc::UserMark::kCallReturned, 0, st)});
        EXPECT_TRUE(fires(c, 37)) << ucc_status_string(st);
    }
    // The consistent error: nothing to report.
    Trace ok = base;
    ok.insert(ok.begin() + static_cast<ptrdiff_t>(init),
              {mark(ok[init], ucc::UserMark::kAllocFailed, request, UCC_OK),
               mark(ok[init], ucc::UserMark::kCallReturned, 0, UCC_ERR_NO_MEMORY)});
    EXPECT_FALSE(fires(ok, 37));
    // A post whose frames failed, yet its request completed with UCC_OK.
    Trace task = base;
    const size_t post = post_of(task, 0, UCC_COLL_TYPE_FANIN);
    task.insert(task.begin() + static_cast<ptrdiff_t>(post) + 1,
                mark(task[post], ucc::UserMark::kAllocFailed,
                     static_cast<uint32_t>(ucc::AllocSite::kCollTask), UCC_OK));
    EXPECT_TRUE(fires(task, 37));
}

TEST(ModelTrace, P44ArgumentMismatchNamesTheField) {
    Trace t = fanin();
    TraceEvent &p = t[post_of(t, 2, UCC_COLL_TYPE_FANIN)];
    p.signature ^= uint64_t{1} << 32;  // another root
    const ucc::model::Findings f = ucc::model::check_p44_argument_match(ucc::model::TraceIndex(t));
    ASSERT_FALSE(f.empty());
    EXPECT_NE(f.front().what.find("root"), std::string::npos) << f.front().what;
    EXPECT_NE(f.front().what.find("rank 2"), std::string::npos) << f.front().what;
}

TEST(ModelTrace, P45OutOfRangeRootAcceptedFires) {
    Trace t = fanin();
    t[post_of(t, 0, UCC_COLL_TYPE_FANIN)].root = 4;
    EXPECT_TRUE(fires(t, 45));
}

}  // namespace

namespace {

// The index of the event of kind `k` and ordinal `offset` on (rank, engine 1).
size_t engine_event(const Trace &t, TraceKind k, uint32_t rank, uint64_t offset) {
    return find(t, [&](const TraceEvent &e) {
        return e.kind == k && e.rank == rank && e.key == 1 && e.offset == offset;
    });
}

}  // namespace

TEST(ModelTrace, TriggeredWorkloadRecordsItsEngines) {
    const Trace &t = triggered_workload();
    for (TraceKind k : {TraceKind::kTriggeredPost, TraceKind::kTrigger, TraceKind::kEeSet,
                        TraceKind::kEeEmit, TraceKind::kEeTake, TraceKind::kEeAck}) {
        EXPECT_GT(std::count_if(t.begin(), t.end(), kind(k)), 0) << static_cast<int>(k);
    }
    // Three posts of the persistent allreduce: three triggers on each rank's engine 1.
    EXPECT_EQ(std::count_if(t.begin(), t.end(),
                            [](const TraceEvent &e) {
                                return e.kind == TraceKind::kTrigger && e.rank == 0 && e.key == 1;
                            }),
              3);
}

TEST(ModelTrace, P48CollectiveBeforeItsTriggerAndOutOfOrderTriggersFire) {
    // The collective's first message moved before its trigger.
    Trace early = triggered_workload();
    const size_t trig = engine_event(early, TraceKind::kTrigger, 0, 0);
    const size_t send = next_of(early, trig, TraceKind::kSend);
    const TraceEvent moved = early[send];
    early.erase(early.begin() + static_cast<ptrdiff_t>(send));
    early.insert(early.begin() + static_cast<ptrdiff_t>(trig), moved);
    EXPECT_TRUE(fires(early, 48));
    // A trigger that consumed an input event the program had not set yet.
    Trace unset = triggered_workload();
    const size_t set = engine_event(unset, TraceKind::kEeSet, 1, 1);
    const size_t second = engine_event(unset, TraceKind::kTrigger, 1, 1);
    ASSERT_LT(set, second);
    unset[set].offset = 7;
    unset[second].offset = 7;
    EXPECT_TRUE(fires(unset, 48));
}

TEST(ModelTrace, P49OutputEventsOutOfOrderFire) {
    // A COLLECTIVE_POST missing: the next one's ordinal skips.
    Trace skip = triggered_workload();
    skip[engine_event(skip, TraceKind::kEeEmit, 2, 0)].offset = 1;
    EXPECT_TRUE(fires(skip, 49));
    // Handed out last in, first out.
    Trace lifo = triggered_workload();
    lifo[engine_event(lifo, TraceKind::kEeTake, 2, 1)].offset = 0;
    EXPECT_TRUE(fires(lifo, 49));
}

TEST(ModelTrace, P49StreamEngineEventsComeAtTheTriggeredPost) {
    const Trace &ok = stream_workload();
    // Stream engines fire by their stream (flags 1), each COLLECTIVE_POST
    // queued right after its triggered post, before the trigger.
    const size_t parked = find(
        ok, [](const TraceEvent &e) { return e.kind == TraceKind::kTriggeredPost && e.rank == 1; });
    ASSERT_LT(parked, ok.size());
    ASSERT_EQ(ok[parked].flags, 1u);
    const size_t emit = next_of(ok, parked, TraceKind::kEeEmit);
    ASSERT_LT(emit, next_of(ok, parked, TraceKind::kTrigger));
    EXPECT_EQ(ok[next_of(ok, parked, TraceKind::kTrigger)].flags, 1u);
    EXPECT_FALSE(fires(ok, 48));
    EXPECT_FALSE(fires(ok, 49));
    // The same events from an engine that is not a stream's: an event for a
    // collective no trigger had fired yet.
    Trace cpu = ok;
    for (TraceEvent &e : cpu) {
        if (e.kind == TraceKind::kTriggeredPost) {
            e.flags = 0;
        }
    }
    EXPECT_TRUE(fires(cpu, 49));
}

TEST(ModelTrace, P50EventDeliveredTwiceOrAckedUntakenFire) {
    Trace twice = triggered_workload();
    const size_t take = engine_event(twice, TraceKind::kEeTake, 0, 0);
    twice.insert(twice.begin() + static_cast<ptrdiff_t>(take), twice[take]);
    EXPECT_TRUE(fires(twice, 50));
    Trace untaken = triggered_workload();
    const size_t ack = find(
        untaken, [](const TraceEvent &e) { return e.kind == TraceKind::kEeAck && e.rank == 1; });
    untaken[ack].offset = 99;
    EXPECT_TRUE(fires(untaken, 50));
}
