// The workload runner (see workload.h).
#include "tests/common/workload.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

#include "ucc/api/ucc.h"

namespace ucc::testkit {

namespace {

uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void mark(UserMark m, uint64_t req = 0, ucc_status_t st = UCC_OK) {
    TraceEvent e;
    e.mark = m;
    e.req = req;
    e.status = st;
    sim::record_user_event(e);
}

// P38: the program begins a destroy of its context (object 0) or team k
// (object 1 + k), and the call returned `st`.
void mark_destroy(UserMark m, uint32_t object, ucc_status_t st = UCC_OK) {
    TraceEvent e;
    e.mark = m;
    e.key = object;
    e.status = st;
    sim::record_user_event(e);
}

// Lets simulated time pass on the calling rank without calling the library.
// No time is no pause: an idle() with the rank's clock not ahead and no
// deadline waits for an event that may never come (a rank whose peers all
// wait on it blocked for good).
void pause_ps(uint32_t rank, int64_t ps) {
    if (ps <= 0) {
        return;
    }
    sim::Cluster *c = sim::Cluster::current();
    c->advance(rank, ps);
    c->idle(rank, INFINITY);
}

struct Shared {
    const Workload *w;
    // [cycle][op]: buffers, arguments and expected memory of every participant.
    std::vector<std::vector<std::unique_ptr<PreparedColl>>> prep;
    // [cycle][op]: participants that completed the op's first post.
    std::vector<std::vector<uint32_t>> completed;
    std::vector<std::vector<uint64_t>> ep_maps;  // per team: members as 64-bit eps
    std::vector<std::string> errors;             // per rank
    std::vector<Scenario> colls;                 // per op: its collective, n = team size
    uint64_t posts_ok = 0;
    uint64_t posts_failed = 0;
};

int64_t team_rank_of(const WorkloadTeam &t, uint32_t rank) {
    auto it = std::find(t.members.begin(), t.members.end(), rank);
    return it == t.members.end() ? -1 : it - t.members.begin();
}

// One outstanding request of a rank.
struct Active {
    Shared *sh = nullptr;
    uint32_t cycle = 0;
    uint32_t op = 0;
    uint32_t me = 0;  // team rank
    uint32_t rank = 0;
    ucc_coll_req_h req = nullptr;
    uint64_t number = 0;  // the library's request number (event trace)
    uint32_t post = 0;    // posts made so far - 1
    int cb_calls = 0;
    bool finalized = false;  // by the callback
    bool failed = false;
    bool awaiting_repost = false;  // completed a post, the next one is due later
};

// One post in a rank's posting order: op `op`'s post number `post`.
struct Entry {
    uint32_t op;
    uint32_t post;
};

class RankProgram {
  public:
    RankProgram(Shared &sh, uint32_t rank) : sh_(sh), w_(*sh.w), rank_(rank) {}

    void run() {
        if (!setup()) {
            return;
        }
        for (uint32_t cycle = 0; cycle < w_.cycles && error().empty(); ++cycle) {
            run_cycle(cycle);
        }
        teardown();
    }

  private:
    std::string &error() { return sh_.errors[rank_]; }
    void fail(const std::string &what) {
        if (error().empty()) {
            error() = "rank " + std::to_string(rank_) + ": " + what;
        }
    }

    bool setup() {
        ucc_lib_config_h lcfg;
        if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK) {
            fail("ucc_lib_config_read");
            return false;
        }
        if (!w_.cls.empty() && ucc_lib_config_modify(lcfg, "CLS", w_.cls.c_str()) != UCC_OK) {
            fail("ucc_lib_config_modify(CLS)");
            ucc_lib_config_release(lcfg);
            return false;
        }
        ucc_lib_params_t lp{};
        lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
        lp.thread_mode = w_.threads > 0 ? UCC_THREAD_MULTIPLE : UCC_THREAD_SINGLE;
        ucc_status_t st = ucc_init(&lp, lcfg, &lib_);
        ucc_lib_config_release(lcfg);
        if (st != UCC_OK) {
            fail("ucc_init");
            lib_ = nullptr;
            return false;
        }
        ucc_context_config_h ccfg;
        if (ucc_context_config_read(lib_, nullptr, &ccfg) != UCC_OK) {
            fail("ucc_context_config_read");
            return false;
        }
        // Timeouts and calls on destroyed handles log errors by design.
        ucc_context_config_modify(ccfg, nullptr, "LOG_LEVEL", "FATAL");
        for (const auto &[name, value] : w_.config) {
            if (ucc_context_config_modify(ccfg, nullptr, name.c_str(), value.c_str()) != UCC_OK) {
                fail("ucc_context_config_modify(" + name + ")");
                ucc_context_config_release(ccfg);
                return false;
            }
        }
        ucc_context_params_t cp{};
        cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
        sim::oob(&cp.oob);
        st = ucc_context_create(lib_, &cp, ccfg, &ctx_);
        ucc_context_config_release(ccfg);
        if (st != UCC_OK) {
            fail(std::string("ucc_context_create: ") + ucc_status_string(st));
            ctx_ = nullptr;
            return false;
        }
        return true;
    }

