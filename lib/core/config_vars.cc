// The configuration tables: every variable of the library and of a context,
// with its default, documentation and value check. docs/configuration.md's tables and
// `ucc_info -c` are printed from here.
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "lib/core/config.h"

#include "lib/core/log.h"
#include "lib/select/select.h"
#include "lib/util/common.h"

namespace ucc::core {

namespace {

bool valid_level(const std::string &v) {
    LogLevel l;
    return parse_log_level(v, &l);
}
bool valid_level_or_empty(const std::string &v) {
    return v.empty() || valid_level(v);
}
bool valid_size(const std::string &v) {
    int64_t x;
    return parse_size(v, &x) && x >= 0;
}
bool valid_size_or_auto(const std::string &v) {
    return strcasecmp(v.c_str(), "auto") == 0 || valid_size(v);
}
bool valid_kn_radix(const std::string &v) {
    int64_t x;
    return parse_size(v, &x) && (x == 0 || (x >= 2 && x <= 64));
}
bool valid_radix_or_auto(const std::string &v) {
    coll::RadixSetting s;
    std::string error;
    return select::parse_radix(v, false, &s, &error);
}
bool valid_radix_ranged(const std::string &v) {
    coll::RadixSetting s;
    std::string error;
    return select::parse_radix(v, true, &s, &error);
}
bool valid_pipeline(const std::string &v) {
    coll::PipelineSetting p;
    std::string error;
    return select::parse_pipeline(v, &p, &error);
}
bool one_of(const std::string &v, std::initializer_list<const char *> names) {
    for (const char *n : names) {
        if (strcasecmp(v.c_str(), n) == 0) {
            return true;
        }
    }
    return false;
}
// The reference's value types, for the variables accepted and ignored here.
bool valid_uint(const std::string &v) {
    if (one_of(v, {"inf", "auto"})) {
        return true;
    }
    if (v.empty() || v.size() > 10) {
        return false;
    }
    for (char c : v) {
        if (!std::isdigit(static_cast<unsigned char>(c))) {
            return false;
        }
    }
    return std::stoull(v) <= UINT32_MAX;
}
bool valid_bool(const std::string &v) {
    return one_of(v, {"y", "yes", "on", "1", "true", "n", "no", "off", "0", "false"});
}
bool valid_memunits(const std::string &v) {
    return one_of(v, {"inf", "auto"}) || valid_size(v);
}
// Comma-separated names from `names`; `empty_ok`: the empty list too.
bool valid_list(const std::string &v, std::initializer_list<const char *> names, bool empty_ok) {
    if (v.empty()) {
        return empty_ok;
    }
    size_t begin = 0;
    while (true) {
        const size_t comma = v.find(',', begin);
        const std::string item =
            v.substr(begin, comma == std::string::npos ? comma : comma - begin);
        if (!one_of(item, names)) {
            return false;
        }
        if (comma == std::string::npos) {
            return true;
        }
        begin = comma + 1;
    }
}
bool valid_cls(const std::string &v) {
    return valid_list(v, {"basic", "hier", "all"}, false);
}
bool valid_profile_mode(const std::string &v) {
    return valid_list(v, {"log", "accum"}, true);
}
bool valid_err_handling(const std::string &v) {
    return one_of(v, {"auto", "peer", "none"});
}
bool valid_select(const std::string &v) {
    return one_of(v, {"cost", "rules"});
}
bool valid_local_copy_type(const std::string &v) {
    return one_of(v, {"ucp", "mc", "ec", "auto"});
}

constexpr bool kUsed = false;
constexpr bool kIgnored = true;

// The library's variables, and the reference's global and library options (ucc_global_opts.c,
// ucc_lib.c), which a program may set through ucc_lib_config_modify.
constexpr ConfigVar kLibVars[] = {
    {"LOG_LEVEL", "WARN",
     "Log level: FATAL, ERROR, WARN, INFO, DEBUG, TRACE (DIAG counts as INFO; DATA, FUNC, "
     "POLL, REQ, ASYNC as TRACE).",
     valid_level, kUsed},
    {"COLL_TRACE", "WARN",
     "Collective trace, a log level of its own: INFO (or DIAG) logs every ucc_collective_init "
     "on team rank 0, DEBUG adds posts and finalizes, TRACE logs them on every rank. Printed "
     "whatever LOG_LEVEL says.",
     valid_level, kUsed},
    {"CLS", "basic",
     "The collective layers: basic (flat algorithms), hier (adds the hierarchical algorithms, "
     "which run flat ones on each node and among the node leaders), all (both).",
     valid_cls, kUsed},
    {"TLS", "all",
     "Transports contexts may use: all, a list (sim, ucx or its alias ucp, self; names of "
     "transports not built here match nothing) or ^list to exclude.",
     nullptr, kUsed},
    // The CLs' own TL lists (the reference's UCC_CL_BASIC_TLS, UCC_CL_HIER_TLS),
    // named in full so that they are not taken for TLS with a component.
    {"CL_BASIC_TLS", "all",
     "The TLs CL/BASIC may use (an allow list): without sharp, no team of one rank per node "
     "reduces in the network (the sharp allreduce). Which transport a context uses is TLS's "
     "choice.",
     nullptr, kUsed},
    {"CL_HIER_TLS", "all",
     "The TLs CL/HIER may use (an allow list): without sharp, no level reduces in the network, "
     "whatever NODE_LEADERS_SBGP_TLS says. Which transport a context uses is TLS's choice.",
     nullptr, kUsed},
    {"COMPONENT_PATH", "",
     "The directory the CUDA component (libucc_cuda.so) is loaded from; empty: ucc/ beside "
     "libucc.so, where the install puts it. Without one, CUDA memory is refused.",
     nullptr, kUsed},
    {"PROFILE_MODE", "", "Ignored: profile collection modes (log, accum).", valid_profile_mode,
     kIgnored},
    {"PROFILE_FILE", "ucc_%h_%p.prof", "Ignored: the file profiling data is written to.", nullptr,
     kIgnored},
    {"PROFILE_LOG_SIZE", "4m", "Ignored: the maximal size of the profiling log.", valid_memunits,
     kIgnored},
    {"CONFIG_FILE", "auto",
     "The configuration file (read from the environment only). auto: $HOME/ucc.conf, else "
     "<prefix>/share/ucc/ucc.conf, else <prefix>/share/ucc.conf (<prefix>: the directory above "
     "libucc.so's), the first that exists; empty: none; else the file's path. Lines "
     "UCC_NAME=VALUE; the environment wins over the file.",
     nullptr, kUsed},
    {"LOG_FILE", "", "Ignored: log lines go to stderr.", nullptr, kIgnored},
    {"LOG_FILE_SIZE", "inf", "Ignored: the maximal size of the log file.", valid_memunits,
     kIgnored},
    {"LOG_FILE_ROTATE", "0", "Ignored: the number of rotated log files.", valid_uint, kIgnored},
    {"LOG_BUFFER", "1024", "Ignored: the buffer size of one log line.", valid_memunits, kIgnored},
    {"LOG_DATA_SIZE", "0", "Ignored: payload bytes printed in data log mode.", valid_uint,
     kIgnored},
    {"LOG_PRINT_ENABLE", "n", "Ignored: developer print output.", valid_bool, kIgnored},
    {"LOG_LEVEL_TRIGGER", "FATAL", "Ignored: the log level that triggers error handling.",
     valid_level, kIgnored},
    {"CHECK_ASYMMETRIC_DT", "n",
     "Before each collective runs, its members compare (a dissemination allreduce of 128-byte "
     "messages, ceil(log2 n) rounds) the collective type, root, op, datatype, per-rank count "
     "(allgatherv, reduce_scatterv: the counts array), the algorithm each chose and, for "
     "gather(v) and scatter(v), the memory type of their buffers; if any differs, or a member's "
     "own selection failed (its init then returns UCC_OK), every member completes with "
     "UCC_ERR_NOT_SUPPORTED and the team stays usable. Off by default, as in the reference. A "
     "timing-only simulation moves no payload: there the check costs its time and compares "
     "nothing.",
     valid_bool, kUsed},
};

constexpr const char *kAlgDoc =
    "Algorithm name, or 'auto' to choose by message size and team size.";

// The context's variables, then the reference's core context options (ucc_context.c) and the
// options of its CL/TL context configurations (the TUNE of every component, tl/ucp's own), which
// ucc_context_config_modify may be given with or without a component.
constexpr ConfigVar kContextVars[] = {
    {"LOG_LEVEL", "", "Log level of the context; empty: the library's level.", valid_level_or_empty,
     kUsed},
    {"TLS", "", "Transports of this context (as the library's TLS); empty: the library's.", nullptr,
     kUsed},
    {"ALLREDUCE_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"ALLGATHER_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"ALLGATHERV_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"ALLTOALL_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"ALLTOALLV_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"BARRIER_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"BCAST_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"FANIN_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"FANOUT_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"GATHER_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"GATHERV_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"REDUCE_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"REDUCE_SCATTER_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"REDUCE_SCATTERV_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"SCATTER_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"SCATTERV_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"KNOMIAL_RADIX", "auto",
     "Radix of the k-nomial trees and exchanges (bcast, reduce, barrier, fanin, fanout, gather, "
     "scatter; allreduce knomial and sra_knomial, allgather and reduce_scatter knomial), 2..64, "
     "where the algorithm's own radix variable (BCAST_KN_RADIX, ...) is auto; auto: the radix the "
     "cost formulas predict cheapest (2..8) on the team's network (4 where none is known or its "
     "nodes share a NIC).",
     valid_radix_or_auto, kUsed},
    {"KN_RADIX", "0",
     "The reference's convenience radix: when positive (2..64) it replaces BARRIER, "
     "REDUCE_SCATTER, BCAST, REDUCE, GATHER and SCATTER_KN_RADIX (not the fanin, fanout and "
     "ranged ones). 0: unset.",
     valid_kn_radix, kUsed},
    {"BARRIER_KN_RADIX", "auto",
     "Radix of barrier knomial: auto (KNOMIAL_RADIX) or 2..64; KN_RADIX replaces it when set.",
     valid_radix_or_auto, kUsed},
    {"BARRIER_DISSEMINATION_RADIX", "auto",
     "Radix of barrier dissemination (k - 1 partners a round; ours, the reference has no such "
     "barrier): auto (KNOMIAL_RADIX) or 2..64.",
     valid_radix_or_auto, kUsed},
    {"ALLTOALL_BRUCK_RADIX", "auto",
     "Radix of alltoall bruck (k - 1 messages a round of about n/k blocks each; ours, the "
     "reference has no such alltoall): auto (KNOMIAL_RADIX) or 2..64.",
     valid_radix_or_auto, kUsed},
    {"FANIN_KN_RADIX", "auto", "Radix of fanin knomial: auto (KNOMIAL_RADIX) or 2..64.",
     valid_radix_or_auto, kUsed},
    {"FANOUT_KN_RADIX", "auto", "Radix of fanout knomial: auto (KNOMIAL_RADIX) or 2..64.",
     valid_radix_or_auto, kUsed},
    {"ALLREDUCE_KN_RADIX", "auto",
     "Radix of allreduce knomial: auto (KNOMIAL_RADIX), a radix 2..64, or by message size and "
     "memory type, comma-separated [bytes-range:][memtypes:]radix tokens (0-4k:host:2,4k-inf:8; "
     "ranges include both ends; a radix alone applies elsewhere).",
     valid_radix_ranged, kUsed},
    {"ALLREDUCE_SRA_KN_RADIX", "auto",
     "Radix of allreduce sra_knomial: auto (KNOMIAL_RADIX), a radix 2..64, or by message size and "
     "memory type, comma-separated [bytes-range:][memtypes:]radix tokens (0-4k:host:2,4k-inf:8; "
     "ranges include both ends; a radix alone applies elsewhere).",
     valid_radix_ranged, kUsed},
    {"REDUCE_SCATTER_KN_RADIX", "auto",
     "Radix of reduce_scatter and reduce_scatterv knomial: auto (KNOMIAL_RADIX) or 2..64; KN_RADIX "
     "replaces it when set.",
     valid_radix_or_auto, kUsed},
    {"ALLGATHER_KN_RADIX", "auto",
     "Radix of allgather knomial: auto (KNOMIAL_RADIX), a radix 2..64, or by message size and "
     "memory type, comma-separated [bytes-range:][memtypes:]radix tokens (0-4k:host:2,4k-inf:8; "
     "ranges include both ends; a radix alone applies elsewhere).",
     valid_radix_ranged, kUsed},
    {"BCAST_KN_RADIX", "auto",
     "Radix of bcast knomial: auto (KNOMIAL_RADIX) or 2..64; KN_RADIX replaces it when set.",
     valid_radix_or_auto, kUsed},
    {"BCAST_SAG_KN_RADIX", "auto",
     "Radix of bcast sag_knomial: auto (KNOMIAL_RADIX), a radix 2..64, or by message size and "
     "memory type, comma-separated [bytes-range:][memtypes:]radix tokens (0-4k:host:2,4k-inf:8; "
     "ranges include both ends; a radix alone applies elsewhere).",
     valid_radix_ranged, kUsed},
    {"REDUCE_KN_RADIX", "auto",
     "Radix of reduce knomial: auto (KNOMIAL_RADIX) or 2..64; KN_RADIX replaces it when set.",
     valid_radix_or_auto, kUsed},
    {"REDUCE_SRG_KN_RADIX", "auto",
     "Radix of reduce srg: auto (KNOMIAL_RADIX), a radix 2..64, or by message size and "
     "memory type, comma-separated [bytes-range:][memtypes:]radix tokens (0-4k:host:2,4k-inf:8; "
     "ranges include both ends; a radix alone applies elsewhere).",
     valid_radix_ranged, kUsed},
    {"GATHER_KN_RADIX", "auto",
     "Radix of gather knomial: auto (KNOMIAL_RADIX) or 2..64; KN_RADIX replaces it when set.",
     valid_radix_or_auto, kUsed},
    {"SCATTER_KN_RADIX", "auto",
     "Radix of scatter knomial: auto (KNOMIAL_RADIX) or 2..64; KN_RADIX replaces it when set.",
     valid_radix_or_auto, kUsed},
    // tl/ucp's alltoallv hybrid (lib/coll/alltoallv/alltoallv_hybrid.cc).
    {"ALLTOALLV_HYBRID_BUFF_SIZE", "256k",
     "alltoallv hybrid: the scratch of its Bruck rounds. With the parts below and the team "
     "size it sets the largest block the rounds carry: BUFF_SIZE / (NUM_SCRATCH_SENDS + "
     "NUM_SCRATCH_RECVS) / ceil(size / 2), and below 1,250 bytes; larger blocks go directly. "
     "inf: no bound but the 1,250 bytes.",
     valid_memunits, kUsed},
    {"ALLTOALLV_HYBRID_NUM_SCRATCH_SENDS", "1",
     "alltoallv hybrid: the parts of BUFF_SIZE for the rounds' sends (see BUFF_SIZE).", valid_uint,
     kUsed},
    {"ALLTOALLV_HYBRID_NUM_SCRATCH_RECVS", "3",
     "alltoallv hybrid: the parts of BUFF_SIZE for the rounds' receives (see BUFF_SIZE).",
     valid_uint, kUsed},
    {"ALLTOALLV_HYBRID_PAIRWISE_NUM_POSTS", "3",
     "alltoallv hybrid: the direct exchanges (a send to rank r+i and a receive from r-i) in "
     "flight at once; 0 as 1.",
     valid_uint, kUsed},
    {"ALLTOALLV_HYBRID_CHUNK_BYTE_LIMIT", "12k",
     "alltoallv hybrid: the bytes of the direct exchanges in flight at once (at least one "
     "exchange).",
     valid_memunits, kUsed},
    {"TRACE", "",
     "Record this context's calls (team creation, collective init, post, completion, finalize) "
     "into a trace file in this directory, which must exist (traces/FORMAT.md; ucc_replay "
     "replays it). Empty: off.",
     nullptr, kUsed},
    {"SELECT", "cost",
     "How a collective's algorithm is chosen where no <COLL>_ALG or TUNE string decides. cost: "
     "the cheapest the cost formulas (lib/cost, docs/algorithms.md) predict on the network the "
     "transport knows (the simulator's) or NETWORK names (else the built-in rules); rules: the "
     "built-in rules by size and team size (ucc_info -s). Under cost, with UCC_CLS=basic,hier, "
     "the hierarchical algorithms compete too; tl/sharp's rule comes first, and per-rank counts "
     "(the v collectives) follow the rules either way.",
     valid_select, kUsed},
    {"NETWORK", "",
     "The network selection by cost predicts on where the transport does not know its own "
     "(UCX): a ucc_sim preset (hdr, eth100, slow, ideal), a spec (hdr,ppn=8,lat_inter=2us) or "
     "a network file (networks/, or what scripts/fit_network.sh writes). Empty: none, the "
     "built-in rules. The simulator always predicts on its own network.",
     nullptr, kUsed},
    {"ALLREDUCE_LARGE_MSG", "16K",
     "Allreduce messages of at least this many bytes use a bandwidth-optimal algorithm in auto "
     "mode.",
     valid_size, kUsed},
    {"ALLGATHER_LARGE_MSG", "64K",
     "Allgather blocks of at least this many bytes use the ring algorithm in auto mode.",
     valid_size, kUsed},
    {"REDUCE_CHUNK", "auto",
     "Ring reductions (allreduce ring, reduce_scatter(v) ring) move each step's block in chunks "
     "of this many bytes and reduce every chunk as it arrives, while it is in cache and the "
     "next ones are in flight; the allreduce ring passes each chunk on to the next step as soon "
     "as it is reduced (or received). 0: one message per step. auto: for the allreduce ring, "
     "where the network is known (UCC_SELECT=cost on the simulator or with UCC_NETWORK), the "
     "size of 1K to 1M, or one chunk, with the cheapest predicted time, 64K elsewhere; for the "
     "others 256K.",
     valid_size_or_auto, kUsed},
    {"BCAST_SEGMENT", "auto",
     "Pipelined bcast trees (dbt) cut the buffer into segments of this many bytes (whole "
     "elements, at least one) and forward each while the next arrive. 0: one segment. auto: "
     "where the network is known (UCC_SELECT=cost on the simulator or with UCC_NETWORK), the "
     "size of 1K to 1M, or one segment, with the cheapest predicted time; 64K elsewhere.",
     valid_size_or_auto, kUsed},
    {"REDUCE_SEGMENT", "auto",
     "Pipelined reduce trees (dbt) cut the vector into segments of this many bytes (whole "
     "elements, at least one) and reduce each while the next arrive. 0: one segment. auto: "
     "where the network is known (UCC_SELECT=cost on the simulator or with UCC_NETWORK), the "
     "size of 1K to 1M, or one segment, with the cheapest predicted time; 64K elsewhere.",
     valid_size_or_auto, kUsed},
    {"NODE_SIZE", "0",
     "Hierarchical collectives (UCC_CLS with hier) see nodes of this many consecutive context "
     "eps instead of the hosts the transport reports: two-level runs on one host, for tests. "
     "0: the hosts.",
     valid_uint, kUsed},
    {"UCX_ERR_HANDLING", "auto",
     "How a peer that dies is noticed over UCX (the transfers waiting on it fail at once). auto: "
     "within a node shared memory, and the peer process's liveness is checked while transfers "
     "wait on it; across nodes UCX's peer error handling. peer: UCX's peer error handling on "
     "every endpoint (UCX 1.13 then uses no shared memory: TCP loopback within a node). none: "
     "shared memory, no checks: a dead peer is noticed only through a collective's timeout.",
     valid_err_handling, kUsed},
    {"DESYNC_CHECK", "n",
     "Over UCX, every message carries the signature of its collective (type, root, op, bytes per "
     "rank; 8 bytes) and a receive whose sender posted another collective under the same "
     "sequence number fails with UCC_ERR_INVALID_PARAM and a DESYNC line naming both ranks' "
     "collectives, as the simulator always reports. Every process of a job must set it alike. "
     "Costs a few percent at small sizes (docs/real-runs.md); the simulator checks always.",
     valid_bool, kUsed},
    {"DEVICE_PIPELINE", "4M",
     "CUDA memory over a transport that moves host memory (pinned host copies, docs/gpu.md): "
     "allreduce, reduce, bcast, allgather, alltoall and reduce_scatter of at least twice this "
     "many bytes run in chunks of this size (a block collective's: over all the blocks of its "
     "larger side), the copies of each chunk to and from the device overlapping the other "
     "chunks' transfers, and the post returns without waiting for a copy. 0: the whole buffer "
     "is copied before and after the collective. At most 1G.",
     valid_size, kUsed},
    {"DEVICE_IPC", "y",
     "Collectives on CUDA memory among processes "
     "of one host read the peers' device buffers through CUDA IPC handles, reductions with the "
     "GPU's kernels (docs/gpu.md): no copy through host memory. Falls back to the pinned host "
     "copies when a member cannot map a peer's buffer. n: always the host copies. Every "
     "process of a job must set it alike.",
     valid_bool, kUsed},
    {"TIMEOUT_COPY", "y",
     "Over UCX, a collective with a timeout (UCC_COLL_ARGS_FLAG_TIMEOUT) sends and receives host "
     "memory through copies of the library's own, so that once it completed, whatever its "
     "status, no peer reads or writes the program's buffers any more (a peer stalled past the "
     "timeout reads the data as sent). Costs one copy per message on each side "
     "(docs/real-runs.md). "
     "n: the program's buffers directly, as without a timeout; after a timeout a stalled peer "
     "may then still read a send buffer or write a receive buffer (the collective waits for them "
     "at most 0.5 s).",
     valid_bool, kUsed},
    // CL/HIER's (UCC_CL_HIER_<NAME>): what each level runs over and how it
    // is cut into fragments.
    {"NODE_SBGP_TLS", "ucp",
     "Ignored: the TLs of CL/HIER's node subgroup (every level runs on the context's transport).",
     nullptr, kIgnored},
    {"NODE_LEADERS_SBGP_TLS", "ucp",
     "The TLs of CL/HIER's node-leaders subgroup: with sharp (\"ucp,sharp\", \"all\"), the "
     "leaders' allreduce runs in the network's switches when the network reduces (the "
     "simulator's sharp_lat); the messages go through the context's transport.",
     nullptr, kUsed},
    {"NET_SBGP_TLS", "ucp",
     "The TLs of CL/HIER's rails (split_rail's allreduce of each block across nodes): with "
     "sharp, as NODE_LEADERS_SBGP_TLS.",
     nullptr, kUsed},
    {"FULL_SBGP_TLS", "ucp", "Ignored: the TLs of CL/HIER's whole-team subgroup.", nullptr,
     kIgnored},
    {"ALLTOALLV_SPLIT_NODE_THRESH", "0",
     "Ignored: node_split sends node-local blocks above this size through the node's level; "
     "here every node-local block goes through it (the default 0).",
     valid_memunits, kIgnored},
    {"ALLREDUCE_RAB_PIPELINE", "n",
     "Fragments of allreduce rab: the leaders allreduce one while their nodes reduce the next and "
     "broadcast the one before. "
     "n (never), auto (never), or ':'-separated thresh=BYTES (cut above; default inf: never), "
     "fragsize=BYTES (default inf), nfrags=N (at least; default 2), pdepth=N (in flight; "
     "default 2) and an order (parallel, ordered, sequential: all run as sequential).",
     valid_pipeline, kUsed},
    {"ALLREDUCE_SPLIT_RAIL_PIPELINE", "n",
     "Fragments of allreduce split_rail: the rails allreduce one while their nodes "
     "reduce-scatter the next and allgather the one before. As ALLREDUCE_RAB_PIPELINE.",
     valid_pipeline, kUsed},
    {"BCAST_2STEP_PIPELINE", "n",
     "Fragments of bcast 2step: the leaders broadcast one while their nodes broadcast the one "
     "before. As ALLREDUCE_RAB_PIPELINE.",
     valid_pipeline, kUsed},
    {"REDUCE_2STEP_PIPELINE", "n",
     "Fragments of reduce 2step: the nodes reduce one while their leaders reduce the one before. "
     "As ALLREDUCE_RAB_PIPELINE.",
     valid_pipeline, kUsed},
    {"ESTIMATED_NUM_EPS", "0",
     "Ignored: a hint of how many endpoints the context will have (per-rank state here does not "
     "grow with the team).",
     valid_uint, kIgnored},
    {"ESTIMATED_NUM_PPN", "0", "Ignored: a hint of how many of those endpoints share a node.",
     valid_uint, kIgnored},
    {"LOCK_FREE_PROGRESS_Q", "0", "Ignored: a lock-free progress queue (state is per context).",
     valid_uint, kIgnored},
    {"TEAM_IDS_POOL_SIZE", "32",
     "Ignored: the size of the team id pool (team ids are agreed among a team's members).",
     valid_uint, kIgnored},
    {"INTERNAL_OOB", "1",
     "Ignored: an internal OOB for team creation (0 disable, 1 try, 2 force); teams use the "
     "user's OOB or the context's endpoint map.",
     valid_uint, kIgnored},
    {"THROTTLE_PROGRESS", "1000",
     "Ignored: progress every n-th ucc_context_progress call; every call progresses here.",
     valid_uint, kIgnored},
    {"TUNE", "",
     "Algorithm selection by ranges, the reference's grammar: token#token..., each token "
     "fields separated by ':' in any order: collectives (allreduce,bcast), message ranges "
     "(0-4k,64k-inf: total bytes, half-open), team sizes ([2-8] or [16]), memory types "
     "(host), a score (0 disables, inf forces) and @algorithm (a name or the reference's id, "
     "mapped onto ours: ucc_info -A). Set as UCC_TUNE or under any component "
     "(UCC_TL_UCP_TUNE, UCC_CL_BASIC_TUNE, ...): every string counts, later tokens win.",
     nullptr, kUsed, true},
    {"PRECONNECT", "0", "Ignored (tl/ucp): connect endpoints at creation below this team size.",
     valid_uint, kIgnored},
    {"NPOLLS", "10", "Ignored (tl/ucp): progress polls per request test.", valid_uint, kIgnored},
    {"OOB_NPOLLS", "20", "Ignored (tl/ucp): polls of an OOB request.", valid_uint, kIgnored},
    {"PRE_REG_MEM", "0", "Ignored (tl/ucp): pre-register collective memory.", valid_uint, kIgnored},
    {"SERVICE_WORKER", "n", "Ignored (tl/ucp): a separate worker for service collectives.",
     valid_bool, kIgnored},
    {"SERVICE_THROTTLING_THRESH", "100",
     "Ignored (tl/ucp): progress calls between service worker progress calls.", valid_uint,
     kIgnored},
    {"LOCAL_COPY_TYPE", "auto", "Ignored (tl/ucp): who makes local copies (ucp, mc, ec, auto).",
     valid_local_copy_type, kIgnored},
    {"MEMTYPE_COPY_ENABLE", "y", "Ignored (tl/ucp): memory type copies in UCX.", valid_bool,
     kIgnored},
};

}  // namespace

bool cls_has_hier(const std::string &cls) {
    size_t begin = 0;
    while (begin <= cls.size()) {
        const size_t comma = std::min(cls.find(',', begin), cls.size());
        const std::string item = cls.substr(begin, comma - begin);
        if (item == "hier" || item == "all") {
            return true;
        }
        begin = comma + 1;
    }
    return false;
}

std::span<const ConfigVar> lib_config_table() {
    return kLibVars;
}
std::span<const ConfigVar> context_config_table() {
    return kContextVars;
}

namespace {

template <size_t N>
std::vector<std::string> defaults_of(const ConfigVar (&table)[N]) {
    std::vector<std::string> v;
    for (const ConfigVar &c : table) {
        v.emplace_back(c.default_value);
    }
    return v;
}

}  // namespace

std::span<const std::string> config_defaults(std::span<const ConfigVar> table) {
    // Built once, never written after: each configuration reads its defaults
    // here instead of holding a copy.
    static const std::vector<std::string> kLib = defaults_of(kLibVars);
    static const std::vector<std::string> kContext = defaults_of(kContextVars);
    if (table.data() == kLibVars) {
        return kLib;
    }
    UCC_ASSERT(table.data() == kContextVars);
    return kContext;
}

std::span<const char *const> config_components() {
    // The reference's CL and TL components that have CPU collectives, and
    // the transports built here (tl/sim, tl/ucx, tl/self).
    static constexpr const char *kComponents[] = {"CL_BASIC", "CL_HIER", "TL_UCP",
                                                  "TL_UCX",   "TL_SIM",  "TL_SELF"};
    return kComponents;
}

const char *config_syntax(const ConfigVar &v) {
    if (v.valid == valid_level || v.valid == valid_level_or_empty) {
        return "log level: fatal, error, warn, info, debug, trace (any case)";
    }
    if (v.valid == valid_size) {
        return "memory units: <number>[b|k|m|g] (binary multiples)";
    }
    if (v.valid == valid_kn_radix) {
        return "0 or integer 2..64";
    }
    if (v.valid == valid_radix_or_auto) {
        return "auto or integer 2..64";
    }
    if (v.valid == valid_radix_ranged) {
        return "auto, integer 2..64, or [range:][memtypes:]radix,...";
    }
    if (v.valid == valid_pipeline) {
        return "n, auto, or thresh=..:fragsize=..:nfrags=..:pdepth=..[:order]";
    }
    if (v.valid == valid_uint) {
        return "unsigned integer, inf or auto";
    }
    if (v.valid == valid_bool) {
        return "<y|n>";
    }
    if (v.valid == valid_memunits) {
        return "memory units: <number>[b|k|m|g], inf or auto";
    }
    if (v.valid == valid_cls) {
        return "comma-separated list of: basic, hier, all";
    }
    if (v.valid == valid_profile_mode) {
        return "comma-separated list of: log, accum";
    }
    if (v.valid == valid_err_handling) {
        return "auto, peer or none";
    }
    if (v.valid == valid_local_copy_type) {
        return "ucp, mc, ec or auto";
    }
    return "string";
}

}  // namespace ucc::core
