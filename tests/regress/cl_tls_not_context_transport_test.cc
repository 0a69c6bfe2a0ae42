// Regression: UCC_CL_BASIC_TLS=ucp (the reference's CL/BASIC list of TLs, as
// the UCC overview's hierarchical-allreduce table sets it) was read as the
// context's TLS through its component prefix, which forced the UCX transport
// inside simulated ranks; and a UCX transport there waited for peers that
// never run: the run hung without a word. Now a CL's TLS list is its own
// variable (CL_BASIC_TLS, CL_HIER_TLS), and a transport that cannot reach the
// other ranks of a simulated world refuses the context with a reason.
#include <gtest/gtest.h>

#include "tests/common/scenario.h"
#include "tests/common/scoped_env.h"

using ucc::testkit::Scenario;
using ucc::testkit::ScopedEnv;

TEST(Regress, ClTlsListsAreNotTheContextsTransports) {
    for (const char *var : {"UCC_CL_BASIC_TLS", "UCC_CL_HIER_TLS"}) {
        ScopedEnv tls(var, "ucp");
        Scenario s;
        s.n = 4;
        EXPECT_EQ(ucc::testkit::run_scenario(s).failure, "") << var;
    }
}

TEST(Regress, ForcedUcxInsideASimulatedWorldRefusesTheContext) {
    ScopedEnv tls("UCC_TLS", "ucx");
    Scenario s;
    s.n = 2;
    const std::string failure = ucc::testkit::run_scenario(s).failure;
    EXPECT_NE(failure.find("ucc_context_create"), std::string::npos) << failure;
}
