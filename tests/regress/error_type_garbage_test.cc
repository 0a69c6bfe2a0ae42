// ucc_coll_args_t.error_type has no mask bit: the reference UCC never reads it,
// and real programs leave it uninitialised. Rule V2 of model/VALIDITY.md made
// ucc_collective_init reject any value other than UCC_ERR_TYPE_LOCAL or
// UCC_ERR_TYPE_GLOBAL, so such a program got UCC_ERR_INVALID_PARAM from a call
// the reference accepts. V2 is withdrawn (error_type is never read; errors are
// local); kept as a regression test: collectives whose error_type holds
// garbage, different on every rank, run to completion and every rank's memory
// equals the model's.
#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/common/scenario.h"
#include "tests/regress/run_once.h"

namespace {

// Stores any integer in an enum field without a C++ conversion (as a C caller can).
template <class E>
void set_raw(E &field, int64_t value) {
    const auto v = static_cast<std::underlying_type_t<E>>(value);
    std::memcpy(&field, &v, sizeof v);
}

// Runs s once on the simulator with garbage in every rank's error_type; "" or what failed.
std::string run_with_garbage_error_type(const ucc::testkit::Scenario &s) {
    ucc::testkit::PreparedColl prep(s);
    if (!prep.failure().empty()) {
        return "the model refused the scenario: " + prep.failure();
    }
    const int64_t garbage[] = {2, -1, INT32_MIN, INT32_MAX, 0x5a5a5a5a};
    for (uint32_t r = 0; r < s.n; ++r) {
        set_raw(prep.args(r).error_type, garbage[r % 5]);
    }
    return ucc::regress::run_prepared_once(s, prep);
}

}  // namespace

TEST(Regress, GarbageErrorTypeIsIgnored) {
    for (ucc_coll_type_t type : {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_BCAST, UCC_COLL_TYPE_GATHER,
                                 UCC_COLL_TYPE_ALLTOALLV}) {
        ucc::testkit::Scenario s;
        s.n = 5;
        s.type = type;
        s.count = 7;
        s.root = 2;
        EXPECT_EQ(run_with_garbage_error_type(s), "") << ucc::testkit::describe(s);
    }
}
