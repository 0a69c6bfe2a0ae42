// Alltoallv algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

// The hybrid's settings: the reference's tl/ucp variables
// ALLTOALLV_HYBRID_* (docs/configuration.md), read under any component.
struct HybridSettings {
    // BUFF_SIZE: the scratch of the Bruck rounds, split in NUM_SCRATCH_SENDS
    // + NUM_SCRATCH_RECVS parts; with the team size it sets the largest
    // block the rounds carry (hybrid_block_limit).
    uint64_t buff_bytes = 256 * 1024;
    uint32_t scratch_sends = 1;
    uint32_t scratch_recvs = 3;
    // PAIRWISE_NUM_POSTS and CHUNK_BYTE_LIMIT: the direct exchanges in
    // flight at once, and their bytes (at least one exchange).
    uint32_t posts = 3;
    uint64_t chunk_bytes = 12 * 1024;
    bool operator==(const HybridSettings &) const = default;
};

// a.hybrid, or the defaults where the core set none.
const HybridSettings &hybrid_settings(const Args &a);

// The largest block, in bytes, that alltoallv hybrid's Bruck rounds carry
// on n ranks (larger blocks go directly): a round's share of BUFF_SIZE per
// block it may carry, and below 1,250 bytes, where a block's extra hops
// cost less than a message of its own.
uint64_t hybrid_block_limit(const Args &a, uint32_t n);

Task alltoallv_pairwise(Coll &c);
Task alltoallv_hybrid(Coll &c);
void alltoallv_hybrid_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
Task alltoallv_onesided(Coll &c);
Task alltoallv_node_split(Coll &c);
void alltoallv_node_split_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
bool alltoallv_onesided_supports(const Args &a, uint32_t size);
void alltoallv_pairwise_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);

}  // namespace ucc::coll
