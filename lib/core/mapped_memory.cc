// Memory a context maps for one-sided collectives (mapped_memory.h).
#include "lib/core/mapped_memory.h"

#include <cstring>

namespace ucc::core {

namespace {

constexpr uint64_t kTrailerMagic = 0x75636d6170736567ull;  // "ucmapseg"

void put_u64(std::vector<uint8_t> *out, uint64_t v) {
    const size_t at = out->size();
    out->resize(at + sizeof(v));
    std::memcpy(out->data() + at, &v, sizeof(v));
}

uint64_t get_u64(const uint8_t *p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

uint64_t padded(uint64_t n) {
    return (n + 7) & ~uint64_t{7};
}

}  // namespace

ucc_status_t MappedMemory::map(Transport &t, std::span<const ucc_mem_map_t> segs,
                               std::string *why) {
    if (!segs.empty() && s_ == nullptr) {
        s_ = std::make_unique<Lists>();
    }
    for (size_t i = 0; i < segs.size(); ++i) {
        MemRegion region;
        const ucc_status_t st = t.mem_register(segs[i].address, segs[i].len, &region);
        if (st != UCC_OK) {
            *why = "mem_params.segments[" + std::to_string(i) + "] (" +
                   std::to_string(segs[i].len) + " bytes): the " + t.name() +
                   " transport cannot register it";
            unmap(t);
            return st;
        }
        s_->regions.push_back(region);
        s_->mine.push_back(
            {reinterpret_cast<uintptr_t>(segs[i].address), segs[i].len, t.rkey_pack(region)});
    }
    return UCC_OK;
}

void MappedMemory::unmap(Transport &t) {
    if (s_ == nullptr) {
        return;
    }
    for (MemRegion &r : s_->regions) {
        t.mem_deregister(&r);
    }
    s_.reset();
}

void MappedMemory::append_to(std::vector<uint8_t> *address) const {
    if (empty()) {
        return;
    }
    const size_t start = address->size();
    for (const Segment &s : s_->mine) {
        put_u64(address, s.base);
        put_u64(address, s.length);
        put_u64(address, s.key.size());
        const size_t at = address->size();
        address->resize(at + padded(s.key.size()));
        std::memcpy(address->data() + at, s.key.data(), s.key.size());
    }
    const uint64_t bytes = address->size() - start + 2 * sizeof(uint64_t);
    put_u64(address, (bytes << 32) | s_->mine.size());
    put_u64(address, kTrailerMagic);
}

ucc_status_t MappedMemory::learn(Peer peer, const uint8_t *address, size_t len) {
    if (len < 2 * sizeof(uint64_t) || get_u64(address + len - 8) != kTrailerMagic) {
        if (s_ != nullptr) {
            s_->peers.erase(peer);
        }
        return UCC_OK;
    }
    const uint64_t head = get_u64(address + len - 16);
    const uint64_t count = head & 0xffffffffu;
    const uint64_t bytes = head >> 32;
    if (bytes > len || bytes < 16) {
        return UCC_ERR_INVALID_PARAM;
    }
    const uint8_t *p = address + len - bytes;
    const uint8_t *end = address + len - 16;
    std::vector<Segment> segs;
    for (uint64_t i = 0; i < count; ++i) {
        if (end - p < 24) {
            return UCC_ERR_INVALID_PARAM;
        }
        Segment s;
        s.base = get_u64(p);
        s.length = get_u64(p + 8);
        const uint64_t klen = get_u64(p + 16);
        p += 24;
        if (static_cast<uint64_t>(end - p) < padded(klen)) {
            return UCC_ERR_INVALID_PARAM;
        }
        s.key.assign(p, p + klen);
        p += padded(klen);
        segs.push_back(std::move(s));
    }
    if (s_ == nullptr) {
        s_ = std::make_unique<Lists>();
    }
    s_->peers[peer] = std::move(segs);
    return UCC_OK;
}

int MappedMemory::segment_of(const void *p, size_t bytes) const {
    if (s_ == nullptr) {
        return -1;
    }
    const auto a = reinterpret_cast<uintptr_t>(p);
    const std::vector<Segment> &mine = s_->mine;
    for (size_t i = 0; i < mine.size(); ++i) {
        if (a >= mine[i].base && a - mine[i].base <= mine[i].length &&
            bytes <= mine[i].length - (a - mine[i].base)) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

bool MappedMemory::contains(const void *p, size_t bytes) const {
    return segment_of(p, bytes) >= 0;
}

ucc_status_t MappedMemory::remote(Peer peer, const void *local, size_t bytes, uint64_t *addr,
                                  const std::vector<uint8_t> **key, std::string *why) const {
    const int i = segment_of(local, bytes);
    if (i < 0) {
        *why = std::to_string(bytes) + " bytes at " +
               std::to_string(reinterpret_cast<uintptr_t>(local)) +
               " are not inside a segment this context mapped (mem_params)";
        return UCC_ERR_NOT_FOUND;
    }
    auto it = s_->peers.find(peer);  // (segment_of found one: s_ is there)
    if (it == s_->peers.end() || it->second.size() <= static_cast<size_t>(i)) {
        *why = "the peer mapped no segment " + std::to_string(i);
        return UCC_ERR_NOT_FOUND;
    }
    const Segment &theirs = it->second[static_cast<size_t>(i)];
    const uint64_t offset =
        reinterpret_cast<uintptr_t>(local) - s_->mine[static_cast<size_t>(i)].base;
    if (offset > theirs.length || bytes > theirs.length - offset) {
        *why = std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
               " pass the end of the peer's segment " + std::to_string(i) + " (" +
               std::to_string(theirs.length) + " bytes)";
        return UCC_ERR_NOT_FOUND;
    }
    *addr = theirs.base + offset;
    *key = &theirs.key;
    return UCC_OK;
}

}  // namespace ucc::core
