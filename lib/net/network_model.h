// A network described as a LogGP-style cost model: what the simulator runs
// (transports/sim) and the cost formulas take (cost_params), for a machine a
// preset, spec or file names (network_arg.h).
//
// Ranks live on nodes (rank r is on node r / ranks_per_node). A message of
// `bytes` bytes from rank a to rank b costs
//   sender:   o_send (CPU), then the rank's port is busy for g + bytes * G
//   wire:     L + bytes * G (+ a seeded jitter in [0, jitter_max])
//   receiver: its port takes the bytes in, one message at a time, busy
//             g + bytes * G for each (LogGP's g and G at the receiving
//             end: a message that finds it taking in another arrives that
//             much later; a sender's messages to one receiver keep their
//             order), then o_recv (CPU) when the message is matched
// where L and G are the intra-node or inter-node latency and per-byte cost.
// What the node's ranks share (each off when 0):
//   between nodes: the node's NIC, one message at a time in each direction
//     (out of the sender's node, into the receiver's), each taking
//     1 / nic_rate + bytes / nic_bw;
//   within a node: its memory, one message at a time, bytes / node_bw.
// A message longer than the rendezvous threshold (rndv_inter, rndv_intra)
// waits one more round trip (2 L) before its data moves, as a rendezvous
// protocol's request and answer do, and its send completes only when its
// receiver, having matched it, says so (L after the receiver took it in).
// Protocols by size, as UCX's: a message of up to `short` bytes (short_intra,
// short_inter) travels inline with its header, for o alone; a longer one, up
// to the zero-copy threshold (zcopy_intra, zcopy_inter), is copied by the
// sender's CPU into the transport's buffers and by the receiver's out of
// them (bcopy: shared memory's descriptors, the NIC's bounce buffers), each
// side paying o_bcopy + bytes / bcopy (bcopy_intra, bcopy_inter; a path
// whose bcopy is unset copies nothing); a longer
// one still is moved by the NIC or the kernel (zero-copy), for o alone.
// Between nodes, a message longer than short_inter also waits dma_read
// before it leaves: the NIC reads its payload from host memory (a PCIe
// round trip) instead of finding it in the send request.
// In-network reduction (sharp_lat; off when 0): a switch tree that reduces
// (as SHARP). Each member's contribution leaves through its node's NIC; when
// the last is in, the result reaches every member sharp_lat + bytes /
// sharp_bw later, through its node's NIC.
// Within a node, a zero-copy message (longer than zcopy_intra) may instead
// be copied by the receiver's CPU out of the sender's memory (cma; 0: it
// crosses the intra-node link): o_cma + bytes / cma when it is matched, no
// wire. A copy whose working set (the rank's buffers of the collective it
// belongs to; a lone message: its bytes twice, a buffer on each side) is
// larger than `cache` bytes (0: no such limit) no longer fits the caches: it
// runs at cma_mem (a pull), copy_mem (a local copy) or reduce_mem (a
// reduction) instead, each 0 for the same as within.
// A pull of lines its sender's CPU has just written (a partial sum, a block
// it received and forwards) may cost more than one of a buffer that, not
// written since its last pull, sits in both CPUs' caches (an input a
// benchmark sends again and again): when cma_written is set, every pull but
// one of the sender's input (Xfer::input, in a run whose inputs are not
// rewritten between calls) costs o_cma_written + bytes / cma_written, and
// cma_mem_written beyond the cache (0: cma_mem, as in memory who wrote the
// data last matters little; both 0: cma_written); unset, all pulls alike.
// Local compute (copies, reductions) costs bytes / bandwidth, and every
// collective posted costs its rank o_call of the library's own time, every
// one initialised o_init (its init and finalize, charged at the init).
// A node of more ranks than cores (cores; 0: a core per rank) runs them in
// turns: each rank's CPU time above takes its core (the one of its index in
// the node modulo cores) when the core is free, and work after another
// rank's on that core pays `wake` first (the operating system's switch: a
// rank that waited gave its core away, as processes that yield while they
// poll do).
// CUDA device memory on a simulated rank costs what a real transport's
// staging costs (lib/core/device_staging.h): each copy between the rank's GPU
// and its host memory, the inputs at a post and the outputs at a completion,
// takes the rank pcie_lat (the copy's launch and the wait for it) plus bytes /
// pcie_bw; both 0 (every preset's default): free. Within a node, ranks on
// device memory may read each other's GPUs directly (lib/core/device_ipc.h):
// there each operation queued on a rank's GPU takes gpu_lat (its launch and
// the wait for it) plus its bytes at a rate: a copy within the GPU gpu_bw, a
// copy from a peer's GPU nvlink_bw (the link between GPUs: NVLink, or PCIe
// peer to peer), a two-input reduction kernel gpu_reduce_bw (bytes of its
// output; a kernel of n inputs moves (n + 1)/3 times as much), at least its
// peers' inputs at nvlink_bw; each 0 (every preset's default): free.
// The operating system's periodic work (noise_hz, noise; each 0: none):
// noise_hz times a second every core of a node is taken from its rank for
// `noise` (a detour), the node's cores at the same instants (Linux's
// periodic tick, which it does not skew across CPUs unless booted with
// skew_tick=1), each node at its own seeded phase. Work that a detour
// interrupts takes that much longer; a message that arrives during one is
// seen when it ends. One late rank holds up every rank that waits for it,
// so the cost grows with the ranks a collective synchronises.
//
// Every time is an integer number of picoseconds; bandwidths are integer
// bytes per second (0 means infinitely fast), so costs are exact integers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "lib/cost/cost.h"
#include "ucc/api/ucc.h"

