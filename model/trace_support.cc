// Support decisions (P42; trace.h states the property): the participants of
// an instance chose one algorithm. Each rank decides alone at init, from its
// own arguments and configuration; whatever may differ between ranks (a
// memory type, a tuning string, a zero count) must not change the decision,
// or ranks run different protocols against each other. The one exception:
// an instance that every participant completed with UCC_ERR_NOT_SUPPORTED was
// refused together (UCC_CHECK_ASYMMETRIC_DT compares the choices before any
// algorithm runs), so differing choices did no harm there.
#include "model/trace.h"

#include <string>

#include "model/trace_util.h"

namespace ucc::model {

using detail::add;
using detail::rank_str;

namespace {

bool refused_together(const Instance &in) {
    for (const RankOp *op : in.ops) {
        if (op->done == nullptr || op->done->status != UCC_ERR_NOT_SUPPORTED) {
            return false;
        }
    }
    return true;
}

}  // namespace

Findings check_p42_same_algorithm(const TraceIndex &ix) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        if (refused_together(in)) {
            continue;
        }
        const RankOp *ref = in.ops.front();
        for (const RankOp *op : in.ops) {
            // Arguments that disagree are P44's finding, not this one.
            if (op->post->signature != ref->post->signature || op->init->alg == ref->init->alg) {
                continue;
            }
            add(&f, 42,
                in.name() + ": " + rank_str(ref->rank) + " chose algorithm #" +
                    std::to_string(ref->init->alg) + ", " + rank_str(op->rank) + " #" +
                    std::to_string(op->init->alg) + " (0: none, a zero-size collective)");
            break;
        }
    }
    return f;
}

}  // namespace ucc::model
