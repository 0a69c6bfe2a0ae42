// Found auditing every field of ucc_coll_args_t against the reference: a
// buffer labelled CUDA or ROCm memory was accepted over UCX and read and
// written by the CPU as host memory (a real device pointer would crash the
// process; a reduction would run on it). The reference refuses a memory type
// no component of it handles (UCC_ERR_NOT_SUPPORTED from
// ucc_collective_init). Real transports now refuse every memory type but
// host (and UNKNOWN, taken as host) on a buffer the collective uses; the
// simulator keeps them as labels.
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/regress/solo_context.h"

TEST(Regress, DeviceMemoryTypesAreRefusedOnRealTransports) {
    ucc::regress::SoloContext solo;
    ASSERT_NE(solo.team, nullptr);
    int64_t v = 5;
    int64_t r = 0;
    ucc_coll_args_t a = ucc::regress::allreduce_of(&v, &r);
    for (ucc_memory_type_t m : {UCC_MEMORY_TYPE_CUDA, UCC_MEMORY_TYPE_CUDA_MANAGED,
                                UCC_MEMORY_TYPE_ROCM, UCC_MEMORY_TYPE_ROCM_MANAGED}) {
        ucc_coll_args_t b = a;
        b.src.info.mem_type = m;
        EXPECT_EQ(solo.run(b), UCC_ERR_NOT_SUPPORTED) << "src mem_type " << m;
        b = a;
        b.dst.info.mem_type = m;
        EXPECT_EQ(solo.run(b), UCC_ERR_NOT_SUPPORTED) << "dst mem_type " << m;
    }
    EXPECT_EQ(r, 0) << "a refused collective wrote its dst";
    // A buffer the collective does not use is not looked at: a barrier's.
    ucc_coll_args_t barrier{};
    barrier.coll_type = UCC_COLL_TYPE_BARRIER;
    barrier.src.info.mem_type = UCC_MEMORY_TYPE_CUDA;
    EXPECT_EQ(solo.run(barrier), UCC_OK);
    // Host, and UNKNOWN (the library detects it: host here), run.
    EXPECT_EQ(solo.run(a), UCC_OK);
    EXPECT_EQ(r, 5);
    a.src.info.mem_type = UCC_MEMORY_TYPE_UNKNOWN;
    a.dst.info.mem_type = UCC_MEMORY_TYPE_UNKNOWN;
    r = 0;
    EXPECT_EQ(solo.run(a), UCC_OK);
    EXPECT_EQ(r, 5);
}
