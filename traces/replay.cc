// Replaying a trace on the simulator (replay.h): each simulated rank walks its
// recorded records and makes the same calls through the public API.
#include "traces/replay.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>

#include "lib/core/core.h"
#include "lib/dt/half.h"
#include "traces/names.h"
#include "traces/verify.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::traces {

namespace {

// A recorded generic datatype, re-created as a contiguous one of its size (its
// reduction, if it had one, adds bytes: the recorded callbacks are gone).
ucc_status_t byte_add(const ucc_reduce_cb_params_t *p) {
    const size_t bytes = p->count * reinterpret_cast<uintptr_t>(p->cb_ctx);
    auto *dst = static_cast<uint8_t *>(p->dst);
    const auto *a = static_cast<const uint8_t *>(p->src1);
    const auto *b = static_cast<const uint8_t *>(p->src2);
    for (size_t i = 0; i < bytes; ++i) {
        dst[i] = static_cast<uint8_t>(a[i] + b[i]);
    }
    return UCC_OK;
}

// Small integers every datatype holds exactly: sums over many ranks stay exact.
void fill(const Datatype &d, size_t esize, void *buf, uint64_t count, uint64_t seed) {
    auto *p = static_cast<uint8_t *>(buf);
    for (uint64_t i = 0; i < count; ++i) {
        const int v = static_cast<int>((seed + i * 7) % 5);
        uint8_t *e = p + i * esize;
        std::memset(e, 0, esize);
        if (d.generic) {
            e[0] = static_cast<uint8_t>(v);
            continue;
        }
        switch (d.predefined) {
            case UCC_DT_FLOAT16: {
                const uint16_t h = ucc::dt::float_to_half(static_cast<float>(v));
                std::memcpy(e, &h, 2);
                break;
            }
            case UCC_DT_BFLOAT16: {
                const uint16_t h = ucc::dt::float_to_bfloat16(static_cast<float>(v));
                std::memcpy(e, &h, 2);
                break;
            }
            case UCC_DT_FLOAT32:
            case UCC_DT_FLOAT32_COMPLEX: {
                const float f = static_cast<float>(v);
                std::memcpy(e, &f, 4);
                break;
            }
            case UCC_DT_FLOAT64:
            case UCC_DT_FLOAT64_COMPLEX: {
                const double f = v;
                std::memcpy(e, &f, 8);
                break;
            }
            case UCC_DT_FLOAT128:
            case UCC_DT_FLOAT128_COMPLEX: {
                const long double f = v;
                std::memcpy(e, &f, sizeof f < esize ? sizeof f : esize);
                break;
            }
            default:
                e[0] = static_cast<uint8_t>(v);  // integers, little-endian
                break;
        }
    }
}

size_t predefined_size(ucc_datatype_t dt) {
    static const size_t kSizes[UCC_DT_PREDEFINED_LAST] = {1,  2, 4, 8, 16, 1,  2, 4,  8,
                                                          16, 2, 4, 8, 2,  16, 8, 16, 32};
    const uint64_t id = dt >> UCC_DATATYPE_SHIFT;
    return id < UCC_DT_PREDEFINED_LAST ? kSizes[id] : 1;
}

// One request being replayed.
struct Req {
    ucc_coll_req_h h = nullptr;
    std::vector<uint8_t> src;
    std::vector<uint8_t> dst;
    std::vector<uint64_t> arrays[4];  // src counts, src displs, dst counts, dst displs
    size_t result = 0;                // index into the rank's results
    int64_t recorded_post = -1;       // ns
    double replayed_post = -1;        // s
    bool failed = false;              // init failed in the replay: later records skip it
    ucc_coll_args_t args{};           // as passed to init (for the model)
    const InitRec *rec = nullptr;
    uint32_t team = 0;
    bool verify = false;  // this post is checked against the model
    InstanceKey key;
};

// A team as the verifier knows it across ranks.
struct TeamId {
    Values members;
    uint32_t occurrence = 0;
    uint32_t rank = 0;  // this member's team rank
};

struct Shared;

// One simulated rank replaying one recorded rank.
class Rank {
  public:
    // `oob`: the OOB over every rank (the simulator's, or the bootstrap's);
    // `now`: the clock that times the collectives (virtual, or wall).
    Rank(Shared &sh, uint32_t rank, const ucc_oob_coll_t &oob, double (*now)(),
         void (*compute)(double));
    void run();

