// The primitives algorithms are written in: send, recv, wait, reduce, copy.
#include "lib/coll/coll.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>

#include "lib/coll/patterns/pieces.h"
#include "lib/dt/dt.h"
#include "lib/util/common.h"

namespace ucc::coll {

namespace {

const char *type_name(uint32_t bit) {
    static constexpr const char *kNames[] = {
        "allgather",      "allgatherv",      "allreduce", "alltoall", "alltoallv", "barrier",
        "bcast",          "fanin",           "fanout",    "gather",   "gatherv",   "reduce",
        "reduce_scatter", "reduce_scatterv", "scatter",   "scatterv"};
    return bit < 16 ? kNames[bit] : "unknown";
}

}  // namespace

// Layout: [63] 1 | [62:58] type bit | [57:54] op | [53:32] root (22 bits) |
// [31:0] bytes per rank (low 32 bits; 0 for v-collectives and no-data types).
uint64_t signature_of(const Args &a) {
    const uint64_t bit = type_index(static_cast<uint64_t>(a.type));
    const bool reduction = a.type == UCC_COLL_TYPE_ALLREDUCE || a.type == UCC_COLL_TYPE_REDUCE ||
                           a.type == UCC_COLL_TYPE_REDUCE_SCATTER ||
                           a.type == UCC_COLL_TYPE_REDUCE_SCATTERV;
    const uint64_t op = reduction && a.generic == nullptr ? static_cast<uint64_t>(a.op) & 0xf : 0;
    const uint64_t count = is_v(a.type) ? 0 : (a.count * a.esize) & 0xffffffffu;
    return (uint64_t{1} << 63) | (bit << 58) | (op << 54) |
           ((static_cast<uint64_t>(a.root) & 0x3fffff) << 32) | count;
}

std::string describe_signature(uint64_t sig) {
    return std::string(type_name(static_cast<uint32_t>((sig >> 58) & 0x1f))) +
           "(root=" + std::to_string((sig >> 32) & 0x3fffff) +
           " op=" + std::to_string((sig >> 54) & 0xf) +
           " bytes=" + std::to_string(sig & 0xffffffffu) + ")";
}

void WaitAll::report_desync(const Xfer &x) {
    if (owner_ != nullptr) {
        owner_->env().report_desync(x.peer_index, x.signature, x.peer_signature);
    }
}

void WaitAll::report_length(const Xfer &x) {
    if (owner_ != nullptr) {
        owner_->env().report_length(x.peer_index, x.signature, x.expected, x.bytes);
    }
}

namespace {

uint64_t mul_sat(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t add_sat(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

}  // namespace

uint64_t src_extent_elems(const Args &a, uint32_t size) {
    if (a.src == nullptr) {
        return 0;
    }
    if (a.src_counts == nullptr) {
        return a.src_count;
    }
    uint64_t end = 0;
    for (uint32_t i = 0; i < size; ++i) {
        const uint64_t d = a.src_displs != nullptr ? a.src_displ_at(i) : 0;
        end = std::max(end, add_sat(d, a.src_count_at(i)));
    }
    return end;
}

uint64_t dst_extent_elems(const Args &a, uint32_t size, uint32_t rank) {
    if (a.dst == nullptr) {
        return 0;
    }
    if (a.dst_counts == nullptr) {
        return a.dst_count;
    }
    if (a.type == UCC_COLL_TYPE_REDUCE_SCATTERV && !a.inplace) {
        return rank < size ? a.dst_count_at(rank) : 0;  // only this rank's block
    }
    uint64_t end = 0;
    uint64_t sum = 0;  // reduce_scatterv in place: blocks back to back
    for (uint32_t i = 0; i < size; ++i) {
        const uint64_t c = a.dst_count_at(i);
        const uint64_t d = a.dst_displs != nullptr ? a.dst_displ_at(i) : sum;
        end = std::max(end, add_sat(d, c));
        sum = add_sat(sum, c);
    }
    return end;
}

uint64_t Coll::src_extent() const {
    return mul_sat(src_extent_elems(*args_, size_), args_->esize);
}

uint64_t Coll::dst_extent() const {
    return mul_sat(dst_extent_elems(*args_, size_, rank_), args_->esize);
}

uint64_t Coll::working_set() const {
    return add_sat(args_->inplace ? 0 : src_extent(), dst_extent());
}

Coll::Range Coll::range_of(const void *p, uint64_t bytes) {
    Range r;
    r.lo = reinterpret_cast<uintptr_t>(p);
    r.hi = bytes > UINTPTR_MAX - r.lo ? UINTPTR_MAX : r.lo + bytes;
    return r;
}

void Coll::ask_world() {
    if (sim_->wants_working_set()) {
        working_set_ = working_set();
    }
    if (sim_->wants_inputs() && !args_->inplace && args_->src != nullptr) {
        input_range_ = range_of(args_->src, src_extent());
    }
}

void Coll::inherit(const Coll &parent) {
    alg_space_ = parent.alg_space_;
    step_space_ = parent.alg_space_;
    may_end_early_ = parent.may_end_early_;
    trace_req_ = parent.trace_req_;
    src_range_ = parent.src_range_;
    dst_range_ = parent.dst_range_;
    input_range_ = parent.input_range_;  // a level's src may be its parent's scratch
}

void Coll::enable_trace(uint64_t req, TraceBuffer which, const void *unused,
                        uint64_t unused_bytes) {
    if (sim_ == nullptr || !sim_->recording() || timing_only_) {
        return;
    }
    trace_req_ = req;
    // The ignored buffer's description is not validated (it may be poison with
    // an absurd count): watch at most as many bytes as the buffer in use has.
    unused_bytes = std::min(unused_bytes, which == TraceBuffer::kSrc ? dst_extent() : src_extent());
    dst_range_ = args_->dst != nullptr || which != TraceBuffer::kDst
                     ? range_of(args_->dst, dst_extent())
                     : range_of(unused, unused_bytes);
    src_range_ = args_->src != nullptr || which != TraceBuffer::kSrc
                     ? range_of(args_->src, src_extent())
                     : range_of(unused, unused_bytes);
}

TraceBuffer Coll::classify(const void *p, uint64_t *offset) const {
    const auto a = reinterpret_cast<uintptr_t>(p);
    if (dst_range_.contains(a)) {
        *offset = a - dst_range_.lo;
        return TraceBuffer::kDst;
    }
    if (src_range_.contains(a)) {
        *offset = a - src_range_.lo;
        return TraceBuffer::kSrc;
    }
    return TraceBuffer::kNone;
}

void Coll::note_access(const void *p, size_t bytes, bool write) {
    uint64_t off = 0;
    const TraceBuffer b = classify(p, &off);
    if (b == TraceBuffer::kNone || bytes == 0) {
        return;
    }
    TraceEvent e;
    e.kind = TraceKind::kAccess;
    e.req = trace_req_;
    e.buffer = b;
    e.write = write;
    e.offset = off;
    e.bytes = bytes;
    sim_->record(e);
}

void Coll::tag_xfer(Xfer &x, const void *buf) const {
    x.trace_req = trace_req_;
    x.trace_buffer = classify(buf, &x.trace_offset);
}

Req Coll::send_on(uint32_t peer, uint32_t step, const void *buf, size_t bytes,
                  ucc_memory_type_t mem, bool carry) {
    Xfer *x = Req::new_xfer(frame_pool);
    x->status = UCC_INPROGRESS;
    x->signature = signature_;
    x->peer_index = peer;
    x->stage = may_end_early_ && mem == UCC_MEMORY_TYPE_HOST;
    x->carry = carry_ || carry;
    x->input = bytes != 0 && input_range_.contains(reinterpret_cast<uintptr_t>(buf));
    if (trace_req_ != 0) [[unlikely]] {
        tag_xfer(*x, buf);
    }
    Transport &t = *transport_;
    Req req(&t, x, frame_pool);  // owns x from here on
    ucc_status_t st = t.isend(env_.peer_of(peer), tag(step), buf, bytes, mem, x);
    if (st < 0) {
        x->status = st;
    }
    return req;
}

Req Coll::reduce_in_network(uint32_t step, const void *src, uint64_t count) {
    Xfer *x = Req::new_xfer(frame_pool);
    x->status = UCC_INPROGRESS;
    x->peer_index = rank_;
    Req req(transport_, x, frame_pool);
    if (trace_req_ != 0) [[unlikely]] {
        tag_xfer(*x, src);  // a message to this rank itself, through the switches
    }
    if (reduce_fn_ == nullptr && args_->generic == nullptr) {
        reduce_fn_ = dt::reduce_fn(args_->dt, args_->op == UCC_OP_AVG ? UCC_OP_SUM : args_->op);
    }
    const ucc_status_t st =
        sim_ == nullptr || reduce_fn_ == nullptr
            ? UCC_ERR_NOT_SUPPORTED
            : sim_->reduce_in_network(env_.peer_of(0), tag(step), rank_, size_, src, count,
                                      count * args_->esize, reduce_fn_, x);
    if (st < 0) {
        x->status = st;
    }
    return req;
}

namespace {

// A request whose transfer `post` starts (with `peer` as its peer index); a
// status `post` returns in error completes it.
template <class Post>
Req start_rma(Transport *t, Pool *pool, uint32_t peer, Post post) {
    Xfer *x = Req::new_xfer(pool);
    x->status = UCC_INPROGRESS;
    x->peer_index = peer;
    Req req(t, x, pool);
    const ucc_status_t st = post(x);
    if (st < 0) {
        x->status = st;
    }
    return req;
}

}  // namespace

Req Coll::put(uint32_t peer, const void *src, const void *local_target, size_t bytes) {
    return start_rma(transport_, frame_pool, peer, [&](Xfer *x) {
        uint64_t addr = 0;
        const std::vector<uint8_t> *key = nullptr;
        const ucc_status_t st = env_.remote_of(peer, local_target, bytes, &addr, &key);
        return st != UCC_OK ? st : transport_->put(env_.peer_of(peer), src, bytes, addr, *key, x);
    });
}

Req Coll::atomic_add(uint32_t peer, const uint64_t *word, uint64_t value) {
    return start_rma(transport_, frame_pool, peer, [&](Xfer *x) {
        uint64_t addr = 0;
        const std::vector<uint8_t> *key = nullptr;
        const ucc_status_t st = env_.remote_of(peer, word, sizeof(uint64_t), &addr, &key);
        return st != UCC_OK ? st : transport_->atomic_add(env_.peer_of(peer), addr, value, *key, x);
    });
}

Req Coll::flush(uint32_t peer) {
    return start_rma(transport_, frame_pool, peer,
                     [&](Xfer *x) { return transport_->flush(env_.peer_of(peer), x); });
}

Req Coll::watch(const uint64_t *word, uint64_t at_least) {
    return start_rma(transport_, frame_pool, rank_,
                     [&](Xfer *x) { return transport_->watch(word, at_least, x); });
}

Req Coll::recv_on(uint32_t peer, uint32_t step, void *buf, size_t bytes, ucc_memory_type_t mem,
                  bool carry) {
    Xfer *x = Req::new_xfer(frame_pool);
    x->status = UCC_INPROGRESS;
    x->expected = bytes;
    x->signature = signature_;
    x->peer_index = peer;
    x->stage = may_end_early_ && mem == UCC_MEMORY_TYPE_HOST;
    x->carry = carry_ || carry;
    x->working_set = working_set_;
    if (trace_req_ != 0) [[unlikely]] {
        tag_xfer(*x, buf);
    }
    Transport &t = *transport_;
    Req req(&t, x, frame_pool);
    ucc_status_t st = t.irecv(env_.peer_of(peer), tag(step), buf, bytes, mem, x);
    if (st < 0) {
        x->status = st;
    }
    return req;
}

Req Coll::send(uint32_t peer, uint32_t step, const void *buf, size_t bytes) {
    return send_on(peer, step, buf, bytes, args_->src_mem);
}

Req Coll::recv(uint32_t peer, uint32_t step, void *buf, size_t bytes) {
    return recv_on(peer, step, buf, bytes, args_->dst_mem);
}

Req Coll::send_host(uint32_t peer, uint32_t step, const void *buf, size_t bytes) {
    return send_on(peer, step, buf, bytes, UCC_MEMORY_TYPE_HOST);
}

Req Coll::recv_host(uint32_t peer, uint32_t step, void *buf, size_t bytes) {
    return recv_on(peer, step, buf, bytes, UCC_MEMORY_TYPE_HOST);
}

Req Coll::send_control(uint32_t peer, uint32_t step, const void *buf, size_t bytes) {
    return send_on(peer, step, buf, bytes, UCC_MEMORY_TYPE_HOST, true);
}

Req Coll::recv_control(uint32_t peer, uint32_t step, void *buf, size_t bytes) {
    return recv_on(peer, step, buf, bytes, UCC_MEMORY_TYPE_HOST, true);
}

WaitAll Coll::wait_all(std::span<Req> reqs) {
    return WaitAll(reqs, this);
}

ucc_status_t Coll::reduce(void *dst, const void *a, const void *b, size_t count) {
    if (sim_ != nullptr) {
        sim_->charge(Work::kReduce, count * args_->esize, working_set_);
    }
    if (timing_only_ || count == 0) {
        return UCC_OK;
    }
    if (trace_req_ != 0) [[unlikely]] {
        note_access(a, count * args_->esize, false);
        note_access(b, count * args_->esize, false);
        note_access(dst, count * args_->esize, true);
    }
    if (args_->generic != nullptr) {
        return dt::reduce_generic(*static_cast<const dt::Generic *>(args_->generic), dst, a, b,
                                  count);
    }
    if (reduce_fn_ == nullptr) [[unlikely]] {
        reduce_fn_ = dt::reduce_fn(args_->dt, args_->op == UCC_OP_AVG ? UCC_OP_SUM : args_->op);
        UCC_ASSERT(reduce_fn_ != nullptr);
        if (reduce_fn_ == nullptr) {
            return UCC_ERR_NOT_SUPPORTED;  // validation admits no such combination
        }
    }
    reduce_fn_(dst, a, b, count);
    return UCC_OK;
}

void Coll::finalize_result(void *buf, size_t count) {
    const bool avg = args_->op == UCC_OP_AVG;
    const bool f128 = args_->dt == UCC_DT_FLOAT128 || args_->dt == UCC_DT_FLOAT128_COMPLEX;
    if ((!avg && !f128) || count == 0 || args_->generic != nullptr) {
        return;
    }
    if (trace_req_ != 0) [[unlikely]] {
        note_access(buf, count * args_->esize, true);
    }
    if (avg) {
        // Charged in timing-only runs too: timing must not depend on the mode.
        if (sim_ != nullptr) {
            sim_->charge(Work::kReduce, count * args_->esize, working_set_);
        }
        if (!timing_only_) {
            dt::avg_finalize(args_->dt, buf, count, size_);
        }
    } else if (!timing_only_) {
        // 10 value bytes per 16-byte long double, the rest zero.
        auto *p = static_cast<uint8_t *>(buf);
        for (size_t i = 0; i < count * args_->esize; i += 16) {
            std::memset(p + i + 10, 0, 6);
        }
    }
}

void Coll::copy(void *dst, const void *src, size_t bytes) {
    if (sim_ != nullptr) {
        sim_->charge(Work::kCopy, bytes, working_set_);
    }
    if (timing_only_ || bytes == 0 || dst == src) {
        return;
    }
    if (trace_req_ != 0) [[unlikely]] {
        note_access(src, bytes, false);
        note_access(dst, bytes, true);
    }
    std::memmove(dst, src, bytes);
}

Task send_recv_reduce(Coll &c, uint32_t to, const void *sbuf, uint64_t scount, uint32_t from,
                      void *rbuf, uint64_t rcount, void *dst, const void *mine, uint32_t step) {
    const size_t es = c.args().esize;
    // Chunks in elements; both ends of a message cut it by the same rule.
    const uint64_t chunk =
        c.args().chunk_bytes == 0
            ? 0
            : std::max<uint64_t>(1, c.args().chunk_bytes / std::max<size_t>(es, 1));
    const patterns::Pieces in(rcount, chunk);
    const patterns::Pieces out(scount, chunk);
    const auto *sb = static_cast<const uint8_t *>(sbuf);
    auto *rb = static_cast<uint8_t *>(rbuf);
    auto *db = static_cast<uint8_t *>(dst);
    const auto *mb = static_cast<const uint8_t *>(mine);
    ReqList recvs = c.req_list(in.n);
    ReqList sends = c.req_list(out.n);
    for (uint64_t i = 0; i < in.n; ++i) {
        recvs.push_back(c.recv(from, step, rb + in.offset(i) * es, in.size(i) * es));
    }
    for (uint64_t i = 0; i < out.n; ++i) {
        UCC_CO_TRY(sends.push_posted(c.send(to, step, sb + out.offset(i) * es, out.size(i) * es)));
    }
    for (uint64_t i = 0; i < in.n; ++i) {
        UCC_CO_TRY(co_await c.wait(recvs[i]));
        const uint64_t at = in.offset(i) * es;
        UCC_CO_TRY(c.reduce(db + at, rb + at, mb + at, in.size(i)));
    }
    co_return co_await c.wait_all(sends);
}

namespace {

// Where the tasks of when_all report their end: the last wakes the caller.
class Join final : public TaskOwner {
  public:
    explicit Join(Scheduler &s) : scheduler_(s) {}
    void on_task_done(ucc_status_t st) override {
        if (st < 0 && status_ >= 0) {
            status_ = st;
        }
        if (--left_ == 0 && waiter_) {
            scheduler_.schedule(waiter_);
        }
    }
    bool await_ready() const noexcept { return left_ == 0; }
    void await_suspend(std::coroutine_handle<> h) noexcept { waiter_ = h; }
    ucc_status_t await_resume() const noexcept { return status_; }

  private:
    Scheduler &scheduler_;
    std::coroutine_handle<> waiter_;
    uint32_t left_ = 2;
    ucc_status_t status_ = UCC_OK;
};

}  // namespace

Task when_all(Coll &c, Task a, Task b) {
    Join join(c.env().scheduler());
    a.start(&join);  // may complete right here
    b.start(&join);
    co_return co_await join;
}

uint8_t *Coll::scratch(size_t bytes) {
    if (timing_only() && bytes > kTimingOnlyScratchBytes) {
        // Nothing is read or written in timing-only runs; keep a token buffer.
        bytes = kTimingOnlyScratchBytes;
    }
    if (scratch_ == nullptr) {  // (throws std::bad_alloc like the buffer's own allocation)
        own_scratch_ = std::make_unique<ScratchCache>();
        scratch_ = own_scratch_.get();
    }
    return scratch_->get(n_scratch_++, bytes);
}

}  // namespace ucc::coll
