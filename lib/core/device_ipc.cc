// Allreduce and bcast on device memory through CUDA IPC (device_ipc.h): the
// decision and the collective's protocol, whichever IpcDevice runs its work.
#include "lib/core/device_ipc.h"

#include <algorithm>
#include <vector>

#include "lib/core/core.h"
#include "lib/core/device_staging.h"
#include "lib/core/log.h"
#include "lib/dt/dt.h"

namespace ucc::core {

bool device_ipc_applies(const CollRequest &r) {
    const Team &t = *r.team;
    const Context &ctx = *t.ctx;
    const coll::Args &a = r.nargs;
    if (!ctx.tuning.device_ipc || r.checked || r.active_set != nullptr || r.alg == nullptr ||
        r.alg->onesided || t.sync_type == UCC_SYNC_COLLECTIVES || a.generic != nullptr ||
        a.esize == 0 || t.size < 2 || t.size > kMaxIpcRanks) {
        return false;
    }
    // Which buffers are device memory, and whether the kernels reduce (dt, op):
    // the staging's plan and component, or on the simulator (no staging, no
    // component) the same plan and the kernels' matrix.
    DeviceCopies copies;
    bool kernels = false;
    if (ctx.sim != nullptr) {
        if (!plan_device_copies(a, r.view_size, r.view_rank, &copies)) {
            return false;
        }
        kernels = dt::device_reducible(a.dt, a.op);
    } else {
        auto *s = dynamic_cast<const DeviceStaging *>(r.staging.get());
        if (s == nullptr || !UCC_CUDA_COMPONENT_HAS(s->ops, ipc_close)) {
            return false;
        }
        copies = s->copies;
        kernels = s->ops->reduce_supported(a.dt, a.op) != 0;
    }
    const bool allreduce = a.type == UCC_COLL_TYPE_ALLREDUCE && copies.dst_device &&
                           (a.inplace || copies.src_device) && kernels;
    const bool bcast = a.type == UCC_COLL_TYPE_BCAST && copies.src_device;
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

constexpr uint32_t kCards = 0;
constexpr uint32_t kAgree = 1;
constexpr uint32_t kReduced = 2;
constexpr uint32_t kDone = 3;

// Every member's `flag` becomes the AND of all members' (a dissemination:
// ceil(log2 n) rounds); doubles as a barrier. Control data: moved in a
// timing-only simulation too.
ucc::Task agree(ucc::coll::Coll &c, uint32_t step, uint8_t *flag) {
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    c.set_step_space(tag::kIpcSteps);
    ucc_status_t st = UCC_OK;
    for (uint64_t d = 1; d < n && st == UCC_OK; d *= 2) {
        const auto dist = static_cast<uint32_t>(d);
        const uint8_t out = *flag;
        uint8_t in = 0;
        ucc::coll::Req snd = c.send_control((r + dist) % n, step, &out, 1);
        ucc::coll::Req rcv = c.recv_control((r + n - dist) % n, step, &in, 1);
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

// Step 1 at `me`: its block reduced in rank order into its dst (an error code).
int reduce_block(const coll::Args &a, uint32_t n, uint32_t me, IpcDevice &dev,
                 const std::vector<uint8_t *> &srcs) {
    uint64_t first = 0;
    uint64_t len = 0;
    block_of(a.count, n, me, &first, &len);
    if (len == 0) {
        return 0;
    }
    const uint64_t off = first * a.esize;
    const uint64_t bytes = len * a.esize;
    uint8_t *out = static_cast<uint8_t *>(a.dst) + off;
    // In place, from rank 2 on, the first steps would overwrite this rank's
    // own input before its turn: they accumulate in a scratch block.
    uint8_t *acc = out;
    int rc = 0;
    if (a.inplace && me >= 2) {
        void *block = nullptr;
        rc = dev.scratch(bytes, &block);
        acc = static_cast<uint8_t *>(block);
    }
    for (uint32_t k = 1; k < n && rc == 0; ++k) {
        // (Step 1 reads srcs[0] and srcs[1]; then the accumulator and srcs[k].)
        const bool peer = k != me || (k == 1 && me != 0);
        rc = dev.reduce(a, acc, k == 1 ? srcs[0] + off : acc, srcs[k] + off, len, peer);
    }
    if (rc == 0 && acc != out) {
        rc = dev.copy(out, acc, bytes, false);
    }
    if (rc == 0 && a.op == UCC_OP_AVG) {
        rc = dev.avg(a, out, len, n);
    }
    return rc;
}

// Step 2 at `me`: the other blocks from their owners' dst.
int gather_blocks(const coll::Args &a, uint32_t n, uint32_t me, IpcDevice &dev,
                  const std::vector<uint8_t *> &dsts) {
    int rc = 0;
    for (uint32_t q = 0; q < n && rc == 0; ++q) {
        uint64_t first = 0;
        uint64_t len = 0;
        block_of(a.count, n, q, &first, &len);
        if (q != me && len > 0) {
            const uint64_t off = first * a.esize;
            rc = dev.copy(static_cast<uint8_t *>(a.dst) + off, dsts[q] + off, len * a.esize, true);
        }
    }
    return rc;
}

}  // namespace

ucc::Task run_device_ipc(ucc::coll::Coll &c, ucc::coll::AlgFn alg, std::unique_ptr<IpcDevice> dev,
                         ucc::coll::ScratchCache *scratch, bool may_end_early) {
    const coll::Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t me = c.rank();
    // The cards: every member's to every other.
    std::vector<IpcCard> cards(n);
    IpcCard &mine = cards[me];
    mine.pid = dev->pid();
    // (bcast: its one buffer is src at every member.)
    const bool bcast = a.type == UCC_COLL_TYPE_BCAST;
    void *const my_src = bcast || !a.inplace ? a.src : a.dst;
    void *const my_dst = bcast ? a.src : a.dst;
    mine.ok = dev->ready() && dev->export_buffer(my_dst, &mine.dst) &&
              dev->export_buffer(my_src, &mine.src);
    {
        c.set_step_space(tag::kIpcSteps);
        ucc::coll::ReqList reqs = c.req_list(2 * (n - 1));
        for (uint32_t p = 0; p < n; ++p) {
            if (p != me) {
                reqs.push_back(c.recv_control(p, kCards, &cards[p], sizeof(IpcCard)));
            }
        }
        for (uint32_t p = 0; p < n; ++p) {
            if (p != me) {
                reqs.push_back(c.send_control(p, kCards, &mine, sizeof(IpcCard)));
            }
        }
        const ucc_status_t st = co_await c.wait_all(reqs);
        c.set_step_space(0);
        UCC_CO_TRY(st);
    }
    // Map the peers' buffers (a peer of this process: at its address); all
    // members must have mapped all.
    auto import = [&dev, &mine](const IpcCard &card, const IpcBuffer &b) {
        return card.pid == mine.pid ? reinterpret_cast<uint8_t *>(b.address)
                                    : dev->import_buffer(b);
    };
    std::vector<uint8_t *> srcs(n);
    std::vector<uint8_t *> dsts(n);
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
            srcs[p] = import(cards[p], cards[p].src);
            dsts[p] = import(cards[p], cards[p].dst);
            ok = srcs[p] != nullptr && dsts[p] != nullptr;
        }
    }
    UCC_CO_TRY(co_await agree(c, kAgree, &ok));
    UCC_LOG(dev->log(), kDebug, "%s of %llu elements on CUDA memory: %s",
            bcast ? "bcast" : "allreduce", static_cast<unsigned long long>(a.count),
            ok ? "over CUDA IPC" : "staged (a member could not map its peers' buffers)");
    if (!ok) {
        co_return co_await dev->staged(c, alg, scratch, may_end_early);
    }
    dev->direct();
    bool fine = true;
    if (bcast) {
        // A non-root copies the root's buffer (device to device); then the
        // closing barrier.
        const int rc = me != a.root ? dev->copy(a.src, srcs[a.root], a.count * a.esize, true) : 0;
        UCC_CO_TRY(co_await dev->reached(c, rc, 1, &fine));
        uint8_t copied = fine ? 1 : 0;
        UCC_CO_TRY(co_await agree(c, kDone, &copied));
        co_return copied != 0 ? UCC_OK : UCC_ERR_NO_RESOURCE;
    }
    UCC_CO_TRY(co_await dev->reached(c, reduce_block(a, n, me, *dev, srcs), 1, &fine));
    uint8_t reduced = fine ? 1 : 0;
    UCC_CO_TRY(co_await agree(c, kReduced, &reduced));
    if (reduced == 0) {
        co_return UCC_ERR_NO_RESOURCE;
    }
    UCC_CO_TRY(co_await dev->reached(c, gather_blocks(a, n, me, *dev, dsts), 2, &fine));
    uint8_t done = fine ? 1 : 0;
    UCC_CO_TRY(co_await agree(c, kDone, &done));
    co_return done != 0 ? UCC_OK : UCC_ERR_NO_RESOURCE;
}

}  // namespace ucc::core
