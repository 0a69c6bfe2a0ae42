// The tools' tables of collectives, datatypes and reductions (colls.h).
#include "tools/perf/colls.h"

#include <strings.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace ucc::perf {

namespace {

constexpr CollDesc kColls[] = {
    {"allreduce", UCC_COLL_TYPE_ALLREDUCE, Shape::kVector, false, true, false, true, 2},
    {"bcast", UCC_COLL_TYPE_BCAST, Shape::kVector, true, false, false, false, 1},
    {"reduce", UCC_COLL_TYPE_REDUCE, Shape::kVector, true, true, false, false, 1},
    {"barrier", UCC_COLL_TYPE_BARRIER, Shape::kNone, false, false, false, false, 0},
    {"allgather", UCC_COLL_TYPE_ALLGATHER, Shape::kGatherTo, false, false, false, true, 1},
    {"allgatherv", UCC_COLL_TYPE_ALLGATHERV, Shape::kGatherTo, false, false, true, true, 1},
    {"alltoall", UCC_COLL_TYPE_ALLTOALL, Shape::kAllToAll, false, false, false, true, 1},
    {"alltoallv", UCC_COLL_TYPE_ALLTOALLV, Shape::kAllToAll, false, false, true, true, 1},
    {"gather", UCC_COLL_TYPE_GATHER, Shape::kGatherTo, true, false, false, true, 1},
    {"gatherv", UCC_COLL_TYPE_GATHERV, Shape::kGatherTo, true, false, true, true, 1},
    {"scatter", UCC_COLL_TYPE_SCATTER, Shape::kScatterTo, true, false, false, true, 1},
    {"scatterv", UCC_COLL_TYPE_SCATTERV, Shape::kScatterTo, true, false, true, true, 1},
    {"reduce_scatter", UCC_COLL_TYPE_REDUCE_SCATTER, Shape::kScatterTo, false, true, false, true,
     1},
    {"reduce_scatterv", UCC_COLL_TYPE_REDUCE_SCATTERV, Shape::kScatterTo, false, true, true, true,
     1},
    {"fanin", UCC_COLL_TYPE_FANIN, Shape::kNone, true, false, false, false, 0},
    {"fanout", UCC_COLL_TYPE_FANOUT, Shape::kNone, true, false, false, false, 0},
};

constexpr DtDesc kDtypes[] = {
    {"int8", UCC_DT_INT8, 1, false, false},
    {"int16", UCC_DT_INT16, 2, false, false},
    {"int32", UCC_DT_INT32, 4, false, false},
    {"int64", UCC_DT_INT64, 8, false, false},
    {"int128", UCC_DT_INT128, 16, false, false},
    {"uint8", UCC_DT_UINT8, 1, false, false},
    {"uint16", UCC_DT_UINT16, 2, false, false},
    {"uint32", UCC_DT_UINT32, 4, false, false},
    {"uint64", UCC_DT_UINT64, 8, false, false},
    {"uint128", UCC_DT_UINT128, 16, false, false},
    {"float16", UCC_DT_FLOAT16, 2, true, false},
    {"float32", UCC_DT_FLOAT32, 4, true, false},
    {"float64", UCC_DT_FLOAT64, 8, true, false},
    {"bfloat16", UCC_DT_BFLOAT16, 2, true, false},
    {"float128", UCC_DT_FLOAT128, sizeof(long double), true, false},
    {"float32_complex", UCC_DT_FLOAT32_COMPLEX, 8, true, true},
    {"float64_complex", UCC_DT_FLOAT64_COMPLEX, 16, true, true},
    {"float128_complex", UCC_DT_FLOAT128_COMPLEX, 2 * sizeof(long double), true, true},
};

constexpr OpDesc kOps[] = {
    {"sum", UCC_OP_SUM},   {"prod", UCC_OP_PROD}, {"max", UCC_OP_MAX},   {"min", UCC_OP_MIN},
    {"land", UCC_OP_LAND}, {"lor", UCC_OP_LOR},   {"lxor", UCC_OP_LXOR}, {"band", UCC_OP_BAND},
    {"bor", UCC_OP_BOR},   {"bxor", UCC_OP_BXOR}, {"avg", UCC_OP_AVG},
};

template <class T>
std::string names_of(std::span<const T> table) {
    std::string s;
    for (const T &e : table) {
        s += (s.empty() ? "" : ", ") + std::string(e.name);
    }
    return s;
}

template <class T>
const T *lookup(std::span<const T> table, const std::string &name) {
    for (const T &e : table) {
        if (strcasecmp(name.c_str(), e.name) == 0) {
            return &e;
        }
    }
    return nullptr;
}

}  // namespace

