// Request lifecycle (P27-P30; trace.h states each property): persistent
// re-posts, the status machine from init to finalize, finalize exactly once,
// and UCC_ERR_TIMED_OUT only with the TIMEOUT flag.
#include "model/trace.h"

#include <map>
#include <string>
#include <utility>

#include "model/trace_util.h"

namespace ucc::model {

using detail::add;
using detail::op_name;
using detail::pos;
using detail::rank_str;

Findings check_p27_persistent(const TraceIndex &ix) {
    Findings f;
    std::map<std::pair<uint32_t, uint64_t>, const RankOp *> last;
    for (const RankOp &op : ix.ops()) {
        auto it = last.find({op.rank, op.req});
        if (it != last.end()) {
            const RankOp *prev = it->second;
            const bool persistent =
                op.init != nullptr && (op.init->flags & UCC_COLL_ARGS_FLAG_PERSISTENT);
            if (!persistent) {
                add(&f, 27, op_name(op) + ": a non-persistent request was posted again");
            } else if (prev->done == nullptr || pos(ix, prev->done) > pos(ix, op.post)) {
                add(&f, 27, op_name(op) + ": re-posted before the previous post completed");
            }
        }
        last[{op.rank, op.req}] = &op;
    }
    return f;
}

Findings check_p28_status_machine(const TraceIndex &ix) {
    Findings f;
    // kWaiting: parked on an execution engine; kTriggered: its trigger fired,
    // the post follows.
    enum class S { kNone, kInit, kPosted, kCompleted, kFinalized, kWaiting, kTriggered };
    for (const auto &[k, h] : ix.requests()) {
        S s = S::kNone;
        bool has_cb = false;
        bool cb_due = false;  // completed, callback not yet run
        ucc_status_t done_status = UCC_OK;
        const std::string who = rank_str(h.rank) + " req " + std::to_string(h.req);
        auto bad = [&](const std::string &what) { add(&f, 28, who + ": " + what); };
        for (const TraceEvent *e : h.events) {
            switch (e->kind) {
                case TraceKind::kInit:
                    if (s != S::kNone) {
                        bad("initialised twice");
                    }
                    has_cb = e->has_cb;
                    s = S::kInit;
                    break;
                case TraceKind::kTriggeredPost:
                    if (s != S::kInit && s != S::kCompleted) {
                        bad("triggered-posted while not initialised or completed");
                    }
                    if (cb_due) {
                        bad("triggered-posted again before the callback of the previous post "
                            "ran");
                    }
                    s = S::kWaiting;
                    break;
                case TraceKind::kTrigger:
                    if (s != S::kWaiting) {
                        bad("triggered without waiting for a trigger");
                    }
                    s = S::kTriggered;
                    break;
                case TraceKind::kPost:
                    if (s == S::kWaiting) {
                        bad("posted while it waited for its trigger");
                    } else if (s != S::kInit && s != S::kCompleted && s != S::kTriggered) {
                        bad("posted while not initialised or completed");
                    }
                    if (cb_due) {
                        bad("posted again before the callback of the previous post ran");
                    }
                    s = S::kPosted;
                    break;
                case TraceKind::kComplete:
                    if ((s == S::kWaiting || s == S::kTriggered) && e->status >= 0) {
                        bad("completed with UCC_OK without running (it waited for a trigger)");
                    } else if (s != S::kPosted && s != S::kWaiting && s != S::kTriggered) {
                        bad("completed without being in progress");
                    }
                    s = S::kCompleted;
                    cb_due = has_cb;
                    done_status = e->status;
                    break;
                case TraceKind::kCallback:
                    if (!cb_due) {
                        bad("a callback ran without a completion to report (more than once per "
                            "post?)");
                    } else if (e->status != done_status) {
                        bad("the callback got status " + std::to_string(e->status) +
                            ", the completion " + std::to_string(done_status));
                    }
                    cb_due = false;
                    break;
                case TraceKind::kFinalize:
                    if (s == S::kPosted) {
                        bad("finalized while in progress");
                    }
                    if (cb_due) {
                        bad("finalized before its callback ran");
                    }
                    s = S::kFinalized;
                    break;
                case TraceKind::kUser:
                    if (e->mark == UserMark::kDone && (s != S::kCompleted || cb_due)) {
                        bad(cb_due ? "test() saw the completion before the callback returned"
                                   : "test() saw a completion the library never made");
                    }
                    break;
                default:
                    break;
            }
        }
        if (cb_due) {
            bad("the callback of its last post never ran");
        }
    }
    return f;
}

Findings check_p29_finalize(const TraceIndex &ix) {
    Findings f;
    for (const auto &[k, h] : ix.requests()) {
        const std::string who = rank_str(h.rank) + " req " + std::to_string(h.req);
        int finalizes = 0;
        bool has_init = false;
        for (const TraceEvent *e : h.events) {
            has_init |= e->kind == TraceKind::kInit;
            if (finalizes > 0 && e->kind != TraceKind::kUser) {
                add(&f, 29, who + ": an event after its finalize");
            }
            finalizes += e->kind == TraceKind::kFinalize;
        }
        if (has_init && finalizes == 0) {
            add(&f, 29, who + ": never finalized (leaked)");
        }
    }
    return f;
}

Findings check_p30_timeout_gating(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        if (op.done != nullptr && op.done->status == UCC_ERR_TIMED_OUT &&
            !(op.post->flags & UCC_COLL_ARGS_FLAG_TIMEOUT)) {
            add(&f, 30, op_name(op) + ": UCC_ERR_TIMED_OUT without the TIMEOUT flag");
        }
    }
    return f;
}

}  // namespace ucc::model
