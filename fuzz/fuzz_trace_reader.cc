// libFuzzer target: the trace reader (traces/reader.h) on arbitrary bytes,
// as one rank's file. It must never crash, hang or read out of bounds, and
// every rejection must name a line; a trace it accepts must also survive the
// desync check. Built and run by scripts/fuzz.sh (clang, ASan+UBSan), with
// the dictionary fuzz/fuzz_trace_reader.dict.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "traces/reader.h"
#include "traces/replay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    ucc::traces::RankTrace t;
    std::string error;
    if (!ucc::traces::read_text(text, "fuzz", &t, &error)) {
        if (error.rfind("fuzz:", 0) != 0) {
            std::abort();  // every rejection names the file (and line)
        }
        return 0;
    }
    if (t.header.size == 1 && t.header.rank == 0) {
        ucc::traces::Trace trace;
        trace.size = 1;
        trace.ranks.push_back(std::move(t));
        std::vector<std::string> problems;
        ucc::traces::find_desync(trace, &problems);
    }
    return 0;
}
