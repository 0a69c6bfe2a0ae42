// Allreduce: split_rail, two levels in three steps (reduce-scatter in the
// node, one allreduce per block across the nodes, allgather in the node).
//
// The vector is cut into P blocks, P the largest node's rank count; on a
// node of m ranks local index j owns the contiguous blocks [jP/m, (j+1)P/m)
// (one each when m = P). The node reduce-scatters the vector so that each
// rank holds its blocks' node sums; for each block the owners on every node
// (one rank per node: with equal nodes, the ranks of one local index, a
// "rail") allreduce it in place; the node allgathers the blocks. Every rank
// of a node drives the network at once, each with 1/P of the vector: the
// node's NICs (rails) and links carry it in parallel, and no rank moves
// more than its share. Ranks process their blocks in block order, so the
// allreduces of blocks whose owners overlap meet in the same order on both
// sides (lib/coll/subgroup.h). Every level runs the flat algorithm the
// context selects for it; AVG reduces with SUM and every rank divides its
// blocks once (each block's bits are the same on all ranks).
// Cost (p ranks per node, N nodes, m bytes):
//   T = T_rs(p, m)_intra + T_allreduce(N, m/p)_inter + T_ag(p, m)_intra.
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier); nodes may differ in size.
#include <vector>

#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

Task allreduce_split_rail(Coll &c) {
    const Args &a = c.args();
    const Topology &t = *a.topo;
    const uint32_t me = c.rank();
    const uint32_t node = t.node_of(me);
    const uint32_t m = t.node_size(node);
    const uint32_t j = t.local_index(me);
    const uint32_t blocks = t.max_node_size();
    const size_t es = a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    // Elements before block b, and the node's ranks' shares (counts, displs).
    auto block_off = [&](uint32_t b) {
        uint64_t off = 0;
        uint64_t len = 0;
        patterns::block_range(a.count, blocks, b, &off, &len);
        return off;
    };
    auto share_off = [&](uint32_t k) {
        return k == m ? a.count : block_off(Group::first_block(k, m, blocks));
    };
    std::vector<uint64_t> counts(m);
    std::vector<uint64_t> displs(m);
    for (uint32_t k = 0; k < m; ++k) {
        displs[k] = share_off(k);
        counts[k] = share_off(k + 1) - displs[k];
    }
    const Group local = Group::node(t, node);

    Args rs = level_args(a, UCC_COLL_TYPE_REDUCE_SCATTERV);
    rs.inplace = a.inplace;
    rs.src = a.src;
    rs.dst = a.inplace ? dst : dst + displs[j] * es;
    rs.dst_counts = counts.data();
    rs.counts64 = true;
    rs.count = a.count;
    UCC_CO_TRY(co_await run_on(c, local, rs));

    const uint32_t last = Group::first_block(j + 1, m, blocks);
    for (uint32_t b = Group::first_block(j, m, blocks); b < last; ++b) {
        uint64_t off = 0;
        uint64_t len = 0;
        patterns::block_range(a.count, blocks, b, &off, &len);
        Args ar = level_args(a, UCC_COLL_TYPE_ALLREDUCE);
        ar.count = len;
        ar.src = dst + off * es;
        ar.dst = dst + off * es;
        ar.inplace = true;
        UCC_CO_TRY(co_await run_on(c, Group::block_owners(t, b, blocks), ar));
    }
    c.finalize_result(dst + displs[j] * es, counts[j]);

    Args ag = level_args(a, UCC_COLL_TYPE_ALLGATHERV);
    ag.inplace = true;
    ag.src = dst;
    ag.dst = dst;
    ag.dst_counts = counts.data();
    ag.dst_displs = displs.data();
    ag.counts64 = true;
    ag.displs64 = true;
    co_return co_await run_on(c, local, ag);
}

}  // namespace ucc::coll
