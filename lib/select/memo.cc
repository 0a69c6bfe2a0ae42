// Remembered selections by cost (memo.h).
#include "lib/select/memo.h"

#include <new>

#include "lib/coll/subgroup.h"
#include "lib/select/select.h"

namespace ucc::select {

namespace {

enum : uint16_t {
    kInplace = 1 << 0,
    kMapped = 1 << 1,
    kGeneric = 1 << 2,
    kTopo = 1 << 3,
    kHierarchical = 1 << 4,
    kNetReduce = 1 << 5,
    kRadixes = 1 << 6,
    kPipelines = 1 << 7,
    kHybrid = 1 << 8,
};

uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

}  // namespace

MemoKey memo_key(const Query &q, const coll::Args &args) {
    MemoKey k;
    k.type = q.type;
    k.team_size = q.team_size;
    k.ppn = q.net != nullptr ? q.net->ppn : 0;
    k.root = args.root;
    k.radix = args.radix;
    k.count = args.count;
    k.esize = args.esize;
    k.chunk_bytes = args.chunk_bytes;
    k.segment_bytes = args.segment_bytes;
    k.dt = args.dt;
    k.op = args.op;
    k.src_mem = args.src_mem;
    k.dst_mem = args.dst_mem;
    k.net_reduce_levels = args.net_reduce_levels;
    k.span = static_cast<uint8_t>(args.span);
    // The hierarchical algorithms run where the query has a topology and
    // the arguments' one holds the team over several nodes.
    const bool hier = q.topo != nullptr && coll::hierarchical_supports(args, q.team_size);
    k.flags = static_cast<uint16_t>(
        (args.inplace ? kInplace : 0) | (args.mapped ? kMapped : 0) |
        (args.generic != nullptr ? kGeneric : 0) | (q.topo != nullptr ? kTopo : 0) |
        (hier ? kHierarchical : 0) | (args.net_reduce ? kNetReduce : 0) |
        (args.radixes != nullptr ? kRadixes : 0) | (args.pipelines != nullptr ? kPipelines : 0) |
        (args.hybrid != nullptr ? kHybrid : 0));
    return k;
}

size_t MemoKeyHash::operator()(const MemoKey &k) const {
    uint64_t h = static_cast<uint64_t>(k.type);
    for (uint64_t v : {uint64_t{k.team_size}, uint64_t{k.ppn}, uint64_t{k.root}, uint64_t{k.radix},
                       k.count, k.esize, k.chunk_bytes, k.segment_bytes, uint64_t{k.dt},
                       uint64_t{k.op}, uint64_t{k.src_mem}, uint64_t{k.dst_mem},
                       uint64_t{k.net_reduce_levels}, uint64_t{k.span}, uint64_t{k.flags}}) {
        h = mix(h, v);
    }
    return static_cast<size_t>(h);
}

bool Memo::find(const MemoKey &k, const coll::Algorithm **alg) const {
    const auto it = map_.find(k);
    if (it == map_.end()) {
        return false;
    }
    *alg = it->second;
    return true;
}

void Memo::remember(const MemoKey &k, const coll::Algorithm *alg) {
    if (map_.size() >= kMaxEntries) {
        map_.clear();
    }
    try {
        map_.emplace(k, alg);
    } catch (const std::bad_alloc &) {
        // Not remembered: predicted again next time.
    }
}

bool Memo::find_segment(const MemoKey &k, uint64_t *segment) const {
    const auto it = segments_.find(k);
    if (it == segments_.end()) {
        return false;
    }
    *segment = it->second;
    return true;
}

void Memo::remember_segment(const MemoKey &k, uint64_t segment) {
    if (segments_.size() >= kMaxEntries) {
        segments_.clear();
    }
    try {
        segments_.emplace(k, segment);
    } catch (const std::bad_alloc &) {
        // Not remembered: predicted again next time.
    }
}

Memo *MemoBook::memo_for(const MemoSettings &s) {
    for (const std::unique_ptr<Entry> &e : entries_) {
        if (e->settings == s) {
            return &e->memo;
        }
    }
    if (entries_.size() >= kMaxMemos) {
        return nullptr;
    }
    try {
        entries_.push_back(std::make_unique<Entry>(Entry{s, Memo()}));
    } catch (const std::bad_alloc &) {
        return nullptr;  // a context without: it predicts every time
    }
    return &entries_.back()->memo;
}

namespace {

// k for the radix of `alg`: its radix field (the setting, auto) replaced by
// the algorithm's place in its type's catalogue, past every radix.
MemoKey radix_key(MemoKey k, const coll::Algorithm &alg) {
    const std::span<const coll::Algorithm> all = coll::algorithms(alg.type);
    k.radix = 1000 + static_cast<uint32_t>(&alg - all.data());
    return k;
}

}  // namespace

bool Memo::find_radix(const MemoKey &k, const coll::Algorithm &alg, uint32_t *radix) const {
    const auto it = radixes_.find(radix_key(k, alg));
    if (it == radixes_.end()) {
        return false;
    }
    *radix = it->second;
    return true;
}

void Memo::remember_radix(const MemoKey &k, const coll::Algorithm &alg, uint32_t radix) {
    if (radixes_.size() >= kMaxEntries) {
        radixes_.clear();
    }
    try {
        radixes_.emplace(radix_key(k, alg), radix);
    } catch (const std::bad_alloc &) {
        // Not remembered: predicted again next time.
    }
}

}  // namespace ucc::select
