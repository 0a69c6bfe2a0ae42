// P4 for the one-sided collectives (alltoall, alltoallv, allgather, bcast
// over memory the context mapped; lib/coll/patterns/onesided.h): team size,
// block sizes (per pair for alltoallv, zero included), rounds (persistent
// re-posts among them) and the simulator seed drawn; every rank holds
// exactly the senders' bytes at the places the reference's semantics name,
// nothing else of its receive segment is written, and the work buffer's
// counters are back to zero after every collective
// (tests/common/onesided_body.h).
#include <string>
#include <vector>

#include "proptests/prop_support.h"
#include "tests/common/onesided_body.h"
#include "ucc/sim/ucc_sim.h"

namespace {

struct OnesidedCase {
    ucc::testkit::OnesidedParams params;
    std::vector<std::string> errors;
};

void onesided_rank_main(void *arg) {
    auto *c = static_cast<OnesidedCase *>(arg);
    ucc::testkit::OnesidedParams p = c->params;
    ucc_sim_oob(&p.oob);
    c->errors[ucc_sim_rank()] = ucc::testkit::onesided_rank(p);
}

}  // namespace

UCC_PROP(OnesidedProps, MappedBlocksLandExactly, 600, ()) {
    const uint32_t n = *rc::gen::weightedElement<uint32_t>(
        {{3, 1}, {6, 2}, {6, 3}, {4, 4}, {3, 5}, {2, 7}, {2, 8}, {1, 13}, {1, 16}});
    OnesidedCase c;
    c.params.rounds = *rc::gen::inRange<uint32_t>(1, 9);
    c.params.max_block = *rc::gen::element<size_t>(0, 1, 7, 64, 300);
    c.params.seed = *rc::gen::arbitrary<uint32_t>();
    c.errors.assign(n, "did not run");
    ucc_sim_params_t sp{};
    sp.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_SEED;
    sp.n_ranks = n;
    sp.seed = *rc::gen::arbitrary<uint32_t>();
    sp.flags = UCC_SIM_FLAG_QUIET;
    RC_TAG("n=" + std::to_string(n), "max_block=" + std::to_string(c.params.max_block));
    RC_ASSERT(ucc_sim_run(&sp, onesided_rank_main, &c) == UCC_OK);
    for (uint32_t r = 0; r < n; ++r) {
        if (!c.errors[r].empty()) {
            RC_FAIL("rank " + std::to_string(r) + ": " + c.errors[r] + " (simulator seed " +
                    std::to_string(sp.seed) + ")");
        }
    }
}
