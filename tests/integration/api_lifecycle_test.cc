// The public C API's lifecycle on simulated ranks (ucc/sim/ucc_sim.h):
// contexts over ucc_sim_oob, teams from a team OOB and from every kind of ep
// map, team attributes, refused team parameters, the request state machine,
// persistent requests, completion callbacks, init_and_post, zero-size
// collectives, timeouts in virtual time with sticky team failure, deadlock
// unwinding, and ucc_collective_init's argument rules V1-V13 (model/VALIDITY.md).
//
// Every rank records what it saw into its own slot of a per-rank vector; all
// assertions run in the test body after ucc_sim_run returns.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/validity.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

// C callers may store any int in an enum field; from C++ a value outside the
// enum's range is undefined behaviour, and the sanitizer build (ASan and UBSan
// together) aborts on the library's load of it (tests/regress/
// enum_out_of_range_test.cc). Such cases run only in unsanitized builds; junk
// values elsewhere stay inside each enum's range.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// ---------------------------------------------------------------------------
// Running programs on simulated ranks
// ---------------------------------------------------------------------------

struct Program {
    std::function<void(uint32_t)> body;
};

void program_main(void *arg) {
    static_cast<Program *>(arg)->body(ucc_sim_rank());
}

// Runs body(rank) on n quiet simulated ranks; ucc_sim_run's status.
ucc_status_t simulate(uint32_t n, std::function<void(uint32_t)> body, const char *network = "hdr",
                      uint64_t seed = 1) {
    Program prog{std::move(body)};
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_NETWORK |
             UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = n;
    p.seed = seed;
    p.network = network;
    p.flags = UCC_SIM_FLAG_QUIET;
    return ucc_sim_run(&p, program_main, &prog);
}

// The first setup/teardown step of a rank that did not return UCC_OK.
struct Steps {
    std::string failure;
    bool ok(const char *what, ucc_status_t st) {
        if (st != UCC_OK && failure.empty()) {
            failure = std::string(what) + " -> " + ucc_status_string(st);
        }
        return st == UCC_OK;
    }
};

#define STEP(steps, call) (steps).ok(#call, (call))

struct Env {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
};

// Library and a context over the simulator's OOB (all ranks take part).
bool open_env(Env *e, Steps *s, ucc_context_type_t type = UCC_CONTEXT_SHARED) {
    ucc_lib_config_h lc = nullptr;
    if (!STEP(*s, ucc_lib_config_read(nullptr, nullptr, &lc))) {
        return false;
    }
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    bool inited = STEP(*s, ucc_init(&lp, lc, &e->lib));
    ucc_lib_config_release(lc);
    if (!inited) {
        return false;
    }
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB | UCC_CONTEXT_PARAM_FIELD_TYPE;
    cp.type = type;
    if (!STEP(*s, ucc_sim_oob(&cp.oob))) {
        return false;
    }
    return STEP(*s, ucc_context_create(e->lib, &cp, nullptr, &e->ctx));
}

bool close_env(Env *e, Steps *s) {
    bool ok = STEP(*s, ucc_context_destroy(e->ctx));
    return STEP(*s, ucc_finalize(e->lib)) && ok;
}

// Drives a posted team creation to its end.
ucc_status_t wait_team(ucc_context_h ctx, ucc_team_h team) {
    ucc_status_t st;
    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    return st;
}

ucc_status_t create_team(ucc_context_h ctx, const ucc_team_params_t &tp, ucc_team_h *team) {
    ucc_status_t st = ucc_team_create_post(&ctx, 1, &tp, team);
    return st == UCC_OK ? wait_team(ctx, *team) : st;
}

ucc_status_t destroy_team(ucc_team_h team) {
    ucc_status_t st;
    while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS) {
    }
    return st;
}

// Progresses while the request is in progress; its final status.
ucc_status_t wait_req(ucc_context_h ctx, ucc_coll_req_h req) {
    ucc_status_t st;
    while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    return st;
}

ucc_status_t run_coll(ucc_context_h ctx, ucc_team_h team, ucc_coll_args_t args) {
    ucc_coll_req_h req = nullptr;
    ucc_status_t st = ucc_collective_init(&args, &req, team);
    if (st != UCC_OK) {
        return st;
    }
    st = ucc_collective_post(req);
    if (st == UCC_OK) {
        st = wait_req(ctx, req);
    }
    ucc_status_t fst = ucc_collective_finalize(req);
    return st != UCC_OK ? st : fst;
}

ucc_coll_buffer_info_t info(void *buf, uint64_t count, ucc_datatype_t dt) {
    return ucc_coll_buffer_info_t{buf, count, dt, UCC_MEMORY_TYPE_HOST};
}

ucc_coll_args_t allreduce_i64(int64_t *src, int64_t *dst, uint64_t count) {
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = info(src, count, UCC_DT_INT64);
    a.dst.info = info(dst, count, UCC_DT_INT64);
    return a;
}

// Sum over team members of one value each.
ucc_status_t team_sum(ucc_context_h ctx, ucc_team_h team, int64_t mine, int64_t *sum) {
    int64_t s = mine;
    *sum = -1;
    return run_coll(ctx, team, allreduce_i64(&s, sum, 1));
}

// Every member's value, indexed by team ep.
ucc_status_t team_allgather(ucc_context_h ctx, ucc_team_h team, uint32_t size, uint64_t mine,
                            std::vector<uint64_t> *all) {
    all->assign(size, ~uint64_t{0});
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLGATHER;
    a.src.info = info(&mine, 1, UCC_DT_UINT64);
    a.dst.info = info(all->data(), size, UCC_DT_UINT64);
    return run_coll(ctx, team, a);
}

ucc_status_t team_bcast(ucc_context_h ctx, ucc_team_h team, uint64_t root, uint64_t *value) {
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_BCAST;
    a.root = root;
    a.src.info = info(value, 1, UCC_DT_UINT64);
    return run_coll(ctx, team, a);
}

ucc_status_t team_size_and_ep(ucc_team_h team, uint32_t *size, uint64_t *ep) {
    ucc_team_attr_t a{};
    a.mask = UCC_TEAM_ATTR_FIELD_SIZE | UCC_TEAM_ATTR_FIELD_EP;
    ucc_status_t st = ucc_team_get_attr(team, &a);
    *size = a.size;
    *ep = a.ep;
    return st;
}

ucc_team_params_t full_map_params(uint32_t n, uint64_t id) {
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_ID;
    tp.ep_map.type = UCC_EP_MAP_FULL;
    tp.ep_map.ep_num = n;
    tp.id = id;
    return tp;
}

ucc_team_params_t team_oob_params(uint32_t rank, Steps *s) {
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep = rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    STEP(*s, ucc_sim_oob(&tp.oob));
    return tp;
}

std::string join_failures(const std::vector<Steps> &steps) {
    std::string all;
    for (size_t r = 0; r < steps.size(); ++r) {
        if (!steps[r].failure.empty()) {
            all += "rank " + std::to_string(r) + ": " + steps[r].failure + "\n";
        }
    }
    return all;
}

}  // namespace

// ---------------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------------

TEST(ApiLifecycle, SimHelpersOutsideARank) {
    ucc_oob_coll_t oob{};
    EXPECT_EQ(ucc_sim_oob(&oob), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(ucc_sim_rank(), 0u);
    EXPECT_EQ(ucc_sim_size(), 0u);
    EXPECT_EQ(ucc_sim_now(), 0.0);
    EXPECT_EQ(ucc_sim_run(nullptr, program_main, nullptr), UCC_ERR_INVALID_PARAM);
}

TEST(ApiLifecycle, ContextsOverSimOob) {
    constexpr uint32_t n = 4;
    struct R {
        Steps s;
        uint32_t rank = 99;
        uint32_t size = 0;
        uint32_t oob_n = 0;
        uint32_t oob_ep = 99;
        ucc_status_t bad_ep = UCC_OK;
        ucc_status_t no_callbacks = UCC_OK;
        ucc_context_type_t type = UCC_CONTEXT_EXCLUSIVE;
        uint64_t addr_len = 0;
        int64_t sum_second_ctx = -1;
        ucc_status_t destroy_with_team = UCC_ERR_LAST;
        ucc_status_t team_after_context = UCC_ERR_LAST;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        o.rank = ucc_sim_rank();
        o.size = ucc_sim_size();
        Env e;
        if (!open_env(&e, &o.s)) {
            return;
        }
        ucc_context_params_t cp{};
        cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
        STEP(o.s, ucc_sim_oob(&cp.oob));
        o.oob_n = cp.oob.n_oob_eps;
        o.oob_ep = cp.oob.oob_ep;
        // Refused before any OOB traffic: ep outside [0, n), missing callbacks.
        ucc_context_params_t bad = cp;
        bad.oob.oob_ep = n;
        ucc_context_h none = nullptr;
        o.bad_ep = ucc_context_create(e.lib, &bad, nullptr, &none);
        bad = cp;
        bad.oob.req_test = nullptr;
        o.no_callbacks = ucc_context_create(e.lib, &bad, nullptr, &none);
        ucc_context_attr_t ca{};
        ca.mask = UCC_CONTEXT_ATTR_FIELD_TYPE | UCC_CONTEXT_ATTR_FIELD_CTX_ADDR_LEN;
        STEP(o.s, ucc_context_get_attr(e.ctx, &ca));
        o.type = ca.type;
        o.addr_len = ca.ctx_addr_len;
        // A second context alive at the same time, with a team of its own.
        ucc_context_h ctx2 = nullptr;
        if (STEP(o.s, ucc_context_create(e.lib, &cp, nullptr, &ctx2))) {
            ucc_team_h t = nullptr;
            if (STEP(o.s, create_team(ctx2, full_map_params(n, 3), &t))) {
                STEP(o.s, team_sum(ctx2, t, rank + 10, &o.sum_second_ctx));
                // An idle team goes down with its context; its handle is a
                // tombstone then (Open MPI's coll/ucc at MPI_Finalize).
                o.destroy_with_team = ucc_context_destroy(ctx2);
                o.team_after_context = ucc_team_destroy(t);
            } else {
                STEP(o.s, ucc_context_destroy(ctx2));
            }
        }
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_EQ(o.rank, r);
        EXPECT_EQ(o.size, n);
        EXPECT_EQ(o.oob_n, n);
        EXPECT_EQ(o.oob_ep, r);
        EXPECT_EQ(o.bad_ep, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.no_callbacks, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.type, UCC_CONTEXT_SHARED);
        EXPECT_GT(o.addr_len, 0u);
        EXPECT_EQ(o.sum_second_ctx, 10 + 11 + 12 + 13);
        EXPECT_EQ(o.destroy_with_team, UCC_OK);
        EXPECT_EQ(o.team_after_context, UCC_ERR_INVALID_PARAM);
    }
}

// ---------------------------------------------------------------------------
// Teams
// ---------------------------------------------------------------------------

TEST(ApiLifecycle, TeamByTeamOobAndAttributes) {
    constexpr uint32_t n = 5;
    struct R {
        Steps s;
        ucc_team_attr_t attr{};
        std::vector<uint64_t> eps;
        std::vector<uint64_t> gathered;
        int64_t sum = -1;
        uint64_t ep_from_oob = 99;
        ucc_post_ordering_t ordering2 = UCC_COLLECTIVE_POST_UNORDERED;
        void *seg_addr = nullptr;
        uint64_t seg_len = 0;
        uint64_t n_segs = 0;
    };
    std::vector<R> out(n);
    std::vector<std::vector<uint8_t>> heaps(n, std::vector<uint8_t>(256));
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        if (!open_env(&e, &o.s)) {
            return;
        }
        ucc_team_params_t tp = team_oob_params(rank, &o.s);
        ucc_mem_map_t seg{heaps[rank].data(), heaps[rank].size()};
        tp.mask |= UCC_TEAM_PARAM_FIELD_MEM_PARAMS | UCC_TEAM_PARAM_FIELD_OUTSTANDING_COLLS;
        tp.mem_params.segments = &seg;
        tp.mem_params.n_segments = 1;
        tp.outstanding_colls = 4;
        ucc_team_h team = nullptr;
        if (STEP(o.s, create_team(e.ctx, tp, &team))) {
            o.attr.mask = UCC_TEAM_ATTR_FIELD_SIZE | UCC_TEAM_ATTR_FIELD_EP |
                          UCC_TEAM_ATTR_FIELD_EPS | UCC_TEAM_ATTR_FIELD_POST_ORDERING |
                          UCC_TEAM_ATTR_FIELD_SYNC_TYPE | UCC_TEAM_ATTR_FIELD_EP_RANGE |
                          UCC_TEAM_ATTR_FIELD_OUTSTANDING_CALLS | UCC_TEAM_ATTR_FIELD_MEM_PARAMS;
            if (STEP(o.s, ucc_team_get_attr(team, &o.attr)) && o.attr.eps != nullptr) {
                o.eps.assign(o.attr.eps, o.attr.eps + o.attr.size);
            }
            if (o.attr.mem_params.n_segments > 0 && o.attr.mem_params.segments != nullptr) {
                o.seg_addr = o.attr.mem_params.segments[0].address;
                o.seg_len = o.attr.mem_params.segments[0].len;
            }
            o.n_segs = o.attr.mem_params.n_segments;
            STEP(o.s, team_sum(e.ctx, team, rank + 1, &o.sum));
            STEP(o.s, team_allgather(e.ctx, team, n, rank * 7, &o.gathered));
            STEP(o.s, destroy_team(team));
        }
        // The ep comes from oob.oob_ep when no ep is given; ordering is reported.
        ucc_team_params_t tp2{};
        tp2.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_ORDERING;
        tp2.ordering = UCC_COLLECTIVE_INIT_AND_POST_ORDERED;
        STEP(o.s, ucc_sim_oob(&tp2.oob));
        if (STEP(o.s, create_team(e.ctx, tp2, &team))) {
            ucc_team_attr_t a{};
            a.mask = UCC_TEAM_ATTR_FIELD_EP | UCC_TEAM_ATTR_FIELD_POST_ORDERING;
            STEP(o.s, ucc_team_get_attr(team, &a));
            o.ep_from_oob = a.ep;
            o.ordering2 = a.ordering;
            STEP(o.s, destroy_team(team));
        }
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_EQ(o.attr.size, n);
        EXPECT_EQ(o.attr.ep, r);
        EXPECT_EQ(o.eps, (std::vector<uint64_t>{0, 1, 2, 3, 4}));
        EXPECT_EQ(o.attr.ordering, UCC_COLLECTIVE_POST_ORDERED);
        EXPECT_EQ(o.attr.sync_type, UCC_NO_SYNC_COLLECTIVES);
        EXPECT_EQ(o.attr.ep_range, UCC_COLLECTIVE_EP_RANGE_CONTIG);
        EXPECT_EQ(o.attr.outstanding_colls, 4u);
        EXPECT_EQ(o.n_segs, 1u);
        EXPECT_EQ(o.seg_addr, heaps[r].data());
        EXPECT_EQ(o.seg_len, 256u);
        EXPECT_EQ(o.sum, 1 + 2 + 3 + 4 + 5);
        EXPECT_EQ(o.gathered, (std::vector<uint64_t>{0, 7, 14, 21, 28}));
        EXPECT_EQ(o.ep_from_oob, r);
        EXPECT_EQ(o.ordering2, UCC_COLLECTIVE_INIT_AND_POST_ORDERED);
    }
}