    ucc_team_h create_team(uint32_t t) {
        const WorkloadTeam &wt = w_.teams[t];
        ucc_team_params_t tp{};
        tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE |
                  UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_ORDERING |
                  UCC_TEAM_PARAM_FIELD_SYNC_TYPE;
        tp.ep = static_cast<uint64_t>(team_rank_of(wt, rank_));
        tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
        tp.ep_map.type = UCC_EP_MAP_ARRAY;
        tp.ep_map.ep_num = wt.members.size();
        tp.ep_map.array.map = sh_.ep_maps[t].data();
        tp.ep_map.array.elem_size = sizeof(uint64_t);
        tp.ordering = wt.unordered ? UCC_COLLECTIVE_POST_UNORDERED : UCC_COLLECTIVE_POST_ORDERED;
        tp.sync_type = wt.sync ? UCC_SYNC_COLLECTIVES : UCC_NO_SYNC_COLLECTIVES;
        ucc_team_h team = nullptr;
        ucc_status_t st = ucc_team_create_post(&ctx_, 1, &tp, &team);
        if (st == UCC_OK) {
            while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
            }
        }
        if (st != UCC_OK) {
            fail("team " + std::to_string(t) + " creation: " + ucc_status_string(st));
            return nullptr;
        }
        return team;
    }

    // The rank's posts of this cycle, in posting order: first posts (see
    // first_posts), then every persistent op's re-posts round by round in op
    // order, so that ranks agree on the order on ordered teams.
    std::vector<Entry> post_order() {
        std::vector<Entry> order;
        uint32_t rounds = 1;
        for (uint32_t op : first_posts()) {
            order.push_back({op, 0});
            rounds = std::max(rounds, w_.ops[op].coll.posts);
        }
        const size_t firsts = order.size();
        for (uint32_t k = 1; k < rounds; ++k) {
            for (size_t i = 0; i < firsts; ++i) {
                std::vector<Entry> round;
                if (w_.ops[order[i].op].coll.posts > k) {
                    round.push_back({order[i].op, k});
                }
                order.insert(order.end(), round.begin(), round.end());
            }
        }
        return order;
    }

    // The rank's ops of this cycle, in first-post order.
    std::vector<uint32_t> first_posts() {
        std::vector<uint32_t> mine;
        for (uint32_t i = 0; i < w_.ops.size(); ++i) {
            const int64_t me = team_rank_of(w_.teams[w_.ops[i].team], rank_);
            // Active-set ops: only the set's members call.
            if (me >= 0 && is_member(sh_.colls[i], static_cast<uint32_t>(me))) {
                mine.push_back(i);
            }
        }
        if (!w_.shuffle || mine.size() < 2) {
            return mine;
        }
        // A rank-dependent permutation, then every ordered team's ops put back
        // in op order on the positions they landed on.
        std::vector<uint32_t> perm = mine;
        for (size_t i = perm.size() - 1; i > 0; --i) {
            std::swap(perm[i], perm[mix(w_.seed * 131 + rank_ * 7919 + i) % (i + 1)]);
        }
        for (uint32_t t = 0; t < w_.teams.size(); ++t) {
            if (w_.teams[t].unordered) {
                continue;
            }
            std::vector<size_t> slots;
            std::vector<uint32_t> ops;
            for (size_t i = 0; i < perm.size(); ++i) {
                if (w_.ops[perm[i]].team == t) {
                    slots.push_back(i);
                    ops.push_back(perm[i]);
                }
            }
            std::sort(ops.begin(), ops.end());
            for (size_t k = 0; k < slots.size(); ++k) {
                perm[slots[k]] = ops[k];
            }
        }
        return perm;
    }

