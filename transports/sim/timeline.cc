// Timelines of simulated runs: rank sets, the Chrome trace writer, step slices
// and message flows.
#include "transports/sim/timeline.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>

#include "lib/util/parse.h"
#include "transports/sim/cluster.h"

namespace ucc::sim {

namespace {

constexpr size_t kFileBufferBytes = 1 << 20;
constexpr Tag kStepMask = tag::kStepMask;
constexpr uint32_t kSyncStepBit = 0x8000;

}  // namespace

// ---------------------------------------------------------------------------
// RankSet
// ---------------------------------------------------------------------------

bool RankSet::parse(const std::string &spec, uint32_t n, RankSet *out, std::string *error) {
    auto fail = [&](const std::string &msg) {
        if (error != nullptr) {
            *error = "rank list \"" + spec + "\": " + msg;
        }
        return false;
    };
    RankSet set;
    const std::string all(trim(spec));
    if (n == 0) {
        return fail("there are no ranks");
    }
    if (all.empty() || all == "all") {
        set.ranges_.emplace_back(0, n - 1);
        *out = std::move(set);
        return true;
    }
    size_t pos = 0;
    while (pos <= all.size()) {
        size_t comma = all.find(',', pos);
        if (comma == std::string::npos) {
            comma = all.size();
        }
        const std::string item(trim(all.substr(pos, comma - pos)));
        pos = comma + 1;
        if (item.empty()) {
            return fail("empty item");
        }
        uint32_t lo = 0;
        uint32_t hi = 0;
        size_t dash = item.find('-');
        if (dash == std::string::npos) {
            if (!parse_u32(item, &lo)) {
                return fail("\"" + item + "\" is not a rank or a range a-b");
            }
            hi = lo;
        } else if (!parse_u32(trim(item.substr(0, dash)), &lo) ||
                   !parse_u32(trim(item.substr(dash + 1)), &hi)) {
            return fail("\"" + item + "\" is not a rank or a range a-b");
        } else if (hi < lo) {
            return fail("range \"" + item + "\" is reversed");
        }
        if (hi >= n) {
            return fail("rank " + std::to_string(hi) + " is not below the rank count " +
                        std::to_string(n));
        }
        set.ranges_.emplace_back(lo, hi);
    }
    // Sort and merge overlapping or adjacent ranges.
    std::sort(set.ranges_.begin(), set.ranges_.end());
    std::vector<std::pair<uint32_t, uint32_t>> merged;
    for (const auto &r : set.ranges_) {
        if (!merged.empty() && static_cast<uint64_t>(merged.back().second) + 1 >= r.first) {
            merged.back().second = std::max(merged.back().second, r.second);
        } else {
            merged.push_back(r);
        }
    }
    set.ranges_ = std::move(merged);
    *out = std::move(set);
    return true;
}

bool RankSet::contains(uint32_t r) const {
    auto it = std::upper_bound(
        ranges_.begin(), ranges_.end(), r,
        [](uint32_t v, const std::pair<uint32_t, uint32_t> &range) { return v < range.first; });
    return it != ranges_.begin() && r <= std::prev(it)->second;
}

uint64_t RankSet::count() const {
    uint64_t c = 0;
    for (const auto &[lo, hi] : ranges_) {
        c += static_cast<uint64_t>(hi) - lo + 1;
    }
    return c;
}

// ---------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------

std::string format_us(int64_t ps) {
    char buf[48];
    const char *sign = ps < 0 ? "-" : "";
    uint64_t v = ps < 0 ? 0 - static_cast<uint64_t>(ps) : static_cast<uint64_t>(ps);
    std::snprintf(buf, sizeof(buf), "%s%" PRIu64 ".%06" PRIu64, sign, v / 1'000'000, v % 1'000'000);
    return buf;
}

std::string json_string(const std::string &s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    char esc[8];
                    std::snprintf(esc, sizeof(esc), "\\u%04x", c);
                    out += esc;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += '"';
    return out;
}

// ---------------------------------------------------------------------------
// Timeline
// ---------------------------------------------------------------------------

std::unique_ptr<Timeline> Timeline::open(const std::string &path, const std::string &ranks,
                                         uint32_t n_ranks, uint64_t seed,
                                         const std::string &network, std::string *error) {
    RankSet set;
    if (!RankSet::parse(ranks, n_ranks, &set, error)) {
        return nullptr;
    }
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        if (error != nullptr) {
            *error = "cannot create the timeline file \"" + path + "\": " + std::strerror(errno);
        }
        return nullptr;
    }
    std::unique_ptr<Timeline> t(new Timeline(f, path, std::move(set), n_ranks));
    std::setvbuf(f, nullptr, _IOFBF, kFileBufferBytes);
    std::fprintf(f,
                 "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"ucc_sim\","
                 "\"time\":\"virtual microseconds\",\"ranks\":%u,\"seed\":%" PRIu64
                 ",\"network\":%s,\"timeline_ranks\":%s},\n\"traceEvents\":[\n",
                 n_ranks, seed, json_string(network).c_str(),
                 json_string(ranks.empty() ? "all" : ranks).c_str());
    // One track per selected rank, named and sorted by rank, with its lane 0.
    for (const auto &[lo, hi] : t->set_.ranges()) {
        for (uint64_t r = lo; r <= hi; ++r) {
            char buf[320];
            std::snprintf(buf, sizeof(buf),
                          "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%" PRIu64
                          ",\"tid\":0,\"args\":{\"name\":\"rank %" PRIu64
                          "\"}},\n"
                          "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%" PRIu64
                          ",\"tid\":0,\"args\":{\"sort_index\":%" PRIu64
                          "}},\n"
                          "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%" PRIu64
                          ",\"tid\":0,\"args\":{\"name\":\"collectives\"}}",
                          r, r, r, r, r);
            t->event(buf);
        }
    }
    return t;
}

