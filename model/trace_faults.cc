// Timeouts and failure (P39, P40; trace.h states each property): a timed-out
// post fails no earlier than its deadline and at most one progress quantum
// late, and a failed post writes no user buffer afterwards.
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

Findings check_p39_timeout_bounds(const TraceIndex &ix, int64_t quantum_ps) {
    Findings f;
    // Deadlines are noticed by progress calls. A rank busy in calls that do
    // not progress (init, post, finalize: the trace has an event for each)
    // notices later: the bound runs from the later of the deadline and the
    // last such call before the completion.
    std::map<const TraceEvent *, int64_t> busy_until;  // completion -> last non-progress call
    std::map<uint32_t, int64_t> last_call;             // rank -> time of its last such call
    for (const TraceEvent &e : ix.trace()) {
        if (e.kind == TraceKind::kInit || e.kind == TraceKind::kPost ||
            e.kind == TraceKind::kFinalize) {
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
        const int64_t lo = op.post_ps() + tau;
        const int64_t hi = std::max(lo, busy_until[op.done]) + quantum_ps;
        if (op.done_ps() < lo) {
            add(&f, 39,
                op_name(op) + ": timed out at " + time_str(op.done_ps()) + ", before post + " +
                    "timeout = " + time_str(lo));
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
