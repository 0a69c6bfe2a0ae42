// The reference UCC's CPU algorithms (tl/ucp) by collective, id and name, and
// the algorithm of ours each maps onto, so that a site's tuning strings
// (UCC_TL_UCP_TUNE=allreduce:0-4k:@0#allreduce:4k-inf:@1) mean the same here:
// the same shape of algorithm for the same range. Where we have no algorithm
// of that shape, the closest in cost: latency-bound trees and log-round
// exchanges map to ours of log rounds, bandwidth-bound ones to ours that move
// each byte the fewest times.
#include <strings.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lib/coll/algorithms.h"
#include "lib/select/select.h"

namespace ucc::select {

namespace {

constexpr ReferenceAlg kReference[] = {
    {UCC_COLL_TYPE_ALLGATHER, 0, "knomial", "knomial"},
    {UCC_COLL_TYPE_ALLGATHER, 1, "ring", "ring"},
    {UCC_COLL_TYPE_ALLGATHER, 2, "neighbor", "neighbor"},
    {UCC_COLL_TYPE_ALLGATHER, 3, "bruck", "bruck"},
    {UCC_COLL_TYPE_ALLGATHER, 4, "sparbit", "bruck"},
    {UCC_COLL_TYPE_ALLGATHER, 5, "linear", "ring"},
    {UCC_COLL_TYPE_ALLGATHER, 6, "linear_batched", "ring"},
    {UCC_COLL_TYPE_ALLGATHERV, 0, "knomial", "ring"},
    {UCC_COLL_TYPE_ALLGATHERV, 1, "ring", "ring"},
    {UCC_COLL_TYPE_ALLREDUCE, 0, "knomial", "knomial"},
    {UCC_COLL_TYPE_ALLREDUCE, 1, "sra_knomial", "sra_knomial"},
    {UCC_COLL_TYPE_ALLREDUCE, 2, "dbt", "rabenseifner"},
    {UCC_COLL_TYPE_ALLREDUCE, 3, "sliding_window", "ring"},
    {UCC_COLL_TYPE_ALLTOALL, 0, "pairwise", "pairwise"},
    {UCC_COLL_TYPE_ALLTOALL, 1, "bruck", "bruck"},
    {UCC_COLL_TYPE_ALLTOALL, 2, "onesided", "onesided"},
    {UCC_COLL_TYPE_ALLTOALLV, 0, "pairwise", "pairwise"},
    {UCC_COLL_TYPE_ALLTOALLV, 1, "hybrid", "hybrid"},
    {UCC_COLL_TYPE_ALLTOALLV, 2, "onesided", "onesided"},
    {UCC_COLL_TYPE_BCAST, 0, "knomial", "knomial"},
    {UCC_COLL_TYPE_BCAST, 1, "sag_knomial", "sag_knomial"},
    {UCC_COLL_TYPE_BCAST, 2, "dbt", "dbt"},
    {UCC_COLL_TYPE_REDUCE, 0, "knomial", "knomial"},
    {UCC_COLL_TYPE_REDUCE, 1, "dbt", "dbt"},
    {UCC_COLL_TYPE_REDUCE, 2, "srg", "srg"},
    {UCC_COLL_TYPE_REDUCE_SCATTER, 0, "ring", "ring"},
    {UCC_COLL_TYPE_REDUCE_SCATTER, 1, "knomial", "knomial"},
    {UCC_COLL_TYPE_REDUCE_SCATTERV, 0, "ring", "ring"},
};

const coll::Algorithm *ours(ucc_coll_type_t type, const char *name) {
    for (const coll::Algorithm &a : coll::algorithms(type)) {
        if (std::strcmp(a.name, name) == 0) {
            return &a;
        }
    }
    return nullptr;
}

}  // namespace

std::span<const ReferenceAlg> reference_algs() {
    return kReference;
}

const coll::Algorithm *hier_alg(ucc_coll_type_t type, uint32_t k) {
    for (const coll::Algorithm &a : coll::algorithms(type)) {
        if (a.hierarchical && k-- == 0) {
            return &a;
        }
    }
    return nullptr;
}

const coll::Algorithm *resolve_alg(ucc_coll_type_t type, const std::string &name_or_id, bool hier) {
    if (name_or_id.empty()) {
        return nullptr;
    }
    bool digits = name_or_id.size() <= 9;
    for (char c : name_or_id) {
        digits = digits && std::isdigit(static_cast<unsigned char>(c));
    }
    if (hier) {
        // CL/HIER's names compare without case, as the reference's do.
        if (digits) {
            return hier_alg(type,
                            static_cast<uint32_t>(std::strtoul(name_or_id.c_str(), nullptr, 10)));
        }
        for (const coll::Algorithm &a : coll::algorithms(type)) {
            if (a.hierarchical && strcasecmp(a.name, name_or_id.c_str()) == 0) {
                return &a;
            }
        }
        return nullptr;
    }
    bool reference_has_type = false;
    for (const ReferenceAlg &r : kReference) {
        reference_has_type = reference_has_type || r.type == type;
    }
    if (digits) {
        const uint32_t id = static_cast<uint32_t>(std::strtoul(name_or_id.c_str(), nullptr, 10));
        if (reference_has_type) {
            for (const ReferenceAlg &r : kReference) {
                if (r.type == type && r.id == id) {
                    return ours(type, r.ours);
                }
            }
            return nullptr;
        }
        std::span<const coll::Algorithm> table = coll::algorithms(type);
        return id < table.size() ? &table[id] : nullptr;
    }
    if (const coll::Algorithm *a = ours(type, name_or_id.c_str())) {
        return a;
    }
    for (const ReferenceAlg &r : kReference) {
        if (r.type == type && name_or_id == r.name) {
            return ours(type, r.ours);
        }
    }
    return nullptr;
}

}  // namespace ucc::select
