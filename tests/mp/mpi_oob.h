// An OOB allgather over MPI_COMM_WORLD (MPI_Iallgather + MPI_Test), the way
// MPI libraries and the reference's MPI tests hand UCC an OOB.
#pragma once

#include <mpi.h>

#include <cstdlib>

#include "ucc/api/ucc.h"

namespace ucc::mp {

inline ucc_status_t mpi_oob_allgather(void *sbuf, void *rbuf, size_t msglen, void *coll_info,
                                      void **req) {
    auto *comm = static_cast<MPI_Comm *>(coll_info);
    auto *r = static_cast<MPI_Request *>(std::malloc(sizeof(MPI_Request)));
    if (r == nullptr) {
        return UCC_ERR_NO_MEMORY;
    }
    if (MPI_Iallgather(sbuf, static_cast<int>(msglen), MPI_BYTE, rbuf, static_cast<int>(msglen),
                       MPI_BYTE, *comm, r) != MPI_SUCCESS) {
        std::free(r);
        return UCC_ERR_NO_MESSAGE;
    }
    *req = r;
    return UCC_OK;
}

inline ucc_status_t mpi_oob_test(void *req) {
    int done = 0;
    if (MPI_Test(static_cast<MPI_Request *>(req), &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        return UCC_ERR_NO_MESSAGE;
    }
    return done ? UCC_OK : UCC_INPROGRESS;
}

inline ucc_status_t mpi_oob_free(void *req) {
    std::free(req);
    return UCC_OK;
}

// Fills `oob` for MPI_COMM_WORLD; `comm` must outlive every use.
inline void mpi_oob(MPI_Comm *comm, ucc_oob_coll_t *oob) {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(*comm, &rank);
    MPI_Comm_size(*comm, &size);
    oob->allgather = mpi_oob_allgather;
    oob->req_test = mpi_oob_test;
    oob->req_free = mpi_oob_free;
    oob->coll_info = comm;
    oob->n_oob_eps = static_cast<uint32_t>(size);
    oob->oob_ep = static_cast<uint32_t>(rank);
}

}  // namespace ucc::mp
