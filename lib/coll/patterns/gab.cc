// Gather, allgather among leaders, bcast (lib/coll/patterns/gab.h).
//
// Each node gathers its ranks' blocks into its leader (its lowest rank), in
// the node's rank order; the leaders allgather their nodes' blocks; each
// leader broadcasts the whole result in its node. When every node's ranks
// are consecutive team ranks and the blocks lie back to back in rank order
// (the usual layout), the levels work in dst itself; otherwise in a scratch
// copy of every block, node after node, which every rank finally unpacks
// into place. O(n) time per rank for the layout; O(nodes + node size)
// memory, plus the scratch copy in the second case.
#include "lib/coll/patterns/gab.h"

#include <vector>

#include "lib/coll/patterns/blocks.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll::patterns {

namespace {

// Nodes of consecutive ranks in node order, blocks back to back: dst is
// the packed buffer (from block 0's place).
bool runs_in_dst(const Topology &t, const Blocks &lay, uint32_t n) {
    for (uint32_t r = 0; r + 1 < n; ++r) {
        if (lay.dst_displ(r + 1) != lay.dst_displ(r) + lay.dst_count(r) ||
            (t.node_of(r + 1) != t.node_of(r) && t.node_of(r + 1) != t.node_of(r) + 1)) {
            return false;
        }
    }
    return true;
}

uint64_t total_count(const Blocks &lay, uint32_t n) {
    uint64_t total = 0;
    for (uint32_t r = 0; r < n; ++r) {
        total += lay.dst_count(r);
    }
    return total;
}

}  // namespace

void gather_allgather_bcast_scratch(const Args &a, uint32_t size, bool v, ScratchPlan &plan) {
    const Blocks lay{&a, v};
    if (hierarchical_supports(a, size) && !runs_in_dst(*a.topo, lay, size)) {
        plan.add(total_count(lay, size) * a.esize);
    }
}

Task gather_allgather_bcast(Coll &c, bool v) {
    const Args &a = c.args();
    const Topology &t = *a.topo;
    const Blocks lay{&a, v};
    const uint32_t n = c.size();
    const uint32_t me = c.rank();
    const uint32_t node = t.node_of(me);
    const uint32_t m = t.node_size(node);
    const size_t es = a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    const bool direct = runs_in_dst(t, lay, n);
    std::vector<uint64_t> node_counts(t.nodes(), 0);
    for (uint32_t r = 0; r < n; ++r) {
        node_counts[t.node_of(r)] += lay.dst_count(r);
    }
    std::vector<uint64_t> node_displs(t.nodes(), 0);
    uint64_t total = 0;
    for (uint32_t k = 0; k < t.nodes(); ++k) {
        node_displs[k] = total;
        total += node_counts[k];
    }
    uint8_t *packed = direct ? dst + lay.dst_displ(0) * es : c.scratch(total * es);
    const uint8_t *own =
        a.inplace ? dst + lay.dst_displ(me) * es : static_cast<const uint8_t *>(a.src);
    const bool leader = t.local_index(me) == 0;
    const Group local = Group::node(t, node);

    // 1. Gather the node's blocks into the leader, at the node's place.
    std::vector<uint64_t> counts(m);
    std::vector<uint64_t> displs(m);
    uint64_t at = node_displs[node];
    for (uint32_t i = 0; i < m; ++i) {
        counts[i] = lay.dst_count(t.member(node, i));
        displs[i] = at;
        at += counts[i];
    }
    Args g = level_args(a, UCC_COLL_TYPE_GATHERV);
    g.root = 0;
    g.src = const_cast<uint8_t *>(own);
    g.src_count = lay.dst_count(me);
    g.dst = packed;
    g.dst_counts = counts.data();
    g.dst_displs = displs.data();
    g.counts64 = true;
    g.displs64 = true;
    g.inplace = leader && direct && a.inplace;
    UCC_CO_TRY(co_await run_on(c, local, g));

    // 2. The leaders exchange their nodes' blocks, in place.
    if (leader) {
        Args ag = level_args(a, UCC_COLL_TYPE_ALLGATHERV);
        ag.inplace = true;
        ag.src = packed;
        ag.dst = packed;
        ag.dst_counts = node_counts.data();
        ag.dst_displs = node_displs.data();
        ag.counts64 = true;
        ag.displs64 = true;
        UCC_CO_TRY(co_await run_on(c, Group::leaders(t, 0), ag));
    }

    // 3. Each leader broadcasts the result in its node.
    Args b = level_args(a, UCC_COLL_TYPE_BCAST);
    b.root = 0;
    b.count = total;
    b.src = packed;
    b.dst = packed;
    UCC_CO_TRY(co_await run_on(c, local, b));

    // 4. Unpack, when the levels ran in scratch.
    if (!direct) {
        for (uint32_t k = 0; k < t.nodes(); ++k) {
            uint64_t from = node_displs[k];
            for (uint32_t i = 0; i < t.node_size(k); ++i) {
                const uint32_t r = t.member(k, i);
                c.copy(dst + lay.dst_displ(r) * es, packed + from * es, lay.dst_count(r) * es);
                from += lay.dst_count(r);
            }
        }
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll::patterns