    void delay_before_post(uint32_t op, uint32_t post) {
        if (rank_ == static_cast<uint32_t>(w_.late_rank) && !posted_any_) {
            sim::Cluster::current()->advance(rank_, static_cast<int64_t>(w_.late_ps));
        }
        posted_any_ = true;
        if (w_.skew_ps > 0) {
            const uint64_t h = mix(w_.seed ^ mix(rank_ * 0x10001ull + op * 0x9e37ull + post));
            sim::Cluster::current()->advance(rank_, static_cast<int64_t>(h % (w_.skew_ps + 1)));
        }
    }

    static void junk_cb(void *data, ucc_status_t) {
        auto *a = static_cast<Active *>(data);
        if (a->sh->errors[a->rank].empty()) {
            a->sh->errors[a->rank] =
                "op " + std::to_string(a->op) +
                ": the library called a callback the mask did not select (P30)";
        }
    }

    static void on_complete(void *data, ucc_status_t st) {
        auto *a = static_cast<Active *>(data);
        a->cb_calls++;
        const WorkloadOp &op = a->sh->w->ops[a->op];
        if (op.finalize_in_cb) {
            a->failed = st != UCC_OK;
            if (st == UCC_OK) {
                std::string diff = a->sh->prep[a->cycle][a->op]->check(a->me, 0);
                if (!diff.empty() && a->sh->errors[a->rank].empty()) {
                    a->sh->errors[a->rank] = "op " + std::to_string(a->op) + ": " + diff;
                }
            }
            const ucc_status_t fst = ucc_collective_finalize(a->req);
            if (fst != UCC_OK && a->sh->errors[a->rank].empty()) {
                a->sh->errors[a->rank] =
                    std::string("finalize in the callback: ") + ucc_status_string(fst);
            }
            a->finalized = true;
        }
    }

    // Posts (after the rank's delay) or triggered-posts (then sets the
    // trigger after the delay).
    ucc_status_t post(uint32_t op, uint32_t post_number, ucc_coll_req_h req) {
        if (!w_.ops[op].triggered) {
            delay_before_post(op, post_number);
            return ucc_collective_post(req);
        }
        ucc_ee_h ee = ees_[w_.ops[op].team];
        ucc_ev_t ev{UCC_EVENT_COMPUTE_COMPLETE, nullptr, 0, req};
        const ucc_status_t st = ucc_collective_triggered_post(ee, &ev);
        if (st != UCC_OK) {
            return st;
        }
        delay_before_post(op, post_number);  // the computation the trigger waits for
        const ucc_status_t set = ucc_ee_set_event(ee, &ev);
        if (set != UCC_OK) {
            fail("ucc_ee_set_event: " + std::string(ucc_status_string(set)));
        }
        return UCC_OK;
    }

    // After a triggered op's post completed: its engine holds at least the
    // COLLECTIVE_POST of that trigger. Takes one event.
    void take_event(const Active &a) {
        ucc_ee_h ee = ees_[w_.ops[a.op].team];
        ucc_status_t st;
        if ((a.post + a.op) % 2 == 0) {
            ucc_ev_t *ev = nullptr;
            st = ucc_ee_get_event(ee, &ev);
            if (st == UCC_OK && ev->ev_type != UCC_EVENT_COLLECTIVE_POST) {
                fail("op " + std::to_string(a.op) + ": engine event " +
                     std::to_string(ev->ev_type) + ", not COLLECTIVE_POST");
            }
            if (st == UCC_OK) {
                st = ucc_ee_ack_event(ee, ev);
            }
        } else {
            ucc_ev_t ev{};
            st = ucc_ee_wait(ee, &ev);
        }
        if (st != UCC_OK) {
            fail("op " + std::to_string(a.op) +
                 ": taking the engine's event: " + ucc_status_string(st));
        }
    }

    // Re-posts a persistent request whose previous post completed; false when it failed.
    bool repost(Active &a) {
        a.awaiting_repost = false;
        a.post++;
        sh_.prep[a.cycle][a.op]->refill(a.me, a.post);
        const ucc_status_t st = post(a.op, a.post, a.req);
        if (st != UCC_OK) {
            if (w_.ops[a.op].timeout <= 0) {  // with timeouts the team may have failed
                fail("op " + std::to_string(a.op) + " re-post: " + ucc_status_string(st));
            }
            sh_.posts_failed++;
            ucc_collective_finalize(a.req);
            return false;
        }
        return true;
    }

