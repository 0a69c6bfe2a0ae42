// Block r of a block collective's buffers (allgather(v), alltoall(v)), in
// elements: from the count and displacement arrays of a v-collective, else
// `count` elements at r * count. One description for the patterns that
// serve both forms (gab.cc, node_split.cc).
#pragma once

#include <cstdint>

#include "lib/coll/coll.h"

namespace ucc::coll::patterns {

struct Blocks {
    const Args *a;
    bool v;
    uint64_t src_count(uint32_t r) const { return v ? a->src_count_at(r) : a->count; }
    uint64_t src_displ(uint32_t r) const { return v ? a->src_displ_at(r) : uint64_t{r} * a->count; }
    uint64_t dst_count(uint32_t r) const { return v ? a->dst_count_at(r) : a->count; }
    uint64_t dst_displ(uint32_t r) const { return v ? a->dst_displ_at(r) : uint64_t{r} * a->count; }
};

}  // namespace ucc::coll::patterns
