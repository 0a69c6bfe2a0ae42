// A trace of S ranks as a trace of N ranks (ucc_replay --ranks N), by one
// rule:
//
//   * Programs. New rank r runs the program of recorded rank floor(r * S / N):
//     at N = k * S every recorded rank is played by k consecutive ranks; at
//     N < S every (S / N)-th recorded rank plays.
//   * Teams. A team's new members are the new ranks whose recorded rank was a
//     member, ordered by that member's recorded team rank, then by new rank: a
//     world team stays the world, an even-ranks team is the ranks playing even
//     ranks. A split is replayed as a split (the included flags come along with
//     the programs), so it follows the same rule.
//   * Roots. The new root is the first new member playing the recorded root.
//   * Sizes. Every rank keeps its data: an allreduce, bcast or reduce keeps its
//     vector, the block collectives keep their block (their buffers of all
//     blocks grow or shrink with the team), and a v-collective's entry for new
//     member j is the recorded entry of the member j plays, with contiguous
//     displacements.
//   * Left out, with a note: collectives with an active set (at N != S), and
//     collectives whose recorded root has no new member (at N < S).
//
// Times and everything else stay as recorded: a rescaled replay compares the
// predicted times at N ranks with the recorded times at S.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/reader.h"

namespace ucc::traces {

// The trace at `n` ranks; `notes` gets one line per kind of thing left out.
Trace rescale(const Trace &t, uint32_t n, std::vector<std::string> *notes);

}  // namespace ucc::traces