  private:
    void problem(const std::string &what);
    std::string where() const;
    bool setup();
    void teardown();
    void wait_req(uint64_t req, const DoneRec &d);
    void team_create(const TeamCreateRec &r, size_t k);
    void team_done(const TeamRec &r);
    void init(const InitRec &r);
    void post(const PostRec &r);
    void fin(const FinRec &r);
    void team_destroy(const TeamDestroyRec &r);
    void check_at_post(Req &q, uint64_t key);
    // One progress call; notices a world that gave up (a deadlock).
    void progress();
    // Waits for every request still in flight (they fail once the world gives up).
    void drain();
    bool describe(const Buffer &b, bool is_src, Req &q, ucc_coll_args_t &a, uint64_t seed);
    ucc_datatype_t datatype(const Datatype &d, size_t *esize);

    Shared &sh_;
    uint32_t rank_;
    const RankTrace &rt_;
    ucc_oob_coll_t oob_;
    double (*now_)();
    void (*compute_)(double);  // the program's own work, for so many seconds
    ucc_lib_h lib_ = nullptr;
    ucc_context_h ctx_ = nullptr;
    std::map<uint32_t, ucc_team_h> teams_;
    std::map<uint32_t, std::vector<uint64_t>> team_maps_;  // ep maps, alive while creating
    std::map<uint64_t, Req> reqs_;
    std::map<uint32_t, TeamId> team_ids_;     // teams with a known membership
    std::map<Values, uint32_t> memberships_;  // how many teams of each membership so far
    std::map<std::pair<uint64_t, bool>, ucc_datatype_t> generics_;
    std::vector<CollResult> results_;
    uint32_t line_ = 0;
    bool stopped_ = false;  // the world gave up: replay no further
};

struct Shared {
    const Trace *trace = nullptr;
    const ReplayOptions *opts = nullptr;
    std::vector<std::vector<CollResult>> results;  // per rank
    std::vector<std::string> problems;
    std::vector<std::string> position;  // per rank: where it is (for a deadlock report)
    uint64_t failed_inits = 0;
    Verifier verifier;   // payload runs
    bool verify = true;  // check results against the model (every rank in this process)
    // Where every rank was when the world gave up (a deadlock).
    std::vector<std::string> at_deadlock;
};

Rank::Rank(Shared &sh, uint32_t rank, const ucc_oob_coll_t &oob, double (*now)(),
           void (*compute)(double))
    : sh_(sh), rank_(rank), rt_(sh.trace->ranks[rank]), oob_(oob), now_(now), compute_(compute) {}

std::string Rank::where() const {
    return rt_.path + ":" + std::to_string(line_);
}

void Rank::problem(const std::string &what) {
    if (sh_.problems.size() < 64) {
        sh_.problems.push_back("rank " + std::to_string(rank_) + ", " + where() + ": " + what);
    }
}

bool Rank::setup() {
    ucc_lib_config_h lcfg = nullptr;
    if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK) {
        problem("ucc_lib_config_read failed");
        return false;
    }
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_status_t st = ucc_init(&lp, lcfg, &lib_);
    ucc_lib_config_release(lcfg);
    if (st != UCC_OK) {
        problem(std::string("ucc_init: ") + ucc_status_string(st));
        return false;
    }
    ucc_context_config_h ccfg = nullptr;
    if (ucc_context_config_read(lib_, nullptr, &ccfg) != UCC_OK) {
        problem("ucc_context_config_read failed");
        return false;
    }
    // The recorded configuration shapes the algorithms as it did then; the
    // replay itself is not recorded.
    for (const auto &[name, value] : rt_.header.config) {
        if (ucc_context_config_modify(ccfg, nullptr, name.c_str(), value.c_str()) != UCC_OK) {
            problem("the recorded " + name + "=" + value + " is not accepted here");
        }
    }
    for (const std::string &t : rt_.header.tune) {
        const size_t eq = t.find('=');
        const std::string var = t.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : t.substr(eq + 1);
        std::string component;
        if (var.rfind("UCC_TL_", 0) == 0 || var.rfind("UCC_CL_", 0) == 0) {
            // UCC_TL_UCP_TUNE -> tl/ucp
            const std::string mid = var.substr(4, var.size() - 4 - 5);
            component = mid.substr(0, 2) + "/" + mid.substr(3);
            for (char &c : component) {
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            }
        }
        ucc_context_config_modify(ccfg, component.empty() ? nullptr : component.c_str(), "TUNE",
                                  value.c_str());
    }
    ucc_context_config_modify(ccfg, nullptr, "TRACE", "");
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    cp.oob = oob_;
    if (rt_.header.context_type == "exclusive") {
        cp.mask |= UCC_CONTEXT_PARAM_FIELD_TYPE;
        cp.type = UCC_CONTEXT_EXCLUSIVE;
    }
    if (rt_.header.context_sync) {
        cp.mask |= UCC_CONTEXT_PARAM_FIELD_SYNC_TYPE;
        cp.sync_type = UCC_SYNC_COLLECTIVES;
    }
    st = ucc_context_create(lib_, &cp, ccfg, &ctx_);
    ucc_context_config_release(ccfg);
    if (st != UCC_OK) {
        problem(std::string("ucc_context_create: ") + ucc_status_string(st));
        return false;
    }
    return true;
}