namespace ucc::net {

struct NetworkModel {
    std::string preset = "hdr";   // the preset this model started from
    uint32_t ranks_per_node = 8;  // rank r is on node r / ranks_per_node
    int64_t lat_intra_ps = 300'000;
    int64_t lat_inter_ps = 1'300'000;
    uint64_t bw_intra_bps = 40'000'000'000;  // bytes per second; 0 = no per-byte cost
    uint64_t bw_inter_bps = 24'000'000'000;
    int64_t o_send_ps = 200'000;           // CPU overhead per message, sender
    int64_t o_recv_ps = 200'000;           // CPU overhead per message, receiver
    int64_t o_call_ps = 0;                 // the library's time per collective call
    int64_t o_init_ps = 0;                 // ... to initialise and finalize one
    int64_t gap_ps = 50'000;               // NIC gap per message
    uint64_t copy_bps = 20'000'000'000;    // local copy bandwidth
    uint64_t reduce_bps = 10'000'000'000;  // local reduction bandwidth
    int64_t jitter_max_ps = 20'000;        // extra delay per message, uniform in [0, max]
    // Shared per node (0: not modelled; the defaults of every preset so far).
    uint64_t nic_bw_bps = 0;   // the node's NIC, each direction
    uint64_t nic_rate = 0;     // messages per second the node's NIC moves, each direction
    uint64_t node_bw_bps = 0;  // the node's memory, for messages within it
    // Rendezvous above these many bytes (kNoRndv: never).
    static constexpr uint64_t kNoRndv = UINT64_MAX;
    uint64_t rndv_inter = kNoRndv;
    uint64_t rndv_intra = kNoRndv;
    // Buffered copies on each side's CPU, above `short` and up to the
    // zero-copy threshold, on the paths whose bcopy bandwidth is set.
    uint64_t bcopy_intra_bps = 0;
    uint64_t bcopy_inter_bps = 0;
    int64_t o_bcopy_ps = 0;
    uint64_t short_intra = 0;  // bytes sent inline (0: none)
    uint64_t short_inter = 0;
    uint64_t zcopy_intra = kNoRndv;  // bytes; kNoRndv: every message is copied
    uint64_t zcopy_inter = kNoRndv;
    int64_t dma_read_ps = 0;  // the NIC's read of a payload longer than short_inter
    // In-network reduction (0: none).
    int64_t sharp_lat_ps = 0;
    uint64_t sharp_bw_bps = 0;  // 0: no per-byte cost
    // The receiver's copy of a zero-copy message within a node (0: a wire),
    // its fixed cost, and the bandwidths of copies beyond `cache` bytes.
    uint64_t cma_bps = 0;
    int64_t o_cma_ps = 0;
    uint64_t cache_bytes = 0;  // 0: every copy at its own bandwidth
    uint64_t cma_mem_bps = 0;  // 0: cma
    // Pulls of just-written data (cma_written 0: the same as any pull).
    uint64_t cma_written_bps = 0;
    int64_t o_cma_written_ps = 0;
    uint64_t cma_mem_written_bps = 0;  // 0: cma_mem, or cma_written
    uint64_t copy_mem_bps = 0;         // 0: copy
    uint64_t reduce_mem_bps = 0;       // 0: reduce
    // A node's cores (0: one per rank) and the switch back to a rank that
    // waited off its core.
    uint32_t cores = 0;
    int64_t wake_ps = 0;
    // A copy between a rank's GPU and its host memory (0: free).
    int64_t pcie_lat_ps = 0;
    uint64_t pcie_bw_bps = 0;
    // Work on a rank's GPU (each 0: free): an operation's launch and wait,
    // copies within it, reductions, reads of a peer GPU's memory.
    int64_t gpu_lat_ps = 0;
    uint64_t gpu_bw_bps = 0;
    uint64_t gpu_reduce_bps = 0;
    uint64_t nvlink_bw_bps = 0;
    // The operating system's detours: noise_hz times a second (0: none) every
    // core of a node stops for noise_ps, all of a node's cores at once.
    uint64_t noise_hz = 0;
    int64_t noise_ps = 0;
    int64_t noise_period_ps() const {
        return noise_hz == 0 || noise_ps == 0
                   ? 0
                   : static_cast<int64_t>((1'000'000'000'000 + noise_hz - 1) / noise_hz);
    }

