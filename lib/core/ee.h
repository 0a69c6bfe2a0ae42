// Execution engines and triggered collectives (spec chapter 7, API.md §4.11).
//
// An engine belongs to one team. It holds two queues: events the user sets
// (ucc_ee_set_event, copied in) and events the library emits (taken with
// ucc_ee_get_event and freed by ucc_ee_ack_event, or copied out and freed by
// ucc_ee_wait). ucc_collective_triggered_post parks an initialised request
// on the engine; it stays UCC_OPERATION_INITIALIZED until an event from the
// input queue triggers it. Triggers happen in the context's progress, first
// waiting request with first queued event, as the reference pairs them: the
// library then queues UCC_EVENT_COLLECTIVE_POST (req set) and posts the
// request. The reference likewise emits neither COLLECTIVE_COMPLETE nor,
// until its output queue is full, OVERFLOW.
//
// Two kinds: UCC_EE_CPU_THREAD, triggered by the input queue as above, on
// every transport; UCC_EE_CUDA_STREAM (ee_context: a cudaStream_t), on real
// transports with a usable CUDA device, triggered by its stream: each
// triggered post queues a start and a wait on the stream
// (lib/core/stream_gate.h), the collective posts when the stream reaches the
// start (the reference's "implicit event": input events are kept but
// trigger nothing), and the stream's later work waits until it ends. Its
// UCC_EVENT_COLLECTIVE_POST is queued by the triggered post itself (the
// collective is posted on the stream then), so that a program may take it
// at once, as programs written for the reference's stream engines do.
//
// A waiting request sits in its context's active list (Context::active)
// without a running collective, so that timeouts (counted from the
// triggered post, as the reference counts them), failed peers, cancellation
// and teardown reach it as they reach a posted one; CollRequest::trigger
// names its engine until it fires.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <vector>

#include "lib/core/core.h"
#include "lib/core/stream_gate.h"
#include "ucc/api/ucc.h"

namespace ucc::core {

// A library event in the output queue; `ev` first: ucc_ee_get_event hands
// out its address.
struct QueuedEvent {
    ucc_ev_t ev;
    uint64_t ordinal;  // emitted before it on the engine (the event trace's offset)
};

struct Ee final : Poller {
    Ee(Team *t, const ucc_ee_params_t &p, uint32_t number);
    ~Ee() override;

    // Poller: while requests wait, pairs them with queued input events.
    bool poll() override;

    // Parks `r` (checked postable) until an input event (or, on a stream
    // engine, its stream) triggers it.
    ucc_status_t park(CollRequest &r);
    // Takes `r` off the waiting list (it completed, was finalized or fired).
    void forget(CollRequest &r);
    // Appends a user event to the input queue.
    void set(const ucc_ev_t &ev);
    // Queues a library event (the output queue); at kMaxUntaken untaken
    // events further ones are dropped, after one UCC_EVENT_OVERFLOW.
    void emit(ucc_event_type_t type, CollRequest *r);
    // The output queue's first event, moved to `taken` (null: none).
    QueuedEvent *take();
    // Frees a taken event (false: `ev` is not one).
    bool ack(const ucc_ev_t *ev);
    // ucc_ee_wait's end: the first queued event, copied out and acknowledged.
    ucc_ev_t take_copy();
    // The team was destroyed (with this engine alive, which the reference
    // allows): only ucc_ee_destroy and the output queue's calls remain.
    void orphan();
    // Context::ees: links this engine in, or out.
    void link();
    void unlink();
    // `r`, triggered on a stream engine of `ctx`, ended (completed, or
    // finalized before it fired): that engine's stream may pass it.
    static void end_on_stream(Context &ctx, CollRequest &r);

    static constexpr size_t kMaxUntaken = 4096;

    Team *team;    // null once orphaned
    Context *ctx;  // null once orphaned
    ucc_ee_type_t type;
    void *ee_context;
    size_t ee_context_size;
    uint32_t number;                                  // on its context (event trace key)
    Ee *next = nullptr;                               // in Context::ees
    std::deque<ucc_ev_t> in;                          // set by the user, by value
    std::deque<std::unique_ptr<QueuedEvent>> out;     // emitted, not yet taken
    std::vector<std::unique_ptr<QueuedEvent>> taken;  // taken, not yet acked
    std::deque<CollRequest *> waiting;                // triggered posts, in order
    uint64_t sets = 0;                                // input events set so far
    uint64_t triggers = 0;                            // of which consumed by a trigger
    uint64_t emitted = 0;                             // output events queued so far
    std::unique_ptr<StreamGate> gate;                 // UCC_EE_CUDA_STREAM's, else null

  private:
    void watch(bool on);
    // Posts waiting.front(), triggered (by input event `in_event` or by the
    // stream).
    void fire(bool by_stream);
    // An event of the engine for the event trace (when the transport keeps one).
    void record(TraceKind kind, uint64_t offset, const CollRequest *r = nullptr, uint64_t flags = 0,
                bool write = false);
    bool watched_ = false;
    std::list<Poller *>::iterator it_;
};

// Posts an initialised (or completed persistent) request whose postability
// was checked: what ucc_collective_post does after its checks. `deadline`:
// the request's own from now (a negative value) or one already running (a
// triggered post's). An exception after the request went in progress
// completes it with the failure's status.
ucc_status_t post_request(CollRequest &r, double deadline);
// Ordered teams: the next sequence number of r's team, taken by r's first
// post (or triggered post).
uint32_t take_sequence(CollRequest &r);
// A triggered post's sequence number, taken when it is made (ordered teams,
// not an active set): the program's order of posts and triggered posts is
// the order its collectives match in, whenever their triggers fire.
void reserve_sequence(CollRequest &r);
// The team of `r` failed (a member's process died, or a collective on it
// failed): logs one line naming `fn`, sets r's status and returns the error;
// else UCC_OK. What a post or triggered post checks before it starts.
ucc_status_t fail_on_team_error(CollRequest &r, const char *fn);
// Whether `r` may be posted now (one log line naming `fn` when not).
ucc_status_t check_postable(CollRequest &r, const char *fn);

}  // namespace ucc::core

struct ucc_ee {
    ucc::core::Ee ee;
};
