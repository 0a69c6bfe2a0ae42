// Helpers for regression tests of ucc_collective_init's argument checks: run
// init on every rank of a simulated team through the C API and compare each
// rank's status with the model (model/validity.h) and with the status the
// test states.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/validity.h"
#include "tests/common/scenario.h"

namespace ucc::regress {

// args[r] is rank r's argument set; want[r] the status VALIDITY.md gives it.
inline void expect_init_statuses(const std::vector<ucc_coll_args_t> &args,
                                 const std::vector<ucc_status_t> &want) {
    ucc::testkit::InitCase c;
    c.n = static_cast<uint32_t>(args.size());
    c.sets = {args};
    const ucc::testkit::InitOutcome o = ucc::testkit::run_init_only(c);
    ASSERT_TRUE(o.failure.empty()) << o.failure;
    for (uint32_t r = 0; r < c.n; ++r) {
        std::string why;
        const ucc_status_t model =
            ucc::model::expected_init_status(args[r], ucc::model::TeamView{c.n, r, true}, &why);
        EXPECT_EQ(model, want[r]) << "rank " << r << ": the model disagrees with the test (" << why
                                  << ")";
        EXPECT_EQ(o.status[0][r], want[r]) << "rank " << r << ": ucc_collective_init returned "
                                           << ucc_status_string(o.status[0][r]) << ", expected "
                                           << ucc_status_string(want[r]) << " (" << why << ")";
    }
}

}  // namespace ucc::regress
