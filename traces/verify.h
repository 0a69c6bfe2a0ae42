// Checking a replay's results against the model (model/oracle.h): every
// collective instance of a payload replay, once all its participants have
// posted and completed, gets the model's expected bytes for every rank's
// buffers, computed from the inputs each rank had at its post; a difference
// names the rank, the trace line and the first wrong byte.
//
// Each participant's arguments and buffers are copied at its post (a rank may
// finish, and even finalize, before the last one posts), and its buffers again
// at its completion; an instance is checked and dropped when it has all of
// them. Not checked: timing-only runs (no payload), active sets, and 16-bit
// float sums beyond 256 ranks (rounding order).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "traces/records.h"
#include "ucc/api/ucc.h"

namespace ucc::traces {

// One collective instance across the ranks: the team (its members and which
// team of those members it is) and the key it ran under.
struct InstanceKey {
    Values members;
    uint32_t occurrence = 0;
    uint64_t key = 0;
    bool operator<(const InstanceKey &o) const {
        return std::tie(members, occurrence, key) < std::tie(o.members, o.occurrence, o.key);
    }
};

class Verifier {
  public:
    // A participant posts: `a` is what it passed to init, `rec` what was
    // recorded (for the shapes of its buffers), src/dst its buffers now.
    void posted(const InstanceKey &k, uint32_t team_rank, const ucc_coll_args_t &a,
                const InitRec &rec, const std::vector<uint8_t> &src,
                const std::vector<uint8_t> &dst, const std::string &where);
    // It completed: its buffers now.
    void completed(const InstanceKey &k, uint32_t team_rank, const std::vector<uint8_t> &src,
                   const std::vector<uint8_t> &dst);

    std::vector<std::string> problems;
    uint64_t verified = 0;      // instances checked
    uint64_t unverifiable = 0;  // instances whose members disagree (desynchronised)

  private:
    struct Part {
        bool posted = false;
        bool done = false;
        ucc_coll_args_t args{};
        std::vector<uint8_t> src, dst;              // at the post
        std::vector<uint8_t> src_after, dst_after;  // at the completion
        std::vector<uint64_t> arrays[4];
        std::string where;
    };
    struct Instance {
        std::vector<Part> parts;  // by team rank
        uint32_t posted = 0;
        uint32_t done = 0;
    };
    void check(const InstanceKey &k, Instance &inst);
    std::map<InstanceKey, Instance> open_;
};

}  // namespace ucc::traces
