// The trace format's names (names.h), in the order of the C API's values.
#include "traces/names.h"

#include <iterator>

namespace ucc::traces {

namespace {

// By bit position (the API's order is alphabetical).
constexpr const char *kColls[16] = {"allgather",      "allgatherv",      "allreduce", "alltoall",
                                    "alltoallv",      "barrier",         "bcast",     "fanin",
                                    "fanout",         "gather",          "gatherv",   "reduce",
                                    "reduce_scatter", "reduce_scatterv", "scatter",   "scatterv"};

constexpr const char *kDts[UCC_DT_PREDEFINED_LAST] = {
    "int8",    "int16",    "int32",    "int64",           "int128",          "uint8",
    "uint16",  "uint32",   "uint64",   "uint128",         "float16",         "float32",
    "float64", "bfloat16", "float128", "float32_complex", "float64_complex", "float128_complex"};

constexpr const char *kOps[UCC_OP_LAST] = {"sum",    "prod",   "max",  "min", "land",
                                           "lor",    "lxor",   "band", "bor", "bxor",
                                           "maxloc", "minloc", "avg"};

constexpr const char *kMems[UCC_MEMORY_TYPE_LAST] = {"host", "cuda", "cuda_managed", "rocm",
                                                     "rocm_managed"};

struct StatusName {
    ucc_status_t st;
    const char *name;
};
constexpr StatusName kStatuses[] = {
    {UCC_OK, "UCC_OK"},
    {UCC_INPROGRESS, "UCC_INPROGRESS"},
    {UCC_OPERATION_INITIALIZED, "UCC_OPERATION_INITIALIZED"},
    {UCC_ERR_NOT_SUPPORTED, "UCC_ERR_NOT_SUPPORTED"},
    {UCC_ERR_NOT_IMPLEMENTED, "UCC_ERR_NOT_IMPLEMENTED"},
    {UCC_ERR_INVALID_PARAM, "UCC_ERR_INVALID_PARAM"},
    {UCC_ERR_NO_MEMORY, "UCC_ERR_NO_MEMORY"},
    {UCC_ERR_NO_RESOURCE, "UCC_ERR_NO_RESOURCE"},
    {UCC_ERR_NO_MESSAGE, "UCC_ERR_NO_MESSAGE"},
    {UCC_ERR_NOT_FOUND, "UCC_ERR_NOT_FOUND"},
    {UCC_ERR_TIMED_OUT, "UCC_ERR_TIMED_OUT"},
    {UCC_ERR_IO_ERROR, "UCC_ERR_IO_ERROR"},
};

constexpr const char *kOrderings[6] = {"post_ordered",          "post_unordered",
                                       "init_ordered",          "init_unordered",
                                       "init_and_post_ordered", "init_and_post_unordered"};

constexpr const char *kThreadModes[3] = {"single", "funneled", "multiple"};

constexpr const char *kFlags[kFlagBits] = {
    "in_place",   "persistent", "count_64bit", "displacements_64bit", "contig_src",
    "contig_dst", "timeout",    "mem_mapped",  "src_memh_global",     "dst_memh_global"};

template <size_t N>
const char *at(const char *const (&table)[N], int64_t i) {
    return i >= 0 && static_cast<uint64_t>(i) < N ? table[i] : nullptr;
}

template <size_t N>
std::optional<size_t> find(const char *const (&table)[N], std::string_view name) {
    for (size_t i = 0; i < N; ++i) {
        if (name == table[i]) {
            return i;
        }
    }
    return std::nullopt;
}

}  // namespace

const char *coll_name(uint64_t coll_type) {
    if (coll_type == 0 || (coll_type & (coll_type - 1)) != 0) {
        return nullptr;
    }
    return at(kColls, __builtin_ctzll(coll_type));
}

const char *dt_name(ucc_datatype_t dt) {
    if ((dt & UCC_DATATYPE_CLASS_MASK) != UCC_DATATYPE_PREDEFINED) {
        return nullptr;
    }
    return at(kDts, static_cast<int64_t>(dt >> UCC_DATATYPE_SHIFT));
}

const char *op_name(int64_t op) {
    return at(kOps, op);
}

const char *mem_name(int64_t mem) {
    return at(kMems, mem);
}

const char *status_name(int64_t status) {
    for (const StatusName &s : kStatuses) {
        if (s.st == status) {
            return s.name;
        }
    }
    return nullptr;
}

const char *ordering_name(int64_t ordering) {
    return at(kOrderings, ordering);
}

const char *thread_mode_name(int64_t mode) {
    return at(kThreadModes, mode);
}

std::optional<ucc_coll_type_t> coll_of(std::string_view name) {
    const auto i = find(kColls, name);
    return i ? std::optional(static_cast<ucc_coll_type_t>(uint64_t{1} << *i)) : std::nullopt;
}

std::optional<ucc_datatype_t> dt_of(std::string_view name) {
    const auto i = find(kDts, name);
    return i ? std::optional(UCC_PREDEFINED_DT(*i)) : std::nullopt;
}

std::optional<ucc_reduction_op_t> op_of(std::string_view name) {
    const auto i = find(kOps, name);
    return i ? std::optional(static_cast<ucc_reduction_op_t>(*i)) : std::nullopt;
}

std::optional<ucc_memory_type_t> mem_of(std::string_view name) {
    const auto i = find(kMems, name);
    return i ? std::optional(static_cast<ucc_memory_type_t>(*i)) : std::nullopt;
}

std::optional<ucc_status_t> status_of(std::string_view name) {
    for (const StatusName &s : kStatuses) {
        if (name == s.name) {
            return s.st;
        }
    }
    return std::nullopt;
}

std::optional<ucc_post_ordering_t> ordering_of(std::string_view name) {
    const auto i = find(kOrderings, name);
    return i ? std::optional(static_cast<ucc_post_ordering_t>(*i)) : std::nullopt;
}

const char *flag_name(unsigned bit) {
    return bit < kFlagBits ? kFlags[bit] : nullptr;
}

uint64_t flag_of(std::string_view name) {
    const auto i = find(kFlags, name);
    return i ? uint64_t{1} << *i : 0;
}

}  // namespace ucc::traces