    uint32_t node_of(uint32_t rank) const {
        return ranks_per_node == 0 ? rank : rank / ranks_per_node;
    }
    bool same_node(uint32_t a, uint32_t b) const { return node_of(a) == node_of(b); }
    int64_t latency_ps(uint32_t a, uint32_t b) const {
        return same_node(a, b) ? lat_intra_ps : lat_inter_ps;
    }
    // bytes * G between ranks a and b (0 for a message the receiver pulls).
    int64_t wire_ps(uint32_t a, uint32_t b, uint64_t bytes) const {
        if (same_node(a, b)) {
            return pulled(bytes) ? 0 : bytes_cost_ps(bytes, bw_intra_bps);
        }
        return bytes_cost_ps(bytes, bw_inter_bps);
    }
    // Whether a message within a node is copied by its receiver (cma).
    bool pulled(uint64_t bytes) const {
        return cma_bps != 0 && bytes > zcopy_intra && bytes > short_intra;
    }
    // Whether pulls of just-written data have rates of their own.
    bool written_pulls() const { return cma_written_bps != 0; }
    // The receiver's copy of a message from a to b it pulls (0: none).
    // `working`: the working set (0: the lone message's, 2 * bytes);
    // `clean`: the payload was not written since its last pull.
    int64_t cma_ps(uint32_t a, uint32_t b, uint64_t bytes, uint64_t working = 0,
                   bool clean = true) const {
        if (!pulled(bytes) || !same_node(a, b)) {
            return 0;
        }
        if (clean || !written_pulls()) {
            return o_cma_ps +
                   bytes_cost_ps(bytes, beyond_cache(bytes, working, cma_bps, cma_mem_bps));
        }
        const uint64_t mem = cma_mem_written_bps != 0 ? cma_mem_written_bps
                             : cma_mem_bps != 0       ? cma_mem_bps
                                                      : cma_written_bps;
        return o_cma_written_ps +
               bytes_cost_ps(bytes, beyond_cache(bytes, working, cma_written_bps, mem));
    }
    // A copy's bandwidth: `bw`, or `mem` (when set) where the working set
    // (0: 2 * bytes) exceeds the cache.
    uint64_t beyond_cache(uint64_t bytes, uint64_t working, uint64_t bw, uint64_t mem) const {
        if (cache_bytes == 0 || mem == 0) {
            return bw;
        }
        const uint64_t w =
            working != 0 ? working : (bytes > UINT64_MAX / 2 ? UINT64_MAX : 2 * bytes);
        return w > cache_bytes ? mem : bw;
    }
    // The node NIC's time for one message (0: not modelled).
    int64_t nic_ps(uint64_t bytes) const {
        return (nic_rate == 0 ? 0 : (1'000'000'000'000 + nic_rate - 1) / nic_rate) +
               bytes_cost_ps(bytes, nic_bw_bps);
    }
    bool shares_nic() const { return nic_bw_bps != 0 || nic_rate != 0; }
    // Whether a message of `bytes` from a to b goes by rendezvous: its send
    // completes only once its receiver has the data.
    bool rendezvous(uint32_t a, uint32_t b, uint64_t bytes) const {
        return bytes > (same_node(a, b) ? rndv_intra : rndv_inter);
    }
    // The extra wait of a rendezvous for a message of `bytes` from a to b.
    int64_t rndv_ps(uint32_t a, uint32_t b, uint64_t bytes) const {
        const bool same = same_node(a, b);
        return bytes > (same ? rndv_intra : rndv_inter) ? 2 * (same ? lat_intra_ps : lat_inter_ps)
                                                        : 0;
    }
    // One side's CPU time copying a message of `bytes` between a and b
    // through the transport's buffers (0: zero-copy, or not modelled).
    int64_t bcopy_ps(uint32_t a, uint32_t b, uint64_t bytes) const {
        const bool same = same_node(a, b);
        const uint64_t bw = same ? bcopy_intra_bps : bcopy_inter_bps;
        if (bw == 0 || bytes <= (same ? short_intra : short_inter) ||
            bytes > (same ? zcopy_intra : zcopy_inter)) {
            return 0;
        }
        return o_bcopy_ps + bytes_cost_ps(bytes, bw);
    }
    // The NIC's read of the payload of a message from a to b that is not inline.
    int64_t dma_ps(uint32_t a, uint32_t b, uint64_t bytes) const {
        return dma_read_ps != 0 && bytes > short_inter && !same_node(a, b) ? dma_read_ps : 0;
    }
    bool reduces_in_network() const { return sharp_lat_ps > 0; }
    // From the last contribution's arrival to the result's leaving the switches.
    int64_t sharp_ps(uint64_t bytes) const {
        return sharp_lat_ps + bytes_cost_ps(bytes, sharp_bw_bps);
    }
    uint32_t nodes(uint32_t ranks) const {
        return ranks_per_node == 0 ? ranks : (ranks + ranks_per_node - 1) / ranks_per_node;
    }
    int64_t copy_ps(uint64_t bytes, uint64_t working = 0) const {
        return bytes_cost_ps(bytes, beyond_cache(bytes, working, copy_bps, copy_mem_bps));
    }
    int64_t pcie_ps(uint64_t bytes) const {
        return bytes == 0 ? 0 : pcie_lat_ps + bytes_cost_ps(bytes, pcie_bw_bps);
    }
    // A copy of `bytes` on a rank's GPU, from its own memory or (`peer`) a peer GPU's.
    int64_t gpu_copy_ps(uint64_t bytes, bool peer) const {
        return bytes == 0 ? 0
                          : gpu_lat_ps + bytes_cost_ps(bytes, peer ? nvlink_bw_bps : gpu_bw_bps);
    }
    // A reduction kernel writing `bytes` from `inputs` inputs as long, `peers`
    // of them in peer GPUs' memory: its memory traffic, (inputs + 1) x bytes,
    // at the rate a two-input kernel moves its 3 x bytes (gpu_reduce_bw per
    // byte written), or the peers' reads over NVLink, whichever is longer.
    int64_t gpu_fold_ps(uint64_t bytes, uint32_t inputs, uint32_t peers) const {
        if (bytes == 0) {
            return 0;
        }
        return gpu_lat_ps + std::max(bytes_cost_ps(bytes * (inputs + 1), 3 * gpu_reduce_bps),
                                     bytes_cost_ps(bytes * peers, nvlink_bw_bps));
    }
    int64_t reduce_ps(uint64_t bytes, uint64_t working = 0) const {
        return bytes_cost_ps(bytes, beyond_cache(bytes, working, reduce_bps, reduce_mem_bps));
    }

