// The core's side of the trace recorder (traces/FORMAT.md): what each API
// call that shapes a collective contributes to the context's trace, read off
// the core's own objects. Every entry point is called only when the context
// records (`ctx.recorder` set), so that recording off costs one branch.
#pragma once

#include <cstdint>

#include "ucc/api/ucc.h"

namespace ucc::core {

struct Context;
struct Team;
struct CollRequest;

// At context creation: opens the trace when TRACE names a directory (a file
// that cannot be created is logged, and the context runs without a trace).
void trace_open(Context &ctx, const ucc_oob_coll_t *oob);
// At context destroy (and when a context that failed creation goes away).
void trace_close(Context &ctx);

// `how`: "oob", "ep_map" or "split" (then `parent` and `included`).
void trace_team_create(Team &t, ucc_status_t st, const char *how, const Team *parent = nullptr,
                       bool included = true);
void trace_team(Team &t);
void trace_team_destroy(Team &t);
// `team` and `args` may be null (an init that failed on them); `r` is the new
// request when init succeeded.
void trace_init(Context &ctx, const Team *team, const ucc_coll_args_t *args, const CollRequest *r,
                ucc_status_t st);
void trace_post(const CollRequest &r, uint32_t key, ucc_status_t st);
void trace_done(const CollRequest &r, ucc_status_t st);
void trace_fin(const CollRequest &r);

}  // namespace ucc::core
