// What the trace checkers share (internal to model/trace*.cc): names of ranks,
// times, posts and instances in findings, and the checks several properties
// build on (message balance, same-key overlap, signature fields).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "model/trace.h"

namespace ucc::model::detail {

// "allreduce", ... (model/datatypes.h names them UCC_COLL_TYPE_ALLREDUCE, ...).
std::string short_coll_name(ucc_coll_type_t t);

std::string rank_str(uint32_t r);
std::string time_str(int64_t ps);
std::string op_name(const RankOp &op);

// Position of an event in the trace (order of recording).
size_t pos(const TraceIndex &ix, const TraceEvent *e);

bool all_participants(const Instance &in);
bool all_ok(const Instance &in);

void add(Findings *f, int p, const std::string &what);

// Per ordered pair (from, to) of world ranks: messages sent minus received.
Findings message_balance(const TraceIndex &ix, int property, bool active_sets_only);

// Two posts of one rank with one (team, key) outstanding at the same time.
Findings same_key_overlap(const TraceIndex &ix, int property, bool want_active_set);

// Describes how two signatures differ (layout: lib/coll/coll.cc signature_of).
std::string signature_diff(uint64_t a, uint64_t b);

}  // namespace ucc::model::detail