    // Starts op `i`; false when it could not be started (counted as failed).
    bool start(uint32_t cycle, uint32_t i, Active *a) {
        const WorkloadOp &op = w_.ops[i];
        a->sh = &sh_;
        a->cycle = cycle;
        a->op = i;
        a->rank = rank_;
        a->me = static_cast<uint32_t>(team_rank_of(w_.teams[op.team], rank_));
        ucc_coll_args_t args = sh_.prep[cycle][i]->args(a->me);
        // P30: fields the mask does not select hold junk the library must not read
        // (a callback that reports being called, a timeout that would fire at once,
        // an absurd tag and active set).
        if (!(args.mask & UCC_COLL_ARGS_FIELD_CB)) {
            args.cb.cb = &RankProgram::junk_cb;
            args.cb.data = a;
        }
        if (!(args.flags & UCC_COLL_ARGS_FLAG_TIMEOUT)) {
            args.timeout = 1e-15;
        }
        if (!(args.mask & UCC_COLL_ARGS_FIELD_TAG)) {
            args.tag = 0xdead;
        }
        if (!(args.mask & UCC_COLL_ARGS_FIELD_ACTIVE_SET)) {
            args.active_set = {UINT64_MAX, INT64_MIN, UINT64_MAX};
        }
        if (op.callback) {
            args.mask |= UCC_COLL_ARGS_FIELD_CB;
            args.cb.cb = &RankProgram::on_complete;
            args.cb.data = a;
        }
        if (op.timeout > 0) {
            args.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
            args.flags |= UCC_COLL_ARGS_FLAG_TIMEOUT;
            args.timeout = op.timeout;
        }
        if (w_.teams[op.team].unordered) {
            args.mask |= UCC_COLL_ARGS_FIELD_TAG;
            args.tag = op.tag;
        }
        ucc_status_t st = ucc_collective_init(&args, &a->req, teams_[op.team]);
        if (st != UCC_OK) {
            if (op.timeout <= 0) {
                fail("op " + std::to_string(i) + " init: " + ucc_status_string(st));
            }
            sh_.posts_failed++;
            return false;
        }
        a->number = ++inits_;
        st = post(i, 0, a->req);
        if (st != UCC_OK) {
            if (op.timeout <= 0) {
                fail("op " + std::to_string(i) + " post: " + ucc_status_string(st));
            }
            sh_.posts_failed++;
            ucc_collective_finalize(a->req);
            return false;
        }
        return true;
    }

    // Handles a completion; true when the request is finished with.
    bool finish_post(Active &a, ucc_status_t st) {
        const WorkloadOp &op = w_.ops[a.op];
        if (op.triggered && st != UCC_ERR_TIMED_OUT) {
            take_event(a);  // (a timed-out one may never have been triggered)
        }
        if (a.post == 0) {
            sh_.completed[a.cycle][a.op]++;
            done_here_.push_back(a.op);
        }
        if (st != UCC_OK) {
            if (op.timeout <= 0) {
                fail("op " + std::to_string(a.op) + " completed with " + ucc_status_string(st));
            }
            sh_.posts_failed++;
            ucc_collective_finalize(a.req);
            return true;
        }
        sh_.posts_ok++;
        if (op.callback && a.cb_calls != static_cast<int>(a.post) + 1) {
            fail("op " + std::to_string(a.op) + ": " + std::to_string(a.cb_calls) +
                 " callback calls after " + std::to_string(a.post + 1) + " posts");
        }
        std::string diff = sh_.prep[a.cycle][a.op]->check(a.me, a.post);
        if (!diff.empty()) {
            fail("op " + std::to_string(a.op) + ": " + diff);
        }
        maybe_freeze(a);
        if (a.post + 1 < op.coll.posts) {
            a.awaiting_repost = true;  // its entry in the posting order re-posts it
            return false;
        }
        ucc_status_t fst = ucc_collective_finalize(a.req);
        if (fst != UCC_OK) {
            fail(std::string("finalize: ") + ucc_status_string(fst));
        }
        return true;
    }

