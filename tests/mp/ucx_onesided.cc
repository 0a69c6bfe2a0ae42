// One-sided alltoall and alltoallv over UCX between real processes (real
// ucp_put_nbx, ucp_atomic_op_nbx and flushes): the rank body of
// tests/integration/onesided_test.cc. Run by ucc_run (or mpirun --oob mpi).
//   ucc_run -n 4 build/mp_ucx_onesided [--seed S] [--rounds R] [--max-block E]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/common/onesided_body.h"
#include "tests/mp/world.h"

int main(int argc, char **argv) {
    ucc::mp::World w;
    std::string err;
    if (!ucc::mp::world_init(argc, argv, &w, &err)) {
        std::fprintf(stderr, "mp_ucx_onesided: %s\n", err.c_str());
        return 2;
    }
    ucc::testkit::OnesidedParams p;
    p.oob = w.oob;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--seed") == 0) {
            p.seed = std::strtoull(argv[i + 1], nullptr, 10);
        } else if (std::strcmp(argv[i], "--rounds") == 0) {
            p.rounds = static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
        } else if (std::strcmp(argv[i], "--max-block") == 0) {
            p.max_block = std::strtoull(argv[i + 1], nullptr, 10);
        }
    }
    err = ucc::testkit::onesided_rank(p);
    if (err.empty()) {
        std::printf("[%u] onesided: ok (%u rounds)\n", w.rank, p.rounds);
    } else {
        std::printf("[%u] onesided: FAIL %s\n", w.rank, err.c_str());
    }
    ucc::mp::world_finalize(&w);
    return err.empty() ? 0 : 1;
}
