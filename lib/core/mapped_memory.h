// Memory a context maps for one-sided collectives, and what its peers mapped.
//
// The segments given at context creation (ucc_context_params_t.mem_params)
// are registered with the transport and their remote keys packed. Each
// context's address carries them as a trailer after the transport's own
// address, so the OOB exchange that tells a context its peers also tells it
// where each peer's segments are:
//
//   [segment]... [u32 count] [u32 trailer bytes] [u64 magic]
//   segment: u64 base, u64 length, u64 key bytes, the key (padded to 8)
//
// An address in one of this context's segments corresponds, on a peer, to
// the same offset in the peer's segment of the same index (the reference's
// rule: every member maps its segments in the same order, as an OpenSHMEM
// symmetric heap).
//
// A context that maps nothing (most, and every simulated rank's) holds a
// null pointer: the lists are made at the first segment, mapped or learnt.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lib/transport.h"
#include "ucc/api/ucc.h"

namespace ucc::core {

class MappedMemory {
  public:
    struct Segment {
        uint64_t base = 0;
        uint64_t length = 0;
        std::vector<uint8_t> key;
    };

    // Registers `segs` with `t` and packs their keys; on failure names the
    // segment in *why and leaves nothing registered.
    ucc_status_t map(Transport &t, std::span<const ucc_mem_map_t> segs, std::string *why);
    // Deregisters what map() registered (before the transport goes).
    void unmap(Transport &t);
    bool empty() const { return s_ == nullptr || s_->mine.empty(); }

    // Appends the trailer to a context address (nothing when empty()).
    void append_to(std::vector<uint8_t> *address) const;
    // Learns `peer`'s segments from its address of `len` bytes (an address
    // without a trailer: the peer mapped nothing). UCC_ERR_INVALID_PARAM when
    // the trailer is malformed.
    ucc_status_t learn(Peer peer, const uint8_t *address, size_t len);

    // Where [local, local + bytes) of this context's segment i lies in
    // `peer`'s segment i, and its key. UCC_ERR_NOT_FOUND with *why when
    // `local` is in no segment, the peer has no such segment, or the range
    // passes its end.
    ucc_status_t remote(Peer peer, const void *local, size_t bytes, uint64_t *addr,
                        const std::vector<uint8_t> **key, std::string *why) const;
    // Whether [p, p + bytes) lies inside one of this context's segments.
    bool contains(const void *p, size_t bytes) const;

  private:
    int segment_of(const void *p, size_t bytes) const;
    struct Lists {
        std::vector<Segment> mine;
        std::vector<MemRegion> regions;
        std::map<Peer, std::vector<Segment>> peers;
    };
    std::unique_ptr<Lists> s_;  // null: nothing mapped or learnt
};

}  // namespace ucc::core
