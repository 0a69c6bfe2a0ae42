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

namespace {

// The arguments of chunk `k` of `a` (elements first ... first + n).
ucc::coll::Args chunk_of(const ucc::coll::Args &a, uint64_t chunk_elems, uint32_t k) {
    ucc::coll::Args part = a;
    const uint64_t first = k * chunk_elems;
    const uint64_t n = std::min(chunk_elems, a.count - first);
    const uint64_t off = first * a.esize;
    if (part.src != nullptr) {
        part.src = static_cast<uint8_t *>(part.src) + off;
    }
    if (part.dst != nullptr) {
        part.dst = static_cast<uint8_t *>(part.dst) + off;
    }
    part.count = n;
    part.src_count = a.src_count != 0 ? n : 0;
    part.dst_count = a.dst_count != 0 ? n : 0;
    return part;
}

}  // namespace

uint32_t device_pipeline_chunks(const CollRequest &r, uint64_t *chunk_elems) {
    auto *s = dynamic_cast<const DeviceStaging *>(r.staging.get());
    if (s == nullptr || !UCC_CUDA_COMPONENT_HAS(s->ops, stream_write_value)) {
        return 0;
    }
    return pipeline_chunks(r, chunk_elems);
}

uint32_t pipeline_chunks(const CollRequest &r, uint64_t *chunk_elems) {
    const ucc::coll::Args &a = r.nargs;
    const Context &ctx = *r.team->ctx;
    const uint64_t chunk_bytes = ctx.tuning.device_pipeline;
    if (chunk_bytes == 0 || r.checked || r.alg == nullptr || r.alg->onesided ||
        r.team->sync_type == UCC_SYNC_COLLECTIVES || a.esize == 0 ||
        (a.type != UCC_COLL_TYPE_ALLREDUCE && a.type != UCC_COLL_TYPE_REDUCE &&
         a.type != UCC_COLL_TYPE_BCAST)) {
        return 0;
    }
    const uint64_t elems = std::max<uint64_t>(1, chunk_bytes / a.esize);
    if (a.count / elems < 2) {
        return 0;
    }
    const uint64_t n = (a.count + elems - 1) / elems;
    if (n > UINT32_MAX) {
        return 0;
    }
    const uint32_t size = r.view_size;
    const uint64_t last = a.count - (n - 1) * elems;
    ucc::coll::Args probe = a;
    probe.count = elems;
    if (!r.alg->supports(probe, size)) {
        return 0;
    }
    probe.count = last;
    if (!r.alg->supports(probe, size)) {
        return 0;
    }
    *chunk_elems = elems;
    return static_cast<uint32_t>(n);
}

ucc::Task run_device_pipeline(ucc::coll::Coll &whole, ucc::coll::AlgFn alg, DeviceStaging &s,
                              ucc::coll::ScratchCache *scratch, bool may_end_early) {
    const ucc::coll::Args &a = whole.args();
    for (uint32_t k = 0; k < s.chunks; ++k) {
        ucc::coll::Req in = whole.watch(s.arrived(), k + 1);
        UCC_CO_TRY(co_await whole.wait(in));
        std::optional<ucc::coll::Coll> part;
        part.emplace(whole.env(), chunk_of(a, s.chunk_elems, k), whole.rank(), whole.size(),
                     whole.tag_base(), 0, scratch);
        part->set_may_end_early(may_end_early);
        UCC_CO_TRY(co_await alg(*part));
        UCC_CO_TRY(s.deliver_chunk(k));
    }
    ucc::coll::Req out = whole.watch(s.delivered(), s.chunks);
    UCC_CO_TRY(co_await whole.wait(out));
    co_return UCC_OK;
}

void DeviceStaging::settle() {
    if (chunks > 0) {
        ops->stream_sync(stream);
        ops->stream_sync(out_stream);
    }
    if (direct || !pins.empty()) {
        ops->stream_sync(stream);  // (its kernels and copies read the peers' mappings)
        unpin();
    }
}

ucc_status_t DeviceStaging::stage_in_chunks(const ucc::coll::Args &a, uint64_t elems,
                                            uint32_t n_chunks) {
    const DeviceCopies &c = copies;
    chunks = 0;
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
    chunk_elems = elems;
    run = a;
    const uint64_t es = a.esize;
    // At a non-root of bcast the buffer is only an output.
    const bool src_in = c.src_device && !c.src_out;
    for (uint32_t k = 0; k < n_chunks && rc == 0; ++k) {
        const uint64_t first = k * elems;
        const uint64_t bytes = std::min(elems, a.count - first) * es;
        if (src_in) {
            rc = ops->copy_async(static_cast<uint8_t *>(src_host) + first * es,
                                 static_cast<const uint8_t *>(a.src) + first * es, bytes, stream);
        }
        if (rc == 0 && c.dst_in) {
            rc = ops->copy_async(static_cast<uint8_t *>(dst_host) + first * es,
                                 static_cast<const uint8_t *>(a.dst) + first * es, bytes, stream);
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
    chunks = n_chunks;
    return UCC_OK;
}

ucc_status_t DeviceStaging::deliver_chunk(uint32_t k) {
    const DeviceCopies &c = copies;
    const uint64_t es = user.esize;
    const uint64_t first = k * chunk_elems;
    const uint64_t bytes = std::min(chunk_elems, user.count - first) * es;
    int rc = 0;
    if (c.dst_device) {
        rc =
            ops->copy_async(static_cast<uint8_t *>(user.dst) + first * es,
                            static_cast<const uint8_t *>(dst_host) + first * es, bytes, out_stream);
    }
    if (rc == 0 && c.src_out) {
        rc =
            ops->copy_async(static_cast<uint8_t *>(user.src) + first * es,
                            static_cast<const uint8_t *>(src_host) + first * es, bytes, out_stream);
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