void Rank::teardown() {
    for (auto &[n, q] : reqs_) {
        if (q.h != nullptr && ucc_collective_test(q.h) != UCC_INPROGRESS) {
            ucc_collective_finalize(q.h);
            q.h = nullptr;
        }
    }
    for (auto &[n, team] : teams_) {
        ucc_status_t st;
        while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS) {
            progress();
        }
    }
    teams_.clear();
    if (ctx_ != nullptr) {
        ucc_context_destroy(ctx_);
    }
    if (lib_ != nullptr) {
        ucc_finalize(lib_);
    }
}

ucc_datatype_t Rank::datatype(const Datatype &d, size_t *esize) {
    if (!d.generic) {
        *esize = predefined_size(d.predefined);
        return d.predefined;
    }
    *esize = std::max<uint64_t>(d.size, 1);
    const auto key = std::make_pair(*esize, d.reduce);
    if (auto it = generics_.find(key); it != generics_.end()) {
        return it->second;
    }
    ucc_generic_dt_ops_t ops{};
    ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | (d.reduce ? UCC_GENERIC_DT_OPS_FLAG_REDUCE : 0);
    ops.contig_size = *esize;
    ops.reduce.cb = byte_add;
    ops.reduce.cb_ctx = reinterpret_cast<void *>(static_cast<uintptr_t>(*esize));
    ucc_datatype_t dt = UCC_DT_UINT8;
    if (ucc_dt_create_generic(&ops, nullptr, &dt) != UCC_OK) {
        problem("a generic datatype of " + std::to_string(*esize) + " bytes cannot be made");
    }
    generics_[key] = dt;
    return dt;
}

