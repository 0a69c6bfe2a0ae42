// A fault case: see fault_case.h.
#include "tests/faults/fault_case.h"

#include <gtest/gtest.h>

#include "model/trace.h"
#include "tests/common/scenario.h"
#include "ucc/api/ucc.h"

namespace ucc::testkit {

namespace {

constexpr uint64_t kCount = 64;

int32_t input(uint32_t rank, uint32_t iter, uint64_t i) {
    return static_cast<int32_t>(rank * 1000 + iter * 7 + i % 13);
}

}  // namespace

FaultOutcome run_fault_case(uint32_t n, uint32_t iters, const ucc::sim::FaultPlan &plan,
                            uint64_t seed, const std::string &alg) {
    FaultOutcome o;
    o.errors.assign(n, "");
    o.ok.assign(n, 0);
    o.failed.assign(n, 0);
    o.finished.assign(n, false);
    o.injected.assign(n, 0);
    o.no_memory.assign(n, 0);
    ucc::sim::ClusterParams cp;
    cp.n_ranks = n;
    cp.seed = seed;
    cp.faults = plan;
    cp.record_events = true;  // for the P37 checker
    o.run = ucc::sim::run(cp, [&](uint32_t rank) {
        ucc::testkit::EnvParams ep;
        ep.alg = alg;
        ucc::testkit::RankEnv env;
        std::string &error = o.errors[rank];
        // The end of the rank's program: destroy what it made; after an
        // error it cannot go on from, exit.
        auto finish = [&](bool exit) {
            const std::string down = ucc::testkit::teardown(&env);
            if (!down.empty() && error.empty()) {
                error = "teardown: " + down;
            }
            o.injected[rank] = ucc::sim::failed_allocations();
            o.finished[rank] = true;
            if (exit) {
                ucc::sim::exit_rank();
            }
        };
        const std::string made = ucc::testkit::setup(ep, rank, n, &env);
        if (!env.defect.empty()) {
            error = env.defect;
        }
        if (!made.empty()) {
            // A crash during context or team creation fails it on the
            // survivors (their OOB exchange lost a member): an error, not a
            // hang. So does a failed allocation or OOB exchange on this rank.
            if (plan.empty()) {
                error = made;
            }
            if (made.find(ucc_status_string(UCC_ERR_NO_MEMORY)) != std::string::npos) {
                ++o.no_memory[rank];
            }
            ++o.failed[rank];
            finish(true);
            return;
        }
        std::vector<int32_t> src(kCount * n);
        std::vector<int32_t> dst(kCount * n);
        for (uint32_t it = 0; it < iters && error.empty(); ++it) {
            const ucc_coll_type_t types[] = {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_BCAST,
                                             UCC_COLL_TYPE_ALLGATHER, UCC_COLL_TYPE_ALLTOALL,
                                             UCC_COLL_TYPE_BARRIER};
            const ucc_coll_type_t type = types[it % 5];
            for (uint64_t i = 0; i < src.size(); ++i) {
                src[i] = input(rank, it, i);
                dst[i] = -1;
            }
            ucc_coll_args_t a{};
            a.coll_type = type;
            a.op = UCC_OP_SUM;
            a.root = it % n;
            const uint64_t total = type == UCC_COLL_TYPE_ALLGATHER || type == UCC_COLL_TYPE_ALLTOALL
                                       ? kCount * n
                                       : kCount;
            a.src.info = {src.data(), type == UCC_COLL_TYPE_ALLTOALL ? total : kCount, UCC_DT_INT32,
                          UCC_MEMORY_TYPE_HOST};
            a.dst.info = {dst.data(), total, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
            if (type == UCC_COLL_TYPE_BCAST) {
                a.src.info = {rank == a.root ? src.data() : dst.data(), kCount, UCC_DT_INT32,
                              UCC_MEMORY_TYPE_HOST};
            }
            ucc_coll_req_h req = nullptr;
            uint32_t allocs_failed = ucc::sim::failed_allocations();
            ucc_status_t st = ucc_collective_init(&a, &req, env.team);
            ucc::testkit::mark_call_returned(st);
            if (st != UCC_OK && req != nullptr && error.empty()) {
                error = "ucc_collective_init returned " + std::string(ucc_status_string(st)) +
                        " but wrote its request";
            }
            if (st == UCC_OK) {
                allocs_failed = ucc::sim::failed_allocations();
                st = ucc_collective_post(req);
                ucc::testkit::mark_call_returned(st);
                // Bounded in count: a survivor must never wait forever (P46).
                for (uint64_t polls = 0; st == UCC_OK; ++polls) {
                    st = ucc_collective_test(req);
                    if (st != UCC_INPROGRESS) {
                        break;
                    }
                    if (polls > 50'000'000) {
                        error = "collective " + std::to_string(it) + " never completed";
                        break;
                    }
                    ucc_context_progress(env.ctx);
                    st = UCC_OK;
                }
                ucc_collective_finalize(req);
            }
            // P37: an allocation failed during the init or the post: the
            // collective reports UCC_ERR_NO_MEMORY.
            if (ucc::sim::failed_allocations() != allocs_failed && st != UCC_ERR_NO_MEMORY &&
                error.empty()) {
                error = "collective " + std::to_string(it) + " ended with " +
                        ucc_status_string(st) +
                        " after an allocation in it failed (expected UCC_ERR_NO_MEMORY)";
            }
            if (st == UCC_ERR_NO_MEMORY) {
                // Out of memory: this rank gives up (its peers' collectives
                // fail once they see it gone).
                ++o.no_memory[rank];
                ++o.failed[rank];
                finish(true);
                return;
            }
            if (st != UCC_OK) {
                ++o.failed[rank];
                continue;
            }
            ++o.ok[rank];
            // UCC_OK: the model's exact result (P41).
            const int32_t *got =
                type == UCC_COLL_TYPE_BCAST && rank == a.root ? src.data() : dst.data();
            for (uint64_t i = 0; i < total && error.empty(); ++i) {
                int64_t want = 0;
                switch (type) {
                    case UCC_COLL_TYPE_ALLREDUCE:
                        for (uint32_t r = 0; r < n; ++r) {
                            want += input(r, it, i);
                        }
                        break;
                    case UCC_COLL_TYPE_BCAST:
                        want = input(static_cast<uint32_t>(a.root), it, i);
                        break;
                    case UCC_COLL_TYPE_ALLGATHER:
                        want = input(static_cast<uint32_t>(i / kCount), it, i % kCount);
                        break;
                    case UCC_COLL_TYPE_ALLTOALL:
                        want = input(static_cast<uint32_t>(i / kCount), it,
                                     rank * kCount + i % kCount);
                        break;
                    default:
                        want = -1;  // barrier: dst untouched
                        break;
                }
                if (type != UCC_COLL_TYPE_BARRIER && static_cast<int64_t>(got[i]) != want) {
                    error = "collective " + std::to_string(it) + " (type " + std::to_string(type) +
                            ") returned UCC_OK with element " + std::to_string(i) + " = " +
                            std::to_string(got[i]) + ", not " + std::to_string(want);
                }
            }
        }
        finish(false);
    });
    o.p37 = ucc::model::format(
        ucc::model::check_p37_failed_allocation(ucc::model::TraceIndex(o.run.trace)));
    o.run.trace.clear();
    return o;
}

namespace {

bool crashed(const ucc::sim::FaultPlan &plan, uint32_t r) {
    for (const ucc::sim::Crash &c : plan.crashes) {
        if (c.rank == r) {
            return true;
        }
    }
    return false;
}

}  // namespace

void expect_survivors_sound(uint32_t n, const ucc::sim::FaultPlan &plan, const FaultOutcome &o,
                            const std::string &what) {
    EXPECT_EQ(o.run.status, UCC_OK) << what << "\n" << o.run.report;
    EXPECT_EQ(o.p37, "") << what;
    for (uint32_t r = 0; r < n; ++r) {
        if (crashed(plan, r) && !o.finished[r]) {
            continue;  // stopped by the plan
        }
        EXPECT_TRUE(o.finished[r]) << what << ": survivor " << r << " did not finish";
        EXPECT_EQ(o.errors[r], "") << what << ": rank " << r;
        if (o.injected[r] > 0) {
            EXPECT_GT(o.no_memory[r], 0u)
                << what << ": rank " << r << " had an allocation fail but saw no UCC_ERR_NO_MEMORY";
        }
        if (plan.crashes.empty() && !plan.fails_calls()) {
            // Stalls, delay spikes and late OOB exchanges only delay:
            // everything succeeds.
            EXPECT_EQ(o.failed[r], 0u) << what << ": rank " << r;
        }
    }
}

}  // namespace ucc::testkit
