// One rank of a one-sided collectives check, the same on the simulator and
// over UCX: a context that maps three segments (send, receive, work) at
// creation, a team of every OOB member, then rounds of one-sided alltoall,
// allgather and bcast (TUNE ...:0-inf:@onesided) and alltoallv (chosen by
// its arguments), some persistent. After each round, and a barrier: every byte of every
// block this rank should have received is the sender's, nothing else of the
// receive segment was written, and the work buffer's counters are back to
// zero (so the next collective reuses it). "" when all holds, else the first
// thing that did not.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ucc/api/ucc.h"

namespace ucc::testkit {

struct OnesidedParams {
    ucc_oob_coll_t oob{};  // the context's OOB: its members form the team
    uint32_t rounds = 6;
    uint64_t seed = 1;
    size_t max_block = 64;  // elements of uint32 per (sender, receiver) pair
};

namespace onesided_detail {

inline uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb53ca85a63ull;
    return x ^ (x >> 33);
}
// Elements rank `from` sends to rank `to` in round `k` (the same on every rank).
inline uint64_t count(const OnesidedParams &p, uint32_t k, uint32_t from, uint32_t to) {
    return mix(p.seed * 1000003 + k * 7919 + from * 131 + to) % (p.max_block + 1);
}
inline uint32_t value(uint32_t k, uint32_t from, uint32_t to, uint64_t i) {
    return static_cast<uint32_t>(mix((uint64_t{k} << 40) ^ (uint64_t{from} << 20) ^ to) + i);
}
constexpr uint32_t kGuard = 0xdeadbeefu;

inline bool wait(ucc_context_h ctx, ucc_status_t (*test)(void *), void *obj, ucc_status_t *st) {
    for (long i = 0; i < 50000000; ++i) {
        *st = test(obj);
        if (*st != UCC_INPROGRESS) {
            return true;
        }
        ucc_context_progress(ctx);
    }
    return false;
}

}  // namespace onesided_detail

