// Failed allocations, timeouts and failure (P37, P39, P40; trace.h states
// each property): a call whose allocation failed returns UCC_ERR_NO_MEMORY and
// no handle, a timed-out post fails no earlier than its deadline and at most
// one progress quantum late, and a failed post writes no user buffer
// afterwards.
#include "model/trace.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "model/trace_util.h"

namespace ucc::model {

using detail::add;
using detail::op_name;
using detail::pos;
using detail::time_str;

Findings check_p37_failed_allocation(const TraceIndex &ix) {
    Findings f;
    // Per rank: the failed allocation still waiting for its call to return,
    // the rank's latest post, and the requests whose frames failed.
    struct Pending {
        const TraceEvent *failed = nullptr;
        uint64_t last_post_req = 0;
        std::map<uint64_t, const TraceEvent *> failed_posts;  // req -> the failure
    };
    std::map<uint32_t, Pending> ranks;
    auto where = [](const TraceEvent &e) {
        return "rank " + std::to_string(e.rank) + ": allocation site " + std::to_string(e.key) +
               " failed at " + time_str(e.time_ps);
    };
    for (const TraceEvent &e : ix.trace()) {
        Pending &p = ranks[e.rank];
        if (e.kind == TraceKind::kPost) {
            p.last_post_req = e.req;
        } else if (e.kind == TraceKind::kUser && e.mark == UserMark::kAllocFailed) {
            if (e.key == static_cast<uint32_t>(AllocSite::kCollTask)) {
                p.failed_posts[p.last_post_req] = &e;
            } else {
                p.failed = &e;
            }
        } else if (e.kind == TraceKind::kInit && p.failed != nullptr) {
            add(&f, 37,
                where(*p.failed) + ", yet its ucc_collective_init made request " +
                    std::to_string(e.req));
            p.failed = nullptr;
        } else if (e.kind == TraceKind::kUser && e.mark == UserMark::kCallReturned &&
                   p.failed != nullptr) {
            if (e.status != UCC_ERR_NO_MEMORY) {
                add(&f, 37,
                    where(*p.failed) + ", yet the call returned " +
                        std::string(ucc_status_string(e.status)) + " at " + time_str(e.time_ps));
            }
            p.failed = nullptr;
        } else if (e.kind == TraceKind::kComplete) {
            auto it = p.failed_posts.find(e.req);
            if (it != p.failed_posts.end()) {
                if (e.status != UCC_ERR_NO_MEMORY) {
                    add(&f, 37,
                        where(*it->second) + " while request " + std::to_string(e.req) +
                            " was posted, yet it completed with " +
                            std::string(ucc_status_string(e.status)));
                }
                p.failed_posts.erase(it);
            }
        }
    }
    return f;
}

Findings check_p39_timeout_bounds(const TraceIndex &ix, int64_t quantum_ps) {
    Findings f;
    // Deadlines are noticed by progress calls. A rank busy in calls that do
    // not progress (init, post, finalize: the trace has an event for each)
    // notices later: the bound runs from the later of the deadline and the
    // last such call before the completion.
    std::map<const TraceEvent *, int64_t> busy_until;  // completion -> last non-progress call
    std::map<uint32_t, int64_t> last_call;             // rank -> time of its last such call
    // A triggered post's timeout runs from the triggered post (API.md
    // §4.11): post event -> the time of its triggered post.
    std::map<std::pair<uint32_t, uint64_t>, int64_t> parked_at;
    std::map<const TraceEvent *, int64_t> start_of;
    for (const TraceEvent &e : ix.trace()) {
        if (e.kind == TraceKind::kTriggeredPost) {
            parked_at[{e.rank, e.req}] = e.time_ps;
        } else if (e.kind == TraceKind::kPost) {
            if (auto it = parked_at.find({e.rank, e.req}); it != parked_at.end()) {
                start_of[&e] = it->second;
                parked_at.erase(it);
            }
        }
        if (e.kind == TraceKind::kInit || e.kind == TraceKind::kPost ||
            e.kind == TraceKind::kFinalize || e.kind == TraceKind::kTriggeredPost ||
            e.kind == TraceKind::kEeSet) {
            last_call[e.rank] = e.time_ps;
        } else if (e.kind == TraceKind::kComplete && e.status == UCC_ERR_TIMED_OUT) {
            auto it = last_call.find(e.rank);
            busy_until[&e] = it == last_call.end() ? INT64_MIN : it->second;
        }
    }
    for (const RankOp &op : ix.ops()) {
        if (op.done == nullptr || op.done->status != UCC_ERR_TIMED_OUT ||
            !(op.post->flags & UCC_COLL_ARGS_FLAG_TIMEOUT)) {
            continue;
        }
        const auto tau = static_cast<int64_t>(op.post->timeout * 1e12);
        const auto started = start_of.find(op.post);
        const int64_t lo = (started != start_of.end() ? started->second : op.post_ps()) + tau;
        const int64_t hi = std::max(lo, busy_until[op.done]) + quantum_ps;
        if (op.done_ps() < lo) {
            add(&f, 39,
                op_name(op) + ": timed out at " + time_str(op.done_ps()) +
                    ", before (triggered) post + timeout = " + time_str(lo));
        } else if (op.done_ps() > hi) {
            add(&f, 39,
                op_name(op) + ": timed out at " + time_str(op.done_ps()) +
                    ", later than one progress quantum after post + timeout (or after the "
                    "rank's last init/post/finalize) = " +
                    time_str(hi));
        }
    }
    return f;
}

Findings check_p40_no_write_after_failure(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        if (op.done == nullptr || op.done->status >= 0) {
            continue;
        }
        for (const TraceEvent *a : op.accesses) {
            if (a->write && pos(ix, a) > pos(ix, op.done)) {
                add(&f, 40,
                    op_name(op) + ": its " + (a->buffer == TraceBuffer::kSrc ? "src" : "dst") +
                        " was written at " + time_str(a->time_ps) + ", after it failed at " +
                        time_str(op.done_ps()));
            }
        }
    }
    return f;
}

}  // namespace ucc::model