bool Rank::describe(const Buffer &b, bool is_src, Req &q, ucc_coll_args_t &a, uint64_t seed) {
    if (!b.used) {
        return true;
    }
    size_t esize = 1;
    const ucc_datatype_t dt = datatype(b.dt, &esize);
    std::vector<uint8_t> &mem = is_src ? q.src : q.dst;
    uint64_t elems = b.count;
    if (b.v) {
        std::vector<uint64_t> &counts = q.arrays[is_src ? 0 : 2];
        std::vector<uint64_t> &displs = q.arrays[is_src ? 1 : 3];
        counts.assign(b.counts.begin(), b.counts.end());
        elems = 0;
        uint64_t packed = 0;
        for (size_t i = 0; i < counts.size(); ++i) {
            const int64_t d = b.has_displs ? b.displs[i] : static_cast<int64_t>(packed);
            if (d < 0) {
                problem("a negative displacement is not replayed");
                return false;
            }
            elems = std::max<uint64_t>(elems, static_cast<uint64_t>(d) + counts[i]);
            packed += counts[i];
        }
        if (b.has_displs) {
            displs.assign(b.displs.begin(), b.displs.end());
        }
        // reduce_scatterv's dst (no displacements) holds this rank's block, or
        // all of them in place: room for all.
        if (!b.has_displs) {
            elems = packed;
        }
    }
    if (!sh_.opts->timing_only && elems > 0) {
        if (elems > (uint64_t{1} << 40) / esize) {
            problem("a buffer of " + std::to_string(elems) +
                    " elements is too large to replay with "
                    "payload (use --timing-only)");
            return false;
        }
        mem.resize(elems * esize);
        fill(b.dt, esize, mem.data(), elems, seed + (is_src ? 0 : 1000003));
    }
    void *buf = mem.empty() ? nullptr : mem.data();
    const ucc_memory_type_t mt = UCC_MEMORY_TYPE_HOST;  // the simulator's memory is the host's
    auto set = [&](auto &side) {
        if (b.v) {
            side.info_v.buffer = buf;
            side.info_v.counts = reinterpret_cast<ucc_count_t *>(q.arrays[is_src ? 0 : 2].data());
            side.info_v.displacements =
                b.has_displs ? reinterpret_cast<ucc_aint_t *>(q.arrays[is_src ? 1 : 3].data())
                             : nullptr;
            side.info_v.datatype = dt;
            side.info_v.mem_type = mt;
        } else {
            side.info = {buf, b.count, dt, mt};
        }
    };
    if (is_src) {
        set(a.src);
    } else {
        set(a.dst);
    }
    return true;
}

void Rank::init(const InitRec &r) {
    if (r.req == 0 || r.status != UCC_OK) {
        ++sh_.failed_inits;  // failed when recorded: nothing to replay
        return;
    }
    Req &q = reqs_[r.req];
    const auto team = teams_.find(r.team);
    CollResult res;
    res.rank = rank_;
    res.line = line_;
    res.req = r.req;
    res.coll = r.coll;
    res.alg_recorded = r.alg;
    q.result = results_.size();
    if (team == teams_.end()) {
        problem("init of request " + std::to_string(r.req) + " on team " + std::to_string(r.team) +
                ", which this replay does not have");
        q.failed = true;
        res.status = UCC_ERR_INVALID_PARAM;
        results_.push_back(res);
        return;
    }
    ucc_coll_args_t a{};
    a.coll_type = r.coll;
    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = r.flags;
    // Arrays are replayed 64 bits wide whatever width was recorded.
    a.flags |= UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
    if (r.has_op) {
        a.op = r.op;
    }
    if (r.has_root) {
        a.root = r.root;
    }
    if (r.has_tag) {
        a.mask |= UCC_COLL_ARGS_FIELD_TAG;
        a.tag = r.tag;
    }
    if (r.has_active_set) {
        a.mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
        a.active_set.start = r.as_start;
        a.active_set.stride = r.as_stride;
        a.active_set.size = r.as_size;
    }
    a.timeout = r.timeout;
    if (sh_.opts->timeout_s > 0 && (a.flags & UCC_COLL_ARGS_FLAG_TIMEOUT) == 0) {
        // A real transport cannot be told to give up: a timeout ends a
        // collective whose peers never come.
        a.flags |= UCC_COLL_ARGS_FLAG_TIMEOUT;
        a.timeout = sh_.opts->timeout_s;
    }
    const uint64_t seed = uint64_t{rank_} * 7919 + r.req;
    if (!describe(r.src, true, q, a, seed) || !describe(r.dst, false, q, a, seed)) {
        q.failed = true;
        res.status = UCC_ERR_NOT_SUPPORTED;
        results_.push_back(res);
        return;
    }
    auto elems_of = [](const Buffer &b) {
        uint64_t n = b.count;
        if (b.v) {
            n = 0;
            for (int64_t c : b.counts) {
                n += static_cast<uint64_t>(c);
            }
        }
        return n;
    };
    size_t es_src = 1;
    size_t es_dst = 1;
    if (r.src.used) {
        datatype(r.src.dt, &es_src);
    }
    if (r.dst.used) {
        datatype(r.dst.dt, &es_dst);
    }
    res.bytes = std::max(elems_of(r.src) * es_src, elems_of(r.dst) * es_dst);
    q.args = a;
    q.rec = &r;
    q.team = r.team;
    const ucc_status_t st = ucc_collective_init(&a, &q.h, team->second);
    if (st != UCC_OK) {
        problem(std::string("ucc_collective_init of the recorded ") + coll_name(r.coll) +
                " failed here: " + ucc_status_string(st));
        q.failed = true;
        q.h = nullptr;
        res.status = st;
    }
    results_.push_back(res);
}

