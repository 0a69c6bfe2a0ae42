// A team's topology: which members share a node (lib/coll/topology.h), from
// what the transport knows, with no message exchanged.
//
// A team of consecutive ranks of a world with a regular layout (the
// simulator's) gets the arithmetic form: nothing per member. Any other team
// asks the transport for each member's node key (UCX: the host key its
// address carried through the context's exchange) and keeps a table.
// NODE_SIZE replaces the hosts with nodes of that many consecutive context
// eps, so that two-level collectives run on one host.
#include "lib/coll/topology.h"
#include "lib/core/core.h"

namespace ucc::core {

const coll::Topology *team_topology(Team &t) {
    if (t.topo) {
        return t.topo.get();
    }
    Transport &tl = *t.ctx->transport;
    const uint32_t fake = t.ctx->tuning.node_size;
    uint64_t first = 0;
    uint32_t ppn = 0;
    if (fake == 0 && t.peers.is_strided() && t.peers.stride() == 1 && t.size > 0 &&
        tl.regular_nodes(t.peers.at(0), t.size, &first, &ppn)) {
        t.topo = std::make_unique<coll::Topology>(coll::Topology::regular(t.size, first, ppn));
        return t.topo.get();
    }
    std::vector<uint64_t> keys(t.size);
    for (uint32_t i = 0; i < t.size; ++i) {
        const Peer p = t.peers.at(i);
        if (fake != 0) {
            const int64_t ep = t.ctx->peers.index_of(p);
            keys[i] = ep < 0 ? UINT64_MAX - i : static_cast<uint64_t>(ep) / fake;
        } else {
            keys[i] = tl.node_key(p);
        }
    }
    t.topo = std::make_unique<coll::Topology>(coll::Topology::from_keys(keys));
    return t.topo.get();
}

}  // namespace ucc::core
