// One event of the library's own event trace (CONFORMANCE.md notation: init,
// post, buffer access, completion, finalize; plus callbacks, messages, team
// lifecycle and resource snapshots).
//
// The core and the collectives describe what they do; a transport that records
// (the simulator, when asked) stamps each event with the world rank and its
// virtual time and keeps it. The model's checkers (model/trace.h) read the
// result. Nothing here holds an address: the trace of a run is a function of
// the run alone, and the same seed gives the same trace.
//
// Both sides include this header and nothing else of each other: it lives
// outside lib/ so that the model stays independent of the library. It is
// versioned: a change to a kind, a field's meaning or an enumerator's value
// bumps kTraceEventVersion.
#pragma once

#include <cstdint>

#include "ucc/api/ucc.h"

namespace ucc {

inline constexpr uint32_t kTraceEventVersion = 3;

enum class TraceKind : uint8_t {
    kInit,           // ucc_collective_init returned a request (req, coll, flags, timeout)
    kPost,           // a post started (req, team, key, signature, sync, team_rank/size, root)
    kAccess,         // the library read or wrote a user buffer (req, buffer, write, offset, bytes)
    kComplete,       // the request's status left UCC_INPROGRESS (req, status, hash)
    kCallback,       // the completion callback is about to run (req, status)
    kFinalize,       // ucc_collective_finalize freed the request (req, status)
    kSend,           // a message of a collective left (req, peer = world rank of the receiver)
    kRecv,           // a message of a collective arrived (req, peer = world rank of the sender)
    kTeamCreated,    // team creation completed (team, team_rank, team_size, status, offset = ep)
    kTeamDestroyed,  // the team's destroy completed (team, resources after it)
    kUser,           // the program's own mark (user_kind says which)
    // Execution engines (lib/core/ee.h). `key` is the engine's number on its
    // rank (1, 2, ... in ucc_ee_create order), `offset` an ordinal on it.
    kTriggeredPost,  // the request waits on the engine for a trigger (req, key, team;
                     // ordered: it took sequence number `offset` on its ordered team;
                     // flags 1: a CUDA stream engine's, its COLLECTIVE_POST queued now)
    kTrigger,        // it fired on the engine's input event number `offset` (req, key;
                     // flags 1: fired by a CUDA stream engine's stream, no input event)
    kEeSet,          // the program set input event number `offset` (key)
    kEeEmit,         // the library queued output event `offset` (key, req, flags = ev_type)
    kEeTake,         // the program took output event `offset` (key; write: by ucc_ee_wait,
                     // which acknowledges it too)
    kEeAck,          // the program acknowledged output event `offset` (key)
};

enum class TraceBuffer : uint8_t { kNone, kSrc, kDst };

// Where the library allocates on the way to a context, a team or a
// collective: the sites a simulated world may fail (transports/sim/faults.h,
// "nomem"; lib/simulated.h alloc_site). Each is checked just before its
// allocation, so an injected failure takes the path a real one would. The
// trace names them in UserMark::kAllocFailed.
enum class AllocSite : uint8_t {
    kTransport,       // the context's transport (checked by the world itself)
    kContextAddress,  // the context's address
    kContextPeers,    // the context's peer map from its OOB exchange
    kTeamHandle,      // ucc_team_create_post: the team and its creation state
    kTeamPeers,       // ucc_team_create_test: the team's peer map
    kCollRequest,     // ucc_collective_init: the request (and its active set)
    kCollScratch,     // ucc_collective_init: the algorithm's scratch memory
    kCollTask,        // ucc_collective_post: the algorithm's coroutine frames
};
inline const char *alloc_site_name(AllocSite site) {
    switch (site) {
        case AllocSite::kTransport:
            return "context.transport";
        case AllocSite::kContextAddress:
            return "context.address";
        case AllocSite::kContextPeers:
            return "context.peers";
        case AllocSite::kTeamHandle:
            return "team.handle";
        case AllocSite::kTeamPeers:
            return "team.peers";
        case AllocSite::kCollRequest:
            return "collective.request";
        case AllocSite::kCollScratch:
            return "collective.scratch";
        case AllocSite::kCollTask:
            return "collective.task";
    }
    return "?";
}

// Marks a program may add (sim::record_user_event), e.g. what the program did
// to its buffers, for the checkers that tell user errors from library bugs.
enum class UserMark : uint8_t {
    kNone,
    kDone,             // ucc_collective_test first returned != UCC_INPROGRESS (req)
    kUserWrite,        // the program wrote one of the request's buffers (req, buffer)
    kFrozen,           // the rank stops calling into the library until others finish
    kThawed,           // ... and resumes
    kSnapshot,         // resource counts at a checkpoint (resources)
    kUseAfterDestroy,  // a call on a destroyed object returned (status)
    // The program calls a destroy (key: 0 for its context, 1 + k for its
    // team k) / the call returned (key, status): P38.
    kDestroyBegin,
    kDestroyEnd,
    // Recorded by the simulator: the fault plan failed an allocation of the
    // rank (key: the lib/simulated.h AllocSite). P37.
    kAllocFailed,
    // The program's library call on a context or team returned (status): a
    // create, init or post whose allocation failed returns UCC_ERR_NO_MEMORY.
    kCallReturned,
};

struct TraceEvent {
    TraceKind kind = TraceKind::kUser;
    TraceBuffer buffer = TraceBuffer::kNone;
    UserMark mark = UserMark::kNone;
    bool write = false;
    ucc_coll_sync_type_t sync = UCC_NO_SYNC_COLLECTIVES;
    ucc_coll_type_t coll = UCC_COLL_TYPE_BARRIER;
    ucc_status_t status = UCC_OK;
    uint32_t rank = 0;  // world rank (stamped by the recording transport)
    uint32_t team = 0;  // team id (agreed by all members)
    // Team identity: a hash of the members' transport peers. Teams without a
    // common member may share an id; (team, team_hash) tells them apart.
    uint64_t team_hash = 0;
    uint32_t key = 0;        // instance key on the team: sequence number or tag space
    uint32_t team_rank = 0;  // the rank's index among the collective's participants
    uint32_t team_size = 0;  // number of participants (active set size, if any)
    uint32_t root = 0;       // root, as an index among the participants
    uint32_t peer = 0;       // send/recv: the other side's world rank
    bool ordered = true;     // post: the team matches by sequence number
    bool active_set = false;
    bool has_cb = false;  // init: a completion callback is set
    // init: the algorithm chosen (1 + its index in the library's registry; 0:
    // none runs, a zero-size collective completes at post): P42.
    uint16_t alg = 0;
    uint64_t req = 0;  // per-rank request number (1, 2, ... in ucc_collective_init order)
    uint64_t flags = 0;
    uint64_t signature = 0;
    uint64_t offset = 0;  // access: byte offset in the buffer; team created: the ep
    uint64_t bytes = 0;
    uint64_t hash = 0;       // complete: FNV-1a of the dst bytes (0 when not computed)
    uint64_t resources = 0;  // team destroyed: transport operations still pending under its tags
    double timeout = 0;      // init: the TIMEOUT flag's timeout (0 without the flag)
    int64_t time_ps = 0;     // the rank's virtual clock (stamped by the transport)
};

}  // namespace ucc