    // P22: the freeze rank stops calling the library after its first completion
    // until the other members completed every op the library completed on this
    // rank by then (bounded: 0.1 s virtual). Only with window 0: every member
    // has posted everything, so nobody waits for this rank to post.
    void maybe_freeze(const Active &a) {
        if (rank_ != static_cast<uint32_t>(w_.freeze_rank) || froze_) {
            return;
        }
        froze_ = true;
        std::vector<uint32_t> done = done_here_;
        for (const std::unique_ptr<Active> &o : *active_) {
            // test() only reads the status: it does not progress anything.
            if (o.get() != &a && o->post == 0 &&
                (o->finalized || ucc_collective_test(o->req) != UCC_INPROGRESS)) {
                done.push_back(o->op);
            }
        }
        mark(UserMark::kFrozen);
        auto all_done = [&] {
            for (uint32_t op : done) {
                const size_t size = members_of(sh_.colls[op]).size();
                if (sh_.completed[a.cycle][op] < size) {
                    return false;
                }
            }
            return true;
        };
        for (int i = 0; i < 100'000 && !all_done(); ++i) {
            pause_ps(rank_, 1'000'000);
        }
        mark(UserMark::kThawed);
    }

    void run_cycle(uint32_t cycle) {
        teams_.assign(w_.teams.size(), nullptr);
        ees_.assign(w_.teams.size(), nullptr);
        std::vector<uint32_t> my_teams;
        for (uint32_t t = 0; t < w_.teams.size(); ++t) {
            if (team_rank_of(w_.teams[t], rank_) >= 0) {
                teams_[t] = create_team(t);
                if (teams_[t] == nullptr) {
                    return;
                }
                ees_[t] = nullptr;
                if (std::any_of(w_.ops.begin(), w_.ops.end(), [t](const WorkloadOp &op) {
                        return op.team == t && op.triggered;
                    })) {
                    ucc_ee_params_t ep{};
                    ep.ee_type = UCC_EE_CPU_THREAD;
                    if (w_.teams[t].stream_engine) {
                        // One simulated stream per team (any value names one).
                        ep.ee_type = UCC_EE_CUDA_STREAM;
                        ep.ee_context = reinterpret_cast<void *>(uintptr_t{t} + 1);
                    }
                    if (const ucc_status_t st = ucc_ee_create(teams_[t], &ep, &ees_[t]);
                        st != UCC_OK) {
                        fail("ucc_ee_create: " + std::string(ucc_status_string(st)));
                        return;
                    }
                }
                my_teams.push_back(t);
            }
        }
        const std::vector<Entry> order = post_order();
        done_here_.clear();
        if (w_.threads == 0) {
            run_ops(cycle, order);
        } else {
            // Thread k runs its share of the posts, in the same relative order.
            const ucc_status_t st = sim::run_threads(w_.threads, [&](uint32_t k) {
                std::vector<Entry> mine;
                for (const Entry &e : order) {
                    const uint32_t by = w_.share_teams ? e.op : w_.ops[e.op].team;
                    if (by % w_.threads == k) {
                        mine.push_back(e);
                    }
                }
                run_ops(cycle, mine);
            });
            if (st != UCC_OK) {
                fail(std::string("sim::run_threads: ") + ucc_status_string(st));
            }
        }
        // Destroy in a rank-dependent order.
        if (rank_ % 2 == 1) {
            std::reverse(my_teams.begin(), my_teams.end());
        }
        for (uint32_t t : my_teams) {
            // With skew, ranks also reach each destroy at different times
            // (P38: some have long finished destroying, some have not begun).
            if (w_.skew_ps > 0) {
                pause_ps(rank_, static_cast<int64_t>(mix(w_.seed ^ (rank_ * 131 + t + cycle * 7)) %
                                                     w_.skew_ps));
            }
            if (ees_[t] != nullptr) {
                if (const ucc_status_t st = ucc_ee_destroy(ees_[t]); st != UCC_OK) {
                    fail("ucc_ee_destroy: " + std::string(ucc_status_string(st)));
                }
            }
            ucc_status_t st;
            do {
                mark_destroy(UserMark::kDestroyBegin, 1 + t);
                st = ucc_team_destroy(teams_[t]);
                mark_destroy(UserMark::kDestroyEnd, 1 + t, st);
            } while (st == UCC_INPROGRESS);
            if (st != UCC_OK) {
                fail("team " + std::to_string(t) + " destroy: " + ucc_status_string(st));
            }
            dead_team_ = teams_[t];
        }
    }

