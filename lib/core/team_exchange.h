// How the members of a new team learn each other and agree on its id.
//
//  * With a team OOB (OobExchange): two OOB allgathers — the length of every
//    member's transport address (they may differ between processes), then
//    {address padded to the longest, team-id proposal, user id} per member.
//    A transport that owns the OOB (the simulator) shares its peer table
//    instead, with nothing O(n) per member.
//  * Without one, on a context created with an OOB: the members are known from
//    the ep map; the id is the user's, or agreed by a max-reduction over the
//    transport on a reserved tag (agree_max).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <vector>

#include "lib/core/core.h"

namespace ucc::core {

// User team ids up to this are used as they are; others get internal ids.
inline constexpr uint64_t kUserIdMax = 0x7fff;

// The internal team id of an agreed proposal.
uint16_t internal_id(uint64_t agreed);
// Ends a team's creation with `st`.
void finish_creation(Team *t, ucc_status_t st);
// FNV-1a over bytes, for keys every member derives alike.
uint32_t hash32(const void *data, size_t n, uint32_t h);

// Polls the team OOB allgathers that carry addresses and id proposals.
class OobExchange final : public Poller {
  public:
    OobExchange(Team *t, const ucc_oob_coll_t &oob) : t_(t), oob_(oob) {}
    ~OobExchange() override { unlist(); }
    ucc_status_t start();
    bool poll() override;

  private:
    bool poll_oob();     // through the OOB's allgathers
    bool poll_shared();  // through the world's peer exchange
    void unlist();
    ucc_status_t post_records();
    ucc_status_t conclude();

    Team *t_;
    ucc_oob_coll_t oob_;
    void *req_ = nullptr;
    int phase_ = 0;  // 0: lengths, 1: records
    uint64_t my_len_ = 0;
    std::vector<uint64_t> lens_;
    size_t alen_ = 0;
    size_t rec_ = 0;
    std::vector<uint8_t> send_;
    std::vector<uint8_t> recv_;
    std::list<Poller *>::iterator it_;
    bool listed_ = false;
    bool shared_ = false;
};

// Agrees on a team id without an OOB.
struct IdAgreement final : TaskOwner {
    Team *t = nullptr;
    uint64_t value = 0;
    coll::Args args;  // coll's
    std::unique_ptr<coll::Coll> coll;
    void on_task_done(ucc_status_t st) override;
};

// Max-reduction of `value` over the collective's members.
Task agree_max(coll::Coll &c, uint64_t *value);

}  // namespace ucc::core
