// C API: memory maps (>= 1.5), ucc_mem_map / ucc_mem_unmap.
//
// Export registers the segment with the context's transport (ucp_mem_map over
// UCX) and packs its remote key. The handle points at its packable part —
// {magic, address, length, key length, key bytes}, `memh_size` bytes that a
// peer may copy and import — and keeps the local state (context, registered
// region) just before it. An imported handle carries the exporter's packed key
// for one-sided access to that memory.
#include <cstring>
#include <new>

#include "lib/core/core.h"
#include "lib/util/common.h"

using ucc::api_guard;
using ucc::core::Context;
using ucc::core::log_error;

namespace {

constexpr uint64_t kPackedMagic = 0x75636d656d6d6170ull;  // "ucmemmap"
constexpr uint64_t kLocalMagic = 0x75636d656d6c6f63ull;

// The packable part (what memh points at), followed by key_len key bytes.
struct Packed {
    uint64_t magic;
    uint64_t address;
    uint64_t length;
    uint64_t key_len;
};

// The local part, right before the packable one.
struct Local {
    uint64_t magic;
    Context *ctx;
    ucc::MemRegion region;
    uint64_t registered;
};
static_assert(sizeof(Local) % alignof(Packed) == 0);

Packed *make_handle(Context *ctx, uint64_t address, uint64_t length, const uint8_t *key,
                    uint64_t key_len) {
    auto *raw = new uint8_t[sizeof(Local) + sizeof(Packed) + key_len];
    auto *local = new (raw) Local{kLocalMagic, ctx, {}, 0};
    auto *packed = new (raw + sizeof(Local)) Packed{kPackedMagic, address, length, key_len};
    (void)local;
    if (key_len != 0) {
        std::memcpy(reinterpret_cast<uint8_t *>(packed + 1), key, key_len);
    }
    return packed;
}

Local *local_of(Packed *p) {
    return reinterpret_cast<Local *>(reinterpret_cast<uint8_t *>(p) - sizeof(Local));
}

void free_handle(Packed *p) {
    delete[] reinterpret_cast<uint8_t *>(local_of(p));
}

size_t packed_size(const Packed *p) {
    return sizeof(Packed) + p->key_len;
}

}  // namespace

UCC_EXPORT ucc_status_t ucc_mem_map(ucc_context_h context, ucc_mem_map_mode_t mode,
                                    const ucc_mem_map_params_t *params, size_t *memh_size,
                                    ucc_mem_map_mem_h *memh) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (context == nullptr || memh == nullptr || memh_size == nullptr) {
            log_error("ucc_mem_map: %s is NULL",
                      context == nullptr ? "context" : (memh == nullptr ? "memh" : "memh_size"));
            return UCC_ERR_INVALID_PARAM;
        }
        if (mode >= UCC_MEM_MAP_MODE_LAST) {
            log_error("ucc_mem_map: invalid mode %d", static_cast<int>(mode));
            return UCC_ERR_INVALID_PARAM;
        }
        if (ucc::core::context_destroyed(context, "ucc_mem_map")) {
            return UCC_ERR_INVALID_PARAM;
        }
        Context &ctx = context->ctx;
        ucc::core::ContextGuard guard(ctx);
        if (mode == UCC_MEM_MAP_MODE_EXPORT || mode == UCC_MEM_MAP_MODE_EXPORT_OFFLOAD) {
            if (params == nullptr || params->n_segments != 1 || params->segments == nullptr) {
                log_error("ucc_mem_map: export needs params with exactly one segment");
                return UCC_ERR_INVALID_PARAM;
            }
            const ucc_mem_map_t &seg = params->segments[0];
            ucc::MemRegion region;
            ucc_status_t st = ctx.transport->mem_register(seg.address, seg.len, &region);
            if (st != UCC_OK) {
                UCC_LOG(ctx.log, kError, "ucc_mem_map: the %s transport cannot register %zu bytes",
                        ctx.transport->name(), seg.len);
                return st;
            }
            const std::vector<uint8_t> key = ctx.transport->rkey_pack(region);
            Packed *p = make_handle(&ctx, reinterpret_cast<uintptr_t>(seg.address), seg.len,
                                    key.data(), key.size());
            Local *l = local_of(p);
            l->region = region;
            l->registered = 1;
            *memh = p;
            *memh_size = packed_size(p);
            ctx.n_mem_maps++;
            return UCC_OK;
        }
        if (*memh == nullptr || params == nullptr) {
            log_error("ucc_mem_map: import needs params and a handle in *memh");
            return UCC_ERR_INVALID_PARAM;
        }
        const auto *src = static_cast<const Packed *>(*memh);
        if (src->magic != kPackedMagic || src->key_len > (uint64_t{1} << 20)) {
            log_error("ucc_mem_map: *memh is not a packed UCC memory handle");
            return UCC_ERR_INVALID_PARAM;
        }
        Packed *p = make_handle(&ctx, src->address, src->length,
                                reinterpret_cast<const uint8_t *>(src + 1), src->key_len);
        *memh = p;
        *memh_size = packed_size(p);
        ctx.n_mem_maps++;
        return UCC_OK;
    });
}

UCC_EXPORT ucc_status_t ucc_mem_unmap(ucc_mem_map_mem_h *memh) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (memh == nullptr || *memh == nullptr) {
            log_error("ucc_mem_unmap: %s is NULL", memh == nullptr ? "memh" : "*memh");
            return UCC_ERR_INVALID_PARAM;
        }
        auto *p = static_cast<Packed *>(*memh);
        if (p->magic != kPackedMagic || local_of(p)->magic != kLocalMagic) {
            log_error("ucc_mem_unmap: *memh is not a UCC memory handle");
            return UCC_ERR_INVALID_PARAM;
        }
        Local *l = local_of(p);
        Context &ctx = *l->ctx;
        ucc::core::ContextGuard guard(ctx);
        if (l->registered != 0 && ctx.transport) {
            ctx.transport->mem_deregister(&l->region);
        }
        ctx.n_mem_maps--;
        p->magic = 0;
        l->magic = 0;
        free_handle(p);
        *memh = nullptr;
        return UCC_OK;
    });
}
