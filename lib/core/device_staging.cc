// Pinned host copies of device buffers around a collective (device_staging.h).
#include "lib/core/device_staging.h"

#include <algorithm>

#include "lib/core/core.h"
#include "lib/core/device_pipeline.h"
#include "lib/core/log.h"
#include "lib/core/staging_pool.h"
#include "lib/simulated.h"
#include "lib/util/common.h"

namespace ucc::core {

ucc_status_t cuda_status(int code) {
    constexpr int kMemoryAllocation = 2;  // cudaErrorMemoryAllocation
    return code == kMemoryAllocation ? UCC_ERR_NO_MEMORY : UCC_ERR_NO_RESOURCE;
}

namespace {

// One copy on the staging's stream, waited for.
ucc_status_t copy(DeviceStaging &s, void *dst, const void *src, uint64_t bytes, const char *what) {
    if (bytes == 0) {
        return UCC_OK;
    }
    int rc = s.ops->copy_async(dst, src, bytes, s.stream);
    if (rc == 0) {
        rc = s.ops->stream_sync(s.stream);
    }
    if (rc != 0) {
        UCC_LOG(*s.log, kError, "copying %llu bytes of %s: %s",
                static_cast<unsigned long long>(bytes), what, s.ops->error_string(rc));
        return cuda_status(rc);
    }
    return UCC_OK;
}

}  // namespace

DeviceStaging::~DeviceStaging() {
    settle();  // (its copies were waited for: nothing of the device touches them now)
    pool->give_buffer(src_host, src_capacity);
    pool->give_buffer(dst_host, dst_capacity);
    pool->give_buffer(words, words_capacity);
    pool->give_stream(stream, stream_device);
    pool->give_stream(out_stream, out_stream_device);
}

bool plan_device_copies(const ucc::coll::Args &a, uint32_t size, uint32_t rank, DeviceCopies *out) {
    DeviceCopies c;
    c.src_device = a.src != nullptr && a.src_mem == UCC_MEMORY_TYPE_CUDA;
    c.dst_device = a.dst != nullptr && a.dst_mem == UCC_MEMORY_TYPE_CUDA;
    if (c.src_device && __builtin_mul_overflow(ucc::coll::src_extent_elems(a, size),
                                               uint64_t{a.esize}, &c.src_bytes)) {
        return false;
    }
    if (c.dst_device && __builtin_mul_overflow(ucc::coll::dst_extent_elems(a, size, rank),
                                               uint64_t{a.esize}, &c.dst_bytes)) {
        return false;
    }
    c.dst_in = c.dst_device && (a.inplace || a.dst_counts != nullptr);
    c.src_out = c.src_device && a.type == UCC_COLL_TYPE_BCAST && rank != a.root;
    *out = c;
    return true;
}

void charge_device_copies(CollRequest &r, bool out) {
    const coll::Args &a = r.nargs;
    Context &ctx = *r.team->ctx;
    if (ctx.sim == nullptr || r.trivial || r.over_ipc ||
        (a.src_mem != UCC_MEMORY_TYPE_CUDA && a.dst_mem != UCC_MEMORY_TYPE_CUDA)) {
        return;
    }
    DeviceCopies c;
    if (!plan_device_copies(a, r.view_size, r.view_rank, &c)) {
        return;  // (init refused it on a real transport)
    }
    // (At a non-root of bcast, the buffer is only an output.)
    uint64_t copies[2] = {out ? c.dst_bytes : (c.src_out ? 0 : c.src_bytes),
                          out ? (c.src_out ? c.src_bytes : 0) : (c.dst_in ? c.dst_bytes : 0)};
    // A pipelined post (device_pipeline.h) waits for its first chunk's copies
    // in and its last chunk's out; the others overlap the transfers.
    ChunkPlan plan;
    pipeline_plan(r, &plan);
    if (plan.chunks > 0) {
        const uint64_t src_chunk = plan.bytes(plan.src_pieces, a.esize);
        const uint64_t dst_chunk = plan.bytes(plan.dst_pieces, a.esize);
        copies[0] = std::min(copies[0], out ? dst_chunk : src_chunk);
        copies[1] = std::min(copies[1], out ? src_chunk : dst_chunk);
    }
    for (const uint64_t bytes : copies) {
        if (bytes != 0) {
            ctx.sim->charge(ucc::Work::kDeviceCopy, bytes);
        }
    }
}

ucc_status_t prepare_device_staging(const ucc::coll::Args &a, uint32_t size, uint32_t rank,
                                    const ucc_cuda_component_t *ops,
                                    std::shared_ptr<StagingPool> pool, Logger &log,
                                    std::unique_ptr<Staging> *out) {
    if (a.generic != nullptr) {
        UCC_LOG(log, kError,
                "ucc_collective_init: generic datatypes on CUDA memory are not supported (their "
                "callbacks run on the host)");
        return UCC_ERR_NOT_SUPPORTED;
    }
    if (a.mapped) {
        UCC_LOG(log, kError,
                "ucc_collective_init: one-sided collectives (MEM_MAPPED_BUFFERS) on CUDA memory "
                "need a GPU-aware transport; this one moves host memory");
        return UCC_ERR_NOT_SUPPORTED;
    }
    auto s = std::make_unique<DeviceStaging>(ops, std::move(pool), &log);
    if (!plan_device_copies(a, size, rank, &s->copies)) {
        return UCC_ERR_NO_MEMORY;
    }
    if (const int rc = s->pool->take_stream(&s->stream, &s->stream_device); rc != 0) {
        s->stream = nullptr;
        UCC_LOG(log, kError, "ucc_collective_init: a stream for CUDA memory: %s",
                ops->error_string(rc));
        return cuda_status(rc);
    }
    *out = std::move(s);
    return UCC_OK;
}

ucc_status_t DeviceStaging::take_copies(const char *fn) {
    const DeviceCopies &c = copies;
    int rc = 0;
    if (c.src_bytes > 0 && src_host == nullptr) {
        rc = pool->take_buffer(c.src_bytes, &src_host, &src_capacity);
    }
    if (rc == 0 && c.dst_bytes > 0 && dst_host == nullptr) {
        rc = pool->take_buffer(c.dst_bytes, &dst_host, &dst_capacity);
    }
    if (rc != 0) {
        UCC_LOG(*log, kError, "%s: staging for CUDA memory (%llu + %llu pinned bytes): %s", fn,
                static_cast<unsigned long long>(c.src_bytes),
                static_cast<unsigned long long>(c.dst_bytes), ops->error_string(rc));
        return cuda_status(rc);
    }
    return UCC_OK;
}

int DeviceStaging::take_words() {
    if (words == nullptr) {
        void *p = nullptr;
        if (const int rc = pool->take_buffer(2 * sizeof(uint64_t), &p, &words_capacity); rc != 0) {
            return rc;
        }
        words = static_cast<uint64_t *>(p);
    }
    // The streams write the low 32 bits of each word (a little-endian host).
    __atomic_store_n(&words[0], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&words[1], 0, __ATOMIC_RELEASE);
    return 0;
}

ucc_status_t DeviceStaging::stage_in(const ucc::coll::Args &a) {
    const DeviceCopies &c = copies;
    plan = ChunkPlan{};
    direct = false;
    UCC_TRY(take_copies("ucc_collective_post"));
    run = a;
    if (c.src_device) {
        if (!c.src_out) {  // (at a non-root of bcast the buffer is only an output)
            UCC_TRY(copy(*this, src_host, a.src, c.src_bytes, "src from the device"));
        }
        run.src = src_host;
        run.src_mem = UCC_MEMORY_TYPE_HOST;
    }
    if (c.dst_device) {
        if (c.dst_in) {
            UCC_TRY(copy(*this, dst_host, a.dst, c.dst_bytes, "dst from the device"));
        }
        run.dst = dst_host;
        run.dst_mem = UCC_MEMORY_TYPE_HOST;
    }
    return UCC_OK;
}

ucc_status_t DeviceStaging::stage_out(const ucc::coll::Args &a) {
    const DeviceCopies &c = copies;
    if (plan.chunks > 0 || direct) {
        return UCC_OK;  // delivered chunk by chunk (deliver_chunk), or on the device
    }
    if (c.dst_device) {
        UCC_TRY(copy(*this, a.dst, dst_host, c.dst_bytes, "dst to the device"));
    }
    if (c.src_out) {
        UCC_TRY(copy(*this, a.src, src_host, c.src_bytes, "the bcast buffer to the device"));
    }
    return UCC_OK;
}

}  // namespace ucc::core
