// The consistency check of UCC_CHECK_ASYMMETRIC_DT: before a collective runs,
// its members agree that they posted the same collective — type, root, op,
// datatype, per-rank count (for allgatherv and reduce_scatterv a digest of
// the counts array every member passes) — and chose the same algorithm, and,
// for the rooted collectives whose buffers may legally differ per rank in the
// reference's model (gather, gatherv, scatter, scatterv), that they use one
// memory type. A TUNE string that names memory types makes each rank's choice
// read its own buffers, so ranks with asymmetric memory could otherwise run
// different algorithms and hang (P42); ranks that disagree on the arguments
// would otherwise exchange messages of the wrong size or meaning.
//
// The agreement is a dissemination allreduce of (minimum, maximum) per field
// on the core's step space (whose tags carry no collective type, so that
// members of different types meet): in round k rank r sends what it knows to
// r + 2^k and folds in what r - 2^k sends. Minimum and maximum are
// idempotent, so the rounds' overlap on a team that is not a power of two
// counts nobody twice in any way that matters, and after ceil(log2 n) rounds
// every rank holds the same extremes. A field whose minimum and maximum
// differ disagrees; then every member completes with UCC_ERR_NOT_SUPPORTED
// without running the algorithm (as the reference does), and so does a member
// whose own selection failed (it contributes kRefused).
//
// Cost: ceil(log2 n) rounds of 128-byte messages before the algorithm (at
// 2 processes over UCX, docs/real-runs.md gives the figure). A timing-only
// run moves no payload, so there the check charges its time but compares
// nothing.
#include <algorithm>
#include <array>

#include "lib/coll/coll.h"

namespace ucc::coll {

namespace {

constexpr size_t kFields = 8;
constexpr const char *kFieldNames[kFields] = {
    "collective type", "root", "op", "datatype", "count", "v-counts", "algorithm", "memory type"};

std::array<int64_t, kFields> fields(const Fingerprint &f) {
    return {f.type, f.root, f.op, f.dt, f.count, f.vcounts, f.alg, f.mem};
}

constexpr size_t kAlgField = 6;

struct Extremes {
    std::array<int64_t, kFields> lo;
    std::array<int64_t, kFields> hi;
};

void fold(Extremes &into, const Extremes &from) {
    for (size_t i = 0; i < kFields; ++i) {
        into.lo[i] = std::min(into.lo[i], from.lo[i]);
        into.hi[i] = std::max(into.hi[i], from.hi[i]);
    }
}

}  // namespace

Fingerprint fingerprint_of(const Args &a, uint32_t rank, uint32_t size, int64_t alg) {
    Fingerprint f;
    f.alg = alg;
    f.type = static_cast<int64_t>(a.type);
    f.root = is_rooted(a.type) ? static_cast<int64_t>(a.root) : 0;
    f.op = is_reduction(a.type) ? static_cast<int64_t>(a.op) : 0;
    // A generic datatype's handle differs per process: its packed size stands in.
    if (moves_data(a.type)) {
        f.dt = a.generic != nullptr ? (int64_t{1} << 40) | static_cast<int64_t>(a.esize)
                                    : static_cast<int64_t>(a.dt);
        f.count = is_v(a.type) ? 0 : static_cast<int64_t>(a.count);
    }
    if ((a.type == UCC_COLL_TYPE_ALLGATHERV || a.type == UCC_COLL_TYPE_REDUCE_SCATTERV) &&
        a.dst_counts != nullptr) {
        uint64_t h = 0xcbf29ce484222325ull;
        for (uint32_t i = 0; i < size; ++i) {
            h = (h ^ a.dst_count_at(i)) * 0x100000001b3ull;
        }
        f.vcounts = static_cast<int64_t>(h >> 1);
    }
    const bool root = rank == a.root;
    bool src_side = false;
    switch (a.type) {
        case UCC_COLL_TYPE_GATHER:
        case UCC_COLL_TYPE_GATHERV:
            src_side = !(root && a.inplace);
            break;
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
            src_side = root && a.inplace;
            break;
        default:
            return f;  // buffers of one memory type everywhere
    }
    f.mem = src_side ? a.src_mem : a.dst_mem;
    return f;
}

Task run_checked(Coll &c, AlgFn alg, Fingerprint mine, bool synchronized) {
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    Extremes known{fields(mine), fields(mine)};
    Extremes in{};
    c.set_step_space(tag::kCheckSteps);
    uint32_t step = 0;
    ucc_status_t st = UCC_OK;
    for (uint64_t d = 1; d < n && st == UCC_OK; d *= 2, ++step) {
        const auto dist = static_cast<uint32_t>(d);
        const Extremes out = known;
        Req s = c.send_host((r + dist) % n, step, &out, sizeof out);
        Req q = c.recv_host((r + n - dist) % n, step, &in, sizeof in);
        st = co_await c.wait(s, q);
        if (st == UCC_OK && !c.timing_only()) {
            fold(known, in);
        }
    }
    c.set_step_space(0);
    UCC_CO_TRY(st);
    for (size_t i = 0; i < kFields; ++i) {
        const bool refused = i == kAlgField && known.lo[i] == Fingerprint::kRefused;
        if (refused || known.lo[i] != known.hi[i]) {
            c.env().report_inconsistent(refused ? "support (a member's selection failed)"
                                                : kFieldNames[i]);
            c.set_refused_together();
            co_return UCC_ERR_NOT_SUPPORTED;
        }
    }
    // (Two co_returns: GCC 12 destroys the temporary of a co_await on a
    // conditional expression twice.)
    if (synchronized) {
        co_return co_await run_synchronized(c, alg);
    }
    co_return co_await alg(c);
}

}  // namespace ucc::coll
