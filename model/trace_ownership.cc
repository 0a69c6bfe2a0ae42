// In-place and ownership (P23, P25; trace.h states each property): the
// buffer IN_PLACE ignores is never touched, and library accesses lie inside
// [post, completion] of their post.
#include "model/trace.h"

#include "model/trace_util.h"

namespace ucc::model {

using detail::add;
using detail::op_name;
using detail::pos;
using detail::rank_str;
using detail::time_str;

namespace {

// The buffer IN_PLACE makes the library ignore for this participant
// (API.md §4.3): src, except dst for scatter(v) at the root; kNone where it
// has no effect.
TraceBuffer inplace_ignored(const TraceEvent &post) {
    if (!(post.flags & UCC_COLL_ARGS_FLAG_IN_PLACE)) {
        return TraceBuffer::kNone;
    }
    const bool root = post.team_rank == post.root;
    switch (post.coll) {
        case UCC_COLL_TYPE_ALLREDUCE:
        case UCC_COLL_TYPE_ALLGATHER:
        case UCC_COLL_TYPE_ALLGATHERV:
        case UCC_COLL_TYPE_ALLTOALL:
        case UCC_COLL_TYPE_ALLTOALLV:
        case UCC_COLL_TYPE_REDUCE_SCATTER:
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            return TraceBuffer::kSrc;
        case UCC_COLL_TYPE_REDUCE:
        case UCC_COLL_TYPE_GATHER:
        case UCC_COLL_TYPE_GATHERV:
            return root ? TraceBuffer::kSrc : TraceBuffer::kNone;
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
            return root ? TraceBuffer::kDst : TraceBuffer::kNone;
        default:
            return TraceBuffer::kNone;
    }
}

}  // namespace

Findings check_p23_inplace(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        const TraceBuffer ignored = inplace_ignored(*op.post);
        if (ignored == TraceBuffer::kNone) {
            continue;
        }
        for (const TraceEvent *a : op.accesses) {
            if (a->buffer == ignored) {
                add(&f, 23,
                    op_name(op) + ": in place, but its ignored " +
                        (ignored == TraceBuffer::kSrc ? "src" : "dst") + " was " +
                        (a->write ? "written" : "read") + " (" + std::to_string(a->bytes) +
                        " bytes at offset " + std::to_string(a->offset) + ")");
            }
        }
    }
    return f;
}

Findings check_p25_ownership(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        for (const TraceEvent *a : op.accesses) {
            if (a->time_ps < op.post_ps()) {
                add(&f, 25,
                    op_name(op) + ": library access at " + time_str(a->time_ps) +
                        " before the post at " + time_str(op.post_ps()));
            } else if (op.done != nullptr && (pos(ix, a) > pos(ix, op.done))) {
                add(&f, 25,
                    op_name(op) + ": library access at " + time_str(a->time_ps) +
                        " after the completion at " + time_str(op.done_ps()));
            }
        }
        for (const TraceEvent *m : op.user_marks) {
            if (m->mark == UserMark::kUserWrite &&
                (op.done == nullptr || pos(ix, m) < pos(ix, op.done))) {
                add(&f, 25,
                    op_name(op) + ": user error: the program wrote its " +
                        (m->buffer == TraceBuffer::kSrc ? "src" : "dst") +
                        " while the collective was in progress");
            }
        }
    }
    // Accesses of requests that were not posted at the time.
    for (const auto &[k, h] : ix.requests()) {
        bool posted = false;
        for (const TraceEvent *e : h.events) {
            posted |= e->kind == TraceKind::kPost;
            if (!posted && (e->kind == TraceKind::kAccess || e->kind == TraceKind::kSend ||
                            e->kind == TraceKind::kRecv)) {
                add(&f, 25,
                    rank_str(h.rank) + " req " + std::to_string(h.req) +
                        ": library traffic before the request was posted");
            }
        }
    }
    return f;
}

}  // namespace ucc::model
