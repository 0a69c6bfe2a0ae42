// Found by measuring bcast `sag_knomial` within a node of
// networks/hdr-32x40.net: 32 KiB on 40 ranks took 740 us with the node's
// memory shared (node_bw) and 64.5 us without.
//
// The resources a node's ranks share (its memory, its NIC each way) served
// requests in the order the ranks made them. The simulator runs one rank at
// a time as far as it can, so the bcast's root, with nothing to wait for,
// booked the memory iterations ahead, and every rank behind it queued after
// that future booking. Fixed: each resource keeps a calendar
// (transports/sim/calendar.h) and a request takes the first free stretch
// from its own time on.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "transports/sim/cluster.h"
#include "transports/sim/sim_transport.h"

namespace {

using ucc::Xfer;
using ucc::sim::Cluster;

// Three ranks of one node. Rank 0 runs 10 us ahead, then sends 1000 B to
// rank 2; rank 1 sends rank 2 1000 B at time 0. Memory of 1 GB/s: each
// message holds it 1 us. Returns when rank 2 has rank 1's message.
double rank1_message_arrives(const char *net) {
    ucc::sim::ClusterParams p;
    p.n_ranks = 3;
    std::string err;
    EXPECT_EQ(ucc::net::parse_network(net, &p.net, &err), UCC_OK) << err;
    double got = 0;
    const ucc::sim::RunResult run = ucc::sim::run(p, [&](uint32_t r) {
        auto t = ucc::sim::make_transport();
        std::vector<uint8_t> buf(1000, 1);
        Xfer x;
        Xfer y;
        if (r == 0) {
            Cluster::current()->advance(r, 10'000'000);
        }
        if (r < 2) {
            t->isend(2, r, buf.data(), buf.size(), UCC_MEMORY_TYPE_HOST, &x);
            return;
        }
        std::vector<uint8_t> other(1000);
        t->irecv(0, 0, other.data(), other.size(), UCC_MEMORY_TYPE_HOST, &y);
        t->irecv(1, 1, buf.data(), buf.size(), UCC_MEMORY_TYPE_HOST, &x);
        for (int i = 0; i < 1000 && !x.done(); ++i) {
            if (t->progress() == 0 && !x.done()) {
                t->idle(INFINITY);
            }
        }
        got = t->now();
        for (int i = 0; i < 1000 && !y.done(); ++i) {
            if (t->progress() == 0 && !y.done()) {
                t->idle(INFINITY);
            }
        }
    });
    EXPECT_EQ(run.status, UCC_OK) << run.report;
    return got;
}

TEST(Regress, ARankRunningAheadDoesNotQueueTheOthersOnTheNodesMemory) {
    // Rank 1's message holds the memory from 0 to 1 us, then 100 ns of
    // latency; it used to wait behind rank 0's booking at 10 us (11.1 us).
    EXPECT_NEAR(rank1_message_arrives("ideal,ppn=3,lat_intra=100ns,node_bw=1GB/s"), 1.1e-6, 1e-12);
    EXPECT_NEAR(rank1_message_arrives("ideal,ppn=3,lat_intra=100ns"), 100e-9, 1e-12);
}

}  // namespace