namespace {

// One ep map over 6 context eps, and its inverse.
struct MapCase {
    const char *name;
    ucc_ep_map_type_t type;
    std::vector<uint64_t> to_ctx;  // team ep i -> context ep
};

const uint32_t kPerm4[6] = {2, 0, 5, 1, 4, 3};
const uint64_t kPerm8[6] = {4, 5, 0, 3, 1, 2};

uint64_t rotate_by_two(uint64_t ep, void *ctx) {
    return (ep + *static_cast<const uint64_t *>(ctx)) % 6;
}

ucc_ep_map_t make_map(const MapCase &c, uint64_t *cb_shift) {
    ucc_ep_map_t m{};
    m.type = c.type;
    m.ep_num = c.to_ctx.size();
    switch (c.type) {
        case UCC_EP_MAP_STRIDED:
            m.strided.start = c.to_ctx[0];
            m.strided.stride =
                static_cast<int64_t>(c.to_ctx[1]) - static_cast<int64_t>(c.to_ctx[0]);
            break;
        case UCC_EP_MAP_ARRAY:
            if (std::string(c.name) == "array4") {
                m.array.map = const_cast<uint32_t *>(kPerm4);
                m.array.elem_size = 4;
            } else {
                m.array.map = const_cast<uint64_t *>(kPerm8);
                m.array.elem_size = 8;
            }
            break;
        case UCC_EP_MAP_CB:
            m.cb.cb = rotate_by_two;
            m.cb.cb_ctx = cb_shift;
            break;
        default:
            break;
    }
    return m;
}

std::vector<MapCase> map_cases() {
    return {
        {"full", UCC_EP_MAP_FULL, {0, 1, 2, 3, 4, 5}},
        {"strided_reverse", UCC_EP_MAP_STRIDED, {5, 4, 3, 2, 1, 0}},
        {"strided_stride1_from1", UCC_EP_MAP_STRIDED, {1, 2, 3, 4, 5}},
        {"array4", UCC_EP_MAP_ARRAY, {2, 0, 5, 1, 4, 3}},
        {"array8", UCC_EP_MAP_ARRAY, {4, 5, 0, 3, 1, 2}},
        {"cb_rotate", UCC_EP_MAP_CB, {2, 3, 4, 5, 0, 1}},
    };
}

struct MapResult {
    Steps s;
    bool member = false;
    ucc_status_t create = UCC_ERR_LAST;
    uint32_t size = 0;
    uint64_t ep = 99;
    std::vector<uint64_t> eps;
    std::vector<uint64_t> gathered;  // context ranks by team ep
    int64_t sum = -1;
    uint64_t bcast = 0;
    ucc_status_t wrong_ep = UCC_OK;
};

// Every rank creates the team of `c` (members only), with or without a user
// id and with or without passing its own ep, and checks it with collectives.
std::vector<MapResult> run_map_case(const MapCase &c, bool with_id, bool pass_ep,
                                    ucc_status_t *run) {
    constexpr uint32_t n = 6;
    std::vector<MapResult> out(n);
    *run = simulate(n, [&](uint32_t rank) {
        MapResult &o = out[rank];
        Env e;
        if (!open_env(&e, &o.s)) {
            return;
        }
        int64_t my_ep = -1;
        for (size_t i = 0; i < c.to_ctx.size(); ++i) {
            if (c.to_ctx[i] == rank) {
                my_ep = static_cast<int64_t>(i);
            }
        }
        o.member = my_ep >= 0;
        uint64_t shift = 2;
        ucc_team_params_t tp{};
        tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP;
        tp.ep_map = make_map(c, &shift);
        if (with_id) {
            tp.mask |= UCC_TEAM_PARAM_FIELD_ID;
            tp.id = 21;
        }
        if (o.member && pass_ep) {
            // A wrong ep is refused before anything is created.
            ucc_team_params_t wrong = tp;
            wrong.mask |= UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
            wrong.ep = (static_cast<uint64_t>(my_ep) + 1) % c.to_ctx.size();
            wrong.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
            ucc_team_h none = nullptr;
            o.wrong_ep = ucc_team_create_post(&e.ctx, 1, &wrong, &none);
            tp.mask |= UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
            tp.ep = static_cast<uint64_t>(my_ep);
            tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
        }
        if (o.member) {
            ucc_team_h team = nullptr;
            o.create = create_team(e.ctx, tp, &team);
            if (o.create == UCC_OK) {
                ucc_team_attr_t a{};
                a.mask =
                    UCC_TEAM_ATTR_FIELD_SIZE | UCC_TEAM_ATTR_FIELD_EP | UCC_TEAM_ATTR_FIELD_EPS;
                if (STEP(o.s, ucc_team_get_attr(team, &a))) {
                    o.size = a.size;
                    o.ep = a.ep;
                    o.eps.assign(a.eps, a.eps + a.size);
                }
                STEP(o.s, team_allgather(e.ctx, team, o.size, rank, &o.gathered));
                STEP(o.s, team_sum(e.ctx, team, rank, &o.sum));
                o.bcast = 1000 + rank;
                STEP(o.s, team_bcast(e.ctx, team, 1, &o.bcast));
                STEP(o.s, destroy_team(team));
            }
        }
        close_env(&e, &o.s);
    });
    return out;
}

void check_map_case(const MapCase &c) {
    for (bool with_id : {true, false}) {
        for (bool pass_ep : {false, true}) {
            ucc_status_t run = UCC_ERR_LAST;
            std::vector<MapResult> out = run_map_case(c, with_id, pass_ep, &run);
            std::string where = std::string(c.name) + (with_id ? " with id" : " without id") +
                                (pass_ep ? ", ep given" : "");
            ASSERT_EQ(run, UCC_OK) << where;
            const uint32_t size = static_cast<uint32_t>(c.to_ctx.size());
            int64_t want_sum = 0;
            std::vector<uint64_t> want_eps(size);
            for (uint32_t i = 0; i < size; ++i) {
                want_sum += static_cast<int64_t>(c.to_ctx[i]);
                want_eps[i] = i;
            }
            for (uint32_t r = 0; r < out.size(); ++r) {
                const MapResult &o = out[r];
                EXPECT_EQ(o.s.failure, "") << where << " rank " << r;
                if (!o.member) {
                    continue;
                }
                uint64_t my_ep = 0;
                while (c.to_ctx[my_ep] != r) {
                    ++my_ep;
                }
                EXPECT_EQ(o.create, UCC_OK) << where << " rank " << r;
                EXPECT_EQ(o.size, size) << where;
                EXPECT_EQ(o.ep, my_ep) << where << " rank " << r;
                EXPECT_EQ(o.eps, want_eps) << where;
                EXPECT_EQ(o.gathered, c.to_ctx) << where << " rank " << r;
                EXPECT_EQ(o.sum, want_sum) << where;
                EXPECT_EQ(o.bcast, 1000 + c.to_ctx[1]) << where << " rank " << r;
                if (pass_ep) {
                    EXPECT_EQ(o.wrong_ep, UCC_ERR_INVALID_PARAM) << where << " rank " << r;
                }
            }
        }
    }
}

}  // namespace

TEST(ApiLifecycle, TeamByEpMapFull) {
    check_map_case(map_cases()[0]);
}

TEST(ApiLifecycle, TeamByEpMapStridedNegativeStride) {
    check_map_case(map_cases()[1]);
}

TEST(ApiLifecycle, TeamByEpMapStridedSubset) {
    check_map_case(map_cases()[2]);  // context ep 0 takes no part
}

TEST(ApiLifecycle, TeamByEpMapArrayElemSize4) {
    check_map_case(map_cases()[3]);
}

TEST(ApiLifecycle, TeamByEpMapArrayElemSize8) {
    check_map_case(map_cases()[4]);
}

TEST(ApiLifecycle, TeamByEpMapCallback) {
    check_map_case(map_cases()[5]);
}

TEST(ApiLifecycle, StridedTeamOverEvenRanksOnly) {
    constexpr uint32_t n = 7;
    struct R {
        Steps s;
        std::vector<ucc_status_t> create;
        std::vector<uint32_t> size;
        std::vector<uint64_t> ep;
        std::vector<int64_t> sum;
        std::vector<std::vector<uint64_t>> gathered;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        if (!open_env(&e, &o.s)) {
            return;
        }
        if (rank % 2 == 0) {  // odd ranks take no part in the team
            for (bool with_id : {true, false}) {
                ucc_team_params_t tp{};
                tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP;
                tp.ep_map.type = UCC_EP_MAP_STRIDED;
                tp.ep_map.ep_num = 4;
                tp.ep_map.strided.start = 0;
                tp.ep_map.strided.stride = 2;
                if (with_id) {
                    tp.mask |= UCC_TEAM_PARAM_FIELD_ID;
                    tp.id = 5;
                }
                ucc_team_h team = nullptr;
                o.create.push_back(create_team(e.ctx, tp, &team));
                if (o.create.back() != UCC_OK) {
                    continue;
                }
                uint32_t size = 0;
                uint64_t ep = 0;
                STEP(o.s, team_size_and_ep(team, &size, &ep));
                o.size.push_back(size);
                o.ep.push_back(ep);
                int64_t sum = -1;
                STEP(o.s, team_sum(e.ctx, team, rank, &sum));
                o.sum.push_back(sum);
                std::vector<uint64_t> g;
                STEP(o.s, team_allgather(e.ctx, team, 4, rank, &g));
                o.gathered.push_back(g);
                STEP(o.s, destroy_team(team));
            }
        }
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        if (r % 2 == 1) {
            EXPECT_TRUE(o.create.empty());
            continue;
        }
        ASSERT_EQ(o.create.size(), 2u) << "rank " << r;
        for (size_t k = 0; k < 2; ++k) {
            EXPECT_EQ(o.create[k], UCC_OK) << "rank " << r << " variant " << k;
            ASSERT_EQ(o.size.size(), 2u);
            EXPECT_EQ(o.size[k], 4u);
            EXPECT_EQ(o.ep[k], r / 2);
            EXPECT_EQ(o.sum[k], 0 + 2 + 4 + 6);
            EXPECT_EQ(o.gathered[k], (std::vector<uint64_t>{0, 2, 4, 6}));
        }
    }
}

TEST(ApiLifecycle, TwoTeamsOnOneContextUsedAlternately) {
    constexpr uint32_t n = 5;
    constexpr int kRounds = 4;
    struct R {
        Steps s;
        std::vector<int64_t> sums;     // team A allreduce per round
        std::vector<uint64_t> bcasts;  // team B bcast per round
        int64_t concurrent_sum = -1;
        uint64_t concurrent_bcast = 0;
        uint64_t ep_b = 99;
    };
    for (bool with_ids : {true, false}) {
        std::vector<R> out(n);
        ucc_status_t run = simulate(
            n,
            [&](uint32_t rank) {
                R &o = out[rank];
                Env e;
                if (!open_env(&e, &o.s)) {
                    return;
                }
                // A: identity; B: reversed (team ep 0 is context ep n-1).
                uint64_t reversed[n];
                for (uint32_t i = 0; i < n; ++i) {
                    reversed[i] = n - 1 - i;
                }
                ucc_team_params_t pa = full_map_params(n, 31);
                ucc_team_params_t pb{};
                pb.mask = UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_ID;
                pb.ep_map.type = UCC_EP_MAP_ARRAY;
                pb.ep_map.ep_num = n;
                pb.ep_map.array.map = reversed;
                pb.ep_map.array.elem_size = 8;
                pb.id = 32;
                if (!with_ids) {
                    pa.mask &= ~static_cast<uint64_t>(UCC_TEAM_PARAM_FIELD_ID);
                    pb.mask &= ~static_cast<uint64_t>(UCC_TEAM_PARAM_FIELD_ID);
                }
                ucc_team_h a = nullptr;
                ucc_team_h b = nullptr;
                if (!STEP(o.s, create_team(e.ctx, pa, &a)) ||
                    !STEP(o.s, create_team(e.ctx, pb, &b))) {
                    return;
                }
                uint32_t size = 0;
                STEP(o.s, team_size_and_ep(b, &size, &o.ep_b));
                for (int k = 0; k < kRounds; ++k) {
                    int64_t sum = -1;
                    STEP(o.s, team_sum(e.ctx, a, (rank + 1) * (k + 1), &sum));
                    o.sums.push_back(sum);
                    uint64_t v = 100 * k + rank;
                    STEP(o.s, team_bcast(e.ctx, b, 0, &v));
                    o.bcasts.push_back(v);
                }
                // Both teams in flight at once, with equal sequence numbers.
                int64_t mine = rank;
                ucc_coll_args_t ar = allreduce_i64(&mine, &o.concurrent_sum, 1);
                o.concurrent_bcast = 7000 + rank;
                ucc_coll_args_t bc{};
                bc.coll_type = UCC_COLL_TYPE_BCAST;
                bc.root = 2;
                bc.src.info = info(&o.concurrent_bcast, 1, UCC_DT_UINT64);
                ucc_coll_req_h ra = nullptr;
                ucc_coll_req_h rb = nullptr;
                if (STEP(o.s, ucc_collective_init(&ar, &ra, a)) &&
                    STEP(o.s, ucc_collective_init(&bc, &rb, b))) {
                    STEP(o.s, ucc_collective_post(ra));
                    STEP(o.s, ucc_collective_post(rb));
                    STEP(o.s, wait_req(e.ctx, rb));
                    STEP(o.s, wait_req(e.ctx, ra));
                    STEP(o.s, ucc_collective_finalize(ra));
                    STEP(o.s, ucc_collective_finalize(rb));
                }
                STEP(o.s, destroy_team(a));
                STEP(o.s, destroy_team(b));
                close_env(&e, &o.s);
            },
            "slow", 3);
        ASSERT_EQ(run, UCC_OK) << (with_ids ? "with ids" : "without ids");
        for (uint32_t r = 0; r < n; ++r) {
            const R &o = out[r];
            std::string where =
                std::string(with_ids ? "with ids" : "without ids") + " rank " + std::to_string(r);
            EXPECT_EQ(o.s.failure, "") << where;
            EXPECT_EQ(o.ep_b, n - 1 - r) << where;
            ASSERT_EQ(o.sums.size(), static_cast<size_t>(kRounds)) << where;
            for (int k = 0; k < kRounds; ++k) {
                EXPECT_EQ(o.sums[k], 15 * (k + 1)) << where << " round " << k;
                EXPECT_EQ(o.bcasts[k], 100u * k + (n - 1)) << where << " round " << k;
            }
            EXPECT_EQ(o.concurrent_sum, 0 + 1 + 2 + 3 + 4) << where;
            EXPECT_EQ(o.concurrent_bcast, 7000u + (n - 1 - 2)) << where;
        }
    }
}

