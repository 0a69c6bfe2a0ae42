// An OOB among the threads (or contexts) of one process: member i of n deposits
// its data for round r; a round is complete when all n deposited. Lets tests
// create several UCX contexts in one process, as if each were a process.
// Context creation waits for the round, so each member creates its context on
// a thread of its own.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "ucc/api/ucc.h"

namespace ucc::testkit {

struct InprocOob {
    explicit InprocOob(uint32_t n) : n(n), round(n, 0) {}
    uint32_t n;
    std::mutex m;
    std::map<uint64_t, std::vector<std::vector<uint8_t>>> data;  // round -> per member
    std::vector<uint64_t> round;                                 // next round per member
};

struct OobMember {
    InprocOob *oob;
    uint32_t rank;
};

namespace inproc_detail {

struct Req {
    OobMember *member;
    uint64_t round;
    void *dst;
    size_t len;
};

inline ucc_status_t allgather(void *src, void *dst, size_t len, void *info, void **req) {
    auto *me = static_cast<OobMember *>(info);
    InprocOob &o = *me->oob;
    std::lock_guard<std::mutex> lk(o.m);
    const uint64_t r = o.round[me->rank]++;
    auto &slots = o.data[r];
    slots.resize(o.n);
    const auto *p = static_cast<const uint8_t *>(src);
    slots[me->rank].assign(p, p + len);
    *req = new Req{me, r, dst, len};
    return UCC_OK;
}

inline ucc_status_t test(void *req) {
    auto *q = static_cast<Req *>(req);
    InprocOob &o = *q->member->oob;
    std::lock_guard<std::mutex> lk(o.m);
    auto &slots = o.data[q->round];
    for (uint32_t i = 0; i < o.n; ++i) {
        if (slots.size() < o.n || slots[i].size() != q->len) {
            return UCC_INPROGRESS;
        }
    }
    for (uint32_t i = 0; i < o.n; ++i) {
        std::memcpy(static_cast<uint8_t *>(q->dst) + i * q->len, slots[i].data(), q->len);
    }
    return UCC_OK;
}

inline ucc_status_t free_req(void *req) {
    delete static_cast<Req *>(req);
    return UCC_OK;
}

}  // namespace inproc_detail

// The OOB of `member` (which must outlive every context and team using it).
inline ucc_oob_coll_t inproc_oob(OobMember *member) {
    ucc_oob_coll_t oob{};
    oob.allgather = inproc_detail::allgather;
    oob.req_test = inproc_detail::test;
    oob.req_free = inproc_detail::free_req;
    oob.coll_info = member;
    oob.n_oob_eps = member->oob->n;
    oob.oob_ep = member->rank;
    return oob;
}

}  // namespace ucc::testkit
