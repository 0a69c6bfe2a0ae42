// The buffer layout of every collective (API.md §4.2–4.4): which of src and dst a rank uses, how
// each is described, and what it holds, in blocks of the collective. The one statement of it in
// the project: the validity rules (V7, V10, V11) read it, and so does every harness and tool that
// builds arguments (tests/common/scenario.cc, proptests/validity_props.cc,
// tools/perf/coll_call.cc).
//
// A block is one member's share: `count` elements for the fixed-size collectives, entry j of the
// v-arrays for the v-variants. With IN_PLACE, src is unused (for rooted types: at the root only)
// and the rank's input lives in dst; bcast ignores IN_PLACE; scatter(v) in place at the root uses
// no dst (the root's block stays in src).
#pragma once

#include <cstdint>

namespace ucc::model {

// How one buffer is described, when the rank uses it.
enum class Desc : uint8_t {
    kUnused,        // not read: the description may hold junk (P30)
    kInfo,          // ucc_coll_buffer_info_t; count covers the whole buffer
    kInfoBlock,     // ucc_coll_buffer_info_t; count is one block (the team holds n of them)
    kInfoV,         // ucc_coll_buffer_info_v_t with counts and displacements
    kInfoVNoDispl,  // ucc_coll_buffer_info_v_t with counts only (reduce_scatterv's dst)
};

// What the buffer holds.
enum class Holds : uint8_t {
    kNothing,
    kVector,      // allreduce, reduce, bcast: the vector of `count` elements
    kOwnBlock,    // this member's block
    kAllBlocks,   // every member's block, in member order
    kPeerBlocks,  // alltoall(v): src the block for each member, dst the block from each member
};

struct Buffer {
    Desc desc = Desc::kUnused;
    Holds holds = Holds::kNothing;
    bool used() const { return desc != Desc::kUnused; }
    bool v() const { return desc == Desc::kInfoV || desc == Desc::kInfoVNoDispl; }
};

struct Layout {
    Buffer src;
    Buffer dst;
    // The rank's input is in dst (in place): at its own block for allgather(v) and the root of
    // gather(v), the whole buffer otherwise.
    bool input_in_dst = false;
};

// The layout on one rank; `coll_type` must be one of the 16 types (others: nothing used).
Layout layout_of(uint64_t coll_type, bool in_place, bool is_root);

}  // namespace ucc::model
