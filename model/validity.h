// The model of argument checking in ucc_collective_init: what status a rank must get for a given
// ucc_coll_args_t, from local information only (API.md §2.5, §4.2, §4.12; CONFORMANCE P30, P45).
// The rules V1..V13 are listed, in the order they are applied, in model/VALIDITY.md; the library
// implements the same list independently and both sides cite rule numbers.
//
// Only the fields a rule says are used are read: unused union members, fields not selected by
// `mask` and arrays of unused buffers may hold junk.
#pragma once

#include <ucc/api/ucc.h>

#include <cstdint>
#include <string>

namespace ucc::model {

// What the calling rank knows about its team.
struct TeamView {
    uint32_t size;
    uint32_t rank;
    bool ordered = true;  // false: team created with UCC_COLLECTIVE_POST_UNORDERED
};

// The verdict of the rules: status, the rule that decided it (1..12, 0 for UCC_OK) and a
// human-readable reason starting with "V<rule>: ".
struct Verdict {
    ucc_status_t status;
    int rule;
    std::string why;
};

// Applies V1..V13 in order. Throws std::invalid_argument if t.size == 0 or t.rank >= t.size (a
// harness bug, not an argument the library can see).
Verdict validate(const ucc_coll_args_t &a, const TeamView &t);

// What ucc_collective_init must return for these args on this rank; *why (if given) receives the
// reason ("" for UCC_OK).
ucc_status_t expected_init_status(const ucc_coll_args_t &a, const TeamView &t,
                                  std::string *why = nullptr);

}  // namespace ucc::model
