// Allreduce and bcast on device memory through CUDA IPC (device_ipc.h): the cache of
// mappings, the decision, and the collective's coroutine.
#include "lib/core/device_ipc.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "lib/core/core.h"
#include "lib/core/device_staging.h"
#include "lib/core/log.h"

namespace ucc::core {

void DeviceStaging::unpin() {
    for (void *p : pins) {
        ipc->release(p);
    }
    pins.clear();
    ipc.reset();
}

bool device_ipc_applies(const CollRequest &r) {
    const Team &t = *r.team;
    const Context &ctx = *t.ctx;
    auto *s = dynamic_cast<const DeviceStaging *>(r.staging.get());
    const coll::Args &a = r.nargs;
    if (s == nullptr || !UCC_CUDA_COMPONENT_HAS(s->ops, ipc_close) || !ctx.tuning.device_ipc ||
        ctx.sim != nullptr || r.checked || r.active_set != nullptr || r.alg == nullptr ||
        r.alg->onesided || t.sync_type == UCC_SYNC_COLLECTIVES || a.generic != nullptr ||
        a.esize == 0 || t.size < 2 || t.size > kMaxIpcRanks) {
        return false;
    }
    const bool allreduce = a.type == UCC_COLL_TYPE_ALLREDUCE && s->copies.dst_device &&
                           (a.inplace || s->copies.src_device) &&
                           s->ops->reduce_supported(a.dt, a.op) != 0;
    const bool bcast = a.type == UCC_COLL_TYPE_BCAST && s->copies.src_device;
    if (!allreduce && !bcast) {
        return false;
    }
    // Every member on this host (the transport's node keys, not NODE_SIZE's).
    const Transport &tl = *ctx.transport;
    const uint64_t host = tl.node_key(t.peers.at(0));
    for (uint32_t i = 1; i < t.size; ++i) {
        if (tl.node_key(t.peers.at(i)) != host) {
            return false;
        }
    }
    return true;
}

namespace {

// What a member tells the others of one buffer.
struct IpcBuffer {
    uint8_t handle[UCC_CUDA_IPC_HANDLE_BYTES];
    uint64_t offset;   // in its allocation
    uint64_t address;  // as the member sees it (a peer of the same process reads it there)
};

struct IpcCard {
    uint32_t ok;  // the member exported its buffers
    int32_t pid;
    IpcBuffer src;  // (in place: the dst's)
    IpcBuffer dst;
};

constexpr uint32_t kCards = 0;
constexpr uint32_t kAgree = 1;
constexpr uint32_t kReduced = 2;
constexpr uint32_t kDone = 3;

bool export_buffer(const ucc_cuda_component_t *ops, const void *p, IpcBuffer *out) {
    size_t offset = 0;
    if (ops->ipc_get_handle(p, out->handle, &offset) != 0) {
        return false;
    }
    out->offset = offset;
    out->address = reinterpret_cast<uintptr_t>(p);
    return true;
}

// The address of a peer's buffer here (mapped through the cache and pinned
// in `s`), or nullptr.
uint8_t *import_buffer(const IpcCard &card, const IpcBuffer &b, DeviceStaging &s) {
    if (card.pid == static_cast<int32_t>(getpid())) {
        return reinterpret_cast<uint8_t *>(b.address);  // one address space
    }
    void *base = nullptr;
    void *pin = nullptr;
    if (s.ipc->acquire(b.handle, &base, &pin) != 0) {
        return nullptr;
    }
    s.pins.push_back(pin);
    return static_cast<uint8_t *>(base) + b.offset;
}

// Every member's `flag` becomes the AND of all members' (a dissemination:
// ceil(log2 n) rounds); doubles as a barrier.
ucc::Task agree(ucc::coll::Coll &c, uint32_t step, uint8_t *flag) {
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    c.set_step_space(tag::kIpcSteps);
    ucc_status_t st = UCC_OK;
    for (uint64_t d = 1; d < n && st == UCC_OK; d *= 2) {
        const auto dist = static_cast<uint32_t>(d);
        const uint8_t out = *flag;
        uint8_t in = 0;
        ucc::coll::Req snd = c.send_host((r + dist) % n, step, &out, 1);
        ucc::coll::Req rcv = c.recv_host((r + n - dist) % n, step, &in, 1);
        st = co_await c.wait(snd, rcv);
        *flag &= in;
    }
    c.set_step_space(0);
    co_return st;
}

// The first [first, first + len) elements of block q of count over n members.
void block_of(uint64_t count, uint32_t n, uint32_t q, uint64_t *first, uint64_t *len) {
    const uint64_t base = count / n;
    const uint64_t extra = count % n;
    *first = q * base + std::min<uint64_t>(q, extra);
    *len = base + (q < extra ? 1 : 0);
}

// Step 1 at `me`: its block reduced in rank order into its dst, then a stream
// write of 1 (a CUDA error code).
int reduce_block(const coll::Args &a, uint32_t n, uint32_t me, DeviceStaging &s,
                 const std::vector<uint8_t *> &srcs) {
    const ucc_cuda_component_t *ops = s.ops;
    uint64_t first = 0;
    uint64_t len = 0;
    block_of(a.count, n, me, &first, &len);
    const uint64_t off = first * a.esize;
    const uint64_t bytes = len * a.esize;
    uint8_t *out = static_cast<uint8_t *>(a.dst) + off;
    int rc = 0;
    if (len > 0) {
        // In place, from rank 2 on, the first steps would overwrite this rank's
        // own input before its turn: they accumulate in a scratch block.
        uint8_t *acc = out;
        if (a.inplace && me >= 2) {
            if (s.device_scratch_bytes < bytes) {
                if (s.device_scratch != nullptr) {
                    ops->free(UCC_CUDA_ALLOC_DEVICE, s.device_scratch);
                    s.device_scratch = nullptr;
                    s.device_scratch_bytes = 0;
                }
                rc = ops->alloc(UCC_CUDA_ALLOC_DEVICE, bytes, &s.device_scratch);
                s.device_scratch_bytes = rc == 0 ? bytes : 0;
            }
            acc = static_cast<uint8_t *>(s.device_scratch);
        }
        for (uint32_t k = 1; k < n && rc == 0; ++k) {
            rc = ops->reduce_async(a.dt, a.op, acc, k == 1 ? srcs[0] + off : acc, srcs[k] + off,
                                   len, s.stream);
        }
        if (rc == 0 && acc != out) {
            rc = ops->copy_async(out, acc, bytes, s.stream);
        }
        if (rc == 0 && a.op == UCC_OP_AVG) {
            rc = ops->avg_async(a.dt, out, len, n, s.stream);
        }
    }
    if (rc == 0) {
        rc = ops->stream_write_value(s.stream, reinterpret_cast<uint32_t *>(s.words), 1);
    }
    return rc;
}

// Step 2 at `me`: the other blocks from their owners' dst, then a write of 2.
int gather_blocks(const coll::Args &a, uint32_t n, uint32_t me, DeviceStaging &s,
                  const std::vector<uint8_t *> &dsts) {
    int rc = 0;
    for (uint32_t q = 0; q < n && rc == 0; ++q) {
        uint64_t first = 0;
        uint64_t len = 0;
        block_of(a.count, n, q, &first, &len);
        if (q != me && len > 0) {
            const uint64_t off = first * a.esize;
            rc = s.ops->copy_async(static_cast<uint8_t *>(a.dst) + off, dsts[q] + off,
                                   len * a.esize, s.stream);
        }
    }
    if (rc == 0) {
        rc = s.ops->stream_write_value(s.stream, reinterpret_cast<uint32_t *>(s.words), 2);
    }
    return rc;
}

// Waits (without blocking) until the stream wrote `value`; false (logged)
// when queuing its work failed (rc).
ucc::Task stream_reached(ucc::coll::Coll &c, DeviceStaging &s, int rc, uint32_t value, bool *fine) {
    if (rc != 0) {
        UCC_LOG(*s.log, kError, "over CUDA IPC: queuing step %u: %s", value,
                s.ops->error_string(rc));
        *fine = false;
        co_return UCC_OK;
    }
    ucc::coll::Req w = c.watch(s.words, value);
    co_return co_await c.wait(w);
}

}  // namespace

ucc::Task run_device_ipc(ucc::coll::Coll &c, ucc::coll::AlgFn alg, DeviceStaging &s,
                         std::shared_ptr<IpcCache> cache, ucc::coll::ScratchCache *scratch,
                         bool may_end_early) {
    const coll::Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t me = c.rank();
    // The cards: every member's to every other.
    std::vector<IpcCard> cards(n);
    IpcCard &mine = cards[me];
    mine.pid = static_cast<int32_t>(getpid());
    // (bcast: its one buffer is src at every member.)
    const bool bcast = a.type == UCC_COLL_TYPE_BCAST;
    void *const my_src = bcast || !a.inplace ? a.src : a.dst;
    void *const my_dst = bcast ? a.src : a.dst;
    mine.ok = s.take_words() == 0 && export_buffer(s.ops, my_dst, &mine.dst) &&
              export_buffer(s.ops, my_src, &mine.src);
    {
        c.set_step_space(tag::kIpcSteps);
        ucc::coll::ReqList reqs = c.req_list(2 * (n - 1));
        for (uint32_t p = 0; p < n; ++p) {
            if (p != me) {
                reqs.push_back(c.recv_host(p, kCards, &cards[p], sizeof(IpcCard)));
            }
        }
        for (uint32_t p = 0; p < n; ++p) {
            if (p != me) {
                reqs.push_back(c.send_host(p, kCards, &mine, sizeof(IpcCard)));
            }
        }
        const ucc_status_t st = co_await c.wait_all(reqs);
        c.set_step_space(0);
        UCC_CO_TRY(st);
    }
    // Map the peers' buffers; all members must have mapped all.
    std::vector<uint8_t *> srcs(n);
    std::vector<uint8_t *> dsts(n);
    s.ipc = std::move(cache);
    uint8_t ok = 1;
    for (uint32_t p = 0; p < n && ok; ++p) {
        if (cards[p].ok == 0) {
            ok = 0;
        } else if (p == me) {
            srcs[p] = static_cast<uint8_t *>(my_src);
            dsts[p] = static_cast<uint8_t *>(my_dst);
        } else if (bcast && p != a.root) {
            continue;  // (a bcast reads only the root's buffer)
        } else {
            srcs[p] = import_buffer(cards[p], cards[p].src, s);
            dsts[p] = import_buffer(cards[p], cards[p].dst, s);
            ok = srcs[p] != nullptr && dsts[p] != nullptr;
        }
    }
    UCC_CO_TRY(co_await agree(c, kAgree, &ok));
    UCC_LOG(*s.log, kDebug, "%s of %llu elements on CUDA memory: %s", bcast ? "bcast" : "allreduce",
            static_cast<unsigned long long>(a.count),
            ok ? "over CUDA IPC" : "staged (a member could not map its peers' buffers)");
    if (!ok) {
        s.unpin();
        UCC_CO_TRY(s.stage_in(a));
        std::optional<ucc::coll::Coll> staged;
        staged.emplace(c.env(), s.run, me, n, c.tag_base(), 0, scratch);
        staged->set_may_end_early(may_end_early);
        co_return co_await alg(*staged);
    }
    s.direct = true;
    bool fine = true;
    if (bcast) {
        // A non-root copies the root's buffer (device to device); then the
        // closing barrier.
        int rc = 0;
        if (me != a.root) {
            rc = s.ops->copy_async(a.src, srcs[a.root], a.count * a.esize, s.stream);
        }
        if (rc == 0) {
            rc = s.ops->stream_write_value(s.stream, reinterpret_cast<uint32_t *>(s.words), 1);
        }
        UCC_CO_TRY(co_await stream_reached(c, s, rc, 1, &fine));
        uint8_t copied = fine ? 1 : 0;
        UCC_CO_TRY(co_await agree(c, kDone, &copied));
        co_return copied != 0 ? UCC_OK : UCC_ERR_NO_RESOURCE;
    }
    UCC_CO_TRY(co_await stream_reached(c, s, reduce_block(a, n, me, s, srcs), 1, &fine));
    uint8_t reduced = fine ? 1 : 0;
    UCC_CO_TRY(co_await agree(c, kReduced, &reduced));
    if (reduced == 0) {
        co_return UCC_ERR_NO_RESOURCE;
    }
    UCC_CO_TRY(co_await stream_reached(c, s, gather_blocks(a, n, me, s, dsts), 2, &fine));
    uint8_t done = fine ? 1 : 0;
    UCC_CO_TRY(co_await agree(c, kDone, &done));
    co_return done != 0 ? UCC_OK : UCC_ERR_NO_RESOURCE;
}

}  // namespace ucc::core
