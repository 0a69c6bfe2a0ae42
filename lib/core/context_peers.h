// How a context created over an OOB learns its peers: the map from context
// ep to transport peer that its teams' ep maps resolve through.
//
//  * Over the OOB's allgathers: the length of every participant's transport
//    address (they may differ between processes), then the addresses padded
//    to the longest, each resolved by the transport. Blocking, as the
//    reference's ucc_context_create is.
//  * On a simulated world that owns the OOB (ucc_sim_oob): its shared peer
//    exchange, nothing O(n) per context. A rank with a fiber waits for it in
//    ucc_context_create. A rank without one (UCC_SIM_FLAG_FIBERLESS) cannot
//    wait: its context is returned at once and joins in later passes of its
//    progress (Context::join_status is UCC_INPROGRESS until then). A team
//    posted meanwhile without an OOB of its own waits for the join and starts
//    when it completes (start_deferred_team, api_team.cc).
#pragma once

#include "lib/core/core.h"

namespace ucc::core {

// Fills ctx.peers from ctx.oob (ctx.has_oob), or starts the join of a rank
// without a fiber. Logs what failed; the context is then not made.
ucc_status_t exchange_peers(Context &ctx);

// The team posted on `ctx` while its join ran: starts its creation now that
// ctx.join_status is final, or fails it with that status.
void start_deferred_team(Context &ctx);

}  // namespace ucc::core
