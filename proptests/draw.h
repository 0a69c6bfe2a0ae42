// Generators and coverage tags shared by the property tests: random valid
// scenarios for every collective (tests/common/scenario.h), the classes of
// team size, count and root position, and the failure context (P2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/datatypes.h"
#include "tests/common/scenario.h"
#include "ucc/api/ucc.h"

namespace ucc::proptest {

using testkit::Scenario;

// Every collective type.
extern const std::vector<ucc_coll_type_t> kColls;
// Total bytes of src+dst over all ranks a drawn scenario may allocate.
constexpr uint64_t kByteBudget = 4ull << 20;

bool no_data(ucc_coll_type_t t);
// Collective properties: the model's one statement of them.
using model::is_reduction;
using model::is_rooted;
using model::is_v;
// "auto" and every algorithm the library's table has for the type.
std::vector<std::string> algorithms(ucc_coll_type_t t);
// Algorithms whose message count grows with n^2.
bool quadratic(ucc_coll_type_t t, const std::string &alg);
std::vector<ucc_datatype_t> all_datatypes();
std::vector<ucc_reduction_op_t> supported_ops(ucc_datatype_t dt);

// Team sizes: mostly 1..64 with extra weight on small, power-of-two, prime and
// odd sizes; rarely 65..max_big.
uint32_t draw_team_size(uint32_t max_big);
// Element count classes: 0, 1, small odd, small, up to a few hundred, rarely a few thousand.
uint64_t draw_count();
// Bytes per element of `count` over the whole team.
uint64_t team_bytes_per_count(ucc_coll_type_t t, uint32_t n, size_t es);
uint32_t draw_root(uint32_t n);
std::string draw_network();

struct DrawOptions {
    bool any_coll = true;
    ucc_coll_type_t coll = UCC_COLL_TYPE_ALLREDUCE;  // when !any_coll
    bool zero_count = false;                         // count 0 (null buffers half the time)
    bool float_types = false;                        // prefer floating datatypes
    uint32_t max_n = 1024;                           // largest team drawn
    bool active_sets = true;                         // draw an active set now and then
};

// Puts an active set (and maybe a tag) on a drawn scenario.
void draw_active_set(Scenario &s);

// Draws a whole valid scenario, the simulator seed included.
Scenario draw_scenario(const DrawOptions &o);

const char *count_class(uint64_t c);
const char *root_class(const Scenario &s);
// RC_TAGs of a scenario (the coverage report).
void tag(const Scenario &s);
// P2: everything needed to reproduce a failure besides RapidCheck's token.
std::string context(const Scenario &s);

}  // namespace ucc::proptest
