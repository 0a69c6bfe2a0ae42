// Checkers over the simulator's event trace (traces/trace_event.h): the
// synchronisation, ordering, ownership and lifecycle properties of
// ../shared/docs/CONFORMANCE.md, each a function of the trace alone.
//
// A trace is every event of a run in recording order (each event carries its
// world rank and the rank's virtual time). The index groups it:
//  * per rank and request (ucc_collective_init order), the request's history;
//  * per post of a request, a RankOp: the post, the accesses, messages and the
//    completion that follow it up to the next post;
//  * per collective instance (team, key, and how often that key was posted
//    before on the rank), the RankOps of every participant.
// Virtual times are comparable across ranks: a rank's clock only moves
// forward and a message arrives after it was sent, so "a before b in virtual
// time" is consistent with happens-before.
//
// Every checker returns findings: empty when the property holds. A finding
// names the property, the instance and the ranks involved.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "traces/trace_event.h"

namespace ucc::model {

using Trace = std::vector<TraceEvent>;

struct Finding {
    int property = 0;  // CONFORMANCE.md number
    std::string what;
};
using Findings = std::vector<Finding>;

// One post of one request on one rank.
struct RankOp {
    uint32_t rank = 0;
    uint64_t req = 0;
    uint32_t post_index = 0;           // 0 for the first post of the request
    const TraceEvent *init = nullptr;  // the request's init
    const TraceEvent *post = nullptr;  // this post
    const TraceEvent *done = nullptr;  // its completion (null: never completed)
    std::vector<const TraceEvent *> accesses;
    std::vector<const TraceEvent *> sends;
    std::vector<const TraceEvent *> recvs;
    std::vector<const TraceEvent *> callbacks;
    std::vector<const TraceEvent *> user_marks;  // kDone, kUserWrite of this post
    int64_t post_ps() const { return post->time_ps; }
    // Completion time; INT64_MAX when it never completed.
    int64_t done_ps() const { return done != nullptr ? done->time_ps : INT64_MAX; }
};

// A collective instance: the same (team, key, occurrence) on every participant.
struct Instance {
    uint32_t team = 0;
    uint32_t key = 0;
    uint32_t occurrence = 0;
    std::vector<RankOp *> ops;  // in trace order of their posts
    const TraceEvent &first() const { return *ops.front()->post; }
    std::string name() const;
    int64_t max_post_ps() const;
};

// The request history of one rank: every event about it, in order.
struct RequestHistory {
    uint32_t rank = 0;
    uint64_t req = 0;
    std::vector<const TraceEvent *> events;
};

class TraceIndex {
  public:
    explicit TraceIndex(const Trace &t);
    const Trace &trace() const { return *trace_; }
    const std::vector<Instance> &instances() const { return instances_; }
    const std::map<std::pair<uint32_t, uint64_t>, RequestHistory> &requests() const {
        return requests_;
    }
    const std::vector<RankOp> &ops() const { return ops_; }

