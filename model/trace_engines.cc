// Execution engines and triggered post (P48-P50; trace.h states each
// property), from the engine events of traces/trace_event.h: per rank and
// engine, the user's input events, the waiting requests and their triggers,
// and the library's output events as the program takes and acknowledges
// them.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "model/trace.h"
#include "model/trace_util.h"

namespace ucc::model {

using detail::add;
using detail::rank_str;

namespace {

using EngineKey = std::pair<uint32_t, uint32_t>;  // (world rank, engine number)

std::string engine_str(const TraceEvent &e) {
    return rank_str(e.rank) + " engine " + std::to_string(e.key);
}

std::string req_str(const TraceEvent &e) {
    return rank_str(e.rank) + " req " + std::to_string(e.req);
}

}  // namespace

Findings check_p48_trigger(const TraceIndex &ix) {
    Findings f;
    struct Engine {
        uint64_t sets = 0;             // input events set so far
        uint64_t triggers = 0;         // consumed so far
        std::deque<uint64_t> waiting;  // parked requests, in order
    };
    std::map<EngineKey, Engine> engines;
    std::map<std::pair<uint32_t, uint64_t>, uint32_t> parked_on;  // (rank, req) -> engine
    auto leave = [&](const TraceEvent &e) {
        auto it = parked_on.find({e.rank, e.req});
        if (it != parked_on.end()) {
            std::erase(engines[{e.rank, it->second}].waiting, e.req);
            parked_on.erase(it);
        }
    };
    for (const TraceEvent &e : ix.trace()) {
        switch (e.kind) {
            case TraceKind::kEeSet: {
                Engine &en = engines[{e.rank, e.key}];
                if (e.offset != en.sets) {
                    add(&f, 48,
                        engine_str(e) + ": input event " + std::to_string(e.offset) +
                            " set after " + std::to_string(en.sets));
                }
                en.sets = e.offset + 1;
                break;
            }
            case TraceKind::kTriggeredPost:
                if (parked_on.count({e.rank, e.req})) {
                    add(&f, 48, req_str(e) + ": parked twice without a trigger in between");
                }
                engines[{e.rank, e.key}].waiting.push_back(e.req);
                parked_on[{e.rank, e.req}] = e.key;
                break;
            case TraceKind::kTrigger: {
                Engine &en = engines[{e.rank, e.key}];
                if (e.offset != en.triggers) {
                    add(&f, 48,
                        req_str(e) + ": triggered by input event " + std::to_string(e.offset) +
                            ", the engine's next was " + std::to_string(en.triggers));
                }
                // (flags 1: a stream engine's, fired by its stream, not by an input event.)
                if (e.flags == 0 && e.offset >= en.sets) {
                    add(&f, 48,
                        req_str(e) + ": triggered by input event " + std::to_string(e.offset) +
                            " before the program set it");
                }
                if (en.waiting.empty() || en.waiting.front() != e.req) {
                    add(&f, 48,
                        req_str(e) + (en.waiting.empty()
                                          ? ": triggered without waiting on the engine"
                                          : ": triggered before request " +
                                                std::to_string(en.waiting.front()) +
                                                ", which waited longer"));
                }
                en.triggers = e.offset + 1;
                leave(e);
                break;
            }
            case TraceKind::kPost:
            case TraceKind::kAccess:
            case TraceKind::kSend:
            case TraceKind::kRecv:
                if (parked_on.count({e.rank, e.req})) {
                    add(&f, 48,
                        req_str(e) +
                            ": its collective ran (a post, a message or a buffer "
                            "access) before its trigger");
                }
                break;
            case TraceKind::kComplete:
            case TraceKind::kFinalize:
                leave(e);  // ended without a trigger (timeout, cancel, finalize)
                break;
            default:
                break;
        }
    }
    return f;
}

Findings check_p49_events_in_order(const TraceIndex &ix) {
    Findings f;
    struct Engine {
        uint64_t emitted = 0;
        int64_t last_taken = -1;
    };
    std::map<EngineKey, Engine> engines;
    // Triggered requests whose COLLECTIVE_POST is due before their post: from
    // their trigger, or on a stream engine (kTriggeredPost flags 1) from the
    // triggered post itself, which queues the collective on the stream.
    std::map<std::pair<uint32_t, uint64_t>, uint32_t> due;
    for (const TraceEvent &e : ix.trace()) {
        switch (e.kind) {
            case TraceKind::kTriggeredPost:
                if (e.flags == 1) {
                    due[{e.rank, e.req}] = e.key;
                }
                break;
            case TraceKind::kTrigger:
                if (e.flags == 0) {
                    due[{e.rank, e.req}] = e.key;
                }
                break;
            case TraceKind::kEeEmit: {
                Engine &en = engines[{e.rank, e.key}];
                if (e.offset != en.emitted) {
                    add(&f, 49,
                        engine_str(e) + ": output event " + std::to_string(e.offset) +
                            " emitted after " + std::to_string(en.emitted));
                }
                en.emitted = e.offset + 1;
                if (e.flags == static_cast<uint64_t>(UCC_EVENT_COLLECTIVE_POST)) {
                    auto it = due.find({e.rank, e.req});
                    if (it == due.end() || it->second != e.key) {
                        add(&f, 49,
                            engine_str(e) + ": COLLECTIVE_POST for req " + std::to_string(e.req) +
                                ", which no trigger fired");
                    } else {
                        due.erase(it);
                    }
                }
                break;
            }
            case TraceKind::kPost:
                if (due.count({e.rank, e.req})) {
                    add(&f, 49,
                        req_str(e) +
                            ": posted by its trigger before its "
                            "COLLECTIVE_POST event was queued");
                    due.erase({e.rank, e.req});
                }
                break;
            case TraceKind::kEeTake: {
                Engine &en = engines[{e.rank, e.key}];
                if (static_cast<int64_t>(e.offset) <= en.last_taken || e.offset >= en.emitted) {
                    add(&f, 49,
                        engine_str(e) + ": output event " + std::to_string(e.offset) +
                            " handed out " +
                            (e.offset >= en.emitted
                                 ? "before it was emitted"
                                 : "after a later one (" + std::to_string(en.last_taken) + ")"));
                }
                en.last_taken = std::max(en.last_taken, static_cast<int64_t>(e.offset));
                break;
            }
            default:
                break;
        }
    }
    return f;
}

Findings check_p50_delivered_once(const TraceIndex &ix) {
    Findings f;
    // (rank, engine, ordinal) -> taken by ucc_ee_get_event (false) or ucc_ee_wait (true).
    std::map<std::tuple<uint32_t, uint32_t, uint64_t>, bool> taken;
    std::set<std::tuple<uint32_t, uint32_t, uint64_t>> acked;
    for (const TraceEvent &e : ix.trace()) {
        const std::tuple<uint32_t, uint32_t, uint64_t> k{e.rank, e.key, e.offset};
        const std::string ev = engine_str(e) + " output event " + std::to_string(e.offset);
        if (e.kind == TraceKind::kEeTake) {
            if (!taken.emplace(k, e.write).second) {
                add(&f, 50, ev + ": handed out twice");
            }
        } else if (e.kind == TraceKind::kEeAck) {
            auto it = taken.find(k);
            if (it == taken.end()) {
                add(&f, 50, ev + ": acknowledged before it was handed out");
            } else if (it->second) {
                add(&f, 50, ev + ": acknowledged by the program after ucc_ee_wait did");
            } else if (!acked.insert(k).second) {
                add(&f, 50, ev + ": acknowledged twice");
            }
        }
    }
    return f;
}

}  // namespace ucc::model