std::span<const CollDesc> colls() {
    return kColls;
}
const CollDesc *find_coll(const std::string &name) {
    return lookup<CollDesc>(kColls, name);
}
const DtDesc *find_dtype(const std::string &name) {
    return lookup<DtDesc>(kDtypes, name);
}
const DtDesc *find_dtype(ucc_datatype_t dt) {
    for (const DtDesc &d : kDtypes) {
        if (d.dt == dt) {
            return &d;
        }
    }
    return nullptr;
}
const OpDesc *find_op(const std::string &name) {
    return lookup<OpDesc>(kOps, name);
}
std::string coll_names() {
    return names_of<CollDesc>(kColls);
}
std::string dtype_names() {
    return names_of<DtDesc>(kDtypes);
}
std::string op_names() {
    return names_of<OpDesc>(kOps);
}

bool parse_memtype(const std::string &name, ucc_memory_type_t *out) {
    static constexpr struct {
        const char *name;
        ucc_memory_type_t mem;
    } kMem[] = {{"host", UCC_MEMORY_TYPE_HOST},
                {"cuda", UCC_MEMORY_TYPE_CUDA},
                {"cuda-mng", UCC_MEMORY_TYPE_CUDA_MANAGED},
                {"cuda_managed", UCC_MEMORY_TYPE_CUDA_MANAGED},
                {"rocm", UCC_MEMORY_TYPE_ROCM},
                {"rocm_managed", UCC_MEMORY_TYPE_ROCM_MANAGED}};
    for (const auto &m : kMem) {
        if (strcasecmp(name.c_str(), m.name) == 0) {
            *out = m.mem;
            return true;
        }
    }
    return false;
}

bool parse_units(const std::string &text, uint64_t *out) {
    std::string s = text;
    for (const char *suffix : {"iB", "B", "b"}) {
        const size_t n = std::strlen(suffix);
        if (s.size() > n && s.compare(s.size() - n, n, suffix) == 0 &&
            std::isalpha(static_cast<unsigned char>(s[s.size() - n - 1]))) {
            s.resize(s.size() - n);
            break;
        }
    }
    if (s.size() > 1 && (s.back() == 'B' || s.back() == 'b') &&
        std::isdigit(static_cast<unsigned char>(s[s.size() - 2]))) {
        s.pop_back();  // "64B"
    }
    int shift = 0;
    if (!s.empty()) {
        switch (std::tolower(static_cast<unsigned char>(s.back()))) {
            case 'k':
                shift = 10;
                break;
            case 'm':
                shift = 20;
                break;
            case 'g':
                shift = 30;
                break;
            case 't':
                shift = 40;
                break;
            default:
                break;
        }
        if (shift > 0) {
            s.pop_back();
        }
    }
    if (s.empty() || s.size() > 19) {
        return false;
    }
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) {
            return false;
        }
    }
    const uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
    if (v > ((uint64_t{1} << 62) >> shift)) {
        return false;
    }
    *out = v << shift;
    return true;
}

double nccl_size(const CollDesc &c, uint64_t bytes, uint32_t n) {
    switch (c.shape) {
        case Shape::kVector:
            return static_cast<double>(bytes);
        case Shape::kGatherTo:
        case Shape::kScatterTo:
        case Shape::kAllToAll:
            return static_cast<double>(bytes) * n;
        case Shape::kNone:
            break;
    }
    return 0;
}

double busbw_factor(const CollDesc &c, uint32_t n) {
    if (c.shape == Shape::kNone) {
        return 0;
    }
    const double f = c.minus_one ? static_cast<double>(n - 1) / n : 1.0;
    return f * c.twice;
}

}  // namespace ucc::perf
