// Which ranks of a team share a node: what the hierarchical algorithms read.
//
// Nodes are numbered 0..nodes()-1 in the order of their lowest team rank;
// the ranks of one node are numbered 0..node_size()-1 in team-rank order
// (their local index). Two forms, one interface:
//  * regular: the team is a run of consecutive ranks of a world whose nodes
//    hold `ppn` ranks each (the simulator's world and its contiguous teams).
//    O(1) space: a million-rank simulation keeps no table per rank.
//  * a table: any layout, from each rank's node key (a real transport's host,
//    or a non-contiguous team). O(n) space, built once per team.
// Nodes may hold different numbers of ranks in both forms.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace ucc::coll {

class Topology {
  public:
    // Team rank i is world rank first + i, on world node (first + i) / ppn.
    static Topology regular(uint32_t size, uint64_t first, uint32_t ppn);
    // Team rank i is on the node whose key is keys[i].
    static Topology from_keys(std::span<const uint64_t> keys);

    uint32_t size() const { return size_; }
    uint32_t nodes() const { return nodes_; }
    uint32_t node_of(uint32_t rank) const;
    uint32_t node_size(uint32_t node) const;
    uint32_t local_index(uint32_t rank) const;
    // The `i`-th rank (team rank order) of `node`.
    uint32_t member(uint32_t node, uint32_t i) const;
    uint32_t min_node_size() const { return min_ppn_; }
    uint32_t max_node_size() const { return max_ppn_; }
    // One node, or one rank per node: nothing to gain from two levels.
    bool flat() const { return nodes_ <= 1 || nodes_ == size_; }

  private:
    struct Table {
        std::vector<uint32_t> node_of;  // per team rank
        std::vector<uint32_t> local;    // per team rank
        std::vector<uint32_t> members;  // team ranks grouped by node
        std::vector<uint32_t> starts;   // node k: members[starts[k], starts[k + 1])
    };
    uint32_t size_ = 0;
    uint32_t nodes_ = 0;
    uint32_t min_ppn_ = 0;
    uint32_t max_ppn_ = 0;
    // Regular form.
    uint64_t first_ = 0;
    uint32_t ppn_ = 0;
    std::shared_ptr<const Table> table_;  // null: regular
};

// A subgroup of a team the hierarchical algorithms run a flat collective on:
// sub-rank i is team rank rank_of(i).
class Group {
  public:
    // The ranks of `node`.
    static Group node(const Topology &t, uint32_t node);
    // One rank per node: `root` on its node, the local index 0 elsewhere.
    static Group leaders(const Topology &t, uint32_t root);
    // One rank per node: the owner of block `block` of `blocks` on each node
    // (owner_of; with as many blocks as ranks on every node, the ranks of
    // one local index: a rail).
    static Group block_owners(const Topology &t, uint32_t block, uint32_t blocks);
    // The blocks [first, last) of `blocks` that local index `j` of a node of
    // `m` ranks owns: contiguous, at least one each when m <= blocks.
    static uint32_t first_block(uint32_t j, uint32_t m, uint32_t blocks) {
        return static_cast<uint32_t>(uint64_t{j} * blocks / m);
    }
    // The local index that owns `block` on a node of `m` ranks.
    static uint32_t owner_of(uint32_t block, uint32_t m, uint32_t blocks);

    uint32_t size() const { return size_; }
    // One rank per node: the node leaders, or the owners of a block.
    bool is_leaders() const { return kind_ == Kind::kLeaders; }
    bool is_owners() const { return kind_ == Kind::kOwners; }
    uint32_t rank_of(uint32_t i) const;
    // This group's index of team rank `rank` (it must be a member).
    uint32_t index_of(uint32_t rank) const;

  private:
    enum class Kind : uint8_t { kNode, kLeaders, kOwners };
    Kind kind_ = Kind::kNode;
    const Topology *topo_ = nullptr;
    uint32_t node_ = 0;
    uint32_t root_ = 0;
    uint32_t root_node_ = 0;
    uint32_t block_ = 0;
    uint32_t blocks_ = 0;
    uint32_t size_ = 0;
};

}  // namespace ucc::coll
