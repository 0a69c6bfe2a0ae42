// Importing SimGrid's time-independent (TI) traces, as SMPI records them
// (smpirun -trace-ti) and replays them (smpi_replay): the collectives of each
// rank's action list become a trace (records.h) that ucc_replay runs like a
// recorded one. traces/FORMAT.md, "SimGrid traces", lists what maps to what.
//
// Input, `path`: a directory of per-rank files, one file holding every
// rank's actions, or an index file naming one per-rank file per line (as
// smpi_replay takes it; relative names are taken from the index's
// directory). Each action line is `<rank> <action> [args]`; every rank is on
// MPI_COMM_WORLD, whose size is the number of ranks found.
#pragma once

#include <string>
#include <vector>

#include "traces/reader.h"

namespace ucc::traces {

// Whether `path` looks like a TI trace (or an index of one) rather than a
// directory of our own trace files.
bool looks_like_simgrid(const std::string &path);

// The trace; `notes` says what was skipped (point-to-point, compute, sleep,
// ...) and how often. False and *error ("file:line: why") on malformed input.
bool import_simgrid(const std::string &path, Trace *out, std::vector<std::string> *notes,
                    std::string *error);

}  // namespace ucc::traces