void Rank::post(const PostRec &r) {
    const auto it = reqs_.find(r.req);
    if (r.status != UCC_OK || it == reqs_.end() || it->second.failed) {
        return;
    }
    Req &q = it->second;
    q.recorded_post = r.t;
    if (!sh_.opts->timing_only && sh_.verify) {
        check_at_post(q, r.key);
    }
    q.replayed_post = now_();
    const ucc_status_t st = ucc_collective_post(q.h);
    results_[q.result].alg_replayed = ucc::core::request_algorithm(q.h);
    if (st != UCC_OK) {
        problem(std::string("ucc_collective_post failed here: ") + ucc_status_string(st));
        results_[q.result].status = st;
        q.failed = true;
    }
}

// Hands the verifier this participant's inputs, when the model can check the
// collective (a team of known membership, no active set, sums that stay exact).
void Rank::check_at_post(Req &q, uint64_t key) {
    const auto team = team_ids_.find(q.team);
    const InitRec &r = *q.rec;
    if (team == team_ids_.end() || r.has_active_set) {
        return;
    }
    const Buffer &b = r.src.used ? r.src : r.dst;
    const bool half = b.used && !b.dt.generic &&
                      (b.dt.predefined == UCC_DT_FLOAT16 || b.dt.predefined == UCC_DT_BFLOAT16);
    if (half && r.has_op && (r.op == UCC_OP_SUM || r.op == UCC_OP_AVG) &&
        team->second.members.size() > 256) {
        return;
    }
    q.key = InstanceKey{team->second.members, team->second.occurrence, key};
    q.verify = true;
    sh_.verifier.posted(q.key, team->second.rank, q.args, r, q.src, q.dst, where());
}

void Rank::wait_req(uint64_t req, const DoneRec &d) {
    const auto it = reqs_.find(req);
    if (it == reqs_.end() || it->second.failed || it->second.h == nullptr) {
        return;
    }
    Req &q = it->second;
    sh_.position[rank_] = where() + " (waiting for request " + std::to_string(req) + ", " +
                          coll_name(results_[q.result].coll) + ")";
    ucc_status_t st;
    while ((st = ucc_collective_test(q.h)) == UCC_INPROGRESS) {
        progress();
    }
    CollResult &res = results_[q.result];
    res.status = st;
    if (q.verify) {
        sh_.verifier.completed(q.key, team_ids_[q.team].rank, q.src, q.dst);
        q.verify = false;
    }
    if (q.replayed_post >= 0) {
        res.predicted_us = (now_() - q.replayed_post) * 1e6;
    }
    if (q.recorded_post >= 0) {
        res.recorded_us = static_cast<double>(d.t - q.recorded_post) / 1e3;
    }
    if (st == UCC_ERR_NO_MESSAGE && d.status != UCC_ERR_NO_MESSAGE) {
        // The world gave up on it (a deadlock): this rank replays no further.
        if (!stopped_) {
            stopped_ = true;
            if (sh_.at_deadlock.empty()) {
                sh_.at_deadlock = sh_.position;
            }
        }
        return;
    }
    if (st != d.status) {
        problem(std::string(coll_name(res.coll)) + " (request " + std::to_string(req) +
                ") completed with " + ucc_status_string(st) + ", recorded " +
                ucc_status_string(d.status));
    }
}

