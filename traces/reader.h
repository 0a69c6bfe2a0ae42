// The trace reader: one rank's file, or a directory of them, into records
// (traces/records.h). Strict: a malformed line, a wrong version, a missing or
// mistyped field, a value out of range (counts, ranks, sizes), a reference to
// a team or request the file never introduced — each is an error naming the
// file and line, never a crash. The last line without its '\n' (a rank killed
// while writing) and NUL padding are not errors: the trace ends before them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "traces/records.h"

namespace ucc::traces {

// Limits a trace must stay within.
inline constexpr uint64_t kMaxRanks = uint64_t{1} << 24;
inline constexpr uint64_t kMaxArrayEntries = uint64_t{1} << 24;  // one array, expanded
inline constexpr size_t kMaxLineBytes = size_t{64} << 20;

struct RankTrace {
    std::string path;
    Header header;
    std::vector<Record> records;
    std::vector<uint32_t> line_of;  // line number of each record
    bool ended = false;             // it has its `end` record
    bool truncated = false;         // a last line was cut short (and ignored)
    uint32_t last_line = 0;         // the last complete line
};

struct Trace {
    std::string dir;
    uint64_t size = 0;             // ranks, from the headers
    std::vector<RankTrace> ranks;  // by rank
};

// One file's text (`name` is used in messages). False and *error ("name:line:
// why") when malformed.
bool read_text(std::string_view text, const std::string &name, RankTrace *out, std::string *error);
bool read_file(const std::string &path, RankTrace *out, std::string *error);
// Every rank<R>[.<k>].jsonl of `dir`. Besides each file's errors: no trace
// files, ranks that disagree on the size, a rank with two files, missing
// ranks (all named).
bool read_dir(const std::string &dir, Trace *out, std::string *error);

}  // namespace ucc::traces
