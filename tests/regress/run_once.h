// Helper for regression tests that alter a prepared collective's arguments
// (fields the scenario kit does not draw: junk error_type, extra flags): run
// it once on every rank of a simulated team through the C API and compare
// every rank's memory with the model.
#pragma once

#include <string>
#include <vector>

#include "tests/common/scenario.h"
#include "transports/sim/cluster.h"

namespace ucc::regress {

// Runs prep's collective (made from s, then altered by the test) once on s.n
// simulated ranks: init, post, test until done, check, finalize. "" when every
// rank completed with UCC_OK and holds the model's bytes, else what failed.
inline std::string run_prepared_once(const ucc::testkit::Scenario &s,
                                     ucc::testkit::PreparedColl &prep) {
    std::vector<std::string> errors(s.n);
    ucc::sim::ClusterParams p;
    p.n_ranks = s.n;
    p.seed = s.seed;
    const ucc::sim::RunResult run = ucc::sim::run(p, [&](uint32_t r) {
        ucc::testkit::RankEnv env;
        std::string err = ucc::testkit::setup(ucc::testkit::EnvParams{}, r, s.n, &env);
        if (err.empty()) {
            ucc_coll_req_h req = nullptr;
            ucc_status_t st = ucc_collective_init(&prep.args(r), &req, env.team);
            if (st == UCC_OK) {
                st = ucc_collective_post(req);
            }
            if (st == UCC_OK) {
                while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
                    ucc_context_progress(env.ctx);
                }
            }
            err = st == UCC_OK ? prep.check(r, 0)
                               : "rank " + std::to_string(r) + ": " + ucc_status_string(st);
            if (req != nullptr) {
                ucc_collective_finalize(req);
            }
        }
        const std::string down = ucc::testkit::teardown(&env);
        errors[r] = err.empty() ? down : err;
    });
    if (run.status != UCC_OK) {
        return std::string("simulation: ") + ucc_status_string(run.status) + "\n" + run.report;
    }
    for (const std::string &e : errors) {
        if (!e.empty()) {
            return e;
        }
    }
    return "";
}

}  // namespace ucc::regress
