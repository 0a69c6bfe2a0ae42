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
// Pipelined (CL_HIER_ALLREDUCE_SPLIT_RAIL_PIPELINE; lib/coll/patterns/
// pipeline.h): each fragment is a vector of its own, cut into P blocks; the
// rails allreduce one fragment's blocks while the node reduce-scatters the
// next and allgathers the one before.
// Cost (p ranks per node, N nodes, m bytes):
//   T = T_rs(p, m)_intra + T_allreduce(N, m/p)_inter + T_ag(p, m)_intra.
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier); nodes may differ in size.
#include <vector>

#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/patterns/pipeline.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

namespace {

// The node's ranks' shares of a vector of `count` elements in `blocks`
// blocks: local index k holds [displs[k], displs[k] + counts[k]).
struct Shares {
    std::vector<uint64_t> counts;
    std::vector<uint64_t> displs;
};

uint64_t block_off(uint64_t count, uint32_t blocks, uint32_t b) {
    uint64_t off = 0;
    uint64_t len = 0;
    patterns::block_range(count, blocks, b, &off, &len);
    return off;
}

Shares shares_of(uint64_t count, uint32_t m, uint32_t blocks) {
    auto share_off = [&](uint32_t k) {
        return k == m ? count : block_off(count, blocks, Group::first_block(k, m, blocks));
    };
    Shares s{std::vector<uint64_t>(m), std::vector<uint64_t>(m)};
    for (uint32_t k = 0; k < m; ++k) {
        s.displs[k] = share_off(k);
        s.counts[k] = share_off(k + 1) - s.displs[k];
    }
    return s;
}

// The node reduce-scatters the vector `x` (its src and dst) into this
// rank's share, local index j.
Task scatter_in_node(Coll &c, Group local, Args x, uint32_t j, uint32_t blocks) {
    const Shares s = shares_of(x.count, local.size(), blocks);
    Args rs = level_args(x, UCC_COLL_TYPE_REDUCE_SCATTERV);
    rs.inplace = x.inplace;
    rs.src = x.src;
    rs.dst = x.inplace ? x.dst : static_cast<uint8_t *>(x.dst) + s.displs[j] * x.esize;
    rs.dst_counts = s.counts.data();
    rs.counts64 = true;
    rs.count = x.count;
    co_return co_await run_on(c, local, rs);
}

// This rank's blocks of `x` (in dst), each allreduced among its owners in
// block order; then AVG's division of the share.
Task along_rails(Coll &c, const Topology &t, Args x, uint32_t j, uint32_t m, uint32_t blocks) {
    auto *dst = static_cast<uint8_t *>(x.dst);
    const uint32_t first = Group::first_block(j, m, blocks);
    const uint32_t last = Group::first_block(j + 1, m, blocks);
    for (uint32_t b = first; b < last; ++b) {
        uint64_t off = 0;
        uint64_t len = 0;
        patterns::block_range(x.count, blocks, b, &off, &len);
        Args ar = level_args(x, UCC_COLL_TYPE_ALLREDUCE);
        ar.count = len;
        ar.src = dst + off * x.esize;
        ar.dst = dst + off * x.esize;
        ar.inplace = true;
        UCC_CO_TRY(co_await run_on(c, Group::block_owners(t, b, blocks), ar));
    }
    const uint64_t begin = block_off(x.count, blocks, first);
    const uint64_t end = last == blocks ? x.count : block_off(x.count, blocks, last);
    c.finalize_result(dst + begin * x.esize, end - begin);
    co_return UCC_OK;
}

// The node allgathers the shares of `x` in place in its dst.
Task gather_in_node(Coll &c, Group local, Args x, uint32_t blocks) {
    const Shares s = shares_of(x.count, local.size(), blocks);
    Args ag = level_args(x, UCC_COLL_TYPE_ALLGATHERV);
    ag.inplace = true;
    ag.src = x.dst;
    ag.dst = x.dst;
    ag.dst_counts = s.counts.data();
    ag.dst_displs = s.displs.data();
    ag.counts64 = true;
    ag.displs64 = true;
    co_return co_await run_on(c, local, ag);
}

}  // namespace

Task allreduce_split_rail(Coll &c) {
    const Args &a = c.args();
    const Topology &t = *a.topo;
    const uint32_t me = c.rank();
    const uint32_t node = t.node_of(me);
    const uint32_t m = t.node_size(node);
    const uint32_t j = t.local_index(me);
    const uint32_t blocks = t.max_node_size();
    const Group local = Group::node(t, node);
    uint32_t depth = 1;
    const uint32_t frags = pipeline_fragments(a, &Pipelines::split_rail, &depth);
    auto slice = [&](uint32_t f) { return fragment(a, a.count, frags, f); };
    auto scatter = [&](uint32_t f) { return scatter_in_node(c, local, slice(f), j, blocks); };
    auto rails = [&](uint32_t f) { return along_rails(c, t, slice(f), j, m, blocks); };
    auto gather = [&](uint32_t f) { return gather_in_node(c, local, slice(f), blocks); };
    if (frags > 1) {
        co_return co_await run_pipeline(c, frags, depth, scatter, rails, gather);
    }
    UCC_CO_TRY(co_await scatter(0));
    UCC_CO_TRY(co_await rails(0));
    co_return co_await gather(0);
}

}  // namespace ucc::coll
