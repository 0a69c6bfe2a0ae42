/**
 * @file ucc_boot.h
 * @brief Bootstrap a UCC program running as real processes.
 *
 * ucc_boot_init() reads the rank, the world size and the address of a
 * rendezvous store from the environment a launcher set (ucc_run, torchrun,
 * mpirun, srun: see docs/real-runs.md, the environment contract), hosts the store or
 * connects to it, and returns a handle. ucc_boot_oob() then gives the OOB
 * allgather over all ranks to put into ucc_context_params_t or
 * ucc_team_params_t, as ucc_sim_oob() does for a simulated rank, so one
 * program body runs both ways:
 *
 * @code
 * ucc_boot_h boot;
 * ucc_oob_coll_t oob;
 * if (ucc_boot_init(NULL, &boot) != UCC_OK) return 1;
 * ucc_boot_oob(boot, &oob);
 * ctx_params.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
 * ctx_params.oob = oob;
 * ... ucc_context_create(lib, &ctx_params, ctx_config, &ctx) ...
 * ucc_boot_finalize(boot);
 * @endcode
 *
 * A program may bring its own OOB (over MPI_Allgather, say) instead; nothing
 * in UCC requires this one.
 */

#ifndef UCC_BOOT_H_
#define UCC_BOOT_H_

#include <stdint.h>
#include <ucc/api/ucc.h>
#include <ucc/api/ucc_status.h>

BEGIN_C_DECLS

/** A process's membership in a job: rank, size and a store connection. */
typedef struct ucc_boot *ucc_boot_h;

/** Which fields of ucc_boot_params_t are set (others take their defaults). */
enum ucc_boot_params_field {
    UCC_BOOT_PARAM_FIELD_TIMEOUT = UCC_BIT(0) /*!< timeout (default 300) */
};

/** Parameters of ucc_boot_init(). */
typedef struct ucc_boot_params {
    uint64_t mask; /*!< ucc_boot_params_field bits of the fields that are set */
    /** Seconds that connecting to the store, each OOB allgather and each
     *  barrier may take before failing with UCC_ERR_TIMED_OUT (> 0). */
    double timeout;
} ucc_boot_params_t;

/**
 * Tells whether a launcher started this process.
 *
 * @return 1 when the environment names a rank and a world size (UCC_RANK and
 *         UCC_WORLD_SIZE, RANK and WORLD_SIZE, OMPI_COMM_WORLD_RANK and _SIZE,
 *         or SLURM_PROCID and SLURM_NTASKS), else 0.
 */
int ucc_boot_launched(void);

/**
 * Reads the environment, hosts the store (rank 0 under MASTER_ADDR and
 * MASTER_PORT, or a one-rank job with no address) or connects to it
 * (retrying while it is not up), and waits until every rank has done the
 * same. Without a launcher the process is rank 0 of 1. Collective: every rank
 * of the job calls it.
 *
 * @param [in]  params  Parameters, or NULL for the defaults.
 * @param [out] boot    The new handle; set to NULL when the call fails.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL boot, a bad params or
 *         environment (a log line names the variable); UCC_ERR_NO_RESOURCE
 *         when the store cannot be hosted (port in use, say); UCC_ERR_TIMED_OUT
 *         when the store or some rank did not show up within the timeout;
 *         UCC_ERR_NO_MESSAGE when the store went away.
 */
ucc_status_t ucc_boot_init(const ucc_boot_params_t *params, ucc_boot_h *boot);

/**
 * The calling process's rank in the job.
 *
 * @param [in] boot  Handle from ucc_boot_init().
 * @return The rank, in [0, size); 0 for a NULL handle.
 */
uint32_t ucc_boot_rank(ucc_boot_h boot);

/**
 * The size of the job.
 *
 * @param [in] boot  Handle from ucc_boot_init().
 * @return The number of processes of the job; 0 for a NULL handle.
 */
uint32_t ucc_boot_size(ucc_boot_h boot);

/**
 * The calling process's rank among the job's processes on this node.
 *
 * @param [in] boot  Handle from ucc_boot_init().
 * @return The local rank, in [0, local size); 0 for a NULL handle.
 */
uint32_t ucc_boot_local_rank(ucc_boot_h boot);

/**
 * The number of the job's processes on this node.
 *
 * @param [in] boot  Handle from ucc_boot_init().
 * @return The local size; 0 for a NULL handle.
 */
uint32_t ucc_boot_local_size(ucc_boot_h boot);

/**
 * Fills @a oob with an OOB allgather over all ranks (n_oob_eps = size,
 * oob_ep = rank). Its allgather is non-blocking (post, then req_test until
 * UCC_OK, then req_free); every rank must call the handle's allgathers in the
 * same order, as UCC does; several may be outstanding at once; one costs one
 * round trip to the store. req_test reports a timeout (UCC_ERR_TIMED_OUT), a
 * rank whose connection to the store dropped before it contributed, or a lost
 * store (both UCC_ERR_NO_MESSAGE, at once) with a log line naming the cause. Requests must be freed
 * before ucc_boot_finalize(). The OOB is valid until then and may serve any
 * number of contexts and teams in turn.
 *
 * @param [in]  boot  Handle from ucc_boot_init().
 * @param [out] oob   The OOB to fill.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL argument.
 */
ucc_status_t ucc_boot_oob(ucc_boot_h boot, ucc_oob_coll_t *oob);

/**
 * Blocks until every rank has called it, or until the timeout.
 *
 * @param [in] boot  Handle from ucc_boot_init().
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL handle; UCC_ERR_TIMED_OUT
 *         when some rank did not arrive within the timeout; UCC_ERR_NO_MESSAGE
 *         at once when a rank that has not arrived lost its connection to the
 *         store (it died; the log names it), or when the store went away.
 */
ucc_status_t ucc_boot_barrier(ucc_boot_h boot);

/**
 * A barrier, then closes the store connection (the rank hosting the store
 * waits, within the timeout, for the others to disconnect, then stops it) and
 * releases the handle, even when it returns an error. Collective.
 *
 * @param [in] boot  Handle from ucc_boot_init(); not valid after the call.
 * @return UCC_OK or the barrier's error; UCC_ERR_INVALID_PARAM for a NULL handle.
 */
ucc_status_t ucc_boot_finalize(ucc_boot_h boot);

END_C_DECLS

#endif /* UCC_BOOT_H_ */