    // Posts `order` (a window at a time), tests and re-posts until all are done.
    void run_ops(uint32_t cycle, const std::vector<Entry> &order) {
        std::vector<std::unique_ptr<Active>> active;
        active_ = &active;
        size_t next = 0;
        auto in_progress = [&] {
            return static_cast<uint32_t>(std::count_if(
                active.begin(), active.end(),
                [](const std::unique_ptr<Active> &a) { return !a->awaiting_repost; }));
        };
        auto find = [&](uint32_t op) -> Active * {
            for (const std::unique_ptr<Active> &a : active) {
                if (a->op == op) {
                    return a.get();
                }
            }
            return nullptr;
        };
        while (error().empty() && (next < order.size() || !active.empty())) {
            while (next < order.size() && (w_.window == 0 || in_progress() < w_.window)) {
                const Entry e = order[next];
                if (e.post == 0) {
                    auto a = std::make_unique<Active>();
                    if (start(cycle, e.op, a.get())) {
                        active.push_back(std::move(a));
                    }
                } else if (Active *a = find(e.op); a == nullptr) {
                    // The op failed earlier: nothing to re-post.
                } else if (!a->awaiting_repost) {
                    break;  // its previous post is still running: wait for it
                } else if (!repost(*a)) {
                    active.erase(std::find_if(active.begin(), active.end(),
                                              [a](const auto &p) { return p.get() == a; }));
                }
                ++next;
            }
            bool any = false;
            for (size_t k = 0; k < active.size();) {
                Active &a = *active[k];
                bool finished = false;
                if (a.awaiting_repost) {
                    ++k;
                    continue;
                }
                if (a.finalized) {  // by its callback: no test() on it any more
                    (a.failed ? sh_.posts_failed : sh_.posts_ok)++;
                    if (a.post == 0) {
                        sh_.completed[cycle][a.op]++;
                        done_here_.push_back(a.op);
                    }
                    finished = true;
                } else if (const ucc_status_t st = ucc_collective_test(a.req);
                           st != UCC_INPROGRESS && st != UCC_OPERATION_INITIALIZED) {
                    mark(UserMark::kDone, a.number, st);
                    finished = finish_post(a, st);
                    any = true;
                }
                if (finished) {
                    active.erase(active.begin() + static_cast<ptrdiff_t>(k));
                    any = true;
                } else {
                    ++k;
                }
            }
            // (With nothing outstanding, progress would block this simulated
            // rank until some message arrives.)
            if (!any && !active.empty()) {
                ucc_context_progress(ctx_);
            }
        }
    }

    void teardown() {
        if (ctx_ != nullptr) {
            mark_destroy(UserMark::kDestroyBegin, 0);
            ucc_status_t st = ucc_context_destroy(ctx_);
            mark_destroy(UserMark::kDestroyEnd, 0, st);
            if (st != UCC_OK) {
                fail(std::string("ucc_context_destroy: ") + ucc_status_string(st));
            }
        }
        if (w_.probe_use_after_destroy && ctx_ != nullptr) {
            probe_destroyed();
        }
        if (lib_ != nullptr && ucc_finalize(lib_) != UCC_OK) {
            fail("ucc_finalize");
        }
    }

    // P36: calls on the destroyed team and context must return errors.
    void probe_destroyed() {
        if (dead_team_ != nullptr) {
            ucc_coll_args_t args{};
            args.coll_type = UCC_COLL_TYPE_BARRIER;
            ucc_coll_req_h req = nullptr;
            mark(UserMark::kUseAfterDestroy, 0, ucc_collective_init(&args, &req, dead_team_));
            mark(UserMark::kUseAfterDestroy, 0, ucc_team_destroy(dead_team_));
            mark(UserMark::kUseAfterDestroy, 0, ucc_team_create_test(dead_team_));
            ucc_team_attr_t ta{};
            ta.mask = UCC_TEAM_ATTR_FIELD_SIZE;
            mark(UserMark::kUseAfterDestroy, 0, ucc_team_get_attr(dead_team_, &ta));
        }
        mark(UserMark::kUseAfterDestroy, 0, ucc_context_progress(ctx_));
        ucc_context_attr_t ca{};
        ca.mask = UCC_CONTEXT_ATTR_FIELD_TYPE;
        mark(UserMark::kUseAfterDestroy, 0, ucc_context_get_attr(ctx_, &ca));
        mark(UserMark::kUseAfterDestroy, 0, ucc_context_destroy(ctx_));
    }

