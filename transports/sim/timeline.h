// Timelines of simulated runs: Chrome trace JSON (chrome://tracing, Perfetto).
//
// A Timeline belongs to one Cluster run and is written while the run goes on,
// from the simulation thread only. What it records, for the ranks selected by a
// rank list such as "0-7,512":
//  * one track per rank: process id = rank (named "rank R"), thread id = lane;
//    lane 0 holds the rank's collectives, lanes 1, 2, ... appear only when a
//    rank has several collectives in flight at once (slices on one lane must
//    nest, concurrent collectives do not);
//  * a complete ("X") slice per collective from trace_begin to trace_end, with
//    the args profilers use ("Collective name", "In msg nelems", "Out msg
//    nelems", "Group size", "dtype") plus "algorithm", "seq", "team", "rank"
//    and, when it failed, "status";
//  * algorithm steps as "X" slices nested in their collective. A message
//    belongs to the collective whose tag_base it carries (tag & ~0xffff) and to
//    the step in its low 16 bits (see SpanInfo and Coll::tag). A rank's step
//    slice starts at its first activity of that step — a send posted or a
//    receive matched — and lasts until its first activity of another step, or
//    to the end of the collective. Steps are thus consecutive, never
//    overlapping, segments of the collective; the step field's top bit marks
//    the core's synchronisation messages ("sync step k");
//  * one track per simulated CUDA stream of a rank (a stream execution
//    engine's, lib/core/sim_stream.h; thread id kStreamTid + its number,
//    named "CUDA stream N"): an instant ("i") where a collective was queued
//    on it by a triggered post, and an "X" slice from when the stream reached
//    the collective to its end (the stream's later work waits that long);
//  * a flow arrow ("s" at the send, "f" at the matching receive, one id per
//    message) for each message of a collective whose sender and receiver are
//    both selected. Both events are written when the receive matches, so
//    every "s" has its "f"; a message never received (a deadlock, a receiver
//    gone) draws no arrow.
// Timestamps are virtual microseconds (exact: picoseconds / 1e6).
//
// Off by default: the simulator holds a null Timeline pointer and tests it
// once per hook. Recording never feeds back into the run: no PRNG draw, no
// event and no clock change depend on it, so the trace hash is identical with
// and without a timeline.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/simulated.h"
#include "lib/transport.h"
#include "ucc/api/ucc.h"

namespace ucc::sim {

// A set of ranks below n, as a sorted list of inclusive ranges.
class RankSet {
  public:
    // Parses "all", "" (every rank) or comma-separated ranks and ranges
    // "a-b" (inclusive), e.g. "0-7,512". False, with a message, for syntax
    // errors, reversed ranges and ranks >= n.
    static bool parse(const std::string &spec, uint32_t n, RankSet *out, std::string *error);
    bool contains(uint32_t r) const;
    // Number of ranks in the set.
    uint64_t count() const;
    const std::vector<std::pair<uint32_t, uint32_t>> &ranges() const { return ranges_; }

  private:
    std::vector<std::pair<uint32_t, uint32_t>> ranges_;  // sorted, disjoint, inclusive
};

class Timeline {
  public:
    // Creates the file and writes its header and one track per selected rank.
    // nullptr, with a message, when the rank list is bad or the file cannot be
    // created. `network` and `seed` are recorded in the file's otherData.
    static std::unique_ptr<Timeline> open(const std::string &path, const std::string &ranks,
                                          uint32_t n_ranks, uint64_t seed,
                                          const std::string &network, std::string *error);
    ~Timeline();
    Timeline(const Timeline &) = delete;
    Timeline &operator=(const Timeline &) = delete;

    bool selected(uint32_t rank) const { return rank < selected_.size() && selected_[rank]; }

