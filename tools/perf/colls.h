// The collectives, datatypes, reductions and memory types the tools know by
// name (ucc_perftest, ucc_sim, ucc_info), with the nccl-tests conventions for
// a collective's size and bus bandwidth. One table for every tool.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ucc/api/ucc.h"

namespace ucc::perf {

// How a collective's count maps to buffers and to nccl-tests' numbers.
enum class Shape : uint8_t {
    kNone,       // barrier, fanin, fanout: no data
    kVector,     // allreduce, bcast, reduce: one vector of `count` elements
    kGatherTo,   // allgather(v), gather(v): each rank contributes a block
    kScatterTo,  // scatter(v), reduce_scatter(v): each rank ends with a block
    kAllToAll,   // alltoall(v): a block for every peer
};

struct CollDesc {
    const char *name;
    ucc_coll_type_t type;
    Shape shape;
    bool rooted;
    bool reduction;
    bool v;
    // nccl-tests bus bandwidth factor: busbw = algbw x factor, with the
    // (n - 1) / n term when `minus_one`, times `twice` (2 for allreduce).
    bool minus_one;
    int twice;
};

struct DtDesc {
    const char *name;
    ucc_datatype_t dt;
    size_t size;
    bool is_float;    // a floating-point type (complex: of its parts)
    bool is_complex;  // two parts of size / 2
};

struct OpDesc {
    const char *name;
    ucc_reduction_op_t op;
};

std::span<const CollDesc> colls();
const CollDesc *find_coll(const std::string &name);
const DtDesc *find_dtype(const std::string &name);
const DtDesc *find_dtype(ucc_datatype_t dt);
const OpDesc *find_op(const std::string &name);
std::string coll_names();
std::string dtype_names();
std::string op_names();
// host (the only memory type these tools allocate); cuda, rocm and
// cuda-mng / cuda_managed are known and refused by the caller.
bool parse_memtype(const std::string &name, ucc_memory_type_t *out);

// "64", "4K", "1m", "2G", "8KB" (binary multiples), "inf" not accepted.
bool parse_units(const std::string &s, uint64_t *out);

// nccl-tests' size of the operation for a per-rank size of `bytes`, and the
// bus bandwidth factor at n ranks (0: no bandwidth, e.g. barrier).
double nccl_size(const CollDesc &c, uint64_t bytes, uint32_t n);
double busbw_factor(const CollDesc &c, uint32_t n);

}  // namespace ucc::perf
