// One rank's buffers and arguments for one collective of the tools' sweeps
// (ucc_perftest, ucc_sim): the element counts of src and dst by the
// conventions of model/VALIDITY.md, v-arrays of equal blocks (64-bit), in
// place where asked; and the check of its result against a pattern every
// rank can compute for every other.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/cuda_component.h"
#include "tools/perf/colls.h"
#include "ucc/api/ucc.h"

namespace ucc::perf {

struct CollSpec {
    const CollDesc *coll = nullptr;
    const DtDesc *dtype = nullptr;
    const OpDesc *op = nullptr;
    uint32_t root = 0;
    bool inplace = false;
    bool persistent = false;
    // -T: posted with ucc_collective_triggered_post on a CUDA-stream engine
    // (a stream of `cuda`), its post event taken at once, as the reference's.
    bool triggered = false;
    // No buffers (the simulator's timing-only mode): pointers stay NULL.
    bool no_buffers = false;
    // The buffers' memory type (-m). Anything but HOST: the collective runs on
    // copies of the host buffers in that memory, made through `cuda`.
    ucc_memory_type_t mem = UCC_MEMORY_TYPE_HOST;
    const ucc_cuda_component_t *cuda = nullptr;
};

// Per-rank v-arrays (counts and displacements, 64-bit) of n equal blocks of
// `count` elements; identical on every rank and read-only.
struct VArrays {
    std::vector<uint64_t> counts;
    std::vector<uint64_t> displs;
    void build(uint64_t count, uint32_t n);
};

struct CollCall {
    ucc_coll_args_t args{};
    std::vector<uint8_t> src;
    std::vector<uint8_t> dst;
    // GPU copies of src and dst (CollSpec::mem), which args then describe.
    std::shared_ptr<void> dev_src;
    std::shared_ptr<void> dev_dst;
    std::string device_error;  // the last copy to the GPU failed: why
};

// The elements of the rank's src and dst for blocks of `count` elements (0:
// the rank uses no such buffer).
struct BufferElements {
    uint64_t src = 0;
    uint64_t dst = 0;
};
BufferElements buffer_elements(const CollSpec &s, uint64_t count, uint32_t n, uint32_t rank);

// Fills `call` for `rank` of `n`; `va` must be built for (count, n) when
// the collective is a v-variant. Buffers hold ones (src) and zeros (dst).
void build_call(const CollSpec &s, uint64_t count, uint32_t n, uint32_t rank, const VArrays *va,
                CollCall *call);

// Writes the check pattern into the rank's input (src, or dst in place) and
// clears the rest of dst.
void fill_pattern(const CollSpec &s, uint64_t count, uint32_t n, uint32_t rank, CollCall *call);

// GPU memory: the host buffers onto the device (after build_call and
// fill_pattern) and back (before check_result). "" or what failed.
std::string push_to_device(const CollSpec &s, CollCall *call);
std::string pull_from_device(const CollSpec &s, CollCall *call);

// Whether the result on `rank` is what the pattern gives; *why names the
// first wrong element. Reductions of 16-bit floats beyond 256 ranks cannot be
// checked exactly and pass unchecked (*why says so).
bool check_result(const CollSpec &s, uint64_t count, uint32_t n, uint32_t rank,
                  const CollCall &call, std::string *why);

}  // namespace ucc::perf
