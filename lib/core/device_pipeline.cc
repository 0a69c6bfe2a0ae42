// Pipelined staging of CUDA memory (device_pipeline.h): the decision, the
// collective's coroutine, and the staging's chunked copies.
#include "lib/core/device_pipeline.h"

#include <algorithm>
#include <bit>
#include <optional>

#include "lib/core/core.h"
#include "lib/core/device_staging.h"
#include "lib/core/log.h"
#include "lib/core/staging_pool.h"

namespace ucc::core {

static_assert(std::endian::native == std::endian::little,
              "the streams write the low 32 bits of the 64-bit counters the transport watches");

void ChunkPlan::range(uint64_t count, uint32_t k, uint64_t *first, uint64_t *len) const {
    *first = k * elems;
    *len = std::min(elems, count - *first);
}

namespace {

// The arguments of chunk `k` of `a`: each side's packed region of the
// chunk's pieces (a vector's range: one piece, where it lies in the vector).
ucc::coll::Args chunk_of(const ucc::coll::Args &a, const ChunkPlan &plan, uint32_t k) {
    ucc::coll::Args part = a;
    uint64_t first = 0;
    uint64_t n = 0;
    plan.range(a.count, k, &first, &n);
    if (part.src != nullptr) {
        part.src = static_cast<uint8_t *>(part.src) + first * plan.src_pieces * a.esize;
    }
    if (part.dst != nullptr) {
        part.dst = static_cast<uint8_t *>(part.dst) + first * plan.dst_pieces * a.esize;
    }
    part.count = n;
    part.src_count = a.src_count != 0 ? n * plan.src_pieces : 0;
    part.dst_count = a.dst_count != 0 ? n * plan.dst_pieces : 0;
    return part;
}

// Chunk k's pieces between the user's buffer (blocks of `count` elements)
// and its packed region in the pinned copy, queued on `stream`.
int copy_chunk(const ucc_cuda_component_t *ops, const ucc::coll::Args &a, const ChunkPlan &plan,
               uint32_t k, void *host, void *user, uint32_t pieces, bool to_host, void *stream) {
    uint64_t first = 0;
    uint64_t n = 0;
    plan.range(a.count, k, &first, &n);
    const uint64_t es = a.esize;
    uint8_t *h = static_cast<uint8_t *>(host) + first * pieces * es;
    uint8_t *u = static_cast<uint8_t *>(user) + first * es;
    if (pieces == 1) {
        return to_host ? ops->copy_async(h, u, n * es, stream)
                       : ops->copy_async(u, h, n * es, stream);
    }
    return to_host ? ops->copy2d_async(h, n * es, u, a.count * es, n * es, pieces, stream)
                   : ops->copy2d_async(u, a.count * es, h, n * es, n * es, pieces, stream);
}

}  // namespace

void device_pipeline_plan(const CollRequest &r, ChunkPlan *plan) {
    *plan = ChunkPlan{};
    auto *s = dynamic_cast<const DeviceStaging *>(r.staging.get());
    if (s == nullptr || !UCC_CUDA_COMPONENT_HAS(s->ops, stream_write_value)) {
        return;
    }
    ChunkPlan p;
    pipeline_plan(r, &p);
    if (p.src_pieces > 1 || p.dst_pieces > 1) {
        if (!UCC_CUDA_COMPONENT_HAS(s->ops, copy2d_async)) {
            return;
        }
    }
    *plan = p;
}

void pipeline_plan(const CollRequest &r, ChunkPlan *plan) {
    *plan = ChunkPlan{};
    const ucc::coll::Args &a = r.nargs;
    const Context &ctx = *r.team->ctx;
    const uint64_t chunk_bytes = ctx.tuning.device_pipeline;
    if (chunk_bytes == 0 || r.checked || r.alg == nullptr || r.alg->onesided ||
        r.team->sync_type == UCC_SYNC_COLLECTIVES || a.esize == 0) {
        return;
    }
    const uint32_t size = r.view_size;
    ChunkPlan p;
    switch (a.type) {
        case UCC_COLL_TYPE_ALLREDUCE:
        case UCC_COLL_TYPE_REDUCE:
        case UCC_COLL_TYPE_BCAST:
            break;
        case UCC_COLL_TYPE_ALLGATHER:
            p.dst_pieces = size;
            break;
        case UCC_COLL_TYPE_ALLTOALL:
            p.src_pieces = size;
            p.dst_pieces = size;
            break;
        case UCC_COLL_TYPE_REDUCE_SCATTER:  // (in place, dst holds every block)
            p.src_pieces = size;
            p.dst_pieces = a.inplace ? size : 1;
            break;
        default:
            return;
    }
    const uint32_t most = std::max(p.src_pieces, p.dst_pieces);
    const uint64_t elems = std::max<uint64_t>(1, chunk_bytes / (uint64_t{most} * a.esize));
    if (a.count / elems < 2) {
        return;
    }
    const uint64_t n = (a.count + elems - 1) / elems;
    if (n > UINT32_MAX) {
        return;
    }
    p.elems = elems;
    p.chunks = static_cast<uint32_t>(n);
    if (!r.alg->supports(chunk_of(a, p, 0), size) ||
        !r.alg->supports(chunk_of(a, p, p.chunks - 1), size)) {
        return;
    }
    *plan = p;
}

ucc::Task run_device_pipeline(ucc::coll::Coll &whole, ucc::coll::AlgFn alg, DeviceStaging &s,
                              ucc::coll::ScratchCache *scratch, bool may_end_early) {
    const ucc::coll::Args &a = whole.args();
    const uint32_t chunks = s.plan.chunks;
    for (uint32_t k = 0; k < chunks; ++k) {
        ucc::coll::Req in = whole.watch(s.arrived(), k + 1);
        UCC_CO_TRY(co_await whole.wait(in));
        const ucc::coll::Args chunk = chunk_of(a, s.plan, k);  // (outlives part)
        std::optional<ucc::coll::Coll> part;
        part.emplace(whole.env(), chunk, whole.rank(), whole.size(), whole.tag_base(), 0, scratch);
        part->set_may_end_early(may_end_early);
        UCC_CO_TRY(co_await alg(*part));
        UCC_CO_TRY(s.deliver_chunk(k));
    }
    ucc::coll::Req out = whole.watch(s.delivered(), chunks);
    UCC_CO_TRY(co_await whole.wait(out));
    co_return UCC_OK;
}

void DeviceStaging::settle() {
    if (plan.chunks > 0) {
        ops->stream_sync(stream);
        ops->stream_sync(out_stream);
    }
    if (direct || !pins.empty()) {
        ops->stream_sync(stream);  // (its kernels and copies read the peers' mappings)
        unpin();
    }
}

ucc_status_t DeviceStaging::stage_in_chunks(const ucc::coll::Args &a, const ChunkPlan &p) {
    const DeviceCopies &c = copies;
    plan = ChunkPlan{};
    UCC_TRY(take_copies("ucc_collective_post"));
    int rc = 0;
    if (out_stream == nullptr) {
        rc = pool->take_stream(&out_stream, &out_stream_device);
    }
    if (rc == 0) {
        rc = take_words();
    }
    if (rc != 0) {
        UCC_LOG(*log, kError, "ucc_collective_post: pipelined staging of CUDA memory: %s",
                ops->error_string(rc));
        return cuda_status(rc);
    }
    direct = false;
    user = a;
    run = a;
    // At a non-root of bcast the buffer is only an output.
    const bool src_in = c.src_device && !c.src_out;
    for (uint32_t k = 0; k < p.chunks && rc == 0; ++k) {
        if (src_in) {
            rc = copy_chunk(ops, a, p, k, src_host, a.src, p.src_pieces, true, stream);
        }
        if (rc == 0 && c.dst_in) {
            rc = copy_chunk(ops, a, p, k, dst_host, a.dst, p.dst_pieces, true, stream);
        }
        if (rc == 0) {
            rc = ops->stream_write_value(stream, reinterpret_cast<uint32_t *>(&words[0]), k + 1);
        }
    }
    if (rc != 0) {
        ops->stream_sync(stream);  // nothing queued runs on after the failed post
        UCC_LOG(*log, kError, "ucc_collective_post: queuing the copies of CUDA memory: %s",
                ops->error_string(rc));
        return cuda_status(rc);
    }
    if (c.src_device) {
        run.src = src_host;
        run.src_mem = UCC_MEMORY_TYPE_HOST;
    }
    if (c.dst_device) {
        run.dst = dst_host;
        run.dst_mem = UCC_MEMORY_TYPE_HOST;
    }
    plan = p;
    return UCC_OK;
}

ucc_status_t DeviceStaging::deliver_chunk(uint32_t k) {
    const DeviceCopies &c = copies;
    int rc = 0;
    if (c.dst_device) {
        rc = copy_chunk(ops, user, plan, k, dst_host, user.dst, plan.dst_pieces, false, out_stream);
    }
    if (rc == 0 && c.src_out) {
        rc = copy_chunk(ops, user, plan, k, src_host, user.src, plan.src_pieces, false, out_stream);
    }
    if (rc == 0) {
        rc = ops->stream_write_value(out_stream, reinterpret_cast<uint32_t *>(&words[1]), k + 1);
    }
    if (rc != 0) {
        UCC_LOG(*log, kError, "copying chunk %u of the result to the device: %s", k,
                ops->error_string(rc));
        return cuda_status(rc);
    }
    return UCC_OK;
}

}  // namespace ucc::core
