// The UCX transport's RMA: memory mapped with ucp_mem_map, remote keys packed
// with ucp_rkey_pack (UCX 1.13 predates exported memory handles), unpacked
// once per (peer, key) and cached; put, get, 64-bit atomic add, flush.
#include <cstring>

#include "lib/util/common.h"
#include "transports/ucx/ucx_transport.h"

namespace ucc::ucx {

namespace {

// A packed key as handed to peers: [base address][UCP packed rkey].
constexpr size_t kKeyHeader = sizeof(uint64_t);

}  // namespace

ucc_status_t UcxTransport::mem_register(void *base, size_t length, MemRegion *region) {
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = base;
    mp.length = length;
    ucp_mem_h memh = nullptr;
    ucs_status_t us = ucp_mem_map(context_, &mp, &memh);
    if (us != UCS_OK) {
        log(std::string("ucp_mem_map of ") + std::to_string(length) +
            " bytes failed: " + ucs_status_string(us));
        return us == UCS_ERR_NO_MEMORY ? UCC_ERR_NO_MEMORY : UCC_ERR_NO_RESOURCE;
    }
    region->base = base;
    region->length = length;
    region->transport_priv = memh;
    return UCC_OK;
}

void UcxTransport::mem_deregister(MemRegion *region) {
    if (region->transport_priv != nullptr) {
        ucp_mem_unmap(context_, static_cast<ucp_mem_h>(region->transport_priv));
    }
    region->transport_priv = nullptr;
    region->base = nullptr;
}

std::vector<uint8_t> UcxTransport::rkey_pack(const MemRegion &region) {
    void *buf = nullptr;
    size_t len = 0;
    if (region.transport_priv == nullptr ||
        ucp_rkey_pack(context_, static_cast<ucp_mem_h>(region.transport_priv), &buf, &len) !=
            UCS_OK) {
        return {};
    }
    std::vector<uint8_t> key(kKeyHeader + len);
    const uint64_t base = reinterpret_cast<uintptr_t>(region.base);
    std::memcpy(key.data(), &base, sizeof(base));
    std::memcpy(key.data() + kKeyHeader, buf, len);
    ucp_rkey_buffer_release(buf);
    return key;
}

ucc_status_t UcxTransport::rkey(Peer peer, const std::vector<uint8_t> &packed, ucp_rkey_h *out) {
    ucp_ep_h ep = nullptr;
    UCC_TRY(endpoint(peer, &ep));
    if (packed.size() <= kKeyHeader) {
        return UCC_ERR_INVALID_PARAM;
    }
    PeerState &p = this->peer(peer);
    auto it = p.rkeys.find(packed);
    if (it != p.rkeys.end()) {
        *out = it->second;
        return UCC_OK;
    }
    ucp_rkey_h rk = nullptr;
    ucs_status_t us = ucp_ep_rkey_unpack(ep, packed.data() + kKeyHeader, &rk);
    if (us != UCS_OK) {
        log("peer " + std::to_string(p.sender) +
            ": cannot unpack a remote key: " + ucs_status_string(us));
        return UCC_ERR_INVALID_PARAM;
    }
    p.rkeys.emplace(packed, rk);
    *out = rk;
    return UCC_OK;
}

ucc_status_t UcxTransport::track(ucs_status_ptr_t r, Peer peer, Xfer *x, const char *what) {
    if (r == nullptr) {
        x->status = UCC_OK;
        return UCC_OK;
    }
    if (UCS_PTR_IS_ERR(r)) {
        log(std::string(what) + " to peer " + std::to_string(peer) +
            " failed: " + ucs_status_string(UCS_PTR_STATUS(r)));
        return to_ucc(UCS_PTR_STATUS(r));
    }
    auto *slot = static_cast<Slot *>(r);
    *slot = Slot{x, peer, false};
    this->peer(peer).sends.link(slot);
    x->status = UCC_INPROGRESS;
    x->transport_priv = r;
    return UCC_OK;
}

ucc_status_t UcxTransport::rma(bool is_put, Peer peer, void *local, size_t bytes,
                               uint64_t remote_addr, const std::vector<uint8_t> &key, Xfer *x) {
    ucp_rkey_h rk = nullptr;
    UCC_TRY(rkey(peer, key, &rk));
    ucp_request_param_t rp = op_params(false);
    x->bytes = bytes;
    ucp_ep_h ep = this->peer(peer).ep;
    begin_post();
    return track(settle(is_put ? ucp_put_nbx(ep, local, bytes, remote_addr, rk, &rp)
                               : ucp_get_nbx(ep, local, bytes, remote_addr, rk, &rp)),
                 peer, x, is_put ? "put" : "get");
}

ucc_status_t UcxTransport::put(Peer peer, const void *src, size_t bytes, uint64_t remote_addr,
                               const std::vector<uint8_t> &key, Xfer *x) {
    return rma(true, peer, const_cast<void *>(src), bytes, remote_addr, key, x);
}

ucc_status_t UcxTransport::get(Peer peer, void *dst, size_t bytes, uint64_t remote_addr,
                               const std::vector<uint8_t> &key, Xfer *x) {
    return rma(false, peer, dst, bytes, remote_addr, key, x);
}

ucc_status_t UcxTransport::atomic_add(Peer peer, uint64_t remote_addr, uint64_t value,
                                      const std::vector<uint8_t> &key, Xfer *x) {
    ucp_rkey_h rk = nullptr;
    UCC_TRY(rkey(peer, key, &rk));
    ucp_request_param_t rp = op_params(false);
    rp.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
    rp.datatype = ucp_dt_make_contig(sizeof(uint64_t));
    // The operand must outlive the operation: it lives in the Xfer.
    static_assert(sizeof(x->bytes) == sizeof(value));
    x->bytes = value;
    begin_post();
    return track(settle(ucp_atomic_op_nbx(this->peer(peer).ep, UCP_ATOMIC_OP_ADD, &x->bytes, 1,
                                          remote_addr, rk, &rp)),
                 peer, x, "atomic add");
}

ucc_status_t UcxTransport::flush(Peer peer, Xfer *x) {
    ucp_ep_h ep = nullptr;
    UCC_TRY(endpoint(peer, &ep));
    ucp_request_param_t rp = op_params(false);
    begin_post();
    return track(settle(ucp_ep_flush_nbx(ep, &rp)), peer, x, "flush");
}

ucc_status_t UcxTransport::fence() {
    return ucp_worker_fence(worker_) == UCS_OK ? UCC_OK : UCC_ERR_NO_MESSAGE;
}

void UcxTransport::destroy_rma() {
    for (auto &[id, p] : peers_) {
        for (auto &[bytes, rk] : p->rkeys) {
            ucp_rkey_destroy(rk);
        }
        p->rkeys.clear();
    }
}

}  // namespace ucc::ucx
