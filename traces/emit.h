// Records as trace lines (FORMAT.md): one JSON object and its '\n' appended
// to a string. Used by the recorder in the library, and by tests and tools
// that write traces (ucc_replay's importer).
#pragma once

#include <string>

#include "traces/records.h"

namespace ucc::traces {

void emit(const Header &h, std::string *out);
void emit(const Record &r, std::string *out);

}  // namespace ucc::traces