inline std::string onesided_rank(const OnesidedParams &p) {
    using namespace onesided_detail;
    const uint32_t n = p.oob.n_oob_eps;
    const uint32_t rank = p.oob.oob_ep;
    const size_t seg_elems = p.max_block * n + 16;
    std::vector<uint32_t> send(seg_elems), recv(seg_elems);
    std::vector<uint64_t> work(8, 0);
    ucc_mem_map_t segs[3] = {{send.data(), send.size() * 4},
                             {recv.data(), recv.size() * 4},
                             {work.data(), work.size() * 8}};
    ucc_lib_config_h lc = nullptr;
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_lib_h lib = nullptr;
    if (ucc_lib_config_read(nullptr, nullptr, &lc) != UCC_OK || ucc_init(&lp, lc, &lib) != UCC_OK) {
        return "ucc_init failed";
    }
    ucc_lib_config_release(lc);
    ucc_context_config_h cc = nullptr;
    ucc_context_config_read(lib, nullptr, &cc);
    ucc_context_config_modify(cc, nullptr, "TUNE",
                              "alltoall:0-inf:@onesided#allgather:0-inf:@onesided#"
                              "bcast:0-inf:@onesided");
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB | UCC_CONTEXT_PARAM_FIELD_MEM_PARAMS;
    cp.oob = p.oob;
    cp.mem_params.segments = segs;
    cp.mem_params.n_segments = 3;
    ucc_context_h ctx = nullptr;
    const ucc_status_t cst = ucc_context_create(lib, &cp, cc, &ctx);
    ucc_context_config_release(cc);
    if (cst != UCC_OK) {
        return std::string("ucc_context_create: ") + ucc_status_string(cst);
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep = rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    ucc_team_h team = nullptr;
    ucc_status_t st = ucc_team_create_post(&ctx, 1, &tp, &team);
    if (st == UCC_OK) {
        for (long i = 0; i < 50000000 && (st = ucc_team_create_test(team)) == UCC_INPROGRESS; ++i) {
            ucc_context_progress(ctx);
        }
    }
    std::string err = st == UCC_OK ? "" : std::string("team: ") + ucc_status_string(st);
    auto run = [&](ucc_coll_args_t a) -> ucc_status_t {
        ucc_coll_req_h req = nullptr;
        ucc_status_t s = ucc_collective_init(&a, &req, team);
        if (s != UCC_OK) {
            return s;
        }
        s = ucc_collective_post(req);
        if (s == UCC_OK) {
            wait(
                ctx, [](void *r) { return ucc_collective_test(static_cast<ucc_coll_req_h>(r)); },
                req, &s);
        }
        ucc_collective_finalize(req);
        return s;
    };
    auto barrier = [&]() {
        ucc_coll_args_t b{};
        b.coll_type = UCC_COLL_TYPE_BARRIER;
        return run(b);
    };
    std::vector<ucc_count_t> scounts(n), sdispls(n), rcounts(n), rdispls(n);
    for (uint32_t k = 0; k < p.rounds && err.empty(); ++k) {
        const uint32_t kind = k % 4;  // alltoall, alltoallv, allgather, bcast
        const bool v = kind == 1;
        const uint32_t root = k % n;
        std::fill(recv.begin(), recv.end(), kGuard);
        // Nobody puts before every rank has reset its receive segment.
        if ((st = barrier()) != UCC_OK) {
            err = std::string("barrier: ") + ucc_status_string(st);
            break;
        }
        // alltoall: block b to every rank; alltoallv: counts of count(),
        // sent from packed displacements, placed at the receiver where its
        // own layout (packed by sender) puts them.
        const uint64_t b = count(p, k, 0, 0) % (p.max_block + 1);
        // allgather: every rank's block b for everyone (to = n); bcast: the
        // root's b elements, in place in the receive segment, received by all.
        for (uint32_t q = 0; q < n; ++q) {
            const uint32_t to = kind == 2 ? n : q;
            scounts[q] = v ? count(p, k, rank, q) : b;
            sdispls[q] = kind >= 2 ? 0 : q == 0 ? 0 : sdispls[q - 1] + scounts[q - 1];
            rcounts[q] = v ? count(p, k, q, rank) : (kind == 3 && q != root) ? 0 : b;
            rdispls[q] = kind == 3 ? 0 : q == 0 ? 0 : rdispls[q - 1] + rcounts[q - 1];
            for (uint64_t i = 0; i < scounts[q]; ++i) {
                send[sdispls[q] + i] = value(k, rank, to, i);
            }
        }
        if (kind == 3 && rank == root) {
            for (uint64_t i = 0; i < b; ++i) {
                recv[i] = value(k, root, n + 1, i);
            }
        }
        ucc_coll_args_t a{};
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS | UCC_COLL_ARGS_FIELD_GLOBAL_WORK_BUFFER;
        a.flags = UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS;
        a.global_work_buffer = work.data();
        // The displacement each peer q uses to place its block here: where q's
        // block sits in my receive layout (q computes it the same way).
        std::vector<ucc_count_t> dst_at(n);
        for (uint32_t q = 0; q < n; ++q) {
            uint64_t at = 0;
            for (uint32_t s = 0; s < rank; ++s) {
                at += count(p, k, s, q);
            }
            dst_at[q] = v ? at : 0;  // where I land in q's buffer
        }
        if (kind == 0) {
            a.coll_type = UCC_COLL_TYPE_ALLTOALL;
            a.src.info = {send.data(), b * n, UCC_DT_UINT32, UCC_MEMORY_TYPE_HOST};
            a.dst.info = {recv.data(), b * n, UCC_DT_UINT32, UCC_MEMORY_TYPE_HOST};
        } else if (kind == 2) {
            a.coll_type = UCC_COLL_TYPE_ALLGATHER;
            a.src.info = {send.data(), b, UCC_DT_UINT32, UCC_MEMORY_TYPE_HOST};
            a.dst.info = {recv.data(), b * n, UCC_DT_UINT32, UCC_MEMORY_TYPE_HOST};
        } else if (kind == 3) {
            a.coll_type = UCC_COLL_TYPE_BCAST;
            a.root = root;
            a.src.info = {recv.data(), b, UCC_DT_UINT32, UCC_MEMORY_TYPE_HOST};
        } else {
            a.coll_type = UCC_COLL_TYPE_ALLTOALLV;
            a.flags |= UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
            a.src.info_v = {send.data(), scounts.data(),
                            reinterpret_cast<ucc_aint_t *>(sdispls.data()), UCC_DT_UINT32,
                            UCC_MEMORY_TYPE_HOST};
            a.dst.info_v = {recv.data(), rcounts.data(),
                            reinterpret_cast<ucc_aint_t *>(dst_at.data()), UCC_DT_UINT32,
                            UCC_MEMORY_TYPE_HOST};
        }
        if (k % 3 == 2) {
            // Persistent: posted twice (a barrier between), the second counts.
            a.flags |= UCC_COLL_ARGS_FLAG_PERSISTENT;
            ucc_coll_req_h req = nullptr;
            st = ucc_collective_init(&a, &req, team);
            for (int post = 0; post < 2 && st == UCC_OK; ++post) {
                st = ucc_collective_post(req);
                if (st == UCC_OK) {
                    wait(
                        ctx,
                        [](void *r) { return ucc_collective_test(static_cast<ucc_coll_req_h>(r)); },
                        req, &st);
                }
                if (st == UCC_OK && post == 0) {
                    st = barrier();
                }
            }
            if (req != nullptr) {
                ucc_collective_finalize(req);
            }
        } else {
            st = run(a);
        }
        if (st != UCC_OK) {
            static const char *const kNames[] = {"alltoall", "alltoallv", "allgather", "bcast"};
            err = "round " + std::to_string(k) + " " + kNames[kind] + ": " + ucc_status_string(st);
            break;
        }
        if ((st = barrier()) != UCC_OK) {
            err = std::string("barrier: ") + ucc_status_string(st);
            break;
        }
        // What this rank holds: from every q, its block at rdispls[q] (alltoall:
        // block q of b elements).
        uint64_t end = 0;
        for (uint32_t q = 0; q < n && err.empty(); ++q) {
            const uint64_t at = v ? rdispls[q] : kind == 3 ? 0 : q * b;
            const uint32_t to = kind == 2 ? n : kind == 3 ? n + 1 : rank;
            for (uint64_t i = 0; i < rcounts[q]; ++i) {
                if (recv[at + i] != value(k, q, to, i)) {
                    err = "round " + std::to_string(k) + ": element " + std::to_string(i) +
                          " from rank " + std::to_string(q) + " is wrong";
                    break;
                }
            }
            end = std::max<uint64_t>(end, at + rcounts[q]);
        }
        for (uint64_t i = end; i < recv.size() && err.empty(); ++i) {
            if (recv[i] != kGuard) {
                err = "round " + std::to_string(k) + ": element " + std::to_string(i) +
                      " past the blocks was written";
            }
        }
        for (uint64_t w : work) {
            if (w != 0 && err.empty()) {
                err = "round " + std::to_string(k) + ": the work buffer is not back to zero";
            }
        }
    }
    for (long i = 0;
         team != nullptr && i < 50000000 && (st = ucc_team_destroy(team)) == UCC_INPROGRESS; ++i) {
        ucc_context_progress(ctx);
    }
    ucc_context_destroy(ctx);
    ucc_finalize(lib);
    return err;
}

}  // namespace ucc::testkit
