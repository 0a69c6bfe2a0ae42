// The process world of a multi-process test: its rank, size and an OOB, from
// the environment (ucc_boot.h: ucc_run, torchrun-, Open MPI- or Slurm-style
// variables) or, with `--oob mpi`, from MPI_Allgather as the program's own OOB.
#pragma once

#include <chrono>
#include <cstring>
#include <string>

#include "ucc/api/ucc.h"
#ifdef UCC_MP_WITH_MPI
#include "tests/mp/mpi_oob.h"
#endif
#ifdef UCC_MP_WITH_BOOT
#include "ucc/boot/ucc_boot.h"
#endif

namespace ucc::mp {

struct World {
    uint32_t rank = 0;
    uint32_t size = 1;
    ucc_oob_coll_t oob{};
    bool mpi = false;
#ifdef UCC_MP_WITH_MPI
    MPI_Comm comm = MPI_COMM_NULL;
#endif
#ifdef UCC_MP_WITH_BOOT
    ucc_boot_h boot = nullptr;
#endif
};

// `timeout_s` > 0: the bootstrap's timeout (connecting, each OOB round, the
// barrier of world_finalize); 0: its default.
inline bool world_init(int &argc, char **&argv, World *w, std::string *err, double timeout_s = 0) {
    bool want_mpi = false;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--oob") == 0 && std::strcmp(argv[i + 1], "mpi") == 0) {
            want_mpi = true;
        }
    }
    if (want_mpi) {
#ifdef UCC_MP_WITH_MPI
        MPI_Init(&argc, &argv);
        w->mpi = true;
        w->comm = MPI_COMM_WORLD;
        mpi_oob(&w->comm, &w->oob);
        w->rank = w->oob.oob_ep;
        w->size = w->oob.n_oob_eps;
        return true;
#else
        *err = "built without MPI";
        return false;
#endif
    }
#ifdef UCC_MP_WITH_BOOT
    ucc_boot_params_t bp{};
    if (timeout_s > 0) {
        bp.mask = UCC_BOOT_PARAM_FIELD_TIMEOUT;
        bp.timeout = timeout_s;
    }
    ucc_status_t st = ucc_boot_init(&bp, &w->boot);
    if (st != UCC_OK) {
        *err = std::string("ucc_boot_init: ") + ucc_status_string(st) +
               " (launch with ucc_run -n N, or pass --oob mpi under mpirun)";
        return false;
    }
    w->rank = ucc_boot_rank(w->boot);
    w->size = ucc_boot_size(w->boot);
    st = ucc_boot_oob(w->boot, &w->oob);
    if (st != UCC_OK) {
        *err = std::string("ucc_boot_oob: ") + ucc_status_string(st);
        return false;
    }
    return true;
#else
    *err = "no launcher environment support built in; pass --oob mpi under mpirun";
    return false;
#endif
}

inline void world_finalize(World *w) {
#ifdef UCC_MP_WITH_MPI
    if (w->mpi) {
        MPI_Finalize();
        return;
    }
#endif
#ifdef UCC_MP_WITH_BOOT
    if (w->boot != nullptr) {
        ucc_boot_finalize(w->boot);
        w->boot = nullptr;
    }
#endif
    (void)w;
}

// A library, a context over the world's OOB and the team of every rank.
struct Ucc {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
};

// Opens `u` (team creation bounded by `timeout_s`); false with `err` naming
// the step that failed.
inline bool ucc_open(const World &w, Ucc *u, std::string *err, double timeout_s = 30) {
    ucc_lib_config_h lcfg;
    ucc_lib_params_t lp{};
    if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK) {
        *err = "ucc_lib_config_read";
        return false;
    }
    ucc_status_t st = ucc_init(&lp, lcfg, &u->lib);
    ucc_lib_config_release(lcfg);
    if (st != UCC_OK) {
        *err = "ucc_init";
        return false;
    }
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    cp.oob = w.oob;
    if (ucc_context_create(u->lib, &cp, nullptr, &u->ctx) != UCC_OK) {
        *err = "ucc_context_create";
        return false;
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep = w.rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    if (ucc_team_create_post(&u->ctx, 1, &tp, &u->team) != UCC_OK) {
        *err = "ucc_team_create_post";
        return false;
    }
    const auto start = std::chrono::steady_clock::now();
    while ((st = ucc_team_create_test(u->team)) == UCC_INPROGRESS) {
        ucc_context_progress(u->ctx);
        if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(timeout_s)) {
            *err = "team creation hangs";
            return false;
        }
    }
    if (st != UCC_OK) {
        *err = std::string("team creation: ") + ucc_status_string(st);
        return false;
    }
    return true;
}

}  // namespace ucc::mp
