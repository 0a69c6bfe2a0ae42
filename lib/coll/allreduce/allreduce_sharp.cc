// Allreduce: in the network's switches (as SHARP does).
//
// Every member sends its vector once, towards the switches; they combine the
// contributions up an aggregation tree and send the result down to every
// member (lib/simulated.h reduce_in_network; the simulator's network keys
// sharp_lat and sharp_bw). No host reduces and no message crosses the network
// twice: the latency of one trip up and down the tree, independent of the
// team size but for the members' own arrivals. The switches fold the
// contributions in team-rank order, so every member receives the same bits.
// Cost: T = 2 (o + m G_nic) + sharp_lat + m / sharp_bw.
// Constraints: a network whose switches reduce (the simulator with
// sharp_lat), every member on a node of its own (Args::net_reduce: a team of
// one rank per node, or a hierarchical algorithm's node leaders or rails
// when UCC_CL_HIER_NODE_LEADERS_SBGP_TLS / _NET_SBGP_TLS name sharp), and
// what the switches compute: integers and floats of 16, 32 and 64 bits;
// SUM, MIN, MAX and the logical and bitwise ops (no PROD, no AVG), as the
// reference's tl/sharp. In place or not; no scratch.
// Tag steps: 0 (the contribution, and the result, which comes back to each
// member as a message from itself).
#include "lib/coll/allreduce/allreduce.h"

namespace ucc::coll {

bool allreduce_sharp_supports(const Args &a, uint32_t /*size*/) {
    if (!a.net_reduce || a.generic != nullptr) {
        return false;
    }
    switch (a.dt) {
        case UCC_DT_INT16:
        case UCC_DT_INT32:
        case UCC_DT_INT64:
        case UCC_DT_UINT16:
        case UCC_DT_UINT32:
        case UCC_DT_UINT64:
        case UCC_DT_FLOAT16:
        case UCC_DT_FLOAT32:
        case UCC_DT_FLOAT64:
            break;
        default:
            return false;
    }
    switch (a.op) {
        case UCC_OP_SUM:
        case UCC_OP_MAX:
        case UCC_OP_MIN:
        case UCC_OP_LAND:
        case UCC_OP_LOR:
        case UCC_OP_LXOR:
        case UCC_OP_BAND:
        case UCC_OP_BOR:
        case UCC_OP_BXOR:
            return true;
        default:
            return false;
    }
}

Task allreduce_sharp(Coll &c) {
    const Args &a = c.args();
    const size_t bytes = a.count * a.esize;
    if (!c.reduces_in_network()) {
        co_return UCC_ERR_NOT_SUPPORTED;
    }
    Req result = c.recv(c.rank(), 0, a.dst, bytes);  // back through the switches
    Req mine = c.reduce_in_network(0, a.inplace ? a.dst : a.src, a.count);
    UCC_CO_TRY(co_await c.wait(mine, result));
    c.finalize_result(a.dst, a.count);
    co_return UCC_OK;
}

}  // namespace ucc::coll
