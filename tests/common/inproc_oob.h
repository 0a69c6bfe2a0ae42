// An OOB among the threads (or contexts) of one process: member i of n deposits
// its data for round r; a round is complete when all n deposited. Lets tests
// create several UCX contexts in one process, as if each were a process.
// Context creation waits for the round, so each member creates its context on
// a thread of its own. A round is dropped once every member has freed its
// request: the OOB keeps only rounds in progress, however many run.
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
    struct Round {
        std::vector<std::vector<uint8_t>> slots;  // per member
        uint32_t freed = 0;                       // members done with it
    };
    uint32_t n;
    std::mutex m;
    std::map<uint64_t, Round> data;  // rounds in progress
    std::vector<uint64_t> round;     // next round per member
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
    auto &slots = o.data[r].slots;
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
    auto &slots = o.data[q->round].slots;
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
    auto *q = static_cast<Req *>(req);
    InprocOob &o = *q->member->oob;
    {
        std::lock_guard<std::mutex> lk(o.m);
        auto it = o.data.find(q->round);
        if (it != o.data.end() && ++it->second.freed == o.n) {
            o.data.erase(it);
        }
    }
    delete q;
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
