// Synchronisation (P14-P17; trace.h states each property): barriers complete
// after every post, SYNC teams' entry and exit, no buffer access after
// completion, and the fan-in and fan-out completion order.
#include "model/trace.h"

#include "model/trace_util.h"

namespace ucc::model {

using detail::add;
using detail::all_participants;
using detail::op_name;
using detail::pos;
using detail::rank_str;
using detail::time_str;

Findings check_p14_barrier(const TraceIndex &ix) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        const TraceEvent &p = in.first();
        if ((p.coll != UCC_COLL_TYPE_BARRIER && p.sync != UCC_SYNC_COLLECTIVES) ||
            !all_participants(in)) {
            continue;
        }
        const int64_t last_post = in.max_post_ps();
        for (const RankOp *op : in.ops) {
            if (op->done != nullptr && op->done->status == UCC_OK && op->done_ps() < last_post) {
                add(&f, 14,
                    in.name() + ": " + rank_str(op->rank) + " completed at " +
                        time_str(op->done_ps()) + ", before the last post at " +
                        time_str(last_post));
            }
        }
    }
    return f;
}

Findings check_p15_sync_entry_exit(const TraceIndex &ix) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        if (in.first().sync != UCC_SYNC_COLLECTIVES || !all_participants(in)) {
            continue;
        }
        const int64_t last_post = in.max_post_ps();
        int64_t last_access = INT64_MIN;
        uint32_t last_rank = 0;
        for (const RankOp *op : in.ops) {
            for (const TraceEvent *a : op->accesses) {
                if (a->time_ps < last_post) {
                    add(&f, 15,
                        in.name() + ": entry: " + rank_str(op->rank) + " touched its " +
                            (a->buffer == TraceBuffer::kSrc ? "src" : "dst") + " at " +
                            time_str(a->time_ps) + ", before the last post at " +
                            time_str(last_post));
                }
                if (a->time_ps > last_access) {
                    last_access = a->time_ps;
                    last_rank = op->rank;
                }
            }
        }
        for (const RankOp *op : in.ops) {
            if (op->done != nullptr && op->done->status == UCC_OK && op->done_ps() < last_access) {
                add(&f, 15,
                    in.name() + ": exit: " + rank_str(op->rank) + " completed at " +
                        time_str(op->done_ps()) + ", before " + rank_str(last_rank) +
                        "'s last buffer access at " + time_str(last_access));
            }
        }
    }
    return f;
}

Findings check_p16_no_access_after_done(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        if (op.done == nullptr) {
            continue;
        }
        for (const TraceEvent *a : op.accesses) {
            if (pos(ix, a) > pos(ix, op.done) || a->time_ps > op.done_ps()) {
                add(&f, 16,
                    op_name(op) + ": its " + (a->buffer == TraceBuffer::kSrc ? "src" : "dst") +
                        " was " + (a->write ? "written" : "read") + " at " + time_str(a->time_ps) +
                        ", after it completed at " + time_str(op.done_ps()));
            }
        }
    }
    return f;
}

Findings check_p17_fanin_fanout(const TraceIndex &ix) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        const TraceEvent &p = in.first();
        if ((p.coll != UCC_COLL_TYPE_FANIN && p.coll != UCC_COLL_TYPE_FANOUT) ||
            !all_participants(in)) {
            continue;
        }
        const RankOp *root = nullptr;
        for (const RankOp *op : in.ops) {
            if (op->post->team_rank == p.root) {
                root = op;
            }
        }
        if (root == nullptr) {
            continue;
        }
        for (const RankOp *op : in.ops) {
            if (op->done == nullptr || op->done->status != UCC_OK) {
                continue;
            }
            if (p.coll == UCC_COLL_TYPE_FANIN && op == root && op->done_ps() < in.max_post_ps()) {
                add(&f, 17,
                    in.name() + ": the root (" + rank_str(op->rank) + ") completed at " +
                        time_str(op->done_ps()) + ", before the last post at " +
                        time_str(in.max_post_ps()));
            }
            if (p.coll == UCC_COLL_TYPE_FANOUT && op != root && op->done_ps() < root->post_ps()) {
                add(&f, 17,
                    in.name() + ": " + rank_str(op->rank) + " completed at " +
                        time_str(op->done_ps()) + ", before the root posted at " +
                        time_str(root->post_ps()));
            }
        }
    }
    return f;
}

}  // namespace ucc::model
