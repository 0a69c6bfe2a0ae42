// The oracle: an executable specification of the final buffer contents of every UCC collective
// (API.md §4.2–4.4, §4.12; CONFORMANCE P4–P13, P23, P24, P31).
//
// expected() is given, for every rank, exactly the ucc_coll_args_t that rank passes to
// ucc_collective_init, with its buffers holding their initial contents, and is called BEFORE the
// collective runs. It reads the inputs it needs and returns, per rank, the bytes the collective
// must leave at each address it may write. Every byte of every user buffer (and every byte around
// them) that no Write covers must be left unchanged by the library.
//
// Conventions (see model/README.md for the full list of decisions):
// * Block byte sizes are count * element size, with the element size of the buffer that holds the
//   block; a sender's and a receiver's block must have the same byte size.
// * Zero-byte blocks produce no Write; barrier, fanin and fanout produce none at all.
// * In-place allgather(v), alltoall(v) and the root of in-place gather(v): the rank's own block is
//   already in place; the oracle covers it with a Write holding the identical bytes.
// * In-place scatter(v): nothing is written at the root. Bcast ignores IN_PLACE and never writes
//   the root's buffer. Reduce and gather(v) write only the root's dst.
// * Reductions follow model/reduce.h (rank-order fold, FLOAT128 padding zeroed).
// * Adjacent writes to one rank are merged; writes of one rank never overlap.
// * Active sets (any type, API.md §4.12): the plain collective over the members' args, member i
//   acting as rank i of a team of the set's size (root, block layout, v-array entries and AVG's
//   divisor all by set position); non-members' args are ignored and they get no write.
//
// Arguments the oracle cannot describe (invalid per model/validity.h, or inconsistent across ranks
// -- CONFORMANCE P44: different coll_type, root, op, datatype, counts or block sizes) make
// expected() throw std::invalid_argument naming the problem. Buffers are read as host memory.
#pragma once

#include <ucc/api/ucc.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ucc::model {

// Bytes the collective must leave at addr.
struct Write {
    void *addr;
    std::vector<uint8_t> bytes;
};

// Per rank, the writes of one collective (writes.size() == team size).
struct Expected {
    std::vector<std::vector<Write>> writes;
};

// All 16 collective types. args[r] is exactly what rank r passes to ucc_collective_init
// (args.size() == team_size); buffers hold their initial contents.
Expected expected(uint32_t team_size, const std::vector<ucc_coll_args_t> &args);

// ---- helpers for harnesses

// Copies every write to its address, in order.
void apply(const std::vector<Write> &writes);

// The contents [addr, addr + size) must have after the collective: the current bytes there with the
// parts of `writes` that fall inside the range applied. Take it before the collective runs.
std::vector<uint8_t> expected_image(const void *addr, size_t size,
                                    const std::vector<Write> &writes);

// "" if the memory at every write's address holds the write's bytes, else a description of the
// first difference (address, offset within the write, expected and actual byte).
std::string check(const std::vector<Write> &writes);

// check() for every rank; the description names the rank.
std::string check(const Expected &expected);

// Total number of bytes written on all ranks.
size_t total_bytes(const Expected &expected);

}  // namespace ucc::model
