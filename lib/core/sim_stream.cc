// CUDA streams on a simulated rank (lib/core/sim_stream.h).
#include "lib/core/sim_stream.h"

#include "lib/core/ee.h"
#include "lib/simulated.h"

namespace ucc::core {

namespace {

SpanInfo named(const CollRequest &r) {
    SpanInfo s;
    s.collective = coll_type_name(r.args.coll_type);
    return s;
}

}  // namespace

std::unique_ptr<StreamGate> SimStreamGate::open(Context &ctx, void *handle) {
    std::shared_ptr<Stream> stream;
    uint32_t streams = 0;
    for (Ee *e = ctx.ees; e != nullptr; e = e->next) {
        if (auto *g = dynamic_cast<SimStreamGate *>(e->gate.get()); g != nullptr) {
            if (g->stream_->handle == handle) {
                stream = g->stream_;
                break;
            }
            streams = std::max(streams, g->stream_->number);
        }
    }
    if (!stream) {
        stream = std::make_shared<Stream>(Stream{handle, streams + 1, 0, {}});
    }
    return std::unique_ptr<StreamGate>(new SimStreamGate(ctx.sim, std::move(stream)));
}

SimStreamGate::SimStreamGate(SimulatedWorld *sim, std::shared_ptr<Stream> stream)
    : sim_(sim), stream_(std::move(stream)) {}

SimStreamGate::~SimStreamGate() {
    // Every ticket of this engine released: the stream goes on past them.
    for (Item &it : stream_->items) {
        if (it.gate == this && !it.ended) {
            it.ended = true;
            if (it.began) {
                // (UCC_INPROGRESS: the collective runs on, the stream no longer waits.)
                sim_->trace_stream(stream_->number, SimulatedWorld::StreamMark::kEnd,
                                   named(*it.owner), UCC_INPROGRESS);
            }
        }
    }
    pass();
}

ucc_status_t SimStreamGate::enqueue(Logger &, const CollRequest *owner, uint32_t *ticket) {
    Stream &s = *stream_;
    if (++s.issued == 0) {
        s.issued = 1;  // 0 means none to a request
    }
    s.items.push_back({owner, this, s.issued, false, false});
    *ticket = s.issued;
    sim_->trace_stream(s.number, SimulatedWorld::StreamMark::kQueued, named(*owner), UCC_OK);
    return UCC_OK;
}

bool SimStreamGate::started(uint32_t ticket) const {
    return !stream_->items.empty() && stream_->items.front().ticket == ticket;
}

void SimStreamGate::fired(const CollRequest &owner) {
    Item &head = stream_->items.front();
    head.began = true;
    sim_->trace_stream(stream_->number, SimulatedWorld::StreamMark::kBegin, named(owner), UCC_OK);
}

bool SimStreamGate::end(const CollRequest *owner, uint32_t ticket) {
    for (Item &it : stream_->items) {
        if (it.ticket == ticket && it.owner == owner && !it.ended) {
            it.ended = true;
            if (it.began) {
                SpanInfo s = owner->span;
                s.collective = coll_type_name(owner->args.coll_type);
                sim_->trace_stream(stream_->number, SimulatedWorld::StreamMark::kEnd, s,
                                   owner->super.status);
            }
            pass();
            return true;
        }
    }
    return false;
}

void SimStreamGate::pass() {
    while (!stream_->items.empty() && stream_->items.front().ended) {
        stream_->items.pop_front();
    }
}

}  // namespace ucc::core
