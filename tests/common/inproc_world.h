// Several UCC "processes" in one test process over UCX: each rank its own
// library, context (TLS=ucx, its own UCP worker) and team, joined by an
// in-process OOB (tests/common/inproc_oob.h). Contexts are created on a thread
// per rank (creation waits for every member); afterwards one thread may drive
// them all with drive().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/common/inproc_oob.h"
#include "ucc/api/ucc.h"

namespace ucc::testkit {

struct InprocRank {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
};

class InprocWorld {
  public:
    explicit InprocWorld(uint32_t n);
    ~InprocWorld();  // tears every rank down
    InprocWorld(const InprocWorld &) = delete;
    InprocWorld &operator=(const InprocWorld &) = delete;

    // Creates every rank ("" on success, else what failed).
    std::string open();
    std::vector<InprocRank> &ranks() { return ranks_; }
    // Progresses every context once.
    void progress();
    // Posts reqs[i] on rank i (nullptr: nothing on that rank) and progresses
    // all contexts until all completed, at most `max_spins` rounds. False on
    // an error or when the bound is reached.
    bool run(std::vector<ucc_coll_req_h> &reqs, uint64_t max_spins = 10'000'000);
    // Progresses until every request completed (already posted).
    bool wait(std::vector<ucc_coll_req_h> &reqs, uint64_t max_spins = 10'000'000);

  private:
    std::string open_rank(uint32_t r);
    std::unique_ptr<InprocOob> oob_;
    std::vector<OobMember> members_;
    std::vector<InprocRank> ranks_;
};

}  // namespace ucc::testkit
