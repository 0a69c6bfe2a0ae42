// What selection by cost found, remembered: the cheapest predicted
// algorithm (by_cost.cc's cheapest), segment (cost::segment_for) and radix
// (cost::radix_for) per arguments, so that a collective
// initialised again with what it had before (every iteration of a benchmark,
// a training loop's allreduce) costs a look-up instead of the catalogue's
// formulas, whose walks (lib/cost/chain.h, tree.h) grow with the team.
//
// The answer depends on the arguments without their buffers (MemoKey: every
// field of coll::Args that an algorithm's supports() or the cost formulas
// read, the team's size and its ranks per node) and on the context's
// settings that shape the formulas (MemoSettings: the network and the radix,
// pipeline and hybrid settings). A MemoBook keeps one Memo per distinct
// settings: a context owns a book of its own, and a simulated world lends
// every rank's context its one book (SimulatedWorld::memo_book), so that a
// million simulated ranks with alike settings predict once.
//
// Bounded: a Memo forgets everything at kMaxEntries, a book holds at most
// kMaxMemos settings (beyond them, a context goes without). Look-ups only
// (no iteration), so the container's order never shows.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "lib/coll/alltoallv/alltoallv.h"
#include "lib/coll/coll.h"
#include "lib/coll/patterns/pipeline.h"
#include "lib/coll/radix.h"
#include "lib/cost/cost.h"

namespace ucc::select {

struct Query;

struct MemoKey {
    ucc_coll_type_t type = UCC_COLL_TYPE_BARRIER;
    uint32_t team_size = 0;
    uint32_t ppn = 0;  // the network as the team sees it (Params::ppn)
    uint32_t root = 0;
    uint32_t radix = 0;
    uint64_t count = 0;
    uint64_t esize = 0;
    uint64_t chunk_bytes = 0;
    uint64_t segment_bytes = 0;
    ucc_datatype_t dt = UCC_DT_INT8;
    ucc_reduction_op_t op = UCC_OP_SUM;
    ucc_memory_type_t src_mem = UCC_MEMORY_TYPE_HOST;
    ucc_memory_type_t dst_mem = UCC_MEMORY_TYPE_HOST;
    uint8_t net_reduce_levels = 0;
    uint8_t span = 0;
    // Flags: in place, mapped, generic datatype, a topology given, the
    // hierarchical algorithms runnable on it, net_reduce, and which of the
    // settings' pointers are set.
    uint16_t flags = 0;
    bool operator==(const MemoKey &) const = default;
};

// The key of `args` on q's team and network.
MemoKey memo_key(const Query &q, const coll::Args &args);

struct MemoKeyHash {
    size_t operator()(const MemoKey &k) const;
};

class Memo {
  public:
    static constexpr size_t kMaxEntries = 4096;
    // Whether `k` is known; *alg its answer (nullptr: no algorithm with a
    // formula runs it).
    bool find(const MemoKey &k, const coll::Algorithm **alg) const;
    void remember(const MemoKey &k, const coll::Algorithm *alg);
    // The same for the segment of the pipelined tree of k's type (one per
    // type: bcast and reduce dbt), chosen with BCAST_SEGMENT or
    // REDUCE_SEGMENT auto (cost::segment_for).
    bool find_segment(const MemoKey &k, uint64_t *segment) const;
    void remember_segment(const MemoKey &k, uint64_t segment);
    // The same for the radix of `alg` (one that reads a radix), chosen with
    // its radix variable and KNOMIAL_RADIX auto (cost::radix_for).
    bool find_radix(const MemoKey &k, const coll::Algorithm &alg, uint32_t *radix) const;
    void remember_radix(const MemoKey &k, const coll::Algorithm &alg, uint32_t radix);
    size_t size() const { return map_.size() + segments_.size() + radixes_.size(); }

  private:
    std::unordered_map<MemoKey, const coll::Algorithm *, MemoKeyHash> map_;
    std::unordered_map<MemoKey, uint64_t, MemoKeyHash> segments_;
    // Keyed by k with its radix field the algorithm's place in its catalogue.
    std::unordered_map<MemoKey, uint32_t, MemoKeyHash> radixes_;
};

// What a context's selections by cost depend on beyond their arguments.
struct MemoSettings {
    cost::Params net;
    coll::Radixes radixes;
    coll::Pipelines pipelines;
    coll::HybridSettings hybrid;
    bool operator==(const MemoSettings &) const = default;
};

class MemoBook {
  public:
    static constexpr size_t kMaxMemos = 64;
    // The memo of contexts with settings `s`; nullptr once the book is full.
    Memo *memo_for(const MemoSettings &s);

  private:
    struct Entry {
        MemoSettings settings;
        Memo memo;
    };
    std::vector<std::unique_ptr<Entry>> entries_;
};

}  // namespace ucc::select
