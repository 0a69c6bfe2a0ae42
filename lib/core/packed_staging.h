// Datatypes described by pack/unpack callbacks only (no CONTIG flag): the
// algorithm runs on packed copies of the user's buffers, packed at every post
// (dst too: blocks the collective does not write, and in-place inputs, come
// back unchanged) and unpacked into the user's buffers when the post completes.
// Cost per post: one pack of the src and dst extents and one unpack of dst (and
// of bcast's buffer at a non-root), through the user's callbacks.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/core/staging.h"

namespace ucc::core {

class Logger;

struct PackedStaging final : Staging {
    // `generic` is the ucc::dt::Generic; size and rank are the collective's view.
    PackedStaging(const void *generic, uint32_t size, uint32_t rank, bool unpack_src, Logger *log)
        : generic(generic), size(size), rank(rank), unpack_src(unpack_src), log(log) {}
    ucc_status_t stage_in(const ucc::coll::Args &a) override;
    ucc_status_t stage_out(const ucc::coll::Args &a) override;

    const void *generic;
    uint32_t size;
    uint32_t rank;
    bool unpack_src;  // bcast at a non-root: src is the output
    Logger *log;
    std::vector<uint8_t> src;
    std::vector<uint8_t> dst;
    uint64_t src_elems = 0;
    uint64_t dst_elems = 0;
};

}  // namespace ucc::core
