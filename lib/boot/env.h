// The bootstrap's environment contract: who am I, how many are we, where is
// the store. Read from the variables launchers set, one field at a time, the
// first family that names the field winning:
//
//   field        ucc_run / by hand   torchrun           Open MPI (mpirun)             Slurm (srun)
//   rank         UCC_RANK            RANK               OMPI_COMM_WORLD_RANK          SLURM_PROCID
//   size         UCC_WORLD_SIZE      WORLD_SIZE         OMPI_COMM_WORLD_SIZE          SLURM_NTASKS
//   local_rank   UCC_LOCAL_RANK      LOCAL_RANK         OMPI_COMM_WORLD_LOCAL_RANK    SLURM_LOCALID
//   local_size   UCC_LOCAL_SIZE      LOCAL_WORLD_SIZE   OMPI_COMM_WORLD_LOCAL_SIZE
//   SLURM_NTASKS_PER_NODE,
//                                                                                     else
//                                                                                     SLURM_TASKS_PER_NODE
//                                                                                     at
//                                                                                     SLURM_NODEID
//
// The store: UCC_STORE=host:port names a store that already runs (ucc_run
// starts one): every rank connects. Else MASTER_ADDR and MASTER_PORT
// (torchrun's convention): rank 0 hosts the store there, in-process, and the
// others connect, retrying until it is up. A job of one rank with neither
// hosts a private store on 127.0.0.1 (an ephemeral port).
//
// An empty variable counts as unset. Neither a rank nor a size anywhere means
// the process was not launched: it is rank 0 of 1 (a singleton). Neither local
// variable means one node: local_rank = rank, local_size = size. Everything
// else that is missing, malformed or inconsistent is an error whose message
// names the variable.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "ucc/api/ucc.h"

namespace ucc::boot {

// Like getenv: the value of a variable, or nullptr when it is unset.
using GetEnv = std::function<const char *(const char *name)>;

struct BootEnv {
    uint32_t rank = 0;
    uint32_t size = 1;
    uint32_t local_rank = 0;
    uint32_t local_size = 1;
    std::string store_host;
    uint16_t store_port = 0;  // 0 only with host_store: an ephemeral port
    bool host_store = false;  // this process starts the store server
    bool launched = false;    // a launcher named the rank and the size
    // Where the values came from, for log lines: "RANK=1 WORLD_SIZE=2 ...".
    std::string origin;
};

// True when the environment names a rank and a world size (any family).
bool env_launched(const GetEnv &getenv);
// The UCC_* variables of the contract (UCC_RANK, UCC_STORE, ...).
std::span<const char *const> env_contract_names();

// Reads the contract. On error returns UCC_ERR_INVALID_PARAM and sets *error
// to one sentence naming the variable at fault.
ucc_status_t parse_env(const GetEnv &getenv, BootEnv *out, std::string *error);

// "host:port", "[v6]:port": port 1 to 65535.
ucc_status_t parse_host_port(std::string_view s, std::string *host, uint16_t *port,
                             std::string *error);

// SLURM_TASKS_PER_NODE ("2(x3),1": 2 tasks on each of 3 nodes, then 1): the
// task count of node `node`; false when malformed or node is out of range.
bool slurm_tasks_on_node(std::string_view spec, uint32_t node, uint32_t *tasks);

}  // namespace ucc::boot
