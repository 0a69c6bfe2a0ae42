// Collectives on device memory through CUDA IPC (device_ipc.h): the decision
// and the protocol, whichever IpcDevice runs its work and whatever each
// collective reads (device_ipc_steps.h).
#include "lib/core/device_ipc.h"

#include <vector>

#include "lib/core/core.h"
#include "lib/core/device_ipc_steps.h"
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
        kernels = UCC_CUDA_COMPONENT_HAS(s->ops, reduce_many_async) &&
                  s->ops->reduce_supported(a.dt, a.op) != 0;
    }
    // The member's input on the device (in place: dst is the input).
    const bool input = a.inplace ? copies.dst_device : copies.src_device;
    bool fits = false;
    switch (a.type) {
        case UCC_COLL_TYPE_ALLREDUCE:
        case UCC_COLL_TYPE_REDUCE_SCATTER:
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            fits = input && copies.dst_device && kernels;
            break;
        case UCC_COLL_TYPE_REDUCE:  // (the root's dst: checked when it is exported)
            fits = input && kernels;
            break;
        case UCC_COLL_TYPE_GATHER:  // (the root copies into its dst, wherever it is)
        case UCC_COLL_TYPE_GATHERV:
            fits = input;
            break;
        case UCC_COLL_TYPE_SCATTER:  // (the root's src: checked when it is exported)
        case UCC_COLL_TYPE_SCATTERV:
            fits = r.view_rank == a.root ? copies.src_device : copies.dst_device;
            break;
        case UCC_COLL_TYPE_ALLGATHER:
        case UCC_COLL_TYPE_ALLGATHERV:
            fits = input && copies.dst_device;
            break;
        case UCC_COLL_TYPE_ALLTOALL:  // (in place, each block is read and written at once)
        case UCC_COLL_TYPE_ALLTOALLV:
            fits = !a.inplace && copies.src_device && copies.dst_device;
            break;
        case UCC_COLL_TYPE_BCAST:
            fits = copies.src_device;
            break;
        default:
            break;
    }
    if (!fits) {
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

// Every member's card to every other (its own, cards[me], with the offset
// for each receiver).
ucc::Task exchange_cards(ucc::coll::Coll &c, std::vector<IpcCard> &cards) {
    const uint32_t n = c.size();
    const uint32_t me = c.rank();
    c.set_step_space(tag::kIpcSteps);
    ucc::coll::ReqList reqs = c.req_list(2 * (n - 1));
    std::vector<IpcCard> out(n, cards[me]);
    for (uint32_t p = 0; p < n; ++p) {
        if (p != me) {
            reqs.push_back(c.recv_control(p, kCards, &cards[p], sizeof(IpcCard)));
        }
    }
    for (uint32_t p = 0; p < n; ++p) {
        if (p != me) {
            out[p].offset = ipc_offset_for(c.args(), p);
            reqs.push_back(c.send_control(p, kCards, &out[p], sizeof(IpcCard)));
        }
    }
    const ucc_status_t st = co_await c.wait_all(reqs);
    c.set_step_space(0);
    co_return st;
}

}  // namespace

ucc::Task run_device_ipc(ucc::coll::Coll &c, ucc::coll::AlgFn alg, std::unique_ptr<IpcDevice> dev,
                         ucc::coll::ScratchCache *scratch, bool may_end_early) {
    const coll::Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t me = c.rank();
    const IpcOwn own = ipc_own_buffers(a, me);
    std::vector<IpcCard> cards(n);
    IpcCard &mine = cards[me];
    mine.pid = dev->pid();
    mine.ok = dev->ready() && ipc_root_buffer_on_device(a, me) &&
              (!ipc_shows_src(a, me) || dev->export_buffer(own.src, &mine.src)) &&
              (!ipc_shows_dst(a, me) || dev->export_buffer(own.dst, &mine.dst));
    UCC_CO_TRY(co_await exchange_cards(c, cards));
    // Map what this member reads of its peers' (a peer of this process: at
    // its address); all members must have mapped all.
    auto import = [&dev, &mine](const IpcCard &card, const IpcBuffer &b) {
        return card.pid == mine.pid ? reinterpret_cast<uint8_t *>(b.address)
                                    : dev->import_buffer(b);
    };
    IpcPeers peers{std::vector<uint8_t *>(n), std::vector<uint8_t *>(n), std::vector<uint64_t>(n)};
    uint8_t ok = 1;
    for (uint32_t p = 0; p < n && ok; ++p) {
        if (cards[p].ok == 0) {
            ok = 0;
        } else if (p == me) {
            peers.src[p] = static_cast<uint8_t *>(own.src);
            peers.dst[p] = static_cast<uint8_t *>(own.dst);
        } else {
            const bool src = ipc_reads_src(a, me, p);
            const bool dst = ipc_reads_dst(a, p);
            peers.src[p] = src ? import(cards[p], cards[p].src) : nullptr;
            peers.dst[p] = dst ? import(cards[p], cards[p].dst) : nullptr;
            peers.offset[p] = cards[p].offset;
            ok = (!src || peers.src[p] != nullptr) && (!dst || peers.dst[p] != nullptr);
        }
    }
    UCC_CO_TRY(co_await agree(c, kAgree, &ok));
    UCC_LOG(dev->log(), kDebug, "%s of %llu elements on CUDA memory: %s", coll_type_name(a.type),
            static_cast<unsigned long long>(a.count),
            ok ? "over CUDA IPC" : "staged (a member could not map its peers' buffers)");
    if (!ok) {
        co_return co_await dev->staged(c, alg, scratch, may_end_early);
    }
    dev->direct();
    // The steps, each waited for on the device and closed by a barrier that
    // carries whether it ran (a failed stream fails every member at once).
    bool fine = true;
    uint32_t waits = 0;
    if (ipc_reduces(a)) {
        const int rc = ipc_reduce_step(a, n, me, *dev, peers);
        UCC_CO_TRY(co_await dev->reached(c, rc, ++waits, &fine));
        uint8_t reduced = fine ? 1 : 0;
        UCC_CO_TRY(co_await agree(c, ipc_copies(a) ? kReduced : kDone, &reduced));
        if (reduced == 0) {
            co_return UCC_ERR_NO_RESOURCE;
        }
    }
    if (ipc_copies(a)) {
        const int rc = ipc_copy_step(a, n, me, *dev, peers);
        UCC_CO_TRY(co_await dev->reached(c, rc, ++waits, &fine));
        uint8_t done = fine ? 1 : 0;
        UCC_CO_TRY(co_await agree(c, kDone, &done));
        if (done == 0) {
            co_return UCC_ERR_NO_RESOURCE;
        }
    }
    co_return UCC_OK;
}

}  // namespace ucc::core