    Shared &sh_;
    const Workload &w_;
    uint32_t rank_;
    ucc_lib_h lib_ = nullptr;
    ucc_context_h ctx_ = nullptr;
    std::vector<ucc_team_h> teams_;
    std::vector<ucc_ee_h> ees_;  // per team: its execution engine (triggered ops)
    ucc_team_h dead_team_ = nullptr;
    uint64_t inits_ = 0;
    bool posted_any_ = false;
    bool froze_ = false;
    std::vector<std::unique_ptr<Active>> *active_ = nullptr;  // this cycle's requests
    std::vector<uint32_t> done_here_;  // ops whose first post completed here, this cycle
};

}  // namespace

std::string describe(const Workload &w) {
    std::ostringstream os;
    os << "workload n=" << w.n << " seed=" << w.seed << " net=" << w.network
       << " window=" << w.window << (w.shuffle ? " shuffle" : "") << " cycles=" << w.cycles;
    if (w.skew_ps > 0) {
        os << " skew_ps=" << w.skew_ps;
    }
    if (w.freeze_rank >= 0) {
        os << " freeze=" << w.freeze_rank;
    }
    if (w.late_rank >= 0) {
        os << " late=" << w.late_rank << "@" << w.late_ps << "ps";
    }
    if (w.threads > 0) {
        os << " threads=" << w.threads << (w.share_teams ? " (sharing teams)" : "");
    }
    for (size_t t = 0; t < w.teams.size(); ++t) {
        os << "\n  team " << t << (w.teams[t].unordered ? " unordered" : "")
           << (w.teams[t].sync ? " sync" : "") << (w.teams[t].stream_engine ? " stream-engine" : "")
           << " {";
        for (size_t i = 0; i < w.teams[t].members.size(); ++i) {
            os << (i ? "," : "") << w.teams[t].members[i];
        }
        os << "}";
    }
    for (size_t i = 0; i < w.ops.size(); ++i) {
        const WorkloadOp &op = w.ops[i];
        os << "\n  op " << i << " team " << op.team << " tag " << op.tag
           << (op.callback ? " cb" : "") << (op.finalize_in_cb ? " fin-in-cb" : "")
           << (op.triggered ? " triggered" : "");
        if (op.timeout > 0) {
            os << " timeout=" << op.timeout;
        }
        os << ": " << testkit::describe(op.coll);
    }
    return os.str();
}

WorkloadOutcome run_workload(const Workload &w) {
    WorkloadOutcome out;
    Shared sh;
    sh.w = &w;
    sh.errors.assign(w.n, "");
    for (const WorkloadTeam &t : w.teams) {
        sh.ep_maps.emplace_back(t.members.begin(), t.members.end());
    }
    for (const WorkloadOp &op : w.ops) {
        Scenario s = op.coll;
        s.n = static_cast<uint32_t>(w.teams[op.team].members.size());
        if (s.active_set) {
            s.tag = op.tag;  // concurrent active-set ops are told apart by their tags
        }
        sh.colls.push_back(s);
    }
    sh.prep.resize(w.cycles);
    sh.completed.assign(w.cycles, std::vector<uint32_t>(w.ops.size(), 0));
    for (uint32_t c = 0; c < w.cycles; ++c) {
        for (const Scenario &s : sh.colls) {
            auto p = std::make_unique<PreparedColl>(s);
            if (!p->failure().empty()) {
                out.failure = p->failure();
                return out;
            }
            sh.prep[c].push_back(std::move(p));
        }
    }
    sim::ClusterParams cp;
    cp.n_ranks = w.n;
    cp.seed = w.seed;
    cp.record_events = true;
    std::string err;
    if (net::parse_network(w.network.c_str(), &cp.net, &err) != UCC_OK) {
        out.failure = "bad network: " + err;
        return out;
    }
    out.run = sim::run(cp, [&sh](uint32_t rank) { RankProgram(sh, rank).run(); });
    out.posts_ok = sh.posts_ok;
    out.posts_failed = sh.posts_failed;
    if (out.run.status != UCC_OK) {
        out.failure = "simulation failed: " + std::string(ucc_status_string(out.run.status)) +
                      "\n" + out.run.report;
        return out;
    }
    for (const std::string &e : sh.errors) {
        if (!e.empty()) {
            out.failure = e;
            break;
        }
    }
    return out;
}

}  // namespace ucc::testkit
