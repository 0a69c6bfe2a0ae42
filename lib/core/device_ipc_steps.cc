// The members' device work over CUDA IPC, collective by collective
// (device_ipc_steps.h).
#include "lib/core/device_ipc_steps.h"

#include <algorithm>
#include <array>

#include "lib/core/device_ipc.h"

namespace ucc::core {

namespace {

using ucc::coll::Args;

// The first [first, first + len) elements of block q of count over n members.
void block_of(uint64_t count, uint32_t n, uint32_t q, uint64_t *first, uint64_t *len) {
    const uint64_t base = count / n;
    const uint64_t extra = count % n;
    *first = q * base + std::min<uint64_t>(q, extra);
    *len = base + (q < extra ? 1 : 0);
}

uint8_t *at(void *p, uint64_t off) {
    return static_cast<uint8_t *>(p) + off;
}

// reduce_scatterv: where member q's block starts (in elements), the counts
// taken back to back in rank order.
uint64_t prefix(const Args &a, uint32_t q) {
    uint64_t first = 0;
    for (uint32_t i = 0; i < q; ++i) {
        first += a.dst_count_at(i);
    }
    return first;
}

}  // namespace

IpcOwn ipc_own_buffers(const Args &a, uint32_t me) {
    const bool root = me == a.root;
    switch (a.type) {
        case UCC_COLL_TYPE_BCAST:
            return {a.src, a.src};
        case UCC_COLL_TYPE_REDUCE:
            return {root && a.inplace ? a.dst : a.src, root ? a.dst : nullptr};
        case UCC_COLL_TYPE_GATHER:  // (the root in place: its block of dst)
            return {root && a.inplace ? at(a.dst, me * a.count * a.esize) : a.src, a.dst};
        case UCC_COLL_TYPE_GATHERV:
            return {root && a.inplace ? at(a.dst, a.dst_displ_at(me) * a.esize) : a.src, a.dst};
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
            return {root ? a.src : nullptr, root && a.inplace ? nullptr : a.dst};
        case UCC_COLL_TYPE_ALLGATHER:  // (in place: its block of dst)
            return {a.inplace ? at(a.dst, me * a.count * a.esize) : a.src, a.dst};
        case UCC_COLL_TYPE_ALLGATHERV:
            return {a.inplace ? at(a.dst, a.dst_displ_at(me) * a.esize) : a.src, a.dst};
        default:  // allreduce, reduce_scatter(v) (in place: dst is the input), alltoall(v)
            return {a.inplace ? a.dst : a.src, a.dst};
    }
}

uint64_t ipc_offset_for(const Args &a, uint32_t p) {
    switch (a.type) {
        case UCC_COLL_TYPE_ALLTOALLV:
        case UCC_COLL_TYPE_SCATTERV:  // (meaningful at the root only)
            return a.src_counts != nullptr ? a.src_displ_at(p) * a.esize : 0;
        case UCC_COLL_TYPE_SCATTER:
            return p * a.count * a.esize;
        default:
            return 0;
    }
}

bool ipc_reads_src(const Args &a, uint32_t me, uint32_t p) {
    switch (a.type) {
        case UCC_COLL_TYPE_BCAST:
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
            return p == a.root;
        case UCC_COLL_TYPE_GATHER:
        case UCC_COLL_TYPE_GATHERV:
            return me == a.root;
        default:
            return true;
    }
}

bool ipc_reads_dst(const Args &a, uint32_t p) {
    return a.type == UCC_COLL_TYPE_ALLREDUCE || (a.type == UCC_COLL_TYPE_REDUCE && p == a.root);
}

bool ipc_shows_src(const Args &a, uint32_t me) {
    switch (a.type) {
        case UCC_COLL_TYPE_BCAST:  // (only the root's is read)
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
            return me == a.root;
        case UCC_COLL_TYPE_GATHER:  // (the root reads the others')
        case UCC_COLL_TYPE_GATHERV:
            return me != a.root;
        default:
            return true;
    }
}

bool ipc_shows_dst(const Args &a, uint32_t me) {
    return a.type == UCC_COLL_TYPE_ALLREDUCE || (a.type == UCC_COLL_TYPE_REDUCE && me == a.root);
}

bool ipc_root_buffer_on_device(const Args &a, uint32_t me) {
    if (me != a.root) {
        return true;
    }
    switch (a.type) {
        case UCC_COLL_TYPE_REDUCE:
            return a.dst_mem == UCC_MEMORY_TYPE_CUDA;
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
            return a.src_mem == UCC_MEMORY_TYPE_CUDA;
        default:
            return true;
    }
}

bool ipc_reduces(const Args &a) {
    return a.type == UCC_COLL_TYPE_ALLREDUCE || a.type == UCC_COLL_TYPE_REDUCE ||
           a.type == UCC_COLL_TYPE_REDUCE_SCATTER || a.type == UCC_COLL_TYPE_REDUCE_SCATTERV;
}

bool ipc_copies(const Args &a) {
    return a.type != UCC_COLL_TYPE_REDUCE && a.type != UCC_COLL_TYPE_REDUCE_SCATTER &&
           a.type != UCC_COLL_TYPE_REDUCE_SCATTERV;
}

int ipc_reduce_step(const Args &a, uint32_t n, uint32_t me, IpcDevice &dev, const IpcPeers &peers) {
    // The block this member reduces: where it lies in every src, and where
    // its result goes.
    uint64_t first = 0;
    uint64_t len = 0;
    uint8_t *out = nullptr;
    if (a.type == UCC_COLL_TYPE_ALLREDUCE) {
        block_of(a.count, n, me, &first, &len);
        out = at(a.dst, first * a.esize);
    } else if (a.type == UCC_COLL_TYPE_REDUCE) {  // (into the root's dst)
        block_of(a.count, n, me, &first, &len);
        out = peers.dst[a.root] + first * a.esize;
    } else if (a.type == UCC_COLL_TYPE_REDUCE_SCATTER) {
        first = me * a.count;
        len = a.count;
        out = at(a.dst, a.inplace ? first * a.esize : 0);
    } else if (a.type == UCC_COLL_TYPE_REDUCE_SCATTERV) {
        first = prefix(a, me);
        len = a.dst_count_at(me);
        out = at(a.dst, a.inplace ? first * a.esize : 0);
    }
    if (len == 0) {
        return 0;
    }
    // (In place, out is this member's own input block: the kernel reads each
    // element's inputs before it writes it.)
    const uint64_t off = first * a.esize;
    std::array<const void *, kMaxIpcRanks> inputs{};
    for (uint32_t k = 0; k < n; ++k) {
        inputs[k] = peers.src[k] + off;
    }
    int rc = dev.fold(a, out, inputs.data(), n, len, n - 1);
    if (rc == 0 && a.op == UCC_OP_AVG) {
        rc = dev.avg(a, out, len, n);
    }
    return rc;
}

int ipc_copy_step(const Args &a, uint32_t n, uint32_t me, IpcDevice &dev, const IpcPeers &peers) {
    const uint64_t block = a.count * a.esize;
    int rc = 0;
    switch (a.type) {
        case UCC_COLL_TYPE_BCAST:
            return me != a.root ? dev.copy(a.src, peers.src[a.root], block, true) : 0;
        case UCC_COLL_TYPE_ALLREDUCE:  // the other blocks, from their owners' dst
            for (uint32_t q = 0; q < n && rc == 0; ++q) {
                uint64_t first = 0;
                uint64_t len = 0;
                block_of(a.count, n, q, &first, &len);
                if (q != me && len > 0) {
                    const uint64_t off = first * a.esize;
                    rc = dev.copy(at(a.dst, off), peers.dst[q] + off, len * a.esize, true);
                }
            }
            return rc;
        case UCC_COLL_TYPE_ALLGATHER:  // peer q's src into block q
            for (uint32_t q = 0; q < n && rc == 0; ++q) {
                if (q != me || !a.inplace) {
                    rc = dev.copy(at(a.dst, q * block), peers.src[q], block, q != me);
                }
            }
            return rc;
        case UCC_COLL_TYPE_ALLTOALL:  // block me of peer q's src into block q
            for (uint32_t q = 0; q < n && rc == 0; ++q) {
                rc = dev.copy(at(a.dst, q * block), peers.src[q] + me * block, block, q != me);
            }
            return rc;
        case UCC_COLL_TYPE_GATHER:  // at the root: as allgather
        case UCC_COLL_TYPE_GATHERV:
            if (me != a.root) {
                return 0;
            }
            for (uint32_t q = 0; q < n && rc == 0; ++q) {
                const bool v = a.type == UCC_COLL_TYPE_GATHERV;
                const uint64_t to = v ? a.dst_displ_at(q) * a.esize : q * block;
                const uint64_t bytes = v ? a.dst_count_at(q) * a.esize : block;
                if (q != me || !a.inplace) {
                    rc = dev.copy(at(a.dst, to), peers.src[q], bytes, q != me);
                }
            }
            return rc;
        case UCC_COLL_TYPE_SCATTER:  // its block of the root's src (the root's card says where)
        case UCC_COLL_TYPE_SCATTERV: {
            const bool root = me == a.root;
            if (root && a.inplace) {
                return 0;
            }
            const uint64_t off = root ? ipc_offset_for(a, me) : peers.offset[a.root];
            return dev.copy(a.dst, peers.src[a.root] + off, a.dst_count * a.esize, !root);
        }
        case UCC_COLL_TYPE_ALLGATHERV:  // peer q's src to its displacement
            for (uint32_t q = 0; q < n && rc == 0; ++q) {
                if (q != me || !a.inplace) {
                    rc = dev.copy(at(a.dst, a.dst_displ_at(q) * a.esize), peers.src[q],
                                  a.dst_count_at(q) * a.esize, q != me);
                }
            }
            return rc;
        case UCC_COLL_TYPE_ALLTOALLV:  // what peer q sends me, from where its card says
            for (uint32_t q = 0; q < n && rc == 0; ++q) {
                const uint64_t off = q == me ? ipc_offset_for(a, me) : peers.offset[q];
                rc = dev.copy(at(a.dst, a.dst_displ_at(q) * a.esize), peers.src[q] + off,
                              a.dst_count_at(q) * a.esize, q != me);
            }
            return rc;
        default:
            return 0;
    }
}

}  // namespace ucc::core
