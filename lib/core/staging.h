// Copies a collective runs on instead of the user's buffers: made from the
// user's buffers at every post, the algorithm's arguments pointed at them, and
// copied back when the collective completes successfully. Two kinds:
// datatypes described by pack/unpack callbacks (lib/core/packed_staging.h) and
// CUDA device memory on a transport that moves host memory
// (lib/core/device_staging.h). A request holds at most one.
#pragma once

#include "lib/coll/coll.h"
#include "ucc/api/ucc.h"

namespace ucc::core {

struct Staging {
    Staging() = default;
    Staging(const Staging &) = delete;
    Staging &operator=(const Staging &) = delete;
    virtual ~Staging() = default;
    // At a post: fills the copies from the user's buffers described by `a` and
    // points `run` at them. On failure (logged) the request is unchanged.
    virtual ucc_status_t stage_in(const ucc::coll::Args &a) = 0;
    // After the collective completed successfully: the results back into the
    // user's buffers (logged on failure).
    virtual ucc_status_t stage_out(const ucc::coll::Args &a) = 0;
    // When the collective completed, whatever its status, before the program
    // can see it: nothing of the staging touches the user's buffers after.
    virtual void settle() {}

    ucc::coll::Args run;  // the arguments of one post, on the copies
};

}  // namespace ucc::core
