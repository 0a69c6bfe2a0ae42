// The tag of a message: one layout for the core, the algorithms and every
// transport.
//
// Logical tag (what the core builds and lib/transport.h carries), 64 bits:
//
//    63          48 47                          16 15 14   11 10        0
//   +--------------+------------------------------+--+------+-----------+
//   |   team id    |             key              |S | type |   step    |
//   +--------------+------------------------------+--+------+-----------+
//
//  * team id (16 bits): agreed by the team's members at creation; 0xffff is
//    reserved for the messages of team creation itself.
//  * key (32 bits): which instance of a collective on the team —
//      ordered teams:   the team's sequence number (the k-th collective posted);
//      unordered teams: the user's 16-bit tag | (re-post count mod 2^15) << 16;
//      active sets:     bit 31 set | the user's 16-bit tag (their own space);
//      team creation:   a hash every member derives from the team's parameters.
//  * S (1 bit): the core's own messages (entry/exit barriers of
//    UCC_SYNC_COLLECTIVES, the agreement of UCC_CHECK_ASYMMETRIC_DT) as
//    opposed to the algorithm's.
//  * type (4 bits): the collective's type (the bit index of its
//    ucc_coll_type_t, 0..15) on the algorithm's messages, 0 on the core's
//    (whose agreement must match across types to detect a mismatch): ranks
//    that run different collectives under one sequence number never match
//    each other's messages.
//  * step (11 bits): the algorithm's step (modulo 2^11).
//
// Wire tag (transports whose matching has no source, UCP: the sender must be in
// the tag), 64 bits:
//
//    63            44 43        28 27 26          11 10  9    6 5     0
//   +----------------+------------+--+--------------+--+------+-------+
//   |  sender index  |  team id   |A |  key (low16) |S | type | step  |
//   +----------------+------------+--+--------------+--+------+-------+
//
//  * sender index (20 bits): the sender's endpoint index in its context (its
//    OOB ep): at most 2^20 = 1,048,576 processes per context — a larger
//    context fails at creation.
//  * A: the active-set bit (key bit 31); key (16 bits): the key's low 16 bits
//    (the sequence number mod 2^16; the user's tag on unordered teams and
//    active sets; the re-post count is dropped).
//  * type (4 bits): as in the logical tag, whole.
//  * step (6 bits): the step mod 2^6.
//
// Why truncation is safe: messages between one pair of processes with one wire
// tag are matched in posting order (non-overtaking). Two messages whose logical
// tags differ only in truncated bits therefore match correctly whenever both
// sides post them in the same order — true of every algorithm's steps (each
// pair's messages are sequential) and of sequence numbers while fewer than
// 2^16 collectives are outstanding on one team at one rank, which the core
// enforces at post (kMaxOutstandingPerTeam). Unordered teams and active sets
// need distinct tags for concurrent collectives anyway (16 bits, kept whole).
#pragma once

#include <cstdint>

#include "lib/coll/coll_types.h"

namespace ucc::tag {

using Tag = uint64_t;

inline constexpr unsigned kTeamShift = 48;
inline constexpr unsigned kKeyShift = 16;
inline constexpr Tag kStepMask = 0xffff;  // S bit, type and step
inline constexpr uint32_t kCoreStepSpace = 0x8000;
inline constexpr unsigned kTypeShift = 11;
inline constexpr uint32_t kTypeMask = 0xfu << kTypeShift;
// The core's own steps (S bit set, type 0), each user's base; steps stay
// below 2^6 on the wire: UCC_SYNC_COLLECTIVES' barriers use 1..20 (one per
// round), UCC_CHECK_ASYMMETRIC_DT's agreement 0x20..0x34, the CUDA IPC
// exchanges (lib/core/device_ipc.h) 0x38..0x3b.
inline constexpr uint32_t kSyncSteps = kCoreStepSpace;
inline constexpr uint32_t kCheckSteps = kCoreStepSpace | 0x20;
inline constexpr uint32_t kIpcSteps = kCoreStepSpace | 0x38;
inline constexpr uint32_t kAlgStepMask = 0x7ff;
inline constexpr uint16_t kCreationTeamId = 0xffff;
inline constexpr uint32_t kActiveSetKey = 0x80000000u;
// Every tag of one team: (t & kTeamMask) == team_prefix(id).
inline constexpr Tag kTeamMask = Tag{0xffff} << kTeamShift;
// Every tag of one collective instance: (t & kInstanceMask) == its base.
inline constexpr Tag kInstanceMask = ~kStepMask;

constexpr Tag make(uint16_t team, uint32_t key, uint32_t step = 0) {
    return (Tag{team} << kTeamShift) | (Tag{key} << kKeyShift) | (step & kStepMask);
}
constexpr Tag team_prefix(uint16_t team) {
    return Tag{team} << kTeamShift;
}
constexpr uint16_t team_of(Tag t) {
    return static_cast<uint16_t>(t >> kTeamShift);
}
constexpr uint32_t key_of(Tag t) {
    return static_cast<uint32_t>(t >> kKeyShift);
}
constexpr uint32_t step_of(Tag t) {
    return static_cast<uint32_t>(t & kStepMask);
}
// The type field of a collective of type `coll_type` (a ucc_coll_type_t:
// one bit set), to OR into the step field of its algorithm's messages.
constexpr uint32_t type_bits(uint64_t coll_type) {
    return coll::type_index(coll_type) << kTypeShift;
}

// ---- wire layout (sender in the tag)
inline constexpr unsigned kWireSenderBits = 20;
inline constexpr uint64_t kMaxSenders = uint64_t{1} << kWireSenderBits;
inline constexpr uint32_t kMaxOutstandingPerTeam = 1u << 16;
inline constexpr unsigned kWireStepBits = 6;

constexpr uint64_t wire(uint32_t sender, Tag t) {
    const uint64_t team = team_of(t);
    const uint32_t key = key_of(t);
    const uint32_t step = step_of(t);
    return (uint64_t{sender} << 44) | (team << 28) | (uint64_t{key >> 31} << 27) |
           (uint64_t{key & 0xffff} << 11) | (uint64_t{(step & kCoreStepSpace) != 0} << 10) |
           (uint64_t{(step & kTypeMask) >> kTypeShift} << kWireStepBits) |
           (step & ((1u << kWireStepBits) - 1));
}
constexpr uint32_t wire_sender(uint64_t w) {
    return static_cast<uint32_t>(w >> 44);
}

}  // namespace ucc::tag