void Rank::fin(const FinRec &r) {
    const auto it = reqs_.find(r.req);
    if (it == reqs_.end()) {
        return;
    }
    if (it->second.h != nullptr) {
        // A request the program finalized without having seen it complete
        // (its done record comes later, or never): wait here, as the library
        // would refuse to finalize it in progress.
        Req &q = it->second;
        while (ucc_collective_test(q.h) == UCC_INPROGRESS) {
            progress();
        }
        if (q.verify) {
            sh_.verifier.completed(q.key, team_ids_[q.team].rank, q.src, q.dst);
        }
        ucc_collective_finalize(q.h);
    }
    reqs_.erase(it);
}

void Rank::team_create(const TeamCreateRec &r, size_t k) {
    if (r.status != UCC_OK) {
        return;
    }
    // Its completion record (later in the trace) has the membership.
    const TeamRec *done = nullptr;
    for (size_t j = k + 1; j < rt_.records.size() && done == nullptr; ++j) {
        const auto *t = std::get_if<TeamRec>(&rt_.records[j]);
        if (t != nullptr && t->team == r.team) {
            done = t;
        }
    }
    ucc_team_h team = nullptr;
    ucc_status_t st = UCC_OK;
    if (r.how == "split") {
        const auto parent = teams_.find(r.parent);
        if (parent == teams_.end()) {
            problem("a split of team " + std::to_string(r.parent) + ", which this replay lacks");
            return;
        }
        st = ucc_team_create_from_parent(r.ep, r.included ? 1 : 0, parent->second, &team);
    } else {
        if (done == nullptr || !done->has_members || done->status != UCC_OK) {
            if (done != nullptr && done->status != UCC_OK) {
                return;  // it failed when recorded
            }
            problem("team " + std::to_string(r.team) +
                    " has no recorded membership (its trace ends first, or its context had no "
                    "OOB): not replayed");
            return;
        }
        std::vector<uint64_t> &map = team_maps_[r.team];
        map.assign(done->members.begin(), done->members.end());
        ucc_team_params_t tp{};
        tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE |
                  UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_ORDERING |
                  UCC_TEAM_PARAM_FIELD_SYNC_TYPE;
        tp.ep = done->rank;
        tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
        tp.ordering = r.ordering;
        tp.sync_type = r.sync ? UCC_SYNC_COLLECTIVES : UCC_NO_SYNC_COLLECTIVES;
        bool strided = map.size() >= 2;
        for (size_t i = 2; i < map.size() && strided; ++i) {
            strided = map[i] - map[i - 1] == map[1] - map[0];
        }
        if (map.size() == sh_.trace->size && strided && map[0] == 0 && map[1] == 1) {
            tp.ep_map.type = UCC_EP_MAP_FULL;
        } else if (strided) {
            tp.ep_map.type = UCC_EP_MAP_STRIDED;
            tp.ep_map.strided.start = map[0];
            tp.ep_map.strided.stride = static_cast<int64_t>(map[1] - map[0]);
        } else {
            tp.ep_map.type = UCC_EP_MAP_ARRAY;
            tp.ep_map.array.map = map.data();
            tp.ep_map.array.elem_size = sizeof(uint64_t);
        }
        tp.ep_map.ep_num = map.size();
        if (r.has_id) {
            tp.mask |= UCC_TEAM_PARAM_FIELD_ID;
            tp.id = r.id;
        }
        const bool world = map.size() == sh_.trace->size && tp.ep_map.type == UCC_EP_MAP_FULL;
        if (r.how == "oob" && world) {
            // Created through an OOB over every rank when recorded: so here too.
            tp.mask &= ~static_cast<uint64_t>(UCC_TEAM_PARAM_FIELD_EP_MAP);
            tp.mask |= UCC_TEAM_PARAM_FIELD_OOB;
            tp.oob = oob_;
        }
        st = ucc_team_create_post(&ctx_, 1, &tp, &team);
    }
    if (st != UCC_OK) {
        problem(std::string("the team creation fails here: ") + ucc_status_string(st));
        return;
    }
    teams_[r.team] = team;
}

