// The in-network reduction: a switch tree that reduces (as SHARP does).
//
// Each member sends its contribution towards the switches as a kSwitch
// packet: its CPU pays o_send, its port the gap, its node's NIC the message
// (network.h). The contributions of one reduction gather under (first
// member's endpoint, tag). When the last is in, the switches fold them in
// member order — the same result whatever order they arrived in — and
// sharp_lat + bytes / sharp_bw later the result leaves for every member: a
// tagged message from the member's own endpoint (its data went out and comes
// back) under the same tag, which enters through the member's node NIC and
// is received like any other.
//
// Cost for m members: max over members (their contribution at the switch)
// + sharp_lat + bytes / sharp_bw + the result's NIC entry + o_recv; no
// term grows with m but the members' own arrivals.
#include <algorithm>

#include "transports/sim/cluster.h"

namespace ucc::sim {

void Cluster::send_to_switch(uint32_t src_rank, Message *m) {
    flush_sends();  // (its jitter's draw comes after theirs)
    const NetworkModel &net = params_.net;
    RankState &rs = ranks_[src_rank];
    advance(src_rank, net.o_send_ps);
    const int64_t t = rs.clock_ps;
    const int64_t wire = NetworkModel::bytes_cost_ps(m->bytes, net.bw_inter_bps);
    const int64_t departure =
        std::max(t, rs.nic_free_ps) + (m->bytes > net.short_inter ? net.dma_read_ps : 0);
    rs.nic_free_ps = departure + net.gap_ps + wire;
    int64_t arrival = departure + wire;
    if (!nodes_.empty() && net.shares_nic()) {
        const int64_t hold = net.nic_ps(m->bytes);
        const int64_t sent = nodes_[net.node_of(src_rank)].nic_out.book(departure, hold, now_ps_);
        arrival = std::max(arrival, sent + hold);
    }
    const int64_t jitter =
        net.jitter_max_ps > 0 ? static_cast<int64_t>(rng_.upto(net.jitter_max_ps)) : 0;
    schedule_arrival(m, arrival + jitter);
}

void Cluster::switch_arrival(Message *m) {
    const NetworkModel &net = params_.net;
    std::vector<Message *> &parts = switch_[{m->dst, m->tag}];
    if (parts.empty()) {
        parts.assign(m->members, nullptr);
    }
    if (m->member >= parts.size() || parts[m->member] != nullptr) {
        ++dropped_;  // members that disagree on the reduction: nobody receives this one
        free_message(m);
        return;
    }
    parts[m->member] = m;
    if (std::find(parts.begin(), parts.end(), nullptr) != parts.end()) {
        return;
    }
    std::vector<Message *> done = std::move(parts);
    switch_.erase({m->dst, m->tag});
    // Every contribution must agree on the length; the shortest decides.
    uint64_t bytes = done[0]->bytes;
    uint64_t count = done[0]->value;
    for (const Message *p : done) {
        bytes = std::min(bytes, p->bytes);
        count = std::min(count, p->value);
    }
    std::vector<uint8_t> &acc = done[0]->payload;
    if (!params_.timing_only && count > 0 && done[0]->combine != nullptr) {
        for (size_t i = 1; i < done.size(); ++i) {
            done[0]->combine(acc.data(), acc.data(), done[i]->payload.data(), count);
        }
    }
    const int64_t leaves = now_ps_ + net.sharp_ps(bytes);
    for (size_t i = done.size(); i-- > 0;) {
        Message *r = done[i];
        const uint64_t member = r->src;
        if (i != 0 && !params_.timing_only) {
            r->payload.assign(acc.begin(), acc.begin() + static_cast<ptrdiff_t>(bytes));
        } else if (!params_.timing_only) {
            acc.resize(bytes);
        }
        r->kind = PacketKind::kTagged;
        r->src = member;
        r->dst = member;
        r->bytes = bytes;
        r->value = 0;
        r->combine = nullptr;
        r->signature = 0;
        if (!params_.timing_only && bytes > 0) {
            r->counted = true;
            ++ranks_[member % n_].unclaimed_sends;
        }
        int64_t arrival = leaves + NetworkModel::bytes_cost_ps(bytes, net.bw_inter_bps);
        const uint32_t to = rank_of_endpoint(member);
        if (!nodes_.empty() && net.shares_nic() && to != kNoRank) {
            const int64_t hold = net.nic_ps(bytes);
            const int64_t start = nodes_[net.node_of(to)].nic_in.book(leaves, hold, now_ps_);
            arrival = std::max(arrival, start + hold);
        }
        schedule_arrival(r, arrival);
    }
}

}  // namespace ucc::sim