    // ceil(bytes * 1e12 / bandwidth) picoseconds; 0 when bandwidth is 0 (infinite).
    static int64_t bytes_cost_ps(uint64_t bytes, uint64_t bandwidth_bps);

    // A spec string that parse_network() turns back into this model, e.g.
    // "hdr,ppn=8,lat_intra=300ns,lat_inter=1.3us,...".
    std::string describe() const;
};

// The preset called `name` ("ideal", "hdr", "eth100", "slow"); false if unknown.
bool network_preset(const std::string &name, NetworkModel *out);

// Parses a preset name, or a comma-separated list of key=value settings that may
// start with a preset name (default base: "hdr"), e.g.
//   "hdr,ppn=16,lat_inter=2us,bw_inter=12.5GB/s,jitter=1us,o=100ns".
// Keys: ppn; lat, lat_intra, lat_inter; bw, bw_intra, bw_inter; o, o_send,
// o_recv; o_call; o_init; g; copy; reduce; jitter; nic_bw, nic_rate, node_bw; rndv,
// rndv_inter, rndv_intra; bcopy, bcopy_intra, bcopy_inter, o_bcopy; short,
// short_intra, short_inter; zcopy, zcopy_intra, zcopy_inter; dma_read;
// sharp_lat, sharp_bw; cma, o_cma, cache, cma_mem, copy_mem, reduce_mem;
// cma_written, o_cma_written, cma_mem_written;
// cores, wake; noise_hz, noise; pcie_lat, pcie_bw; gpu_lat, gpu_bw,
// gpu_reduce_bw, nvlink_bw.
// Times take a unit (ps, ns, us, ms, s; a bare 0 is
// allowed); bandwidths take B/s, KB/s, MB/s, GB/s (or KiB/s, MiB/s, GiB/s),
// or "inf"; nic_rate a count per second (215M, 1.5G; 0: off); cores a
// count (0: a core per rank); rndv, short
// and zcopy sizes bytes with K, M, G (powers of 1024) or "inf". A bad spec gives
// UCC_ERR_INVALID_PARAM and a message in *error (if not null); *out is then unchanged.
ucc_status_t parse_network(const char *spec, NetworkModel *out, std::string *error);

// The model's parameters as the cost formulas take them (lib/cost/cost.h),
// the protocols by size, cores and caches included: what they predict
// leaves out the memory a node shares, the NIC but where a round's messages
// share it, and the jitter.
cost::Params cost_params(const NetworkModel &m);

// Exact decimal renderings used by describe(): "1.3us", "12.5GB/s".
std::string format_time_ps(int64_t ps);
std::string format_bandwidth(uint64_t bps);

}  // namespace ucc::net