void Rank::team_done(const TeamRec &r) {
    const auto it = teams_.find(r.team);
    if (it == teams_.end()) {
        return;
    }
    sh_.position[rank_] = where() + " (creating team " + std::to_string(r.team) + ")";
    ucc_status_t st;
    while ((st = ucc_team_create_test(it->second)) == UCC_INPROGRESS) {
        progress();
    }
    team_maps_.erase(r.team);
    if (st == UCC_OK && r.has_members) {
        team_ids_[r.team] = TeamId{r.members, memberships_[r.members]++, r.rank};
    }
    if (st != r.status) {
        problem(std::string("team ") + std::to_string(r.team) + " creation ended with " +
                ucc_status_string(st) + ", recorded " + ucc_status_string(r.status));
    }
    if (st != UCC_OK) {
        teams_.erase(it);
    }
}

void Rank::team_destroy(const TeamDestroyRec &r) {
    const auto it = teams_.find(r.team);
    if (it == teams_.end()) {
        return;
    }
    sh_.position[rank_] = where() + " (destroying team " + std::to_string(r.team) + ")";
    ucc_status_t st;
    while ((st = ucc_team_destroy(it->second)) == UCC_INPROGRESS) {
        progress();
    }
    teams_.erase(it);
}

void Rank::progress() {
    if (ucc_context_progress(ctx_) == UCC_ERR_NO_MESSAGE && !stopped_) {
        stopped_ = true;
        if (sh_.at_deadlock.empty()) {
            sh_.at_deadlock = sh_.position;
        }
    }
}

void Rank::drain() {
    for (auto &[n, q] : reqs_) {
        while (q.h != nullptr && ucc_collective_test(q.h) == UCC_INPROGRESS) {
            progress();
        }
    }
}

void Rank::run() {
    if (!setup()) {
        return;
    }
    for (size_t k = 0; k < rt_.records.size() && !stopped_; ++k) {
        line_ = rt_.line_of[k];
        sh_.position[rank_] = where();
        const Record &rec = rt_.records[k];
        // The program's own time before this record, as recorded (before a
        // call it made, or while a collective it waits for was in flight).
        const int64_t idle = std::visit([](const auto &r) { return r.idle; }, rec);
        if (sh_.opts->compute && idle > 0) {
            compute_(static_cast<double>(idle) / 1e9);
        }
        if (const auto *tc = std::get_if<TeamCreateRec>(&rec)) {
            team_create(*tc, k);
        } else if (const auto *t = std::get_if<TeamRec>(&rec)) {
            team_done(*t);
        } else if (const auto *i = std::get_if<InitRec>(&rec)) {
            init(*i);
        } else if (const auto *p = std::get_if<PostRec>(&rec)) {
            post(*p);
        } else if (const auto *d = std::get_if<DoneRec>(&rec)) {
            wait_req(d->req, *d);
        } else if (const auto *f = std::get_if<FinRec>(&rec)) {
            fin(*f);
        } else if (const auto *td = std::get_if<TeamDestroyRec>(&rec)) {
            team_destroy(*td);
        }
    }
    sh_.results[rank_] = std::move(results_);
    if (!rt_.ended && !stopped_) {
        // The rank stops here, as it stopped when recorded; its collectives
        // still in flight end when the others finish them, or when the world
        // gives up waiting.
        sh_.position[rank_] = rt_.path + " ends at line " + std::to_string(rt_.last_line) +
                              (rt_.truncated ? " (cut short)" : " (no end record)");
    } else if (!stopped_) {
        sh_.position[rank_] = "finished";
    }
    drain();
    teardown();
}

void rank_main(void *arg) {
    auto *sh = static_cast<Shared *>(arg);
    ucc_oob_coll_t oob{};
    ucc_sim_oob(&oob);
    Rank(*sh, ucc_sim_rank(), oob, ucc_sim_now, ucc_sim_compute).run();
}

double wall_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// A real process computes by spinning (a sleep would give up the CPU, which
// the recorded program did not).
void wall_compute(double seconds) {
    const double end = wall_now() + seconds;
    while (wall_now() < end) {
    }
}

