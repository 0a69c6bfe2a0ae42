// Packed copies of a pack/unpack datatype's buffers (packed_staging.h).
#include "lib/core/packed_staging.h"

#include "lib/core/log.h"
#include "lib/dt/dt.h"

namespace ucc::core {

ucc_status_t PackedStaging::stage_in(const ucc::coll::Args &a) {
    run = a;
    const auto &g = *static_cast<const ucc::dt::Generic *>(generic);
    const uint64_t es = a.esize;
    src_elems = ucc::coll::src_extent_elems(a, size);
    dst_elems = ucc::coll::dst_extent_elems(a, size, rank);
    uint64_t src_bytes = 0;
    uint64_t dst_bytes = 0;
    if (__builtin_mul_overflow(src_elems, es, &src_bytes) ||
        __builtin_mul_overflow(dst_elems, es, &dst_bytes)) {
        return UCC_ERR_NO_MEMORY;
    }
    src.resize(src_bytes);
    dst.resize(dst_bytes);
    ucc_status_t st = UCC_OK;
    if (a.src != nullptr) {
        st = ucc::dt::pack(g, a.src, src_elems, src.data(), src_bytes);
        run.src = src.data();
    }
    if (st == UCC_OK && a.dst != nullptr) {
        st = ucc::dt::pack(g, a.dst, dst_elems, dst.data(), dst_bytes);
        run.dst = dst.data();
    }
    if (st != UCC_OK) {
        UCC_LOG(*log, kError,
                "ucc_collective_post: packing the generic datatype failed: %s (its "
                "packed_size or pack callback disagrees with the element size)",
                ucc_status_string(st));
    }
    return st;
}

ucc_status_t PackedStaging::stage_out(const ucc::coll::Args &a) {
    const auto &g = *static_cast<const ucc::dt::Generic *>(generic);
    ucc_status_t st = UCC_OK;
    if (a.dst != nullptr) {
        st = ucc::dt::unpack(g, a.dst, dst_elems, dst.data(), dst.size());
    }
    if (st == UCC_OK && unpack_src && a.src != nullptr) {
        st = ucc::dt::unpack(g, a.src, src_elems, src.data(), src.size());
    }
    if (st != UCC_OK) {
        UCC_LOG(*log, kError, "unpacking the generic datatype failed: %s", ucc_status_string(st));
    }
    return st;
}

}  // namespace ucc::core
