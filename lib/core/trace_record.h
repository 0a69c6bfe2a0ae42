// The core's side of the trace recorder (traces/FORMAT.md): what each API
// call that shapes a collective contributes to the context's trace, read off
// the core's own objects. Every entry point is called only when the context
// records (`ctx.trace` set), so that recording off costs one branch.
#pragma once

#include <cstdint>
#include <memory>

#include "lib/core/core.h"
#include "traces/recorder.h"
#include "ucc/api/ucc.h"

namespace ucc::core {

// A recorded context's trace: the recorder and the clocks of its records.
struct TraceState {
    std::unique_ptr<traces::Recorder> recorder;
    double t0 = 0;       // transport clock at creation: trace times count from here
    uint32_t teams = 0;  // team numbers handed out
    // The program's own time between records (a record's `idle`): the time of
    // the previous record, the time spent inside calls on the context since,
    // and the current call's start (calls nest: depth).
    uint32_t depth = 0;
    // False on a simulated rank without a fiber: its program never waits in
    // a call, the engine's passes stand for its progress calls, so all of
    // its time between records is the library's (`idle` 0).
    bool program_waits = true;
    int64_t prev_ns = 0;
    int64_t lib_ns = 0;
    int64_t enter_ns = 0;
    // A context without an OOB: the number of the team whose OOB gave the
    // trace its rank and size (0: none yet), and that team's peers, whose
    // indices are the trace's ranks (a team record's members).
    uint32_t world_team = 0;
    PeerMap world;
};

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