TEST(ApiLifecycle, InvalidTeamParams) {
    constexpr uint32_t n = 3;
    struct R {
        Steps s;
        ucc_status_t zero_contexts = UCC_OK;
        ucc_status_t two_contexts = UCC_OK;
        ucc_status_t size_vs_oob = UCC_OK;
        ucc_status_t ep_vs_oob_ep = UCC_OK;
        ucc_status_t oob_ep_range = UCC_OK;
        ucc_status_t oob_null_cb = UCC_OK;
        ucc_status_t map_vs_size = UCC_OK;
        ucc_status_t map_out_of_range = UCC_OK;
        ucc_status_t map_type = UCC_OK;
        ucc_status_t map_elem_size = UCC_OK;
        ucc_status_t map_without_me = UCC_OK;
        ucc_status_t full_map_wrong_num = UCC_OK;
        ucc_status_t bad_ordering = UCC_OK;
        bool all_destroyable = false;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        if (!open_env(&e, &o.s)) {
            return;
        }
        ucc_team_h t = nullptr;
        ucc_team_params_t good = team_oob_params(rank, &o.s);
        ucc_context_h two[2] = {e.ctx, e.ctx};
        o.zero_contexts = ucc_team_create_post(two, 0, &good, &t);
        o.two_contexts = ucc_team_create_post(two, 2, &good, &t);
        ucc_team_params_t p = good;
        p.mask |= UCC_TEAM_PARAM_FIELD_TEAM_SIZE;
        p.team_size = n - 1;
        o.size_vs_oob = ucc_team_create_post(&e.ctx, 1, &p, &t);
        p = good;
        p.ep = (rank + 1) % n;
        o.ep_vs_oob_ep = ucc_team_create_post(&e.ctx, 1, &p, &t);
        p = good;
        p.mask &= ~static_cast<uint64_t>(UCC_TEAM_PARAM_FIELD_EP);
        p.oob.oob_ep = n;
        o.oob_ep_range = ucc_team_create_post(&e.ctx, 1, &p, &t);
        p = good;
        p.oob.allgather = nullptr;
        o.oob_null_cb = ucc_team_create_post(&e.ctx, 1, &p, &t);
        p = full_map_params(n, 9);
        p.mask |= UCC_TEAM_PARAM_FIELD_TEAM_SIZE;
        p.team_size = 2;
        o.map_vs_size = ucc_team_create_post(&e.ctx, 1, &p, &t);
        p = full_map_params(n, 9);
        p.ep_map.type = UCC_EP_MAP_STRIDED;
        p.ep_map.strided.start = 0;
        p.ep_map.strided.stride = 5;  // context eps 0, 5, 10 of 3
        o.map_out_of_range = ucc_team_create_post(&e.ctx, 1, &p, &t);
        p = full_map_params(n, 9);
        p.ep_map.type = static_cast<ucc_ep_map_type_t>(7);
        o.map_type = ucc_team_create_post(&e.ctx, 1, &p, &t);
        p = full_map_params(n, 9);
        uint8_t bytes[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
        p.ep_map.type = UCC_EP_MAP_ARRAY;
        p.ep_map.array.map = bytes;
        p.ep_map.array.elem_size = 3;
        o.map_elem_size = ucc_team_create_post(&e.ctx, 1, &p, &t);
        p = full_map_params(n, 9);
        p.ep_map.ep_num = 2;
        o.full_map_wrong_num = ucc_team_create_post(&e.ctx, 1, &p, &t);
        p = good;
        p.mask |= UCC_TEAM_PARAM_FIELD_ORDERING;
        p.ordering = static_cast<ucc_post_ordering_t>(7);
        o.bad_ordering = ucc_team_create_post(&e.ctx, 1, &p, &t);
        // A map of context eps {0, 1}: rank 2 is not in it; the others are
        // members and create the team (with an id: no communication).
        p = full_map_params(n, 9);
        p.ep_map.type = UCC_EP_MAP_STRIDED;
        p.ep_map.ep_num = 2;
        p.ep_map.strided.start = 0;
        p.ep_map.strided.stride = 1;
        o.map_without_me = create_team(e.ctx, p, &t);
        if (o.map_without_me == UCC_OK) {
            STEP(o.s, destroy_team(t));
        }
        // Nothing else was created: the context is free of teams.
        o.all_destroyable = close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_EQ(o.zero_contexts, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.two_contexts, UCC_ERR_NOT_SUPPORTED);
        EXPECT_EQ(o.size_vs_oob, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.ep_vs_oob_ep, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.oob_ep_range, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.oob_null_cb, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.map_vs_size, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.map_out_of_range, UCC_ERR_INVALID_PARAM) << "rank " << r;
        EXPECT_EQ(o.map_type, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.map_elem_size, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.full_map_wrong_num, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.bad_ordering, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.map_without_me, r < 2 ? UCC_OK : UCC_ERR_INVALID_PARAM) << "rank " << r;
        EXPECT_TRUE(o.all_destroyable) << "rank " << r;
    }
}

TEST(ApiLifecycle, OverlappingTeamCreationAndUseBeforeReady) {
    constexpr uint32_t n = 3;
    struct R {
        Steps s;
        ucc_status_t overlap = UCC_OK;
        ucc_status_t destroy_creating = UCC_OK;
        ucc_status_t init_creating = UCC_OK;
        ucc_status_t attr_creating = UCC_OK;
        ucc_status_t first = UCC_ERR_LAST;
        ucc_status_t second = UCC_ERR_LAST;
        int64_t sum1 = -1;
        int64_t sum2 = -1;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        if (!open_env(&e, &o.s)) {
            return;
        }
        ucc_team_params_t tp = team_oob_params(rank, &o.s);
        ucc_team_h t1 = nullptr;
        if (!STEP(o.s, ucc_team_create_post(&e.ctx, 1, &tp, &t1))) {
            return;
        }
        // No progress has happened since the post: t1 is still being created.
        ucc_team_params_t tp2 = full_map_params(n, 44);
        ucc_team_h t2 = nullptr;
        o.overlap = ucc_team_create_post(&e.ctx, 1, &tp2, &t2);
        o.destroy_creating = ucc_team_destroy(t1);
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_BARRIER;
        ucc_coll_req_h req = nullptr;
        o.init_creating = ucc_collective_init(&a, &req, t1);
        ucc_team_attr_t at{};
        at.mask = UCC_TEAM_ATTR_FIELD_SIZE;
        o.attr_creating = ucc_team_get_attr(t1, &at);
        o.first = wait_team(e.ctx, t1);
        o.second = create_team(e.ctx, tp2, &t2);
        if (o.first == UCC_OK && o.second == UCC_OK) {
            STEP(o.s, team_sum(e.ctx, t1, rank, &o.sum1));
            STEP(o.s, team_sum(e.ctx, t2, 2 * rank, &o.sum2));
            STEP(o.s, destroy_team(t2));
        }
        STEP(o.s, destroy_team(t1));
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_EQ(o.overlap, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.destroy_creating, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.init_creating, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.attr_creating, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.first, UCC_OK);
        EXPECT_EQ(o.second, UCC_OK);
        EXPECT_EQ(o.sum1, 0 + 1 + 2);
        EXPECT_EQ(o.sum2, 0 + 2 + 4);
    }
}

// As the reference's: an exclusive context holds several teams at once.
TEST(ApiLifecycle, ExclusiveContextHoldsSeveralTeams) {
    constexpr uint32_t n = 3;
    struct R {
        Steps s;
        ucc_status_t second_while_first = UCC_ERR_LAST;
        int64_t sum = -1;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        if (!open_env(&e, &o.s, UCC_CONTEXT_EXCLUSIVE)) {
            return;
        }
        ucc_team_h t1 = nullptr;
        ucc_team_h t2 = nullptr;
        if (STEP(o.s, create_team(e.ctx, full_map_params(n, 1), &t1))) {
            ucc_team_params_t p2 = full_map_params(n, 2);
            o.second_while_first = create_team(e.ctx, p2, &t2);
            if (o.second_while_first == UCC_OK) {
                STEP(o.s, team_sum(e.ctx, t2, rank + 1, &o.sum));
                STEP(o.s, destroy_team(t2));
            }
            STEP(o.s, destroy_team(t1));
        }
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        EXPECT_EQ(out[r].s.failure, "") << "rank " << r;
        EXPECT_EQ(out[r].second_while_first, UCC_OK);
        EXPECT_EQ(out[r].sum, 6);
    }
}

// API.md §5 #24: a team whose creation failed can (and must) be destroyed.
TEST(ApiLifecycle, FailedTeamCreationIsDestroyable) {
    constexpr uint32_t n = 3;
    struct R {
        Steps s;
        ucc_status_t create = UCC_OK;
        ucc_status_t init = UCC_OK;
        ucc_status_t destroy = UCC_ERR_LAST;
        int64_t sum_after = -1;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        if (!open_env(&e, &o.s)) {
            return;
        }
        // Members disagree on the user team id.
        ucc_team_params_t tp = team_oob_params(rank, &o.s);
        tp.mask |= UCC_TEAM_PARAM_FIELD_ID;
        tp.id = 100 + rank;
        ucc_team_h t = nullptr;
        if (STEP(o.s, ucc_team_create_post(&e.ctx, 1, &tp, &t))) {
            o.create = wait_team(e.ctx, t);
            ucc_coll_args_t a{};
            a.coll_type = UCC_COLL_TYPE_BARRIER;
            ucc_coll_req_h req = nullptr;
            o.init = ucc_collective_init(&a, &req, t);
            o.destroy = destroy_team(t);
        }
        // The context is usable afterwards.
        ucc_team_h good = nullptr;
        if (STEP(o.s, create_team(e.ctx, team_oob_params(rank, &o.s), &good))) {
            STEP(o.s, team_sum(e.ctx, good, rank, &o.sum_after));
            STEP(o.s, destroy_team(good));
        }
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        EXPECT_EQ(out[r].s.failure, "") << "rank " << r;
        EXPECT_LT(out[r].create, 0) << "rank " << r;
        EXPECT_EQ(out[r].init, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(out[r].destroy, UCC_OK);
        EXPECT_EQ(out[r].sum_after, 3);
    }
}

TEST(ApiLifecycle, TeamDestroyDoesNotWaitForFinalize) {
    constexpr uint32_t n = 3;
    struct R {
        Steps s;
        ucc_status_t destroy_initialized = UCC_OK;
        ucc_status_t post_after_destroy = UCC_OK;
        ucc_status_t finalize_after_destroy = UCC_ERR_LAST;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        ucc_team_h t = nullptr;
        if (!open_env(&e, &o.s) ||
            !STEP(o.s, create_team(e.ctx, team_oob_params(rank, &o.s), &t))) {
            return;
        }
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_BARRIER;
        ucc_coll_req_h req = nullptr;
        if (STEP(o.s, ucc_collective_init(&a, &req, t))) {
            o.destroy_initialized = ucc_team_destroy(t);
            o.post_after_destroy = ucc_collective_post(req);
            o.finalize_after_destroy = ucc_collective_finalize(req);
        }
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        EXPECT_EQ(out[r].s.failure, "") << "rank " << r;
        EXPECT_EQ(out[r].destroy_initialized, UCC_OK);  // a program can always tear down
        EXPECT_EQ(out[r].post_after_destroy, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(out[r].finalize_after_destroy, UCC_OK);
    }
}

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

// Rank 0 posts an allreduce on team Y before anyone else can: the others first
// wait in a barrier on team X that rank 0 joins only after its checks, so its
// request is certainly still in progress while it checks.
TEST(ApiRequest, StateMachine) {
    constexpr uint32_t n = 3;
    struct R {
        Steps s;
        ucc_status_t after_init = UCC_ERR_LAST;
        ucc_status_t after_post = UCC_ERR_LAST;
        ucc_status_t finalize_inprogress = UCC_OK;
        ucc_status_t post_inprogress = UCC_OK;
        ucc_status_t after_refusals = UCC_ERR_LAST;
        ucc_status_t completed = UCC_ERR_LAST;
        int64_t sum = -1;
        ucc_status_t repost = UCC_OK;
        ucc_status_t after_repost = UCC_ERR_LAST;
        ucc_status_t finalize = UCC_ERR_LAST;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        ucc_team_h x = nullptr;
        ucc_team_h y = nullptr;
        if (!open_env(&e, &o.s) || !STEP(o.s, create_team(e.ctx, full_map_params(n, 1), &x)) ||
            !STEP(o.s, create_team(e.ctx, full_map_params(n, 2), &y))) {
            return;
        }
        ucc_coll_args_t barrier{};
        barrier.coll_type = UCC_COLL_TYPE_BARRIER;
        int64_t mine = rank + 1;
        ucc_coll_args_t ar = allreduce_i64(&mine, &o.sum, 1);
        ucc_coll_req_h req = nullptr;
        if (rank != 0) {
            STEP(o.s, run_coll(e.ctx, x, barrier));
        }
        if (!STEP(o.s, ucc_collective_init(&ar, &req, y))) {
            return;
        }
        o.after_init = ucc_collective_test(req);
        STEP(o.s, ucc_collective_post(req));
        o.after_post = ucc_collective_test(req);
        if (rank == 0) {
            o.finalize_inprogress = ucc_collective_finalize(req);
            o.post_inprogress = ucc_collective_post(req);
            o.after_refusals = ucc_collective_test(req);
            STEP(o.s, run_coll(e.ctx, x, barrier));
        }
        o.completed = wait_req(e.ctx, req);
        o.repost = ucc_collective_post(req);
        o.after_repost = ucc_collective_test(req);
        o.finalize = ucc_collective_finalize(req);
        STEP(o.s, destroy_team(x));
        STEP(o.s, destroy_team(y));
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_EQ(o.after_init, UCC_OPERATION_INITIALIZED) << "rank " << r;
        if (r == 0) {
            EXPECT_EQ(o.after_post, UCC_INPROGRESS);
            EXPECT_EQ(o.finalize_inprogress, UCC_ERR_INVALID_PARAM);
            EXPECT_EQ(o.post_inprogress, UCC_ERR_INVALID_PARAM);
            EXPECT_EQ(o.after_refusals, UCC_INPROGRESS);
        } else {
            EXPECT_TRUE(o.after_post == UCC_INPROGRESS || o.after_post == UCC_OK)
                << "rank " << r << ": " << o.after_post;
        }
        EXPECT_EQ(o.completed, UCC_OK) << "rank " << r;
        EXPECT_EQ(o.sum, 6) << "rank " << r;
        EXPECT_EQ(o.repost, UCC_ERR_INVALID_PARAM) << "rank " << r;
        EXPECT_EQ(o.after_repost, UCC_OK) << "rank " << r;
        EXPECT_EQ(o.finalize, UCC_OK) << "rank " << r;
    }
}

TEST(ApiRequest, PersistentRepostFiveTimesWithChangingInputs) {
    constexpr uint32_t n = 4;
    constexpr int kPosts = 5;
    struct R {
        Steps s;
        std::vector<ucc_status_t> post;
        std::vector<ucc_status_t> done;
        std::vector<std::vector<int64_t>> sums;
        std::vector<std::vector<int32_t>> bcasts;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(
        n,
        [&](uint32_t rank) {
            R &o = out[rank];
            Env e;
            ucc_team_h t = nullptr;
            if (!open_env(&e, &o.s) ||
                !STEP(o.s, create_team(e.ctx, team_oob_params(rank, &o.s), &t))) {
                return;
            }
            int64_t src[3];
            int64_t dst[3];
            ucc_coll_args_t ar = allreduce_i64(src, dst, 3);
            ar.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            ar.flags = UCC_COLL_ARGS_FLAG_PERSISTENT;
            int32_t buf[4];
            ucc_coll_args_t bc{};
            bc.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            bc.flags = UCC_COLL_ARGS_FLAG_PERSISTENT;
            bc.coll_type = UCC_COLL_TYPE_BCAST;
            bc.root = 2;
            bc.src.info = info(buf, 4, UCC_DT_INT32);
            ucc_coll_req_h rar = nullptr;
            ucc_coll_req_h rbc = nullptr;
            if (!STEP(o.s, ucc_collective_init(&ar, &rar, t)) ||
                !STEP(o.s, ucc_collective_init(&bc, &rbc, t))) {
                return;
            }
            for (int k = 0; k < kPosts; ++k) {
                for (int i = 0; i < 3; ++i) {
                    src[i] = (rank + 1) * (k + 1) + i * 1000;
                    dst[i] = -1;
                }
                for (int i = 0; i < 4; ++i) {
                    buf[i] = rank == 2 ? 10 * k + i : -7;
                }
                o.post.push_back(ucc_collective_post(rar));
                o.done.push_back(wait_req(e.ctx, rar));
                o.sums.emplace_back(dst, dst + 3);
                o.post.push_back(ucc_collective_post(rbc));
                o.done.push_back(wait_req(e.ctx, rbc));
                o.bcasts.emplace_back(buf, buf + 4);
            }
            STEP(o.s, ucc_collective_finalize(rar));
            STEP(o.s, ucc_collective_finalize(rbc));
            STEP(o.s, destroy_team(t));
            close_env(&e, &o.s);
        },
        "slow", 5);
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        ASSERT_EQ(o.post.size(), 2u * kPosts);
        for (size_t i = 0; i < o.post.size(); ++i) {
            EXPECT_EQ(o.post[i], UCC_OK) << "rank " << r << " post " << i;
            EXPECT_EQ(o.done[i], UCC_OK) << "rank " << r << " post " << i;
        }
        for (int k = 0; k < kPosts; ++k) {
            for (int i = 0; i < 3; ++i) {
                EXPECT_EQ(o.sums[k][i], 10 * (k + 1) + 4 * i * 1000) << "rank " << r;
            }
            for (int i = 0; i < 4; ++i) {
                EXPECT_EQ(o.bcasts[k][i], 10 * k + i) << "rank " << r;
            }
        }
    }
}

namespace {

struct CbLog {
    int calls = 0;
    ucc_status_t last = UCC_ERR_LAST;
    ucc_status_t request_status = UCC_ERR_LAST;  // ucc_collective_test inside the callback
    ucc_coll_req_h req = nullptr;
    bool finalize_inside = false;
    ucc_status_t finalize = UCC_ERR_LAST;
};

void log_cb(void *data, ucc_status_t st) {
    auto *l = static_cast<CbLog *>(data);
    ++l->calls;
    l->last = st;
    if (l->req != nullptr) {
        l->request_status = ucc_collective_test(l->req);
        if (l->finalize_inside) {
            l->finalize = ucc_collective_finalize(l->req);
            l->req = nullptr;
        }
    }
}

ucc_coll_args_t with_cb(ucc_coll_args_t a, CbLog *log) {
    a.mask |= UCC_COLL_ARGS_FIELD_CB;
    a.cb.cb = log_cb;
    a.cb.data = log;
    return a;
}

}  // namespace

TEST(ApiRequest, CompletionCallbacks) {
    constexpr uint32_t n = 4;
    struct R {
        Steps s;
        CbLog persistent;
        std::vector<int> calls_after_each;  // persistent: calls seen after each completion
        int calls_at_init = -1;
        CbLog zero;
        int zero_calls_after_post = -1;
        CbLog fin;
        int64_t fin_sum = -1;
        CbLog zero_fin;
        CbLog barrier_fin;
        ucc_status_t destroy = UCC_ERR_LAST;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        ucc_team_h t = nullptr;
        if (!open_env(&e, &o.s) || !STEP(o.s, create_team(e.ctx, full_map_params(n, 8), &t))) {
            return;
        }
        // Persistent, three posts: one call per completion.
        int64_t v = rank;
        int64_t sum = -1;
        ucc_coll_args_t a = with_cb(allreduce_i64(&v, &sum, 1), &o.persistent);
        a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_PERSISTENT;
        ucc_coll_req_h req = nullptr;
        if (STEP(o.s, ucc_collective_init(&a, &req, t))) {
            o.persistent.req = req;
            o.calls_at_init = o.persistent.calls;
            for (int k = 0; k < 3; ++k) {
                STEP(o.s, ucc_collective_post(req));
                STEP(o.s, wait_req(e.ctx, req));
                o.calls_after_each.push_back(o.persistent.calls);
            }
            STEP(o.s, ucc_collective_finalize(req));
        }
        // Zero-size: the callback runs once, at post.
        ucc_coll_args_t z = with_cb(allreduce_i64(nullptr, nullptr, 0), &o.zero);
        if (STEP(o.s, ucc_collective_init(&z, &req, t))) {
            o.zero.req = req;
            STEP(o.s, ucc_collective_post(req));
            o.zero_calls_after_post = o.zero.calls;
            STEP(o.s, wait_req(e.ctx, req));
            STEP(o.s, ucc_collective_finalize(req));
        }
        // Finalized from inside the callback: an allreduce, a zero-size bcast, a barrier.
        o.fin.finalize_inside = true;
        ucc_coll_args_t f = with_cb(allreduce_i64(&v, &o.fin_sum, 1), &o.fin);
        if (STEP(o.s, ucc_collective_init(&f, &req, t))) {
            o.fin.req = req;
            STEP(o.s, ucc_collective_post(req));
            while (o.fin.calls == 0) {
                ucc_context_progress(e.ctx);
            }
        }
        o.zero_fin.finalize_inside = true;
        ucc_coll_args_t zb{};
        zb.coll_type = UCC_COLL_TYPE_BCAST;
        zb.root = 1;
        zb.src.info = info(nullptr, 0, UCC_DT_INT8);
        zb = with_cb(zb, &o.zero_fin);
        if (STEP(o.s, ucc_collective_init(&zb, &req, t))) {
            o.zero_fin.req = req;
            STEP(o.s, ucc_collective_post(req));
        }
        o.barrier_fin.finalize_inside = true;
        ucc_coll_args_t b{};
        b.coll_type = UCC_COLL_TYPE_BARRIER;
        b = with_cb(b, &o.barrier_fin);
        if (STEP(o.s, ucc_collective_init(&b, &req, t))) {
            o.barrier_fin.req = req;
            STEP(o.s, ucc_collective_post(req));
            while (o.barrier_fin.calls == 0) {
                ucc_context_progress(e.ctx);
            }
        }
        // Every request is finalized: the team can go.
        o.destroy = destroy_team(t);
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_EQ(o.calls_at_init, 0);
        EXPECT_EQ(o.calls_after_each, (std::vector<int>{1, 2, 3})) << "rank " << r;
        EXPECT_EQ(o.persistent.calls, 3) << "finalize does not call it";
        EXPECT_EQ(o.persistent.last, UCC_OK);
        EXPECT_EQ(o.persistent.request_status, UCC_OK) << "status is final in the callback";
        EXPECT_EQ(o.zero_calls_after_post, 1) << "rank " << r;
        EXPECT_EQ(o.zero.calls, 1);
        EXPECT_EQ(o.zero.last, UCC_OK);
        EXPECT_EQ(o.fin.calls, 1);
        EXPECT_EQ(o.fin.last, UCC_OK);
        EXPECT_EQ(o.fin.request_status, UCC_OK);
        EXPECT_EQ(o.fin.finalize, UCC_OK);
        EXPECT_EQ(o.fin_sum, 0 + 1 + 2 + 3);
        EXPECT_EQ(o.zero_fin.calls, 1);
        EXPECT_EQ(o.zero_fin.finalize, UCC_OK);
        EXPECT_EQ(o.barrier_fin.calls, 1);
        EXPECT_EQ(o.barrier_fin.finalize, UCC_OK);
        EXPECT_EQ(o.destroy, UCC_OK) << "rank " << r;
    }
}

TEST(ApiRequest, InitAndPost) {
    constexpr uint32_t n = 4;
    struct R {
        Steps s;
        ucc_status_t after = UCC_ERR_LAST;
        ucc_status_t done = UCC_ERR_LAST;
        int64_t sum[2] = {-1, -1};
        ucc_status_t invalid = UCC_OK;
        bool invalid_left_request_alone = false;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        ucc_team_h t = nullptr;
        if (!open_env(&e, &o.s) ||
            !STEP(o.s, create_team(e.ctx, team_oob_params(rank, &o.s), &t))) {
            return;
        }
        int64_t v[2] = {static_cast<int64_t>(rank), 1};
        ucc_coll_args_t a = allreduce_i64(v, o.sum, 2);
        ucc_coll_req_h req = nullptr;
        if (STEP(o.s, ucc_collective_init_and_post(&a, &req, t))) {
            o.after = ucc_collective_test(req);
            o.done = wait_req(e.ctx, req);
            STEP(o.s, ucc_collective_finalize(req));
        }
        ucc_coll_args_t bad{};
        bad.coll_type = UCC_COLL_TYPE_BCAST;
        bad.root = n;
        bad.src.info = info(v, 2, UCC_DT_INT64);
        ucc_coll_req_h untouched = reinterpret_cast<ucc_coll_req_h>(&o);
        o.invalid = ucc_collective_init_and_post(&bad, &untouched, t);
        o.invalid_left_request_alone = untouched == reinterpret_cast<ucc_coll_req_h>(&o);
        STEP(o.s, destroy_team(t));
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_TRUE(o.after == UCC_INPROGRESS || o.after == UCC_OK) << o.after;
        EXPECT_EQ(o.done, UCC_OK);
        EXPECT_EQ(o.sum[0], 6);
        EXPECT_EQ(o.sum[1], 4);
        EXPECT_EQ(o.invalid, UCC_ERR_INVALID_PARAM);
        EXPECT_TRUE(o.invalid_left_request_alone);
    }
}

TEST(ApiRequest, ZeroCountWithNullBuffersCompleteAtPost) {
    constexpr uint32_t n = 3;
    const ucc_coll_type_t types[] = {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_BCAST,
                                     UCC_COLL_TYPE_REDUCE,    UCC_COLL_TYPE_ALLGATHER,
                                     UCC_COLL_TYPE_ALLTOALL,  UCC_COLL_TYPE_GATHER,
                                     UCC_COLL_TYPE_SCATTER,   UCC_COLL_TYPE_REDUCE_SCATTER};
    constexpr size_t kTypes = sizeof(types) / sizeof(types[0]);
    struct R {
        Steps s;
        std::vector<ucc_status_t> init;
        std::vector<ucc_status_t> post;
        std::vector<ucc_status_t> right_after_post;
        std::vector<ucc_status_t> finalize;
        ucc_status_t barrier = UCC_ERR_LAST;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        ucc_team_h t = nullptr;
        if (!open_env(&e, &o.s) || !STEP(o.s, create_team(e.ctx, full_map_params(n, 4), &t))) {
            return;
        }
        for (ucc_coll_type_t type : types) {
            ucc_coll_args_t a{};
            a.coll_type = type;
            a.op = UCC_OP_SUM;
            a.root = 1;
            a.src.info = info(nullptr, 0, UCC_DT_FLOAT32);
            a.dst.info = info(nullptr, 0, UCC_DT_FLOAT32);
            ucc_coll_req_h req = nullptr;
            o.init.push_back(ucc_collective_init(&a, &req, t));
            if (o.init.back() != UCC_OK) {
                continue;
            }
            o.post.push_back(ucc_collective_post(req));
            o.right_after_post.push_back(ucc_collective_test(req));
            wait_req(e.ctx, req);
            o.finalize.push_back(ucc_collective_finalize(req));
        }
        ucc_coll_args_t b{};
        b.coll_type = UCC_COLL_TYPE_BARRIER;
        o.barrier = run_coll(e.ctx, t, b);
        STEP(o.s, destroy_team(t));
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        ASSERT_EQ(o.init.size(), kTypes);
        for (size_t i = 0; i < kTypes; ++i) {
            EXPECT_EQ(o.init[i], UCC_OK) << "rank " << r << " type " << types[i];
        }
        ASSERT_EQ(o.post.size(), kTypes);
        for (size_t i = 0; i < kTypes; ++i) {
            EXPECT_EQ(o.post[i], UCC_OK) << "type " << types[i];
            EXPECT_EQ(o.right_after_post[i], UCC_OK) << "rank " << r << " type " << types[i];
            EXPECT_EQ(o.finalize[i], UCC_OK) << "type " << types[i];
        }
        EXPECT_EQ(o.barrier, UCC_OK);
    }
}

// ---------------------------------------------------------------------------
// Timeouts and deadlocks
// ---------------------------------------------------------------------------

TEST(ApiTimeout, OneRankNeverPostsOthersTimeOut) {
    constexpr uint32_t n = 4;
    constexpr uint32_t kSkipper = 3;
    constexpr double kTimeout = 1e-3;
    struct R {
        Steps s;
        double post_t = -1;
        double done_t = -1;
        ucc_status_t final_status = UCC_ERR_LAST;
        int progress_timed_out = 0;    // progress calls that returned UCC_ERR_TIMED_OUT
        int progress_other_error = 0;  // progress calls that returned another error
        CbLog cb;
        ucc_status_t repost = UCC_OK;
        ucc_status_t finalize = UCC_ERR_LAST;
        ucc_status_t next_init = UCC_OK;
        ucc_status_t early_post = UCC_OK;  // a request initialized before the failure
        ucc_status_t early_status = UCC_OK;
        ucc_status_t early_finalize = UCC_ERR_LAST;
        ucc_status_t destroy = UCC_ERR_LAST;
        bool torn_down = false;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        ucc_team_h t = nullptr;
        if (!open_env(&e, &o.s) || !STEP(o.s, create_team(e.ctx, full_map_params(n, 6), &t))) {
            return;
        }
        if (rank != kSkipper) {
            int64_t v = rank;
            int64_t sum = -1;
            ucc_coll_args_t a = with_cb(allreduce_i64(&v, &sum, 1), &o.cb);
            a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT | UCC_COLL_ARGS_FLAG_PERSISTENT;
            a.timeout = kTimeout;
            ucc_coll_args_t early{};
            early.coll_type = UCC_COLL_TYPE_BARRIER;
            ucc_coll_req_h early_req = nullptr;
            STEP(o.s, ucc_collective_init(&early, &early_req, t));
            ucc_coll_req_h req = nullptr;
            if (STEP(o.s, ucc_collective_init(&a, &req, t))) {
                o.cb.req = req;
                o.post_t = ucc_sim_now();
                STEP(o.s, ucc_collective_post(req));
                while (ucc_collective_test(req) == UCC_INPROGRESS) {
                    ucc_status_t st = ucc_context_progress(e.ctx);
                    if (st == UCC_ERR_TIMED_OUT) {
                        ++o.progress_timed_out;
                    } else if (st != UCC_OK) {
                        ++o.progress_other_error;
                    }
                }
                o.done_t = ucc_sim_now();
                o.final_status = ucc_collective_test(req);
                // An errored persistent request cannot be posted again.
                o.repost = ucc_collective_post(req);
                o.finalize = ucc_collective_finalize(req);
            }
            // The team's failure is sticky: a request initialized before it
            // fails at post (and must still be finalized) ...
            if (early_req != nullptr) {
                o.early_post = ucc_collective_post(early_req);
                o.early_status = ucc_collective_test(early_req);
                o.early_finalize = ucc_collective_finalize(early_req);
            }
            // ... and a new one fails at init.
            ucc_coll_args_t b{};
            b.coll_type = UCC_COLL_TYPE_BARRIER;
            ucc_coll_req_h req2 = nullptr;
            o.next_init = ucc_collective_init(&b, &req2, t);
            if (o.next_init == UCC_OK) {
                ucc_collective_finalize(req2);
            }
        }
        o.destroy = destroy_team(t);
        o.torn_down = close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_EQ(o.destroy, UCC_OK) << "rank " << r;
        EXPECT_TRUE(o.torn_down) << "rank " << r;
        if (r == kSkipper) {
            continue;
        }
        EXPECT_EQ(o.final_status, UCC_ERR_TIMED_OUT) << "rank " << r;
        EXPECT_GE(o.done_t, o.post_t + kTimeout - 1e-12) << "rank " << r << ": too early";
        EXPECT_LT(o.done_t, o.post_t + kTimeout + 1e-4) << "rank " << r << ": too late";
        EXPECT_EQ(o.progress_timed_out, 1) << "rank " << r;
        EXPECT_EQ(o.progress_other_error, 0) << "rank " << r;
        EXPECT_EQ(o.cb.calls, 1) << "rank " << r;
        EXPECT_EQ(o.cb.last, UCC_ERR_TIMED_OUT);
        EXPECT_EQ(o.cb.request_status, UCC_ERR_TIMED_OUT);
        EXPECT_EQ(o.repost, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(o.finalize, UCC_OK);
        EXPECT_LT(o.next_init, 0) << "rank " << r << ": the team failure must be sticky";
        EXPECT_LT(o.early_post, 0) << "rank " << r;
        EXPECT_LT(o.early_status, 0) << "rank " << r;
        EXPECT_EQ(o.early_finalize, UCC_OK) << "rank " << r;
    }
}

// A timeout that is not reached changes nothing: the collective completes
// normally, progress never reports UCC_ERR_TIMED_OUT and the team stays usable.
TEST(ApiTimeout, CompletesBeforeTheTimeout) {
    constexpr uint32_t n = 4;
    struct R {
        Steps s;
        std::vector<ucc_status_t> status;
        std::vector<int64_t> sums;
        int progress_errors = 0;
        double last_done = -1;
        ucc_status_t barrier_after = UCC_ERR_LAST;
    };
    std::vector<R> out(n);
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        ucc_team_h t = nullptr;
        if (!open_env(&e, &o.s) || !STEP(o.s, create_team(e.ctx, full_map_params(n, 13), &t))) {
            return;
        }
        int64_t v = 0;
        int64_t sum = -1;
        ucc_coll_args_t a = allreduce_i64(&v, &sum, 1);
        a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT | UCC_COLL_ARGS_FLAG_PERSISTENT;
        a.timeout = 1e-3;
        ucc_coll_req_h req = nullptr;
        if (STEP(o.s, ucc_collective_init(&a, &req, t))) {
            // Each post gets a fresh deadline: 3 posts take longer than one timeout.
            for (int k = 0; k < 3; ++k) {
                v = rank * (k + 1);
                double start = ucc_sim_now();
                STEP(o.s, ucc_collective_post(req));
                while (ucc_collective_test(req) == UCC_INPROGRESS) {
                    o.progress_errors += ucc_context_progress(e.ctx) != UCC_OK;
                }
                o.status.push_back(ucc_collective_test(req));
                o.sums.push_back(sum);
                // Let virtual time pass (0.6 ms) before the next post; the
                // ranks agree (allreduce) on when to stop.
                for (int64_t more = 1; more != 0;) {
                    int64_t mine = ucc_sim_now() < start + 6e-4 ? 1 : 0;
                    if (!STEP(o.s, team_sum(e.ctx, t, mine, &more))) {
                        break;
                    }
                }
            }
            o.last_done = ucc_sim_now();
            STEP(o.s, ucc_collective_finalize(req));
        }
        ucc_coll_args_t b{};
        b.coll_type = UCC_COLL_TYPE_BARRIER;
        o.barrier_after = run_coll(e.ctx, t, b);
        STEP(o.s, destroy_team(t));
        close_env(&e, &o.s);
    });
    ASSERT_EQ(run, UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_EQ(o.status, std::vector<ucc_status_t>(3, UCC_OK)) << "rank " << r;
        EXPECT_EQ(o.sums, (std::vector<int64_t>{6, 12, 18})) << "rank " << r;
        EXPECT_EQ(o.progress_errors, 0) << "rank " << r;
        EXPECT_GT(o.last_done, 1.5e-3) << "the three posts together outlast one timeout";
        EXPECT_EQ(o.barrier_after, UCC_OK) << "rank " << r;
    }
}

// Rank 0 posts a bcast rooted at rank 1 (so it must receive: sends are eager
// and a root would complete alone); the others never post and wait in
// progress. The simulator detects the deadlock, reports it, and every rank
// unwinds through errors.
TEST(ApiTimeout, DeadlockEndsTheRunAndRanksUnwind) {
    constexpr uint32_t n = 3;
    struct R {
        Steps s;
        ucc_status_t progress_error = UCC_OK;
        ucc_status_t request_status = UCC_INPROGRESS;
        CbLog cb;
        ucc_status_t finalize = UCC_ERR_LAST;
        bool torn_down = false;
    };
    std::vector<R> out(n);
    auto t0 = std::chrono::steady_clock::now();
    ucc_status_t run = simulate(n, [&](uint32_t rank) {
        R &o = out[rank];
        Env e;
        ucc_team_h t = nullptr;
        if (!open_env(&e, &o.s) || !STEP(o.s, create_team(e.ctx, full_map_params(n, 12), &t))) {
            return;
        }
        if (rank == 0) {
            uint64_t v = 0;
            ucc_coll_args_t a{};
            a.coll_type = UCC_COLL_TYPE_BCAST;
            a.root = 1;
            a.src.info = info(&v, 1, UCC_DT_UINT64);
            a = with_cb(a, &o.cb);
            ucc_coll_req_h req = nullptr;
            if (STEP(o.s, ucc_collective_init(&a, &req, t)) &&
                STEP(o.s, ucc_collective_post(req))) {
                while (ucc_collective_test(req) == UCC_INPROGRESS) {
                    ucc_status_t st = ucc_context_progress(e.ctx);
                    if (st != UCC_OK && o.progress_error == UCC_OK) {
                        o.progress_error = st;
                    }
                }
                o.request_status = ucc_collective_test(req);
                o.finalize = ucc_collective_finalize(req);
            }
        } else {
            ucc_status_t st;
            while ((st = ucc_context_progress(e.ctx)) == UCC_OK) {
            }
            o.progress_error = st;
        }
        STEP(o.s, destroy_team(t));
        o.torn_down = close_env(&e, &o.s);
    });
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(run, UCC_ERR_NO_MESSAGE);
    EXPECT_LT(wall, 10.0);
    for (uint32_t r = 0; r < n; ++r) {
        const R &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_LT(o.progress_error, 0) << "rank " << r;
        EXPECT_TRUE(o.torn_down) << "rank " << r;
    }
    EXPECT_LT(out[0].request_status, 0);
    EXPECT_EQ(out[0].cb.calls, 1);
    EXPECT_LT(out[0].cb.last, 0);
    EXPECT_EQ(out[0].finalize, UCC_OK);
}

// ---------------------------------------------------------------------------
// ucc_collective_init argument rules V1-V13 (model/VALIDITY.md), 3 ranks
// ---------------------------------------------------------------------------

namespace {

constexpr uint32_t kInitRanks = 3;
constexpr ucc_status_t kOk = UCC_OK;
constexpr ucc_status_t kInv = UCC_ERR_INVALID_PARAM;
constexpr ucc_status_t kNs = UCC_ERR_NOT_SUPPORTED;

struct InitCase {
    std::string name;
    std::function<ucc_coll_args_t(uint32_t rank)> args;
    std::vector<ucc_status_t> want;  // per rank
};

std::vector<ucc_status_t> all(ucc_status_t st) {
    return std::vector<ucc_status_t>(kInitRanks, st);
}

// Buffers the cases point at; ucc_collective_init never touches them.
int64_t g_src[64];
int64_t g_dst[64];

ucc_coll_args_t args_of(ucc_coll_type_t t, uint64_t src_count = 6, uint64_t dst_count = 6,
                        ucc_datatype_t dt = UCC_DT_INT32) {
    ucc_coll_args_t a{};
    a.coll_type = t;
    a.op = UCC_OP_SUM;
    a.src.info = info(g_src, src_count, dt);
    a.dst.info = info(g_dst, dst_count, dt);
    return a;
}

ucc_coll_args_t with_flags(ucc_coll_args_t a, uint64_t flags) {
    a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = flags;
    return a;
}

InitCase same(std::string name, ucc_coll_args_t a, ucc_status_t want) {
    return InitCase{std::move(name), [a](uint32_t) { return a; }, all(want)};
}

// Runs every case's ucc_collective_init on kInitRanks simulated ranks (team
// ordered, or unordered) and compares each rank's status with the case's.
void expect_init_statuses(const std::vector<InitCase> &cases, bool unordered = false) {
    std::vector<Steps> steps(kInitRanks);
    std::vector<std::vector<ucc_status_t>> got(cases.size(),
                                               std::vector<ucc_status_t>(kInitRanks, UCC_ERR_LAST));
    std::vector<std::vector<bool>> req_set(cases.size(), std::vector<bool>(kInitRanks, true));
    ucc_status_t run = simulate(kInitRanks, [&](uint32_t rank) {
        Steps &s = steps[rank];
        Env e;
        ucc_team_params_t tp = full_map_params(kInitRanks, 50);
        if (unordered) {
            tp.mask |= UCC_TEAM_PARAM_FIELD_ORDERING;
            tp.ordering = UCC_COLLECTIVE_POST_UNORDERED;
        }
        ucc_team_h t = nullptr;
        if (!open_env(&e, &s) || !STEP(s, create_team(e.ctx, tp, &t))) {
            return;
        }
        for (size_t i = 0; i < cases.size(); ++i) {
            ucc_coll_args_t a = cases[i].args(rank);
            ucc_coll_req_h req = nullptr;
            got[i][rank] = ucc_collective_init(&a, &req, t);
            if (got[i][rank] == UCC_OK) {
                req_set[i][rank] = req != nullptr;
                if (req != nullptr) {
                    STEP(s, ucc_collective_finalize(req));
                }
            } else {
                req_set[i][rank] = req == nullptr;  // no request on error
            }
        }
        STEP(s, destroy_team(t));
        close_env(&e, &s);
    });
    ASSERT_EQ(run, UCC_OK);
    EXPECT_EQ(join_failures(steps), "");
    for (size_t i = 0; i < cases.size(); ++i) {
        for (uint32_t r = 0; r < kInitRanks; ++r) {
            // The executable specification agrees with the expectation ...
            const ucc::model::Verdict v = ucc::model::validate(
                cases[i].args(r), ucc::model::TeamView{kInitRanks, r, !unordered});
            EXPECT_EQ(v.status, cases[i].want[r])
                << cases[i].name << ", rank " << r << ": the model says " << v.why;
            // ... and so does the library.
            EXPECT_EQ(got[i][r], cases[i].want[r]) << cases[i].name << ", rank " << r;
            EXPECT_TRUE(req_set[i][r]) << cases[i].name << ", rank " << r
                                       << ": request handle inconsistent with the status";
        }
    }
}

ucc_status_t dummy_reduce(const ucc_reduce_cb_params_t *) {
    return UCC_OK;
}

// Stores any integer in an enum field without a C++ conversion (as a C caller can).
template <class E>
void set_raw(E &field, int64_t value) {
    const auto v = static_cast<std::underlying_type_t<E>>(value);
    std::memcpy(&field, &v, sizeof(v));
}

}  // namespace

TEST(ApiCollInit, V1CollType) {
    ucc_coll_args_t barrier = args_of(UCC_COLL_TYPE_BARRIER);
    auto typed = [&](uint64_t t) {
        ucc_coll_args_t a = barrier;
        set_raw(a.coll_type, static_cast<int64_t>(t));
        return a;
    };
    // A barrier reads no buffer, op, root or error_type: junk there is fine.
    ucc_coll_args_t junk = barrier;
    junk.op = static_cast<ucc_reduction_op_t>(15);
    junk.root = 999;
    set_raw(junk.error_type, 0x5a5a5a5a);
    junk.src.info = {nullptr, ~uint64_t{0}, ~uint64_t{0}, static_cast<ucc_memory_type_t>(7)};
    junk.dst.info = junk.src.info;
    std::vector<InitCase> cases = {
        same("zero", typed(0), kInv),
        same("two bits", typed(UCC_COLL_TYPE_ALLREDUCE | UCC_COLL_TYPE_BCAST), kInv),
        same("value 3", typed(3), kInv),
        same("UCC_COLL_TYPE_LAST", typed(UCC_COLL_TYPE_LAST), kInv),
        same("0xffff", typed(0xffff), kInv),
        same("barrier", barrier, kOk),
        same("barrier with junk in unread fields", junk, kOk),
        same("fanin", typed(UCC_COLL_TYPE_FANIN), kOk),
    };
    if (!kSanitized) {
        cases.push_back(same("bit 16 (outside the enum's range)", typed(UCC_BIT(16)), kInv));
    }
    expect_init_statuses(cases);
}

// V2 is withdrawn: error_type is never read (the reference has no mask bit for
// it and ignores it), so any value -- outside the enum's range {0, 1} too, in
// every build, as nothing loads it -- is accepted and later rules still decide.
TEST(ApiCollInit, V2ErrorTypeIsNeverRead) {
    ucc_coll_args_t a = args_of(UCC_COLL_TYPE_ALLREDUCE);
    auto with_error_type = [&](int64_t e) {
        ucc_coll_args_t x = a;
        set_raw(x.error_type, e);
        return x;
    };
    // V5 still decides (an active set of {0, 1}: rank 2 is not a member).
    ucc_coll_args_t set = with_error_type(2);
    set.mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
    set.active_set = {0, 1, 2};
    expect_init_statuses({
        same("LOCAL", with_error_type(UCC_ERR_TYPE_LOCAL), kOk),
        same("GLOBAL", with_error_type(UCC_ERR_TYPE_GLOBAL), kOk),
        same("error_type 2", with_error_type(2), kOk),
        same("error_type -1", with_error_type(-1), kOk),
        same("error_type INT32_MIN", with_error_type(INT32_MIN), kOk),
        InitCase{"V5 decides with junk in error_type",
                 [set](uint32_t) { return set; },
                 {kOk, kOk, kInv}},
    });
}

TEST(ApiCollInit, V3Timeout) {
    ucc_coll_args_t a = args_of(UCC_COLL_TYPE_ALLREDUCE);
    auto timed = [&](double t) {
        ucc_coll_args_t x = with_flags(a, UCC_COLL_ARGS_FLAG_TIMEOUT);
        x.timeout = t;
        return x;
    };
    ucc_coll_args_t no_flag = a;
    no_flag.timeout = -1;
    ucc_coll_args_t flag_without_mask = a;
    flag_without_mask.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
    flag_without_mask.timeout = -1;
    expect_init_statuses({
        same("timeout 0", timed(0), kInv),
        same("timeout -1", timed(-1), kInv),
        same("timeout NaN", timed(std::nan("")), kInv),
        same("timeout +inf", timed(std::numeric_limits<double>::infinity()), kInv),
        same("timeout 1ms", timed(1e-3), kOk),
        same("timeout tiny", timed(1e-300), kOk),
        same("no TIMEOUT flag: timeout unread", no_flag, kOk),
        same("flag without FIELD_FLAGS: flags unread", flag_without_mask, kOk),
    });
}

TEST(ApiCollInit, V4UnorderedTeamNeedsTag) {
    ucc_coll_args_t b = args_of(UCC_COLL_TYPE_BARRIER);
    ucc_coll_args_t tagged = b;
    tagged.mask |= UCC_COLL_ARGS_FIELD_TAG;
    tagged.tag = 17;
    ucc_coll_args_t ar = args_of(UCC_COLL_TYPE_ALLREDUCE);
    ucc_coll_args_t ar_tagged = ar;
    ar_tagged.mask |= UCC_COLL_ARGS_FIELD_TAG;
    ar_tagged.tag = 18;
    // V3 comes before V4.
    ucc_coll_args_t order = with_flags(b, UCC_COLL_ARGS_FLAG_TIMEOUT);
    order.timeout = 0;
    order.mask |= UCC_COLL_ARGS_FIELD_TAG;
    expect_init_statuses(
        {
            same("barrier without tag", b, kInv),
            same("allreduce without tag", ar, kInv),
            same("barrier with tag", tagged, kOk),
            same("allreduce with tag", ar_tagged, kOk),
            same("V3 before V4", order, kInv),
        },
        /*unordered=*/true);
    // An ordered team needs no tag.
    expect_init_statuses({same("ordered, no tag", b, kOk), same("ordered, tag", tagged, kOk)});
}

TEST(ApiCollInit, V5ActiveSet) {
    auto set = [](ucc_coll_type_t t, uint64_t root, uint64_t start, int64_t stride, uint64_t size) {
        ucc_coll_args_t a = args_of(t, 4, 4);
        a.root = root;
        a.mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
        a.active_set.start = start;
        a.active_set.stride = stride;
        a.active_set.size = size;
        return a;
    };
    const ucc_coll_type_t bc = UCC_COLL_TYPE_BCAST;
    // Every type takes an active set; V5 comes before V6 (root out of range), and a rooted type's
    // root must be a member while a non-rooted type's root is unread.
    expect_init_statuses({
        {"allreduce {0,1}",
         [&](uint32_t) { return set(UCC_COLL_TYPE_ALLREDUCE, 0, 0, 1, 2); },
         {kOk, kOk, kInv}},
        same("allreduce {2,1,0}, root unread", set(UCC_COLL_TYPE_ALLREDUCE, 77, 2, -1, 3), kOk),
        same("barrier, whole team", set(UCC_COLL_TYPE_BARRIER, 77, 0, 1, 3), kOk),
        same("reduce, root out of range", set(UCC_COLL_TYPE_REDUCE, 9, 0, 1, 2), kInv),
        same("fanin, root not a member", set(UCC_COLL_TYPE_FANIN, 1, 0, 2, 2), kInv),
        {"reduce {1,2} rooted at 2",
         [&](uint32_t) { return set(UCC_COLL_TYPE_REDUCE, 2, 1, 1, 2); },
         {kInv, kOk, kOk}},
        same("size 0", set(bc, 0, 0, 1, 0), kInv),
        same("size > N", set(bc, 0, 0, 1, 4), kInv),
        same("start >= N", set(bc, 0, 3, 1, 2), kInv),
        same("stride 0 repeats", set(bc, 0, 0, 0, 2), kInv),
        same("stride N repeats", set(bc, 0, 1, 3, 2), kInv),
        same("stride -N repeats", set(bc, 0, 1, -3, 2), kInv),
        same("root not a member", set(bc, 2, 0, 1, 2), kInv),
        {"caller not a member {0,1}",
         [&](uint32_t) { return set(bc, 0, 0, 1, 2); },
         {kOk, kOk, kInv}},
        {"caller not a member {1,0}",
         [&](uint32_t) { return set(bc, 0, 1, 2, 2); },
         {kOk, kOk, kInv}},
        {"{2,0} by stride -2", [&](uint32_t) { return set(bc, 2, 2, -2, 2); }, {kOk, kInv, kOk}},
        same("whole team, negative stride", set(bc, 1, 2, -1, 3), kOk),
        same("whole team", set(bc, 0, 0, 1, 3), kOk),
    });
    // Block counts follow the set's size (2 here), not the team's (3).
    auto set_counts = [&](ucc_coll_type_t t, uint64_t sc, uint64_t dc) {
        ucc_coll_args_t a = set(t, 0, 2, -2, 2);  // members 2, 0
        a.src.info.count = sc;
        a.dst.info.count = dc;
        return a;
    };
    const ucc_coll_type_t ag = UCC_COLL_TYPE_ALLGATHER;
    const ucc_coll_type_t rs = UCC_COLL_TYPE_REDUCE_SCATTER;
    expect_init_statuses({
        {"allgather, 2 blocks", [&](uint32_t) { return set_counts(ag, 2, 4); }, {kOk, kInv, kOk}},
        {"allgather, 3 blocks", [&](uint32_t) { return set_counts(ag, 2, 6); }, {kInv, kInv, kInv}},
        {"reduce_scatter, 2 blocks",
         [&](uint32_t) { return set_counts(rs, 4, 2); },
         {kOk, kInv, kOk}},
        {"reduce_scatter, 3 blocks",
         [&](uint32_t) { return set_counts(rs, 6, 2); },
         {kInv, kInv, kInv}},
    });
}

TEST(ApiCollInit, V6Root) {
    auto rooted = [](ucc_coll_type_t t, uint64_t root, uint64_t sc, uint64_t dc) {
        ucc_coll_args_t a = args_of(t, sc, dc);
        a.root = root;
        return a;
    };
    expect_init_statuses({
        same("bcast root N", rooted(UCC_COLL_TYPE_BCAST, 3, 4, 4), kInv),
        same("reduce root N", rooted(UCC_COLL_TYPE_REDUCE, 3, 4, 4), kInv),
        same("gather root 100", rooted(UCC_COLL_TYPE_GATHER, 100, 2, 6), kInv),
        same("scatter root 2^63", rooted(UCC_COLL_TYPE_SCATTER, uint64_t{1} << 63, 6, 2), kInv),
        same("fanin root N", rooted(UCC_COLL_TYPE_FANIN, 3, 0, 0), kInv),
        same("fanout root N", rooted(UCC_COLL_TYPE_FANOUT, 3, 0, 0), kInv),
        same("bcast root N-1", rooted(UCC_COLL_TYPE_BCAST, 2, 4, 4), kOk),
        same("fanout root 0", rooted(UCC_COLL_TYPE_FANOUT, 0, 0, 0), kOk),
        same("allreduce: root unread", rooted(UCC_COLL_TYPE_ALLREDUCE, 77, 4, 4), kOk),
        same("barrier: root unread", rooted(UCC_COLL_TYPE_BARRIER, 77, 0, 0), kOk),
    });
}

TEST(ApiCollInit, V7DatatypesMemTypesAndVArrays) {
    ucc_coll_args_t ar = args_of(UCC_COLL_TYPE_ALLREDUCE);
    ucc_coll_args_t bad_src_dt = ar;
    bad_src_dt.src.info.datatype = UCC_PREDEFINED_DT(UCC_DT_PREDEFINED_LAST);
    bad_src_dt.dst.info.datatype = bad_src_dt.src.info.datatype;
    ucc_coll_args_t bad_class = ar;
    bad_class.dst.info.datatype = UCC_DT_INT32 | 2;
    ucc_coll_args_t null_generic = ar;
    null_generic.src.info.datatype = UCC_DATATYPE_GENERIC;
    null_generic.dst.info.datatype = UCC_DATATYPE_GENERIC;
    ucc_coll_args_t bad_mem = ar;
    bad_mem.src.info.mem_type = static_cast<ucc_memory_type_t>(6);
    ucc_coll_args_t bad_dst_mem = ar;
    bad_dst_mem.dst.info.mem_type = static_cast<ucc_memory_type_t>(7);
    ucc_coll_args_t unknown_mem = ar;
    unknown_mem.src.info.mem_type = UCC_MEMORY_TYPE_UNKNOWN;
    // Buffer descriptions a rank does not read may hold junk.
    ucc_coll_args_t bcast = args_of(UCC_COLL_TYPE_BCAST, 4, 4);
    bcast.dst.info.datatype = ~uint64_t{0};
    bcast.dst.info.mem_type = static_cast<ucc_memory_type_t>(7);
    ucc_coll_args_t inplace = with_flags(ar, UCC_COLL_ARGS_FLAG_IN_PLACE);
    inplace.src.info = {nullptr, 12345, ~uint64_t{0}, static_cast<ucc_memory_type_t>(6)};
    ucc_coll_args_t reduce = args_of(UCC_COLL_TYPE_REDUCE, 4, 4);
    reduce.root = 0;
    reduce.dst.info.mem_type = static_cast<ucc_memory_type_t>(6);
    // v-arrays.
    static uint32_t counts[3] = {2, 2, 2};
    static uint32_t displs[3] = {0, 2, 4};
    ucc_coll_args_t agv{};
    agv.coll_type = UCC_COLL_TYPE_ALLGATHERV;
    agv.src.info = info(g_src, 2, UCC_DT_INT32);
    agv.dst.info_v = {g_dst, reinterpret_cast<ucc_count_t *>(counts),
                      reinterpret_cast<ucc_aint_t *>(displs), UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    ucc_coll_args_t agv_no_counts = agv;
    agv_no_counts.dst.info_v.counts = nullptr;
    ucc_coll_args_t agv_no_displs = agv;
    agv_no_displs.dst.info_v.displacements = nullptr;
    ucc_coll_args_t rsv{};
    rsv.coll_type = UCC_COLL_TYPE_REDUCE_SCATTERV;
    rsv.op = UCC_OP_SUM;
    rsv.src.info = info(g_src, 6, UCC_DT_INT32);
    rsv.dst.info_v = {g_dst, reinterpret_cast<ucc_count_t *>(counts), nullptr, UCC_DT_INT32,
                      UCC_MEMORY_TYPE_HOST};
    // V7 comes before V8 (MAXLOC: NOT_SUPPORTED).
    ucc_coll_args_t order = bad_mem;
    order.op = UCC_OP_MAXLOC;
    expect_init_statuses({
        same("src datatype id 18", bad_src_dt, kInv),
        same("dst datatype class 2", bad_class, kInv),
        same("generic with a NULL pointer", null_generic, kInv),
        same("src mem_type 6", bad_mem, kInv),
        same("dst mem_type 7", bad_dst_mem, kInv),
        same("mem_type UNKNOWN", unknown_mem, kOk),
        same("bcast: dst unread", bcast, kOk),
        same("in-place allreduce: src unread", inplace, kOk),
        {"reduce: dst read at the root only", [&](uint32_t) { return reduce; }, {kInv, kOk, kOk}},
        same("allgatherv", agv, kOk),
        same("allgatherv NULL counts", agv_no_counts, kInv),
        same("allgatherv NULL displacements", agv_no_displs, kInv),
        same("reduce_scatterv needs no dst displacements", rsv, kOk),
        same("V7 before V8", order, kInv),
    });
}

TEST(ApiCollInit, V8Reductions) {
    ucc_generic_dt_ops_t ops{};
    ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
    ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG;
    ops.contig_size = 8;
    ucc_datatype_t plain = 0;
    ASSERT_EQ(ucc_dt_create_generic(&ops, nullptr, &plain), UCC_OK);
    ops.flags |= UCC_GENERIC_DT_OPS_FLAG_REDUCE;
    ucc_datatype_t no_cb = 0;
    ASSERT_EQ(ucc_dt_create_generic(&ops, nullptr, &no_cb), UCC_OK);
    ops.reduce.cb = dummy_reduce;
    ucc_datatype_t reducible = 0;
    ASSERT_EQ(ucc_dt_create_generic(&ops, nullptr, &reducible), UCC_OK);

    auto ar = [](ucc_datatype_t sdt, ucc_datatype_t ddt, int op) {
        ucc_coll_args_t a = args_of(UCC_COLL_TYPE_ALLREDUCE, 4, 4, sdt);
        a.dst.info.datatype = ddt;
        a.op = static_cast<ucc_reduction_op_t>(op);
        return a;
    };
    ucc_coll_args_t reduce = ar(UCC_DT_INT32, UCC_DT_FLOAT32, UCC_OP_SUM);
    reduce.coll_type = UCC_COLL_TYPE_REDUCE;
    reduce.root = 1;
    ucc_coll_args_t inplace =
        with_flags(ar(UCC_DT_INT8, UCC_DT_INT32, UCC_OP_SUM), UCC_COLL_ARGS_FLAG_IN_PLACE);
    // V8 comes before V10 (count mismatch).
    ucc_coll_args_t order = ar(UCC_DT_INT32, UCC_DT_INT32, UCC_OP_MAXLOC);
    order.dst.info.count = 5;
    ucc_coll_args_t rs = args_of(UCC_COLL_TYPE_REDUCE_SCATTER, 6, 2, UCC_DT_FLOAT64);
    rs.op = UCC_OP_BOR;
    expect_init_statuses({
        same("src/dst datatypes differ", ar(UCC_DT_INT32, UCC_DT_FLOAT32, UCC_OP_SUM), kInv),
        same("op LAST", ar(UCC_DT_INT32, UCC_DT_INT32, UCC_OP_LAST), kInv),
        same("op 14", ar(UCC_DT_INT32, UCC_DT_INT32, 14), kInv),
        same("op 15", ar(UCC_DT_INT32, UCC_DT_INT32, 15), kInv),
        same("MAXLOC int32", ar(UCC_DT_INT32, UCC_DT_INT32, UCC_OP_MAXLOC), kNs),
        same("MINLOC float64", ar(UCC_DT_FLOAT64, UCC_DT_FLOAT64, UCC_OP_MINLOC), kNs),
        same("BAND float32", ar(UCC_DT_FLOAT32, UCC_DT_FLOAT32, UCC_OP_BAND), kNs),
        same("LAND complex64", ar(UCC_DT_FLOAT64_COMPLEX, UCC_DT_FLOAT64_COMPLEX, UCC_OP_LAND),
             kNs),
        same("MAX complex32", ar(UCC_DT_FLOAT32_COMPLEX, UCC_DT_FLOAT32_COMPLEX, UCC_OP_MAX), kNs),
        same("reduce_scatter BOR float64", rs, kNs),
        same("AVG float16", ar(UCC_DT_FLOAT16, UCC_DT_FLOAT16, UCC_OP_AVG), kOk),
        same("BXOR uint128", ar(UCC_DT_UINT128, UCC_DT_UINT128, UCC_OP_BXOR), kOk),
        same("PROD complex128", ar(UCC_DT_FLOAT128_COMPLEX, UCC_DT_FLOAT128_COMPLEX, UCC_OP_PROD),
             kOk),
        same("generic without REDUCE", ar(plain, plain, UCC_OP_SUM), kNs),
        same("generic with REDUCE but no callback", ar(no_cb, no_cb, UCC_OP_SUM), kNs),
        same("generic with a reduction: op unread", ar(reducible, reducible, 15), kOk),
        {"reduce: dst datatype read at the root only",
         [&](uint32_t) { return reduce; },
         {kOk, kInv, kOk}},
        same("in place: src datatype unread", inplace, kOk),
        same("V8 before V10", order, kNs),
    });
    ucc_dt_destroy(plain);
    ucc_dt_destroy(no_cb);
    ucc_dt_destroy(reducible);
}

TEST(ApiCollInit, V9ElementSizes) {
    auto two = [](ucc_coll_type_t t, ucc_datatype_t s, ucc_datatype_t d, uint64_t sc, uint64_t dc) {
        ucc_coll_args_t a = args_of(t, sc, dc, s);
        a.dst.info.datatype = d;
        return a;
    };
    ucc_coll_args_t gather = two(UCC_COLL_TYPE_GATHER, UCC_DT_INT32, UCC_DT_INT64, 2, 6);
    gather.root = 0;
    ucc_coll_args_t scatter = two(UCC_COLL_TYPE_SCATTER, UCC_DT_INT64, UCC_DT_INT32, 6, 2);
    scatter.root = 1;
    expect_init_statuses({
        same("allgather int32 -> int64",
             two(UCC_COLL_TYPE_ALLGATHER, UCC_DT_INT32, UCC_DT_INT64, 2, 6), kInv),
        same("allgather int32 -> float32 (same size)",
             two(UCC_COLL_TYPE_ALLGATHER, UCC_DT_INT32, UCC_DT_FLOAT32, 2, 6), kOk),
        same("alltoall int16 -> uint16",
             two(UCC_COLL_TYPE_ALLTOALL, UCC_DT_INT16, UCC_DT_UINT16, 6, 6), kOk),
        same("alltoall int8 -> int16", two(UCC_COLL_TYPE_ALLTOALL, UCC_DT_INT8, UCC_DT_INT16, 6, 6),
             kInv),
        {"gather: dst at the root only", [&](uint32_t) { return gather; }, {kInv, kOk, kOk}},
        {"scatter: src at the root only", [&](uint32_t) { return scatter; }, {kOk, kInv, kOk}},
    });
}

TEST(ApiCollInit, V10Counts) {
    auto c = [](ucc_coll_type_t t, uint64_t sc, uint64_t dc, uint64_t root = 0) {
        ucc_coll_args_t a = args_of(t, sc, dc);
        a.root = root;
        return a;
    };
    auto ip = [](ucc_coll_args_t a) { return with_flags(a, UCC_COLL_ARGS_FLAG_IN_PLACE); };
    static uint32_t counts[3] = {1, 2, 3};
    auto rsv = [](uint64_t sc) {
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_REDUCE_SCATTERV;
        a.op = UCC_OP_SUM;
        a.src.info = info(g_src, sc, UCC_DT_INT32);
        a.dst.info_v = {g_dst, reinterpret_cast<ucc_count_t *>(counts), nullptr, UCC_DT_INT32,
                        UCC_MEMORY_TYPE_HOST};
        return a;
    };
    // N * src.count wraps to 2 in 64 bits; the comparison must be exact.
    ucc_coll_args_t wrap = args_of(UCC_COLL_TYPE_ALLGATHER, 0x5555555555555556ull, 2, UCC_DT_INT8);
    const ucc_coll_type_t AR = UCC_COLL_TYPE_ALLREDUCE;
    const ucc_coll_type_t AG = UCC_COLL_TYPE_ALLGATHER;
    const ucc_coll_type_t A2A = UCC_COLL_TYPE_ALLTOALL;
    const ucc_coll_type_t RS = UCC_COLL_TYPE_REDUCE_SCATTER;
    expect_init_statuses({
        same("allreduce 4 vs 5", c(AR, 4, 5), kInv),
        same("allreduce 5 vs 5", c(AR, 5, 5), kOk),
        same("allreduce in place: src count unread", ip(c(AR, 4, 5)), kOk),
        {"reduce 4 vs 5: checked at the root only",
         [&](uint32_t) { return c(UCC_COLL_TYPE_REDUCE, 4, 5, 2); },
         {kOk, kOk, kInv}},
        same("allgather 2 -> 5", c(AG, 2, 5), kInv),
        same("allgather 2 -> 6", c(AG, 2, 6), kOk),
        same("allgather in place, dst 7", ip(c(AG, 2, 7)), kInv),
        same("allgather in place, dst 9", ip(c(AG, 99, 9)), kOk),
        same("allgather count wrap", wrap, kInv),
        same("alltoall dst 7", c(A2A, 7, 7), kInv),
        same("alltoall 6 vs 9", c(A2A, 6, 9), kInv),
        same("alltoall 9 vs 9", c(A2A, 9, 9), kOk),
        same("alltoall in place dst 9", ip(c(A2A, 1, 9)), kOk),
        {"gather 2 -> 5 at the root",
         [&](uint32_t) { return c(UCC_COLL_TYPE_GATHER, 2, 5, 1); },
         {kOk, kInv, kOk}},
        {"scatter 5 -> 2 at the root",
         [&](uint32_t) { return c(UCC_COLL_TYPE_SCATTER, 5, 2, 0); },
         {kInv, kOk, kOk}},
        same("reduce_scatter 6 -> 3", c(RS, 6, 3), kInv),
        same("reduce_scatter 6 -> 2", c(RS, 6, 2), kOk),
        same("reduce_scatter in place dst 7", ip(c(RS, 0, 7)), kInv),
        same("reduce_scatter in place dst 6", ip(c(RS, 0, 6)), kOk),
        same("reduce_scatterv src 5 vs sum 6", rsv(5), kInv),
        same("reduce_scatterv src 6", rsv(6), kOk),
    });
}

TEST(ApiCollInit, V11SizesAndNullBuffers) {
    ucc_coll_args_t ar = args_of(UCC_COLL_TYPE_ALLREDUCE, 4, 4);
    ucc_coll_args_t null_src = ar;
    null_src.src.info.buffer = nullptr;
    ucc_coll_args_t null_dst = ar;
    null_dst.dst.info.buffer = nullptr;
    ucc_coll_args_t zero_null = args_of(UCC_COLL_TYPE_ALLREDUCE, 0, 0);
    zero_null.src.info.buffer = nullptr;
    zero_null.dst.info.buffer = nullptr;
    ucc_coll_args_t bcast_null = args_of(UCC_COLL_TYPE_BCAST, 4, 0);
    bcast_null.src.info.buffer = nullptr;
    ucc_coll_args_t huge = args_of(UCC_COLL_TYPE_ALLREDUCE, uint64_t{1} << 62, uint64_t{1} << 62);
    ucc_coll_args_t just_too_big =
        args_of(UCC_COLL_TYPE_ALLREDUCE, uint64_t{1} << 61, uint64_t{1} << 61);
    ucc_coll_args_t block =
        args_of(UCC_COLL_TYPE_ALLGATHER, uint64_t{1} << 62, 3 * (uint64_t{1} << 62), UCC_DT_INT8);
    ucc_coll_args_t reduce = args_of(UCC_COLL_TYPE_REDUCE, 4, 4);
    reduce.root = 2;
    reduce.dst.info.buffer = nullptr;
    static uint32_t counts[3] = {1, 1, 1};
    static uint32_t zeros[3] = {0, 0, 0};
    static uint32_t displs[3] = {0, 1, 2};
    ucc_coll_args_t a2av{};
    a2av.coll_type = UCC_COLL_TYPE_ALLTOALLV;
    a2av.src.info_v = {nullptr, reinterpret_cast<ucc_count_t *>(counts),
                       reinterpret_cast<ucc_aint_t *>(displs), UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    a2av.dst.info_v = a2av.src.info_v;
    a2av.dst.info_v.buffer = g_dst;
    ucc_coll_args_t a2av_zero = a2av;
    a2av_zero.src.info_v.counts = reinterpret_cast<ucc_count_t *>(zeros);
    a2av_zero.dst.info_v.counts = reinterpret_cast<ucc_count_t *>(zeros);
    a2av_zero.dst.info_v.buffer = nullptr;
    expect_init_statuses({
        same("allreduce NULL src", null_src, kInv),
        same("allreduce NULL dst", null_dst, kInv),
        same("count 0 with NULL buffers", zero_null, kOk),
        same("bcast NULL buffer", bcast_null, kInv),
        same("2^62 int32: byte size overflows", huge, kInv),
        same("2^61 int32: 2^63 bytes", just_too_big, kInv),
        same("allgather: N * block bytes overflow", block, kInv),
        {"reduce: NULL dst matters at the root only",
         [&](uint32_t) { return reduce; },
         {kOk, kOk, kInv}},
        same("alltoallv NULL src with counts", a2av, kInv),
        same("alltoallv NULL buffers, zero counts", a2av_zero, kOk),
    });
}

// ---------------------------------------------------------------------------
// Deadlocks during team creation
// ---------------------------------------------------------------------------

namespace {

struct StuckCreation {
    Steps s;
    ucc_status_t create = UCC_INPROGRESS;
    ucc_status_t progress = UCC_OK;
    bool stuck = false;  // create_test stayed UCC_INPROGRESS although progress failed
    ucc_status_t destroy = UCC_ERR_LAST;
    bool torn_down = false;
};

// Rank n-1 never takes part in a team creation that needs it; the others
// wait. Their wait loop gives up (stuck = true) if ucc_team_create_test keeps
// answering UCC_INPROGRESS after progress started failing, so a library bug
// cannot spin the simulator into its abort().
enum class Creation { kTeamOob, kEpMapNoId, kSplit };

std::vector<StuckCreation> run_stuck_creation(Creation how, ucc_status_t *run) {
    constexpr uint32_t n = 3;
    std::vector<StuckCreation> out(n);
    *run = simulate(n, [&](uint32_t rank) {
        StuckCreation &o = out[rank];
        Env e;
        if (!open_env(&e, &o.s)) {
            return;
        }
        ucc_team_h parent = nullptr;
        if (how == Creation::kSplit &&
            !STEP(o.s, create_team(e.ctx, full_map_params(n, 70), &parent))) {
            return;
        }
        if (rank != n - 1) {
            ucc_team_params_t tp =
                how == Creation::kTeamOob ? team_oob_params(rank, &o.s) : full_map_params(n, 0);
            tp.mask &= ~static_cast<uint64_t>(UCC_TEAM_PARAM_FIELD_ID);  // id agreed by traffic
            ucc_team_h t = nullptr;
            ucc_status_t post = how == Creation::kSplit
                                    ? ucc_team_create_from_parent(rank, 1, parent, &t)
                                    : ucc_team_create_post(&e.ctx, 1, &tp, &t);
            if (STEP(o.s, post)) {
                int failed_polls = 0;
                while ((o.create = ucc_team_create_test(t)) == UCC_INPROGRESS) {
                    ucc_status_t st = ucc_context_progress(e.ctx);
                    if (st != UCC_OK) {
                        o.progress = st;
                        if (++failed_polls > 1000) {
                            o.stuck = true;
                            break;
                        }
                    }
                }
                o.destroy = ucc_team_destroy(t);
            }
        }
        if (parent != nullptr && !o.stuck) {
            STEP(o.s, destroy_team(parent));
        }
        o.torn_down = !o.stuck && close_env(&e, &o.s);
    });
    return out;
}

void check_stuck_creation(Creation how) {
    ucc_status_t run = UCC_ERR_LAST;
    auto t0 = std::chrono::steady_clock::now();
    std::vector<StuckCreation> out = run_stuck_creation(how, &run);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(run, UCC_ERR_NO_MESSAGE);
    EXPECT_LT(wall, 10.0);
    for (uint32_t r = 0; r + 1 < out.size(); ++r) {
        const StuckCreation &o = out[r];
        EXPECT_EQ(o.s.failure, "") << "rank " << r;
        EXPECT_FALSE(o.stuck) << "rank " << r << ": progress returned "
                              << ucc_status_string(o.progress)
                              << " but the team creation never left UCC_INPROGRESS";
        EXPECT_LT(o.create, 0) << "rank " << r;
        EXPECT_EQ(o.destroy, UCC_OK) << "rank " << r << " (a failed team can be destroyed)";
        EXPECT_TRUE(o.torn_down) << "rank " << r;
    }
    EXPECT_TRUE(out.back().torn_down);
}

}  // namespace

// One member never calls ucc_team_create_post (team OOB): the simulator's
// deadlock abort fails the OOB exchange, and the waiting ranks unwind.
TEST(ApiTimeout, DeadlockInTeamOobCreationUnwinds) {
    check_stuck_creation(Creation::kTeamOob);
}

// The same with a team made from the context's eps without a user id, whose
// id is agreed by messages among the members.
//
// Was a bug (lib/core/api_context.cc, Context::progress / Context::abort_all): when
// the transport aborts (simulator deadlock), abort_all fails only the
// collectives in ctx.active. A team creation driven by a task (the id
// agreement of create_via_ep_map, Team::create_task) is never failed:
// ucc_context_progress returns UCC_ERR_NO_MESSAGE but ucc_team_create_test
// keeps returning UCC_INPROGRESS, the team cannot be destroyed (INVALID_PARAM,
// "creation is still in progress") and so neither can the context. A program
// that loops on ucc_team_create_test, as every example does, spins until the
// simulator calls abort() ("idle() after the run was aborted" 1,000,000 times).
// core.h documents abort_all as failing "every outstanding collective and team
// creation".
TEST(ApiTimeout, DeadlockInEpMapTeamCreationUnwinds) {
    check_stuck_creation(Creation::kEpMapNoId);
}

// The same for a split of a parent team that one member never calls.
// BUG: as above; the split's internal allgather (Team::create_task started in
// ucc_team_create_from_parent, lib/core/api_team.cc) is not failed by
// Context::abort_all either.
TEST(ApiTimeout, DeadlockInTeamSplitUnwinds) {
    check_stuck_creation(Creation::kSplit);
}

// ---------------------------------------------------------------------------
// Regressions: library bugs these tests found (now fixed). Each expectation
// is the one of model/VALIDITY.md or API.md; for V1-V11 the model is checked
// to agree (expect_init_statuses).
// ---------------------------------------------------------------------------

// Was a bug (lib/core/validate.cc, validate_coll_args, V11 lambda check_info_v):
// the overflow check runs on every v-array entry, also those with a zero
// count. VALIDITY.md V11: "entries with a zero count are not checked: their
// displacement is unused" (model/validity.cc agrees: UCC_OK). An alltoallv
// with counts {1, 0, 1} and 64-bit displacements {0, 2^62, 1} gets
// UCC_ERR_INVALID_PARAM on every rank instead of UCC_OK.
TEST(ApiCollInit, V11ZeroCountBlockDisplacementIsUnused) {
    static uint32_t counts[3] = {1, 0, 1};
    static uint64_t displs[3] = {0, uint64_t{1} << 62, 1};
    ucc_coll_args_t a2av{};
    a2av.coll_type = UCC_COLL_TYPE_ALLTOALLV;
    a2av.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    a2av.flags = UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
    a2av.src.info_v = {g_src, reinterpret_cast<ucc_count_t *>(counts),
                       reinterpret_cast<ucc_aint_t *>(displs), UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    a2av.dst.info_v = a2av.src.info_v;
    a2av.dst.info_v.buffer = g_dst;
    expect_init_statuses({same("alltoallv zero count, huge displacement", a2av, kOk)});
}

// Was a bug (lib/core/validate.cc, validate_coll_args, V11 lambda check_info_v with
// displs == false): for reduce_scatterv's dst the NULL-buffer test asks
// whether ANY rank's count is non-zero. VALIDITY.md V11: the bytes a rank
// touches are counts[r] * esize (not in place), so a rank whose own count is
// 0 may pass a NULL dst (the model says UCC_OK). With dst counts {0, 3, 3}
// and a NULL dst buffer, rank 0 gets UCC_ERR_INVALID_PARAM instead of UCC_OK.
TEST(ApiCollInit, V11ReduceScattervNullDstWithOwnCountZero) {
    static uint32_t rcounts[3] = {0, 3, 3};
    ucc_coll_args_t rsv{};
    rsv.coll_type = UCC_COLL_TYPE_REDUCE_SCATTERV;
    rsv.op = UCC_OP_SUM;
    rsv.src.info = info(g_src, 6, UCC_DT_INT32);
    rsv.dst.info_v = {nullptr, reinterpret_cast<ucc_count_t *>(rcounts), nullptr, UCC_DT_INT32,
                      UCC_MEMORY_TYPE_HOST};
    expect_init_statuses({{"reduce_scatterv NULL dst, own count 0",
                           [&](uint32_t) { return rsv; },
                           {kOk, kInv, kInv}}});
}

// Was a bug (lib/core/validate.cc, validate_coll_args, end of V11: "Total sizes that
// N-fold a count"): the N * count * esize overflow check covers only the src
// of allgather and gather. VALIDITY.md V11 names scatter's dst (and
// non-in-place reduce_scatter's dst) as block buffers too. A non-root scatter
// rank with dst.count = 2^62 (int8; the team's N = 3 blocks need 3 * 2^62 >
// 2^63 - 1 bytes) gets UCC_OK instead of UCC_ERR_INVALID_PARAM (the model
// says INVALID_PARAM, rule V11).
TEST(ApiCollInit, V11ScatterBlockOverflowAtNonRoot) {
    ucc_coll_args_t sc = args_of(UCC_COLL_TYPE_SCATTER, 6, uint64_t{1} << 62, UCC_DT_INT8);
    sc.root = 0;
    expect_init_statuses({same("scatter block of 2^62 bytes", sc, kInv)});
}

// Was a bug (lib/core/validate.cc, validate_coll_args, V10 and V11 for
// reduce_scatterv): the sum of dst counts is taken in wrapping 64-bit
// arithmetic, and V11 never checks that (sum of counts) * esize fits in 63
// bits (only each entry). VALIDITY.md: "Products and sums are compared
// exactly" (V10) and "reduce_scatterv's dst: (sum counts) * esize must not
// overflow" (V11); the model says UCC_ERR_INVALID_PARAM for both cases below,
// the library UCC_OK:
//  * in place, 64-bit counts {2^62, 2^62, 2^62} of int8: 3 * 2^62 bytes;
//  * not in place, counts {2^63-1} x 3 (sum wraps to 2^63-3) and src.count
//    2^63-3.
TEST(ApiCollInit, V10V11ReduceScattervCountSum) {
    static uint64_t big[3] = {uint64_t{1} << 62, uint64_t{1} << 62, uint64_t{1} << 62};
    static uint64_t max[3] = {(uint64_t{1} << 63) - 1, (uint64_t{1} << 63) - 1,
                              (uint64_t{1} << 63) - 1};
    auto rsv = [](uint64_t *counts, uint64_t src_count, bool in_place) {
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_REDUCE_SCATTERV;
        a.op = UCC_OP_SUM;
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | (in_place ? UCC_COLL_ARGS_FLAG_IN_PLACE : 0);
        a.src.info = info(g_src, src_count, UCC_DT_INT8);
        a.dst.info_v = {g_dst, reinterpret_cast<ucc_count_t *>(counts), nullptr, UCC_DT_INT8,
                        UCC_MEMORY_TYPE_HOST};
        return a;
    };
    expect_init_statuses({
        same("in place, total 3 * 2^62 bytes", rsv(big, 0, true), kInv),
        same("sum of counts wraps", rsv(max, (uint64_t{1} << 63) - 3, false), kInv),
    });
}

// Was a bug (lib/core/validate.cc, validate_coll_args, V11 lambda check_info_v):
// `d > kMaxBytes - 1 - c` underflows when the count c exceeds 2^63 - 1, and
// `c + d` then wraps, so a 64-bit count of 2^64 - 1 with displacement 1 ends
// "at byte 0". VALIDITY.md V11: (displacements[i] + counts[i]) * esize must
// not overflow; the model says UCC_ERR_INVALID_PARAM, the library UCC_OK.
TEST(ApiCollInit, V11VArrayCountPlusDisplacementWraps) {
    static uint64_t counts[3] = {~uint64_t{0}, 1, 1};
    static uint64_t displs[3] = {1, 0, 0};
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLTOALLV;
    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
    a.src.info_v = {g_src, reinterpret_cast<ucc_count_t *>(counts),
                    reinterpret_cast<ucc_aint_t *>(displs), UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    a.dst.info_v = a.src.info_v;
    a.dst.info_v.buffer = g_dst;
    expect_init_statuses({same("alltoallv count 2^64-1 at displacement 1", a, kInv)});
}

namespace {

// Each rank posts a team with `tp` (members only, by their own view) and
// records the status.
std::vector<ucc_status_t> post_statuses(uint32_t n, const std::function<ucc_team_params_t()> &make,
                                        ucc_status_t *run, std::vector<Steps> *steps) {
    std::vector<ucc_status_t> st(n, UCC_ERR_LAST);
    steps->assign(n, Steps{});
    *run = simulate(n, [&](uint32_t rank) {
        Steps &s = (*steps)[rank];
        Env e;
        if (!open_env(&e, &s)) {
            return;
        }
        ucc_team_params_t tp = make();
        ucc_team_h t = nullptr;
        st[rank] = ucc_team_create_post(&e.ctx, 1, &tp, &t);
        if (st[rank] == UCC_OK) {
            wait_team(e.ctx, t);
            STEP(s, destroy_team(t));
        }
        close_env(&e, &s);
    });
    return st;
}

}  // namespace

// Was a bug (lib/core/api_team.cc, map_ep): an ep map of type UCC_EP_MAP_CB with a
// NULL cb, or UCC_EP_MAP_ARRAY with a NULL map, is dereferenced: the process
// crashes (SIGSEGV) in ucc_team_create_post instead of getting
// UCC_ERR_INVALID_PARAM (API.md §2 general REC: a NULL required pointer →
// UCC_ERR_INVALID_PARAM). Running this test today kills the whole binary.
TEST(ApiLifecycle, EpMapWithNullCallbackOrArray) {
    constexpr uint32_t n = 3;
    for (ucc_ep_map_type_t type : {UCC_EP_MAP_CB, UCC_EP_MAP_ARRAY}) {
        ucc_status_t run = UCC_ERR_LAST;
        std::vector<Steps> steps;
        std::vector<ucc_status_t> st = post_statuses(
            n,
            [&] {
                ucc_team_params_t tp = full_map_params(n, 3);
                tp.ep_map.type = type;
                if (type == UCC_EP_MAP_CB) {
                    tp.ep_map.cb.cb = nullptr;
                } else {
                    tp.ep_map.array.map = nullptr;
                    tp.ep_map.array.elem_size = 8;
                }
                return tp;
            },
            &run, &steps);
        ASSERT_EQ(run, UCC_OK);
        EXPECT_EQ(join_failures(steps), "");
        EXPECT_EQ(st, std::vector<ucc_status_t>(n, UCC_ERR_INVALID_PARAM)) << type;
    }
}

// Was a bug (lib/core/api_team.cc, create_via_ep_map): an ep map that names one
// context ep twice (ARRAY {0, 0, 1}, or STRIDED with stride 0) is accepted.
// Context ep 0 becomes team ep 0 (PeerMap::index_of finds the first), team
// ep 1 has no owner, and with a user id the members get UCC_OK for a team on
// which every collective can only hang. An ep identifies one participant
// (API.md §1.6); the map should be refused with UCC_ERR_INVALID_PARAM.
TEST(ApiLifecycle, EpMapNamingAnEpTwiceIsRefused) {
    constexpr uint32_t n = 3;
    static uint64_t twice[3] = {0, 0, 1};
    for (ucc_ep_map_type_t type : {UCC_EP_MAP_ARRAY, UCC_EP_MAP_STRIDED}) {
        ucc_status_t run = UCC_ERR_LAST;
        std::vector<Steps> steps;
        std::vector<ucc_status_t> st = post_statuses(
            n,
            [&] {
                ucc_team_params_t tp = full_map_params(n, 3);
                tp.ep_map.type = type;
                if (type == UCC_EP_MAP_ARRAY) {
                    tp.ep_map.array.map = twice;
                    tp.ep_map.array.elem_size = 8;
                } else {
                    tp.ep_map.strided.start = 1;
                    tp.ep_map.strided.stride = 0;
                }
                return tp;
            },
            &run, &steps);
        ASSERT_EQ(run, UCC_OK);
        EXPECT_EQ(join_failures(steps), "");
        EXPECT_EQ(st, std::vector<ucc_status_t>(n, UCC_ERR_INVALID_PARAM)) << type;
    }
}

// Was a bug (lib/core/api_team.cc, ucc_team_create_post: the `size == 1` branch):
// a one-entry ep map is not looked at. Every rank asks for the team {its
// right neighbour} (ARRAY map {(rank + 1) % 3}), of which it is not a member,
// and gets UCC_OK and a team of itself instead of UCC_ERR_INVALID_PARAM
// ("this context is not in the team's ep map", as for larger maps).
TEST(ApiLifecycle, OneEntryEpMapNamingAnotherRankIsRefused) {
    constexpr uint32_t n = 3;
    ucc_status_t run = UCC_ERR_LAST;
    std::vector<Steps> steps;
    std::vector<ucc_status_t> st = post_statuses(
        n,
        [&] {
            static uint64_t neighbours[n] = {1, 2, 0};
            ucc_team_params_t tp = full_map_params(1, 3);
            tp.ep_map.type = UCC_EP_MAP_ARRAY;
            tp.ep_map.array.map = &neighbours[ucc_sim_rank()];
            tp.ep_map.array.elem_size = 8;
            return tp;
        },
        &run, &steps);
    ASSERT_EQ(run, UCC_OK);
    EXPECT_EQ(join_failures(steps), "");
    EXPECT_EQ(st, std::vector<ucc_status_t>(n, UCC_ERR_INVALID_PARAM));
}
