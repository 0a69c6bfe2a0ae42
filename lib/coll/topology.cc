// Team topologies (regular and tabulated) and the subgroups built on them.
#include "lib/coll/topology.h"

#include <algorithm>
#include <map>

#include "lib/util/common.h"

namespace ucc::coll {

Topology Topology::regular(uint32_t size, uint64_t first, uint32_t ppn) {
    Topology t;
    t.size_ = size;
    t.first_ = first;
    t.ppn_ = ppn == 0 ? 1 : ppn;
    if (size == 0) {
        return t;
    }
    const uint64_t p = t.ppn_;
    t.nodes_ = static_cast<uint32_t>((first + size - 1) / p - first / p + 1);
    t.min_ppn_ = UINT32_MAX;
    // Only the first and the last node can be partial.
    for (uint32_t k : {0u, t.nodes_ - 1}) {
        const uint32_t n = t.node_size(k);
        t.min_ppn_ = std::min(t.min_ppn_, n);
        t.max_ppn_ = std::max(t.max_ppn_, n);
    }
    if (t.nodes_ > 2) {
        t.max_ppn_ = t.ppn_;
    }
    return t;
}

Topology Topology::from_keys(std::span<const uint64_t> keys) {
    Topology t;
    auto table = std::make_shared<Table>();
    const uint32_t n = static_cast<uint32_t>(keys.size());
    t.size_ = n;
    table->node_of.resize(n);
    table->local.resize(n);
    std::vector<uint32_t> counts;
    std::map<uint64_t, uint32_t> index;  // key -> node, in order of first appearance
    for (uint32_t r = 0; r < n; ++r) {
        auto [it, fresh] = index.emplace(keys[r], static_cast<uint32_t>(counts.size()));
        if (fresh) {
            counts.push_back(0);
        }
        table->node_of[r] = it->second;
        table->local[r] = counts[it->second]++;
    }
    t.nodes_ = static_cast<uint32_t>(counts.size());
    table->starts.assign(t.nodes_ + 1, 0);
    for (uint32_t k = 0; k < t.nodes_; ++k) {
        table->starts[k + 1] = table->starts[k] + counts[k];
    }
    table->members.resize(n);
    for (uint32_t r = 0; r < n; ++r) {
        table->members[table->starts[table->node_of[r]] + table->local[r]] = r;
    }
    if (n > 0) {
        t.min_ppn_ = *std::min_element(counts.begin(), counts.end());
        t.max_ppn_ = *std::max_element(counts.begin(), counts.end());
    }
    t.table_ = std::move(table);
    return t;
}

uint32_t Topology::node_of(uint32_t rank) const {
    if (table_) {
        return table_->node_of[rank];
    }
    return static_cast<uint32_t>((first_ + rank) / ppn_ - first_ / ppn_);
}

uint32_t Topology::node_size(uint32_t node) const {
    if (table_) {
        return table_->starts[node + 1] - table_->starts[node];
    }
    const uint64_t world_node = first_ / ppn_ + node;
    const uint64_t lo = std::max<uint64_t>(first_, world_node * ppn_);
    const uint64_t hi = std::min<uint64_t>(first_ + size_, (world_node + 1) * ppn_);
    return static_cast<uint32_t>(hi - lo);
}

uint32_t Topology::local_index(uint32_t rank) const {
    if (table_) {
        return table_->local[rank];
    }
    const uint64_t w = first_ + rank;
    return static_cast<uint32_t>(w - std::max<uint64_t>(first_, w / ppn_ * ppn_));
}

uint32_t Topology::member(uint32_t node, uint32_t i) const {
    if (table_) {
        return table_->members[table_->starts[node] + i];
    }
    const uint64_t world_node = first_ / ppn_ + node;
    return static_cast<uint32_t>(std::max<uint64_t>(first_, world_node * ppn_) - first_ + i);
}

Group Group::node(const Topology &t, uint32_t node) {
    Group g;
    g.kind_ = Kind::kNode;
    g.topo_ = &t;
    g.node_ = node;
    g.size_ = t.node_size(node);
    return g;
}

Group Group::leaders(const Topology &t, uint32_t root) {
    Group g;
    g.kind_ = Kind::kLeaders;
    g.topo_ = &t;
    g.root_ = root;
    g.root_node_ = t.node_of(root);
    g.size_ = t.nodes();
    return g;
}

Group Group::block_owners(const Topology &t, uint32_t block, uint32_t blocks) {
    Group g;
    g.kind_ = Kind::kOwners;
    g.topo_ = &t;
    g.block_ = block;
    g.blocks_ = blocks;
    g.size_ = t.nodes();
    return g;
}

uint32_t Group::owner_of(uint32_t block, uint32_t m, uint32_t blocks) {
    // The largest j with first_block(j) <= block.
    uint32_t j = static_cast<uint32_t>((uint64_t{block} * m) / blocks);
    while (j + 1 < m && first_block(j + 1, m, blocks) <= block) {
        ++j;
    }
    while (j > 0 && first_block(j, m, blocks) > block) {
        --j;
    }
    return j;
}

uint32_t Group::rank_of(uint32_t i) const {
    switch (kind_) {
        case Kind::kOwners:
            return topo_->member(i, owner_of(block_, topo_->node_size(i), blocks_));
        case Kind::kNode:
            return topo_->member(node_, i);
        case Kind::kLeaders:
            break;
    }
    return i == root_node_ ? root_ : topo_->member(i, 0);
}

uint32_t Group::index_of(uint32_t rank) const {
    switch (kind_) {
        case Kind::kNode:
            return topo_->local_index(rank);
        case Kind::kOwners:
        case Kind::kLeaders:
            break;
    }
    return topo_->node_of(rank);
}

}  // namespace ucc::coll
