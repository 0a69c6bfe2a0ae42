// One rank's UCC objects in the tools (ucc_perftest, ucc_sim): the library, a
// context over an OOB and a team over every rank, made and taken down through
// the public API as a user program does; and the blocking helpers the tools'
// sweeps use on them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ucc/api/ucc.h"

namespace ucc::perf {

struct RankSetup {
    ucc_oob_coll_t oob{};  // the context's OOB (and the team's, unless team_from_ep_map)
    uint32_t rank = 0;
    uint32_t size = 1;
    // The team over the context's endpoints (a FULL ep map, no OOB exchange):
    // how ucc_sim makes a million-rank team cheaply.
    bool team_from_ep_map = false;
    // A context without an OOB (the team's OOB is then `oob`): half the
    // events of a team from the ep map, whose members agree on its id.
    bool context_without_oob = false;
    // Context configuration set before creation, e.g. {"ALLREDUCE_ALG", "ring"}.
    std::vector<std::pair<std::string, std::string>> config;
};

class Lifecycle {
  public:
    Lifecycle() = default;
    Lifecycle(const Lifecycle &) = delete;
    Lifecycle &operator=(const Lifecycle &) = delete;
    ~Lifecycle() { teardown(); }

    // ucc_init (single thread), the context, the team. "" or what failed.
    std::string setup(const RankSetup &s);
    // The same up to ucc_team_create_post, without waiting: the team is
    // made once ucc_team_create_test(team) says so.
    std::string post(const RankSetup &s);
    // Team, context and library, whichever exist. "" or what failed.
    std::string teardown();

    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
};

// "<call> failed: <status>".
std::string failed(const char *call, ucc_status_t st);
// Tests and progresses until the request is no longer in progress.
ucc_status_t wait(ucc_coll_req_h req, ucc_context_h ctx);
// init + post + wait + finalize.
ucc_status_t run_collective(ucc_coll_args_t *args, ucc_team_h team, ucc_context_h ctx);
ucc_status_t barrier(ucc_team_h team, ucc_context_h ctx);

// An aligned start (sweep.h): a byte from every rank through the OOB's
// allgather, whose completion the simulator's OOB gives every rank at one
// virtual instant. post() once, then test() until it is not in progress.
class OobAlign {
  public:
    OobAlign() = default;
    OobAlign(const OobAlign &) = delete;
    OobAlign &operator=(const OobAlign &) = delete;
    ~OobAlign() { release(); }

    ucc_status_t post(const ucc_oob_coll_t &oob);
    ucc_status_t test();

  private:
    void release();

    ucc_oob_coll_t oob_{};  // a copy: the caller's may not outlive the exchange
    void *req_ = nullptr;
    char mine_ = 0;
    std::vector<char> all_;
};

// post() and test() until done.
ucc_status_t align(const ucc_oob_coll_t &oob);

}  // namespace ucc::perf
