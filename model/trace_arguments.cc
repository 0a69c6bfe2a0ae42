// Arguments (P44, P45; trace.h states each property): participants agree on
// signature and active set, and the library accepted only in-range roots,
// ranks and distinct participants.
#include "model/trace.h"

#include <set>

#include "model/datatypes.h"
#include "model/trace_util.h"

namespace ucc::model {

using detail::add;
using detail::op_name;
using detail::rank_str;
using detail::signature_diff;

Findings check_p44_argument_match(const TraceIndex &ix) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        const RankOp *ref = in.ops.front();
        for (const RankOp *op : in.ops) {
            const TraceEvent &a = *ref->post;
            const TraceEvent &b = *op->post;
            if (b.signature != a.signature) {
                add(&f, 44,
                    in.name() + ": " + signature_diff(a.signature, b.signature) +
                        " differ between " + rank_str(ref->rank) + " and " + rank_str(op->rank));
            }
            if (b.active_set != a.active_set || b.team_size != a.team_size) {
                add(&f, 44,
                    in.name() + ": the active set differs between " + rank_str(ref->rank) +
                        " and " + rank_str(op->rank));
            }
        }
    }
    return f;
}

Findings check_p45_argument_range(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        const TraceEvent &p = *op.post;
        if (p.team_rank >= p.team_size) {
            add(&f, 45,
                op_name(op) + ": accepted with rank " + std::to_string(p.team_rank) + " among " +
                    std::to_string(p.team_size) + " participants");
        }
        if (is_rooted(p.coll) && p.root >= p.team_size) {
            add(&f, 45,
                op_name(op) + ": accepted with root " + std::to_string(p.root) + " among " +
                    std::to_string(p.team_size) + " participants");
        }
    }
    for (const Instance &in : ix.instances()) {
        std::set<uint32_t> worlds;
        for (const RankOp *op : in.ops) {
            if (!worlds.insert(op->rank).second) {
                add(&f, 45, in.name() + ": " + rank_str(op->rank) + " participates twice");
            }
        }
    }
    return f;
}

}  // namespace ucc::model