// What a run leaves in Shared, into the result.
void collect(Shared &sh, ReplayResult *out) {
    for (const std::string &s : sh.problems) {
        out->problems.push_back(s);
    }
    out->failed_inits = sh.failed_inits;
    out->verified = sh.verifier.verified;
    for (const std::string &s : sh.verifier.problems) {
        out->problems.push_back("wrong result: " + s);
    }
    for (std::vector<CollResult> &rs : sh.results) {
        for (CollResult &c : rs) {
            out->colls.push_back(std::move(c));
        }
    }
}

}  // namespace

bool replay(const Trace &t, const ReplayOptions &o, ReplayResult *out, std::string *error) {
    *out = ReplayResult{};
    if (t.ranks.empty() || t.ranks.size() != t.size) {
        *error = "the trace has " + std::to_string(t.ranks.size()) + " of its " +
                 std::to_string(t.size) + " ranks";
        return false;
    }
    find_desync(t, &out->problems);
    Shared sh;
    sh.trace = &t;
    sh.opts = &o;
    sh.results.resize(t.size);
    sh.position.assign(t.size, "not started");
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_NETWORK |
             UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_TIMING_ONLY;
    p.n_ranks = static_cast<uint32_t>(t.size);
    p.seed = o.seed;
    p.network = o.network.c_str();
    p.flags = UCC_SIM_FLAG_QUIET | (o.inputs_written ? UCC_SIM_FLAG_INPUTS_WRITTEN : 0);
    p.timing_only = o.timing_only ? 1 : 0;
    if (!o.timeline.empty()) {
        p.mask |= UCC_SIM_PARAM_FIELD_TIMELINE | UCC_SIM_PARAM_FIELD_TIMELINE_RANKS;
        p.timeline = o.timeline.c_str();
        p.timeline_ranks = o.timeline_ranks.c_str();
    }
    const auto w0 = std::chrono::steady_clock::now();
    out->sim_status = ucc_sim_run(&p, rank_main, &sh);
    out->wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    if (out->sim_status == UCC_ERR_INVALID_PARAM && ucc_sim_last_events() == 0) {
        *error = "the simulator refused the options (network, timeline ranks)";
        return false;
    }
    out->simulated_s = ucc_sim_last_time();
    out->events = ucc_sim_last_events();
    out->trace_hash = ucc_sim_trace_hash();
    if (out->sim_status == UCC_ERR_NO_MESSAGE) {
        out->problems.push_back("deadlock: the replay stopped with ranks waiting; where each was:");
        const std::vector<std::string> &at = sh.at_deadlock.empty() ? sh.position : sh.at_deadlock;
        for (uint32_t r = 0; r < t.size && r < 64; ++r) {
            if (at[r] != "finished") {
                out->problems.push_back("  rank " + std::to_string(r) + ": " + at[r]);
            }
        }
    }
    collect(sh, out);
    return true;
}

bool replay_process(const Trace &t, uint32_t rank, const ucc_oob_coll_t &oob,
                    const ReplayOptions &o, ReplayResult *out, std::string *error) {
    *out = ReplayResult{};
    if (t.ranks.size() != t.size || rank >= t.size || oob.n_oob_eps != t.size) {
        *error = "the trace has " + std::to_string(t.size) + " ranks, the job " +
                 std::to_string(oob.n_oob_eps) + " processes";
        return false;
    }
    if (rank == 0) {
        find_desync(t, &out->problems);
    }
    ReplayOptions po = o;
    po.timing_only = false;  // real buffers, real data; only the model check stays off
    Shared sh;
    sh.trace = &t;
    sh.opts = &po;
    sh.verify = false;  // the other ranks' buffers are in other processes
    sh.results.resize(t.size);
    sh.position.assign(t.size, "not started");
    const auto w0 = std::chrono::steady_clock::now();
    Rank(sh, rank, oob, wall_now, wall_compute).run();
    out->wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    collect(sh, out);
    return true;
}

}  // namespace ucc::traces
