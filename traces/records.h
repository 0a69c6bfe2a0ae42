// The records of a trace (FORMAT.md) as plain values: what the recorder writes
// (traces/emit.h formats them) and what the reader gives back
// (traces/reader.h), so that a record survives the round trip unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ucc/api/ucc.h"

namespace ucc::traces {

inline constexpr uint32_t kFormatVersion = 1;

// Team members, v-counts, v-displacements (run-length encoded in the file).
using Values = std::vector<int64_t>;

struct Datatype {
    ucc_datatype_t predefined = UCC_DT_INT8;  // when !generic
    bool generic = false;
    uint64_t size = 0;  // generic: bytes per element
    bool contig = true;
    bool reduce = false;  // generic: has a reduction callback
    bool operator==(const Datatype &) const = default;
};

// One buffer description the rank uses.
struct Buffer {
    bool used = false;
    bool v = false;
    uint64_t count = 0;  // !v
    Values counts;       // v
    Values displs;       // v, when has_displs
    bool has_displs = false;
    Datatype dt;
    ucc_memory_type_t mem = UCC_MEMORY_TYPE_HOST;
    bool operator==(const Buffer &) const = default;
};

struct Header {
    uint32_t version = kFormatVersion;
    std::string library;
    std::string revision;
    uint64_t rank = 0;
    uint64_t size = 1;
    std::string host;
    int64_t pid = 0;
    std::string transport;
    std::string clock;  // "monotonic" or "virtual"
    double clock_resolution_ns = 1;
    std::string thread_mode = "single";
    std::string context_type = "shared";
    bool context_sync = false;
    bool context_oob = false;
    std::vector<std::pair<std::string, std::string>> config;
    std::vector<std::string> tune;  // "VARIABLE=value"
    bool operator==(const Header &) const = default;
};

// ucc_team_create_post or ucc_team_create_from_parent was called.
// Every record has `t`, when it happened, and `idle`, the program's own time
// (outside UCC calls on the context) since the previous record, both in ns.
struct TeamCreateRec {
    int64_t t = 0;
    int64_t idle = 0;
    uint32_t team = 0;
    ucc_status_t status = UCC_OK;  // what the call returned
    std::string how = "oob";       // "oob", "ep_map", "split"
    uint32_t parent = 0;           // split
    bool included = true;          // split
    uint64_t ep = 0;
    ucc_post_ordering_t ordering = UCC_COLLECTIVE_POST_ORDERED;
    bool sync = false;
    bool has_id = false;
    uint64_t id = 0;
    bool operator==(const TeamCreateRec &) const = default;
};

// The creation completed.
struct TeamRec {
    int64_t t = 0;
    int64_t idle = 0;
    uint32_t team = 0;
    ucc_status_t status = UCC_OK;
    uint32_t rank = 0;
    uint32_t size = 0;
    bool has_members = false;
    Values members;  // context endpoints, in team-rank order
    bool operator==(const TeamRec &) const = default;
};

struct InitRec {
    int64_t t = 0;
    int64_t idle = 0;
    uint64_t req = 0;   // 0: init failed
    uint32_t team = 0;  // 0: unknown
    ucc_status_t status = UCC_OK;
    bool has_coll = false;
    ucc_coll_type_t coll = UCC_COLL_TYPE_BARRIER;
    std::string alg;
    bool has_flags = false;
    uint64_t flags = 0;
    Buffer src;
    Buffer dst;
    bool has_op = false;
    ucc_reduction_op_t op = UCC_OP_SUM;
    bool has_root = false;
    uint64_t root = 0;
    bool has_tag = false;
    uint64_t tag = 0;
    bool has_active_set = false;
    uint64_t as_start = 0;
    int64_t as_stride = 1;
    uint64_t as_size = 0;
    double timeout = 0;  // with the timeout flag
    bool cb = false;
    bool operator==(const InitRec &) const = default;
};

struct PostRec {
    int64_t t = 0;
    int64_t idle = 0;
    uint64_t req = 0;
    ucc_status_t status = UCC_OK;
    uint64_t key = 0;
    bool operator==(const PostRec &) const = default;
};

struct DoneRec {
    int64_t t = 0;
    int64_t idle = 0;
    uint64_t req = 0;
    ucc_status_t status = UCC_OK;
    bool operator==(const DoneRec &) const = default;
};

struct FinRec {
    int64_t t = 0;
    int64_t idle = 0;
    uint64_t req = 0;
    bool operator==(const FinRec &) const = default;
};

struct TeamDestroyRec {
    int64_t t = 0;
    int64_t idle = 0;
    uint32_t team = 0;
    bool operator==(const TeamDestroyRec &) const = default;
};

struct EndRec {
    int64_t t = 0;
    int64_t idle = 0;
    bool operator==(const EndRec &) const = default;
};

using Record =
    std::variant<TeamCreateRec, TeamRec, InitRec, PostRec, DoneRec, FinRec, TeamDestroyRec, EndRec>;

}  // namespace ucc::traces
