// The cost formulas by collective family (cost.h): one entry per flat
// algorithm, found by (type, name).
#pragma once

#include <span>

#include "lib/cost/cost.h"

namespace ucc::cost {

using FormulaFn = double (*)(const coll::Args &a, uint32_t n, const Params &p);

struct Formula {
    ucc_coll_type_t type;
    const char *name;
    FormulaFn fn;
};

std::span<const Formula> reduction_formulas();  // reductions.cc
std::span<const Formula> tree_formulas();       // trees.cc
std::span<const Formula> exchange_formulas();   // exchanges.cc
std::span<const Formula> pipeline_formulas();   // pipelines.cc
// The segments BCAST_SEGMENT and REDUCE_SEGMENT "auto" chooses among (0: one
// segment), largest first.
std::span<const uint64_t> segment_candidates();  // pipelines.cc
std::span<const Formula> level_formulas();       // levels.cc

}  // namespace ucc::cost
