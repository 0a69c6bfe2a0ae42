// The levels of a hierarchical collective: a flat collective run by a
// subgroup of the team (a node, the node leaders, a rail), inside the
// hierarchical collective's instance.
//
// A level's messages carry the instance's tag (its sequence number and its
// type): the levels a rank runs one after another exchange messages with a
// given peer in the same order on both sides, and levels that run at the
// same time involve disjoint pairs, so per-pair non-overtaking keeps them
// apart (lib/tag.h). The level's algorithm is the context's choice for its
// arguments and subgroup size (CollEnv::select_flat): every member of the
// subgroup makes the same one.
#pragma once

#include "lib/coll/coll.h"
#include "lib/coll/topology.h"

namespace ucc::coll {

// The environment of a level: sub-rank i is the parent's rank g.rank_of(i).
class SubgroupEnv final : public CollEnv {
  public:
    SubgroupEnv(CollEnv &parent, const Group &g) : parent_(parent), group_(g) {}
    Transport &transport() override { return parent_.transport(); }
    Peer peer_of(uint32_t i) const override { return parent_.peer_of(group_.rank_of(i)); }
    Scheduler &scheduler() override { return parent_.scheduler(); }
    Pool *pool() override { return parent_.pool(); }
    void report_desync(uint32_t peer, uint64_t mine, uint64_t theirs) override {
        parent_.report_desync(group_.rank_of(peer), mine, theirs);
    }
    void report_length(uint32_t peer, uint64_t mine, size_t expected, size_t got) override {
        parent_.report_length(group_.rank_of(peer), mine, expected, got);
    }
    void report_inconsistent(const char *what) override { parent_.report_inconsistent(what); }
    const Algorithm *select_flat(const Args &a, uint32_t size) override {
        return parent_.select_flat(a, size);
    }
    uint64_t segment_for(const Algorithm &alg, const Args &a, uint32_t size) override {
        return parent_.segment_for(alg, a, size);
    }
    uint32_t radix_for(const Algorithm &alg, const Args &a, uint32_t size) override {
        return parent_.radix_for(alg, a, size);
    }

  private:
    CollEnv &parent_;
    const Group &group_;
};

// The team seen from `root`: rank i is the parent's rank (i + root) mod n,
// so an algorithm written for root 0 runs for any root (reduce srg).
class RotatedEnv final : public CollEnv {
  public:
    RotatedEnv(CollEnv &parent, uint32_t root, uint32_t n) : parent_(parent), root_(root), n_(n) {}
    Transport &transport() override { return parent_.transport(); }
    Peer peer_of(uint32_t i) const override { return parent_.peer_of(real(i)); }
    Scheduler &scheduler() override { return parent_.scheduler(); }
    Pool *pool() override { return parent_.pool(); }
    void report_desync(uint32_t peer, uint64_t mine, uint64_t theirs) override {
        parent_.report_desync(real(peer), mine, theirs);
    }
    void report_length(uint32_t peer, uint64_t mine, size_t expected, size_t got) override {
        parent_.report_length(real(peer), mine, expected, got);
    }
    void report_inconsistent(const char *what) override { parent_.report_inconsistent(what); }
    const Algorithm *select_flat(const Args &a, uint32_t size) override {
        return parent_.select_flat(a, size);
    }
    uint64_t segment_for(const Algorithm &alg, const Args &a, uint32_t size) override {
        return parent_.segment_for(alg, a, size);
    }
    uint32_t radix_for(const Algorithm &alg, const Args &a, uint32_t size) override {
        return parent_.radix_for(alg, a, size);
    }

  private:
    uint32_t real(uint32_t i) const { return (i + root_) % n_; }
    CollEnv &parent_;
    uint32_t root_;
    uint32_t n_;
};

// The arguments of a level: `type` on the parent's datatype, with the
// parent's tuning; a reduction's AVG becomes SUM (the parent divides once,
// by the whole team's size, with Coll::finalize_result).
Args level_args(const Args &parent, ucc_coll_type_t type);

// What every hierarchical algorithm needs: a topology of this team with
// several nodes and a node of several ranks.
inline bool hierarchical_supports(const Args &a, uint32_t size) {
    return a.topo != nullptr && a.topo->size() == size && !a.topo->flat();
}

// Runs `a` on `g` (which holds this rank) with the algorithm selected for it.
Task run_on(Coll &c, Group g, Args a);

}  // namespace ucc::coll