Timeline::Timeline(std::FILE *f, std::string path, RankSet set, uint32_t n_ranks)
    : f_(f), path_(std::move(path)), set_(std::move(set)), selected_(n_ranks, false) {
    for (const auto &[lo, hi] : set_.ranges()) {
        for (uint64_t r = lo; r <= hi; ++r) {
            selected_[r] = true;
        }
    }
}

Timeline::~Timeline() {
    if (!closed_) {
        std::fclose(f_);
    }
}

void Timeline::event(const std::string &json) {
    if (!first_event_) {
        std::fputs(",\n", f_);
    }
    first_event_ = false;
    std::fputs(json.c_str(), f_);
}

Timeline::OpenSpan *Timeline::find(uint32_t rank, uint64_t ep, Tag tag) {
    auto it = tracks_.find(rank);
    if (it == tracks_.end()) {
        return nullptr;
    }
    const Tag base = tag & ~kStepMask;
    for (OpenSpan &sp : it->second.open) {
        if (sp.ep == ep && sp.tag_base == base) {
            return &sp;
        }
    }
    return nullptr;
}

void Timeline::span_begin(uint32_t rank, uint64_t ep, const SpanInfo &s, int64_t t_ps) {
    if (!selected(rank)) {
        return;
    }
    Track &tr = tracks_[rank];
    uint32_t lane = 0;
    while (lane < tr.lane_busy.size() && tr.lane_busy[lane]) {
        ++lane;
    }
    if (lane == tr.lane_busy.size()) {
        tr.lane_busy.push_back(false);
    }
    tr.lane_busy[lane] = true;
    if (lane > 0 && lane >= tr.lanes_named) {
        char buf[200];
        std::snprintf(buf, sizeof(buf),
                      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{"
                      "\"name\":\"concurrent collectives %u\"}}",
                      rank, lane, lane);
        event(buf);
        tr.lanes_named = lane + 1;
    }
    OpenSpan sp;
    sp.ep = ep;
    sp.tag_base = s.tag_base & ~kStepMask;
    sp.lane = lane;
    sp.begin_ps = t_ps;
    sp.collective = s.collective != nullptr ? s.collective : "";
    sp.algorithm = s.algorithm != nullptr ? s.algorithm : "";
    sp.dtype = s.dtype != nullptr ? s.dtype : "";
    sp.team_id = s.team_id;
    sp.seq = s.seq;
    sp.team_size = s.team_size;
    sp.team_rank = s.rank;
    sp.in_elems = s.in_elems;
    sp.out_elems = s.out_elems;
    tr.open.push_back(std::move(sp));
}

void Timeline::close_step(uint32_t rank, OpenSpan *sp, int64_t t_ps) {
    if (sp->step < 0) {
        return;
    }
    const uint32_t step = static_cast<uint32_t>(sp->step);
    char name[48];
    if (step & kSyncStepBit) {
        std::snprintf(name, sizeof(name), "sync step %u", step & ~kSyncStepBit);
    } else {
        std::snprintf(name, sizeof(name), "step %u", step);
    }
    char buf[480];
    std::snprintf(buf, sizeof(buf),
                  "{\"name\":\"%s\",\"cat\":\"step\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,"
                  "\"ts\":%s,\"dur\":%s,\"args\":{\"step\":%u,\"sent msgs\":%" PRIu64
                  ",\"sent bytes\":%" PRIu64 ",\"recv msgs\":%" PRIu64 ",\"recv bytes\":%" PRIu64
                  "}}",
                  name, rank, sp->lane, format_us(sp->step_begin_ps).c_str(),
                  format_us(t_ps - sp->step_begin_ps).c_str(), step, sp->sent_msgs, sp->sent_bytes,
                  sp->recv_msgs, sp->recv_bytes);
    if (!sp->steps.empty()) {
        sp->steps += ",\n";
    }
    sp->steps += buf;
    ++slices_;
    sp->step = -1;
}

void Timeline::activity(uint32_t rank, OpenSpan *sp, Tag tag, int64_t t_ps) {
    const int32_t step = static_cast<int32_t>(tag & kStepMask & ~Tag{tag::kTypeMask});
    if (step == sp->step) {
        return;
    }
    close_step(rank, sp, t_ps);
    sp->step = step;
    sp->step_begin_ps = t_ps;
    sp->sent_msgs = sp->sent_bytes = sp->recv_msgs = sp->recv_bytes = 0;
}

void Timeline::write_span(uint32_t rank, OpenSpan &sp, int64_t end_ps, const char *status) {
    close_step(rank, &sp, end_ps);
    std::string json =
        "{\"name\":" + json_string(sp.collective) +
        ",\"cat\":\"collective\",\"ph\":\"X\",\"pid\":" + std::to_string(rank) +
        ",\"tid\":" + std::to_string(sp.lane) + ",\"ts\":" + format_us(sp.begin_ps) +
        ",\"dur\":" + format_us(end_ps - sp.begin_ps) +
        ",\"args\":{\"Collective name\":" + json_string(sp.collective) +
        ",\"In msg nelems\":" + std::to_string(sp.in_elems) +
        ",\"Out msg nelems\":" + std::to_string(sp.out_elems) +
        ",\"Group size\":" + std::to_string(sp.team_size) + ",\"dtype\":" + json_string(sp.dtype) +
        ",\"algorithm\":" + json_string(sp.algorithm) + ",\"seq\":" + std::to_string(sp.seq) +
        ",\"team\":" + std::to_string(sp.team_id) + ",\"rank\":" + std::to_string(sp.team_rank);
    if (status != nullptr) {
        json += ",\"status\":" + json_string(status);
    }
    json += "}}";
    // The collective before its steps: viewers that break ties by file order
    // then nest the steps inside it.
    event(json);
    ++slices_;
    if (!sp.steps.empty()) {
        event(sp.steps);
    }
}

void Timeline::span_end(uint32_t rank, uint64_t ep, const SpanInfo &s, ucc_status_t st,
                        int64_t t_ps) {
    if (!selected(rank)) {
        return;
    }
    auto it = tracks_.find(rank);
    if (it == tracks_.end()) {
        return;
    }
    Track &tr = it->second;
    const Tag base = s.tag_base & ~kStepMask;
    for (size_t i = 0; i < tr.open.size(); ++i) {
        OpenSpan &sp = tr.open[i];
        if (sp.ep != ep || sp.tag_base != base) {
            continue;
        }
        write_span(rank, sp, t_ps, st == UCC_OK ? nullptr : ucc_status_string(st));
        tr.lane_busy[sp.lane] = false;
        tr.open.erase(tr.open.begin() + static_cast<std::ptrdiff_t>(i));
        return;
    }
}

Timeline::StreamTrack *Timeline::stream_track(uint32_t rank, uint32_t stream) {
    if (!selected(rank)) {
        return nullptr;
    }
    Track &tr = tracks_[rank];
    for (StreamTrack &st : tr.streams) {
        if (st.stream == stream) {
            return &st;
        }
    }
    char buf[240];
    std::snprintf(buf, sizeof(buf),
                  "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{"
                  "\"name\":\"CUDA stream %u\"}}",
                  rank, kStreamTid + stream, stream);
    event(buf);
    tr.streams.push_back({stream, -1, {}});
    return &tr.streams.back();
}

void Timeline::stream_queued(uint32_t rank, uint32_t stream, const char *collective, int64_t t_ps) {
    if (stream_track(rank, stream) == nullptr) {
        return;
    }
    event("{\"name\":" + json_string(std::string("queued ") + collective) +
          ",\"cat\":\"stream\",\"ph\":\"i\",\"s\":\"t\",\"pid\":" + std::to_string(rank) +
          ",\"tid\":" + std::to_string(kStreamTid + stream) + ",\"ts\":" + format_us(t_ps) + "}");
}

void Timeline::stream_begin(uint32_t rank, uint32_t stream, const char *collective, int64_t t_ps) {
    if (StreamTrack *st = stream_track(rank, stream); st != nullptr) {
        st->begin_ps = t_ps;
        st->collective = collective != nullptr ? collective : "";
    }
}

void Timeline::write_stream_slice(uint32_t rank, StreamTrack &st, const SpanInfo &s, int64_t end_ps,
                                  const char *status) {
    const std::string coll = s.collective != nullptr ? s.collective : "";
    std::string json =
        "{\"name\":" + json_string(coll) +
        ",\"cat\":\"stream\",\"ph\":\"X\",\"pid\":" + std::to_string(rank) +
        ",\"tid\":" + std::to_string(kStreamTid + st.stream) + ",\"ts\":" + format_us(st.begin_ps) +
        ",\"dur\":" + format_us(end_ps - st.begin_ps) +
        ",\"args\":{\"Collective name\":" + json_string(coll) +
        ",\"team\":" + std::to_string(s.team_id) + ",\"seq\":" + std::to_string(s.seq);
    if (status != nullptr) {
        json += ",\"status\":" + json_string(status);
    }
    json += "}}";
    event(json);
    ++slices_;
    st.begin_ps = -1;
}

void Timeline::stream_end(uint32_t rank, uint32_t stream, const SpanInfo &s, ucc_status_t status,
                          int64_t t_ps) {
    StreamTrack *st = stream_track(rank, stream);
    if (st == nullptr || st->begin_ps < 0) {
        return;  // (it ended before the stream reached it)
    }
    write_stream_slice(rank, *st, s, t_ps,
                       status == UCC_OK           ? nullptr
                       : status == UCC_INPROGRESS ? "released (its engine was destroyed)"
                                                  : ucc_status_string(status));
}

uint64_t Timeline::on_send(uint32_t rank, uint64_t ep, uint32_t dst_rank, Tag tag, uint64_t bytes,
                           int64_t t_ps) {
    if (!selected(rank)) {
        return 0;
    }
    OpenSpan *sp = find(rank, ep, tag);
    if (sp == nullptr) {
        return 0;
    }
    activity(rank, sp, tag, t_ps);
    ++sp->sent_msgs;
    sp->sent_bytes += bytes;
    if (!selected(dst_rank)) {
        return 0;
    }
    const uint64_t id = next_flow_++;
    pending_flows_.emplace(id, PendingFlow{rank, sp->lane, t_ps});
    return id;
}

void Timeline::on_recv(uint32_t rank, uint64_t ep, Tag tag, uint64_t bytes, uint64_t flow,
                       int64_t t_ps) {
    if (!selected(rank)) {
        return;
    }
    OpenSpan *sp = find(rank, ep, tag);
    uint32_t lane = 0;
    if (sp != nullptr) {
        activity(rank, sp, tag, t_ps);
        ++sp->recv_msgs;
        sp->recv_bytes += bytes;
        lane = sp->lane;
    }
    auto it = flow == 0 ? pending_flows_.end() : pending_flows_.find(flow);
    if (it == pending_flows_.end()) {
        return;
    }
    // The arrow's two ends together: every "s" has its "f".
    const PendingFlow from = it->second;
    pending_flows_.erase(it);
    char buf[400];
    std::snprintf(
        buf, sizeof(buf),
        "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":%" PRIu64
        ",\"pid\":%u,\"tid\":%u,\"ts\":%s},\n"
        "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%" PRIu64
        ",\"pid\":%u,\"tid\":%u,\"ts\":%s,\"args\":{\"bytes\":%" PRIu64 "}}",
        flow, from.rank, from.lane, format_us(from.t_ps).c_str(), flow, rank, lane,
        format_us(t_ps).c_str(), bytes);
    event(buf);
    ++flows_;
}

bool Timeline::close(const std::function<int64_t(uint32_t)> &rank_end_ps, std::string *error) {
    if (closed_) {
        return true;
    }
    std::vector<uint32_t> ranks;
    for (const auto &[rank, tr] : tracks_) {
        ranks.push_back(rank);
    }
    std::sort(ranks.begin(), ranks.end());
    for (uint32_t rank : ranks) {
        Track &tr = tracks_[rank];
        const int64_t end = rank_end_ps(rank);
        for (OpenSpan &sp : tr.open) {
            write_span(rank, sp, std::max(end, sp.begin_ps), "unfinished");
        }
        tr.open.clear();
        for (StreamTrack &st : tr.streams) {
            if (st.begin_ps >= 0) {
                SpanInfo s;
                s.collective = st.collective.c_str();
                write_stream_slice(rank, st, s, std::max(end, st.begin_ps), "unfinished");
            }
        }
    }
    std::fputs("\n]}\n", f_);
    bool ok = std::fflush(f_) == 0 && std::ferror(f_) == 0;
    ok = std::fclose(f_) == 0 && ok;
    closed_ = true;
    if (!ok && error != nullptr) {
        *error = "writing the timeline file \"" + path_ + "\" failed";
    }
    return ok;
}

const char *last_algorithm() {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return "";
    }
    const char *a = c->rank_state(c->running_rank()).last_algorithm;
    return a != nullptr ? a : "";
}

}  // namespace ucc::sim
