// Found running Open MPI's coll/ucc component over this library: asked to
// serve a one-process job, the component hands ucc_context_create an OOB of
// one endpoint whose allgather it cannot run (its own OOB test crashes when
// called). The reference skips the address exchange when n_oob_eps <= 1; this
// library ran two allgathers. A context whose OOB has one endpoint now makes
// no OOB call, and a team of that context still runs collectives.
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/regress/solo_context.h"
#include "ucc/api/ucc.h"

namespace {

int g_unused = 0;  // the callbacks' coll_info; never read

ucc_status_t must_not_allgather(void *, void *, size_t, void *, void **) {
    ADD_FAILURE() << "the OOB of a one-endpoint context was called (allgather)";
    return UCC_ERR_NO_MESSAGE;
}
ucc_status_t must_not_test(void *) {
    ADD_FAILURE() << "the OOB of a one-endpoint context was called (req_test)";
    return UCC_ERR_NO_MESSAGE;
}
ucc_status_t must_not_free(void *) {
    ADD_FAILURE() << "the OOB of a one-endpoint context was called (req_free)";
    return UCC_ERR_NO_MESSAGE;
}

}  // namespace

TEST(Regress, ContextWithOneOobEndpointMakesNoOobCall) {
    ucc_oob_coll_t oob{};
    oob.allgather = must_not_allgather;
    oob.req_test = must_not_test;
    oob.req_free = must_not_free;
    oob.coll_info = &g_unused;
    oob.n_oob_eps = 1;
    oob.oob_ep = 0;
    ucc::regress::SoloContext solo(&oob);
    ASSERT_NE(solo.team, nullptr);
    int64_t v = 7;
    int64_t r = 0;
    ucc_coll_args_t a = ucc::regress::allreduce_of(&v, &r);
    EXPECT_EQ(solo.run(a), UCC_OK);
    EXPECT_EQ(r, 7);
}