  private:
    const Trace *trace_;
    std::vector<RankOp> ops_;
    std::vector<Instance> instances_;
    std::map<std::pair<uint32_t, uint64_t>, RequestHistory> requests_;
};

// ---- synchronisation (P14-P17)
// P14: a barrier (and every collective of a UCC_SYNC_COLLECTIVES team)
// completes on no rank before every participant has posted.
Findings check_p14_barrier(const TraceIndex &ix);
// P15: on a SYNC team no user buffer is touched before every participant has
// posted, and no rank completes before the last access on any rank.
Findings check_p15_sync_entry_exit(const TraceIndex &ix);
// P16: a rank's buffers are never touched after its completion (NO_SYNC exit;
// holds for every collective). Barrier semantics are not required.
Findings check_p16_no_access_after_done(const TraceIndex &ix);
// P17: fan-in's root completes after every post; fan-out's non-roots complete
// after the root's post.
Findings check_p17_fanin_fanout(const TraceIndex &ix);

// ---- ordering and concurrency (P18-P22)
// P18: on ordered teams each rank's k-th post on a team has sequence number k
// (a triggered post counts when it is made, and its trigger posts it under the
// number it took then), every participant of an instance posted the same collective (signature),
// and no participant posted an instance twice.
Findings check_p18_ordered(const TraceIndex &ix);
// P19: on unordered teams every instance (matched by tag) has agreeing
// signatures, and no rank has two collectives outstanding with one tag.
Findings check_p19_tags(const TraceIndex &ix);
// P20: every posted collective completes with UCC_OK (unless it was posted
// with a timeout) and results meant to be identical on all ranks (allreduce
// and allgather dst) are: concurrency across teams broke nothing.
Findings check_p20_complete_and_consistent(const TraceIndex &ix);
// P21: instance isolation: per instance and ordered pair of ranks, as many
// messages were received as were sent (a message of one instance consumed by
// another shows as a mismatch), and no message involves a rank outside it.
Findings check_p21_isolation(const TraceIndex &ix);
// P22: a rank frozen (UserMark::kFrozen) after it completed leaves no
// obligation behind: every other participant of its completed instances
// completes before the rank thaws.
Findings check_p22_frozen(const TraceIndex &ix);

// ---- in-place and ownership (P23, P25)
// P23: with IN_PLACE (where it applies) the library never touches the
// buffer it ignores: src; dst for scatter(v) at the root (API.md §4.3).
Findings check_p23_inplace(const TraceIndex &ix);
// P25: library accesses lie inside [post, completion] of the post they belong
// to; a program write (UserMark::kUserWrite) inside that window is reported as
// a user error.
Findings check_p25_ownership(const TraceIndex &ix);

// ---- request lifecycle (P27-P30)
// P27: persistent requests are re-posted only after the previous completion;
// non-persistent ones are posted at most once.
Findings check_p27_persistent(const TraceIndex &ix);
// P28: init, then (post, completion, callback if set)*, then finalize; one
// callback per post with the completion's status; the program's first
// successful test (UserMark::kDone) comes after the callback.
Findings check_p28_status_machine(const TraceIndex &ix);
// P29: every request is finalized exactly once, errors included, and nothing
// happens to it afterwards.
Findings check_p29_finalize(const TraceIndex &ix);
// P30: UCC_ERR_TIMED_OUT only for posts with the TIMEOUT flag.
Findings check_p30_timeout_gating(const TraceIndex &ix);

// ---- active sets (P31, P32)
// P31: every message of an active-set instance is between its members (ranks
// outside the set are never touched; that members complete is P20's check).
Findings check_p31_active_set(const TraceIndex &ix);
// P32: concurrent active-set instances on overlapping members keep their
// messages apart (the per-instance send/receive balance of P21, restricted to
// active sets, plus no two outstanding ones with the same key on a rank).
Findings check_p32_active_set_isolation(const TraceIndex &ix);

// ---- teams and resources (P33-P36)
// P33: team creation succeeds on every member, every member agrees on the
// size, and the members' team ranks are 0..size-1 exactly once each.
Findings check_p33_team_creation(const TraceIndex &ix);
// P34: every created team is destroyed on every member, after its last request
// was finalized.
Findings check_p34_team_destroy(const TraceIndex &ix);
// P35: a destroyed team leaves nothing behind: no receive or message under its
// tags is still held by the transport (ranks that saw a failure excepted: late
// messages of a failed collective may land after the destroy). Together with
// P29 (every request finalized) and P34 (every team destroyed), M cycles of
// create/run/destroy return to the baseline.
Findings check_p35_resource_drift(const TraceIndex &ix);
// P36: every call on a destroyed object (UserMark::kUseAfterDestroy) returned an error.
Findings check_p36_use_after_destroy(const TraceIndex &ix);
// P38: every destroy the program began (UserMark::kDestroyBegin) returned
// (kDestroyEnd) before the next began or the rank ended, and the last call on
// each object did not leave it in progress: destroy terminated, whatever the
// other ranks were doing (some long done, some not yet destroying).
Findings check_p38_destroy_terminates(const TraceIndex &ix);

// P37: after the simulator failed an allocation of a rank (a kAllocFailed
// mark), the rank's call it happened in returns UCC_ERR_NO_MEMORY (its next
// kCallReturned mark) and hands back no request (no kInit in between); when
// it failed the frames of a post (AllocSite::kCollTask), that request
// completes with UCC_ERR_NO_MEMORY instead (the post itself succeeds).
Findings check_p37_failed_allocation(const TraceIndex &ix);

// ---- timeouts and failure (P39, P40)
// P39: a post with the TIMEOUT flag that fails with UCC_ERR_TIMED_OUT does so
// no earlier than post + timeout and no later than one quantum after the later
// of post + timeout and the rank's last init/post/finalize (or triggered post,
// or set event) before it (calls that do not progress: a rank busy in them
// notices deadlines afterwards). A triggered post's timeout runs from the
// triggered post.
Findings check_p39_timeout_bounds(const TraceIndex &ix, int64_t quantum_ps);
// P40: after a post failed, no write to its user buffers follows.
Findings check_p40_no_write_after_failure(const TraceIndex &ix);

// ---- support decisions (P42)
// P42: every participant of an instance chose the same algorithm at init (a
// choice made from something that may differ per rank, such as a memory type
// or a tuning string, would make them run different protocols).
Findings check_p42_same_algorithm(const TraceIndex &ix);

// ---- arguments (P44, P45)
// P44: all participants of an instance agree on type, root, op and size
// (signature) and on the active-set membership; a mismatch names the field
// and the ranks.
Findings check_p44_argument_match(const TraceIndex &ix);
// P45: the library accepted only in-range arguments: root and rank below the
// participant count, and participants distinct.
Findings check_p45_argument_range(const TraceIndex &ix);

// ---- execution engines (P48-P50)
// P48: nothing of a triggered collective happens before its trigger (no post,
// message or buffer access while it waits), each trigger consumes the
// engine's next input event, one the program set before, and the requests
// waiting on an engine fire in the order they were parked.
Findings check_p48_trigger(const TraceIndex &ix);
// P49: an engine's output events come in order: emitted with consecutive
// ordinals, a COLLECTIVE_POST for each trigger (queued before the
// collective's post; a CUDA stream engine's at the triggered post, which
// queues the collective on its stream), handed out first in, first out.
Findings check_p49_events_in_order(const TraceIndex &ix);
// P50: each output event is handed out at most once, and acknowledged at most
// once, after it was handed out by ucc_ee_get_event (ucc_ee_wait acknowledges
// its own).
Findings check_p50_delivered_once(const TraceIndex &ix);

// What a checker may need besides the index: P39's progress quantum.
struct CheckOptions {
    int64_t quantum_ps = 2'000'000;
};

// One row of the checker table.
struct Checker {
    int property;      // CONFORMANCE.md number
    const char *name;  // the check_pNN_ function's suffix
    Findings (*check)(const TraceIndex &ix, const CheckOptions &o);
};

// Every checker above, in the order check_all runs them.
std::span<const Checker> checkers();

// Every checker of checkers() over `t` (P39 with `quantum_ps`).
Findings check_all(const Trace &t, int64_t quantum_ps = CheckOptions{}.quantum_ps);

// "P16: ..." lines, for failure messages.
std::string format(const Findings &f);

// Every property number of checkers(), ascending.
const std::vector<int> &checked_properties();

}  // namespace ucc::model