    // A collective starts / ends on `rank` (endpoint `ep`) at virtual time t_ps.
    void span_begin(uint32_t rank, uint64_t ep, const SpanInfo &s, int64_t t_ps);
    void span_end(uint32_t rank, uint64_t ep, const SpanInfo &s, ucc_status_t st, int64_t t_ps);
    // Simulated CUDA streams of `rank` (see above): a collective queued on
    // stream `stream`, the stream reaching it, its end.
    void stream_queued(uint32_t rank, uint32_t stream, const char *collective, int64_t t_ps);
    void stream_begin(uint32_t rank, uint32_t stream, const char *collective, int64_t t_ps);
    void stream_end(uint32_t rank, uint32_t stream, const SpanInfo &s, ucc_status_t st,
                    int64_t t_ps);
    static constexpr uint32_t kStreamTid = 1000;

    // A message with `tag` and `bytes` is sent from rank/ep to dst_rank at
    // t_ps; returns the flow id to carry to the receiver (0: no flow).
    uint64_t on_send(uint32_t rank, uint64_t ep, uint32_t dst_rank, Tag tag, uint64_t bytes,
                     int64_t t_ps);
    // A message is matched by a receive on rank/ep at t_ps.
    void on_recv(uint32_t rank, uint64_t ep, Tag tag, uint64_t bytes, uint64_t flow, int64_t t_ps);

    // Writes collectives still open (as "unfinished", ending at
    // rank_end_ps(rank)) and the file's end, and closes it. False, with a
    // message, when writing failed at any point.
    bool close(const std::function<int64_t(uint32_t)> &rank_end_ps, std::string *error);

    // Counters, for tests and reports.
    uint64_t slices() const { return slices_; }
    uint64_t flows() const { return flows_; }

  private:
    struct OpenSpan {
        uint64_t ep = 0;
        Tag tag_base = 0;
        uint32_t lane = 0;
        int64_t begin_ps = 0;
        std::string collective;
        std::string algorithm;
        std::string dtype;
        uint32_t team_id = 0;
        uint32_t seq = 0;
        uint32_t team_size = 0;
        uint32_t team_rank = 0;
        uint64_t in_elems = 0;
        uint64_t out_elems = 0;
        // The current step segment.
        int32_t step = -1;
        int64_t step_begin_ps = 0;
        uint64_t sent_msgs = 0;
        uint64_t sent_bytes = 0;
        uint64_t recv_msgs = 0;
        uint64_t recv_bytes = 0;
        std::string steps;  // finished step slices, written after the collective's
    };
    struct PendingFlow {
        uint32_t rank;
        uint32_t lane;
        int64_t t_ps;
    };
    struct StreamTrack {
        uint32_t stream = 0;
        int64_t begin_ps = -1;   // the running collective's start (-1: none)
        std::string collective;  // its name
    };
    struct Track {
        std::vector<OpenSpan> open;
        std::vector<StreamTrack> streams;  // named ones, in order of first use
        std::vector<bool> lane_busy;
        uint32_t lanes_named = 0;
    };

    Timeline(std::FILE *f, std::string path, RankSet set, uint32_t n_ranks);
    OpenSpan *find(uint32_t rank, uint64_t ep, Tag tag);
    void activity(uint32_t rank, OpenSpan *sp, Tag tag, int64_t t_ps);
    void close_step(uint32_t rank, OpenSpan *sp, int64_t t_ps);
    void write_span(uint32_t rank, OpenSpan &sp, int64_t end_ps, const char *status);
    StreamTrack *stream_track(uint32_t rank, uint32_t stream);
    void write_stream_slice(uint32_t rank, StreamTrack &st, const SpanInfo &s, int64_t end_ps,
                            const char *status);
    void event(const std::string &json);

    std::FILE *f_;
    std::string path_;
    RankSet set_;
    std::vector<bool> selected_;
    std::unordered_map<uint32_t, Track> tracks_;
    std::unordered_map<uint64_t, PendingFlow> pending_flows_;  // sent, not yet received
    uint64_t next_flow_ = 1;
    uint64_t flows_ = 0;
    uint64_t slices_ = 0;
    bool first_event_ = true;
    bool closed_ = false;
};

// Virtual picoseconds as microseconds with six decimals ("12.345678").
std::string format_us(int64_t ps);
// A JSON string literal (quotes included) of `s`.
std::string json_string(const std::string &s);

// Inside a rank: the algorithm name of its most recent collective ("" if none).
const char *last_algorithm();

}  // namespace ucc::sim
