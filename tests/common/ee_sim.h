// Test kit for execution engines on simulated ranks (tests/integration/
// ee_test.cc, sim_stream_ee_test.cc): a program run on every rank of a
// simulated world, an int64 sum allreduce, a COMPUTE_COMPLETE trigger, a
// bounded progress loop, and the ranks' failures in one string.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::testkit {

// Runs body(rank) on every rank of an `n`-rank world on the hdr network;
// `timeline`: a timeline file to write (null: none).
inline ucc_status_t simulate(uint32_t n, std::function<void(uint32_t)> body,
                             const char *timeline = nullptr) {
    struct Program {
        std::function<void(uint32_t)> body;
    } prog{std::move(body)};
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_NETWORK | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = n;
    p.network = "hdr";
    p.flags = UCC_SIM_FLAG_QUIET;
    if (timeline != nullptr) {
        p.mask |= UCC_SIM_PARAM_FIELD_TIMELINE;
        p.timeline = timeline;
    }
    return ucc_sim_run(
        &p, [](void *arg) { static_cast<Program *>(arg)->body(ucc_sim_rank()); }, &prog);
}

inline ucc_coll_args_t allreduce(int64_t *src, int64_t *dst, uint64_t count) {
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = {src, count, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst, count, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    return a;
}

inline ucc_ev_t compute_done(ucc_coll_req_h req) {
    return ucc_ev_t{UCC_EVENT_COMPUTE_COMPLETE, nullptr, 0, req};
}

// Progresses until the request leaves `from` (at most `bound` passes).
inline ucc_status_t wait_while(ucc_context_h ctx, ucc_coll_req_h req, ucc_status_t from,
                               uint64_t bound = 1'000'000) {
    ucc_status_t st = ucc_collective_test(req);
    for (uint64_t i = 0; st == from && i < bound; ++i) {
        ucc_context_progress(ctx);
        st = ucc_collective_test(req);
    }
    return st;
}

// Every rank's first failure, one line each ("" when none): `Seen` has a
// string member `failure`.
template <class Seen>
std::string failures(const std::vector<Seen> &seen) {
    std::string all;
    for (size_t r = 0; r < seen.size(); ++r) {
        if (!seen[r].failure.empty()) {
            all += "rank " + std::to_string(r) + ": " + seen[r].failure + "\n";
        }
    }
    return all;
}

}  // namespace ucc::testkit
