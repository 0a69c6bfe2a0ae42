// Datatype, op and collective-type facts of the model (API.md §3.3–3.6). See datatypes.h for the
// generic-handle layout the model assumes.
#include "model/datatypes.h"

#include <array>

namespace ucc::model {
namespace {

// The layout behind a generic handle's pointer part (assumption, see datatypes.h).
struct GenericDt {
    ucc_generic_dt_ops_t ops;
    void *context;
};

constexpr uint64_t kClassMask = 7;  // UCC_DATATYPE_CLASS_MASK

struct DtInfo {
    const char *name;
    size_t size;
};

// Indexed by predefined id (API.md §3.4).
constexpr std::array<DtInfo, kPredefinedDtCount> kDtInfo = {{
    {"INT8", 1},
    {"INT16", 2},
    {"INT32", 4},
    {"INT64", 8},
    {"INT128", 16},
    {"UINT8", 1},
    {"UINT16", 2},
    {"UINT32", 4},
    {"UINT64", 8},
    {"UINT128", 16},
    {"FLOAT16", 2},
    {"FLOAT32", 4},
    {"FLOAT64", 8},
    {"BFLOAT16", 2},
    {"FLOAT128", 16},
    {"FLOAT32_COMPLEX", 8},
    {"FLOAT64_COMPLEX", 16},
    {"FLOAT128_COMPLEX", 32},
}};

constexpr std::array<const char *, 13> kOpNames = {
    "SUM",  "PROD", "MAX",  "MIN",    "LAND",   "LOR", "LXOR",
    "BAND", "BOR",  "BXOR", "MAXLOC", "MINLOC", "AVG",
};

constexpr std::array<const char *, kCollTypeCount> kCollNames = {
    "ALLGATHER",      "ALLGATHERV",      "ALLREDUCE", "ALLTOALL", "ALLTOALLV", "BARRIER",
    "BCAST",          "FANIN",           "FANOUT",    "GATHER",   "GATHERV",   "REDUCE",
    "REDUCE_SCATTER", "REDUCE_SCATTERV", "SCATTER",   "SCATTERV",
};

}  // namespace

bool is_predefined_dt(ucc_datatype_t dt) {
    return (dt & kClassMask) == UCC_DATATYPE_PREDEFINED &&
           (dt >> UCC_DATATYPE_SHIFT) < kPredefinedDtCount;
}

bool is_generic_dt(ucc_datatype_t dt) {
    return (dt & kClassMask) == UCC_DATATYPE_GENERIC;
}

const ucc_generic_dt_ops_t *generic_ops(ucc_datatype_t dt) {
    const auto *generic = reinterpret_cast<const GenericDt *>(dt & ~kClassMask);
    return generic == nullptr ? nullptr : &generic->ops;
}

ucc_dt_generic_t *generic_handle(ucc_datatype_t dt) {
    return reinterpret_cast<ucc_dt_generic_t *>(dt & ~kClassMask);
}

size_t element_size(ucc_datatype_t dt) {
    if (is_predefined_dt(dt)) {
        return kDtInfo[predefined_id(dt)].size;
    }
    if (is_generic_dt(dt) && generic_ops(dt) != nullptr) {
        return generic_ops(dt)->contig_size;
    }
    return 0;
}

bool is_coll_type(uint64_t coll_type) {
    return coll_type != 0 && (coll_type & (coll_type - 1)) == 0 &&
           coll_type < (uint64_t{1} << kCollTypeCount);
}

bool is_rooted(uint64_t coll_type) {
    switch (coll_type) {
        case UCC_COLL_TYPE_BCAST:
        case UCC_COLL_TYPE_REDUCE:
        case UCC_COLL_TYPE_GATHER:
        case UCC_COLL_TYPE_GATHERV:
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
        case UCC_COLL_TYPE_FANIN:
        case UCC_COLL_TYPE_FANOUT:
            return true;
        default:
            return false;
    }
}

bool is_reduction(uint64_t coll_type) {
    switch (coll_type) {
        case UCC_COLL_TYPE_ALLREDUCE:
        case UCC_COLL_TYPE_REDUCE:
        case UCC_COLL_TYPE_REDUCE_SCATTER:
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            return true;
        default:
            return false;
    }
}

bool is_v(uint64_t coll_type) {
    switch (coll_type) {
        case UCC_COLL_TYPE_ALLGATHERV:
        case UCC_COLL_TYPE_ALLTOALLV:
        case UCC_COLL_TYPE_GATHERV:
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
        case UCC_COLL_TYPE_SCATTERV:
            return true;
        default:
            return false;
    }
}

std::string dt_name(ucc_datatype_t dt) {
    if (is_predefined_dt(dt)) {
        return std::string("UCC_DT_") + kDtInfo[predefined_id(dt)].name;
    }
    if (is_generic_dt(dt)) {
        return "generic(" + std::to_string(dt & ~kClassMask) + ")";
    }
    return "invalid datatype " + std::to_string(dt);
}

std::string op_name(int64_t op) {
    if (op >= 0 && static_cast<uint64_t>(op) < kOpNames.size()) {
        return std::string("UCC_OP_") + kOpNames[op];
    }
    return "invalid op " + std::to_string(op);
}

std::string coll_name(uint64_t coll_type) {
    if (is_coll_type(coll_type)) {
        for (uint32_t bit = 0; bit < kCollTypeCount; ++bit) {
            if (coll_type == (uint64_t{1} << bit)) {
                return std::string("UCC_COLL_TYPE_") + kCollNames[bit];
            }
        }
    }
    return "invalid coll_type " + std::to_string(coll_type);
}

}  // namespace ucc::model
