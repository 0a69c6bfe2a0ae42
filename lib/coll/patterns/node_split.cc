// Node split (lib/coll/patterns/node_split.h).
//
// The blocks for ranks of other nodes are posted at once, one send and one
// receive per peer (linear, receives first), and while they travel the node's ranks run a
// flat alltoallv among themselves (the algorithm the context selects for
// the node's size) over the blocks they exchange with each other. The two
// parts use disjoint pairs of ranks, so their messages never meet. In
// place, the outgoing blocks for other nodes are first copied to scratch,
// all before the first receive is posted (the receives land where they
// lay); the node's part packs its own.
// Zero-size blocks travel as empty messages: both sides of a pair always
// agree on what to wait for.
#include "lib/coll/patterns/node_split.h"

#include <vector>

#include "lib/coll/patterns/blocks.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll::patterns {

namespace {

// In place: the bytes this rank sends to other nodes (staged in scratch).
uint64_t staged_bytes(const Args &a, const Topology &t, const Blocks &lay, uint32_t me,
                      uint32_t n) {
    uint64_t bytes = 0;
    for (uint32_t r = 0; r < n; ++r) {
        bytes += t.node_of(r) != t.node_of(me) ? lay.dst_count(r) * a.esize : 0;
    }
    return bytes;
}

}  // namespace

void node_split_scratch(const Args &a, uint32_t rank, uint32_t size, bool v, ScratchPlan &plan) {
    if (a.inplace && hierarchical_supports(a, size)) {
        plan.add(staged_bytes(a, *a.topo, Blocks{&a, v}, rank, size));
    }
}

Task node_split(Coll &c, bool v) {
    const Args &a = c.args();
    const Topology &t = *a.topo;
    const Blocks lay{&a, v};
    const uint32_t n = c.size();
    const uint32_t me = c.rank();
    const uint32_t node = t.node_of(me);
    const uint32_t m = t.node_size(node);
    const size_t es = a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    // In place, the outgoing blocks read from dst (their layout is dst's).
    auto out_count = [&](uint32_t r) { return a.inplace ? lay.dst_count(r) : lay.src_count(r); };
    auto out_displ = [&](uint32_t r) { return a.inplace ? lay.dst_displ(r) : lay.src_displ(r); };
    const uint8_t *src = a.inplace ? dst : static_cast<const uint8_t *>(a.src);
    uint8_t *staged = nullptr;
    if (a.inplace) {
        staged = c.scratch(staged_bytes(a, t, lay, me, n));
    }

    // Across nodes: every block at once, in an order that spreads the
    // load: the d-th node after this one for d = 1, 2, ..., within it the
    // ranks from this rank's local index on. At each step the ranks of a
    // node send to distinct ranks of another (a plain pairwise order, r + i
    // skipping the node's own ranks, would have every rank of a node send
    // to the same rank first: each receiver would take its node's blocks
    // all at once). In place, every outgoing block is staged before the
    // first receive is posted (one may complete at once, over a block not
    // yet staged).
    const uint32_t nodes = t.nodes();
    const uint32_t local = t.local_index(me);
    auto each_remote = [&](auto &&f) {
        for (uint32_t d = 1; d < nodes; ++d) {
            const uint32_t other = (node + d) % nodes;
            const uint32_t size = t.node_size(other);
            for (uint32_t q = 0; q < size; ++q) {
                f(t.member(other, (local + q) % size));
            }
        }
    };
    uint64_t at = 0;
    if (staged != nullptr) {
        each_remote([&](uint32_t to) {
            c.copy(staged + at, src + out_displ(to) * es, out_count(to) * es);
            at += out_count(to) * es;
        });
    }
    ReqList inter = c.req_list(2 * (n - m));
    for (uint32_t from = 0; from < n; ++from) {
        if (t.node_of(from) != node) {
            inter.push_back(
                c.recv(from, 0, dst + lay.dst_displ(from) * es, lay.dst_count(from) * es));
        }
    }
    at = 0;
    each_remote([&](uint32_t to) {
        const size_t bytes = out_count(to) * es;
        const uint8_t *block = staged != nullptr ? staged + at : src + out_displ(to) * es;
        at += bytes;
        inter.push_back(c.send(to, 0, block, bytes));
    });

    // Within the node: a flat alltoallv over the node's blocks.
    std::vector<uint64_t> arrays(4 * m);
    uint64_t *sc = arrays.data();
    uint64_t *sd = sc + m;
    uint64_t *dc = sd + m;
    uint64_t *dd = dc + m;
    for (uint32_t i = 0; i < m; ++i) {
        const uint32_t r = t.member(node, i);
        sc[i] = out_count(r);  // (in place: no src arrays)
        sd[i] = out_displ(r);
        dc[i] = lay.dst_count(r);
        dd[i] = lay.dst_displ(r);
    }
    Args x = level_args(a, UCC_COLL_TYPE_ALLTOALLV);
    x.inplace = a.inplace;
    x.src = a.src;
    x.dst = a.dst;
    x.src_counts = sc;
    x.src_displs = sd;
    x.dst_counts = dc;
    x.dst_displs = dd;
    x.counts64 = true;
    x.displs64 = true;
    UCC_CO_TRY(co_await run_on(c, Group::node(t, node), x));
    co_return co_await c.wait_all(inter);
}

}  // namespace ucc::coll::patterns
