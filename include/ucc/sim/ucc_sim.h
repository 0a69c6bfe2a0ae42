/**
 * @file ucc_sim.h
 * @brief Run a UCC program on a deterministic simulated cluster.
 *
 * ucc_sim_run() runs @a rank_main once per simulated rank, each rank a fiber
 * on one OS thread (or, in completion-callback style, no fiber at all:
 * UCC_SIM_FLAG_FIBERLESS), in virtual time over a modelled network. Inside a rank the
 * ordinary UCC C API works: a context created there uses the simulated
 * transport, and ucc_sim_oob() gives the OOB allgather over all ranks to put
 * into ucc_context_params_t. The same parameters and seed give the same run,
 * bit for bit; the run's trace hash shows it.
 */

#ifndef UCC_SIM_H_
#define UCC_SIM_H_

#include <stddef.h>
#include <stdint.h>
#include <ucc/api/ucc.h>
#include <ucc/api/ucc_status.h>

BEGIN_C_DECLS

/** Which fields of ucc_sim_params_t are set (others take their defaults). */
enum ucc_sim_params_field {
    UCC_SIM_PARAM_FIELD_N_RANKS = UCC_BIT(0),        /*!< n_ranks (default 1) */
    UCC_SIM_PARAM_FIELD_SEED = UCC_BIT(1),           /*!< seed (default 1) */
    UCC_SIM_PARAM_FIELD_NETWORK = UCC_BIT(2),        /*!< network (default "hdr") */
    UCC_SIM_PARAM_FIELD_STACK_SIZE = UCC_BIT(3),     /*!< stack_size (default 256 KiB) */
    UCC_SIM_PARAM_FIELD_FLAGS = UCC_BIT(4),          /*!< flags (default 0) */
    UCC_SIM_PARAM_FIELD_TIMING_ONLY = UCC_BIT(5),    /*!< timing_only (default 0) */
    UCC_SIM_PARAM_FIELD_TIMELINE = UCC_BIT(6),       /*!< timeline (default NULL: none) */
    UCC_SIM_PARAM_FIELD_TIMELINE_RANKS = UCC_BIT(7), /*!< timeline_ranks (default: all) */
    UCC_SIM_PARAM_FIELD_FAULTS = UCC_BIT(8)          /*!< faults (default NULL: none) */
};

/** Run options. */
enum ucc_sim_flags {
    UCC_SIM_FLAG_QUIET = UCC_BIT(0), /*!< do not print the seed and summary lines */
    /** Switch to a rank's own stack for every packet that reaches it. By
     *  default a rank that waits in ucc_context_progress() for requests
     *  without callbacks or timeouts has its arrivals progressed by the event
     *  loop, and resumes only when a request completed: the same run (times,
     *  trace hash), with fewer switches to cold stacks. */
    UCC_SIM_FLAG_NO_DRAIN = UCC_BIT(1),
    /** Ranks without a fiber: a program in completion-callback style, which
     *  needs no stack of its own. rank_main runs once per rank on the
     *  simulator's own stack and must never wait: it creates its library and
     *  a context, posts a team creation, adds a hook with
     *  ucc_sim_on_progress() and returns. The context is made without an OOB
     *  and the team with ucc_sim_oob() as the team's OOB, or the context over
     *  ucc_sim_oob() and the team over its eps: ucc_context_create then
     *  returns the context at once, it learns its peers in the rank's later
     *  passes, and a team posted on it meanwhile waits for that (over an OOB
     *  of the program's own, ucc_context_create returns
     *  UCC_ERR_NOT_SUPPORTED: its exchange would have to wait). From then
     *  on, whenever something reaches the rank, the simulator runs a pass of
     *  progress on each of its contexts, which runs the callbacks of
     *  completed requests (ucc_coll_args_t.cb), then runs its hooks. The rank has finished when
     *  it has no hook and no request, team creation or OOB step in flight.
     *  Inside a pass, ucc_context_progress() returns at once, a program that
     *  loops on it is stopped (as a rank that never blocks is), and
     *  ucc_sim_run_threads() returns UCC_ERR_INVALID_PARAM. Destroy a context
     *  from a hook, not from a callback of its own requests. */
    UCC_SIM_FLAG_FIBERLESS = UCC_BIT(2),
    /** The program writes its input buffers before each call, as an
     *  application does: a pull of one costs what a pull of just-written
     *  data does (the network's cma_written). By default a rank's input is
     *  taken to be clean, as in a benchmark's loop over the same buffers.
     *  No effect on a network without cma_written. */
    UCC_SIM_FLAG_INPUTS_WRITTEN = UCC_BIT(3)
};

/** Parameters of one simulated run. */
typedef struct ucc_sim_params {
    uint64_t mask;       /*!< ucc_sim_params_field bits of the fields that are set */
    uint32_t n_ranks;    /*!< number of ranks, 1 to 1,048,576 */
    uint64_t seed;       /*!< seed of every random choice (jitter, tie-breaks) */
    const char *network; /*!< preset ("ideal", "hdr", "eth100", "slow") or a spec
                              such as "hdr,ppn=16,lat_inter=2us,bw_inter=12.5GB/s" */
    size_t stack_size;   /*!< bytes of stack per rank fiber */
    uint64_t flags;      /*!< ucc_sim_flags */
    /** Non-zero: timing-only run. No payload byte is moved, copied or reduced
     *  and collective buffers need not exist (any pointer, NULL included, is
     *  accepted); every message, its size and its cost are simulated exactly
     *  as with payload, so the virtual time and the trace hash are the same. */
    int timing_only;
    /** Path of a Chrome trace JSON file (chrome://tracing, Perfetto) to write:
     *  one track per rank, a slice per collective and per algorithm step, a
     *  flow arrow per message between recorded ranks; virtual microseconds.
     *  NULL: no timeline, nothing recorded. Does not change the run. */
    const char *timeline;
    /** Ranks the timeline records, e.g. "0-7,512" (NULL, "" or "all": every
     *  rank). Ranks must be below n_ranks. */
    const char *timeline_ranks;
    /** Faults to inject, decided before the run from this text and the seed,
     *  so that the run replays exactly: comma-separated items
     *  `crash=<rank>@<s>` (the rank stops, its peers see a dead peer),
     *  `stall=<rank>@<s>:<s>` (it stops progressing for a while),
     *  `spike=<p>:<s>` (packets delayed), `nomem=<rank>#<k>` (its k-th pass
     *  through one of the library's allocation sites fails: the call returns
     *  UCC_ERR_NO_MEMORY), `nomem_p=<p>` (each pass fails with probability
     *  p), `oob=<rank>#<k>[:<s>]` (its k-th OOB exchange fails, or joins
     *  late), `detect=<s>` (from a crash to its peers' errors); or `swarm` /
     *  `swarm:<s>` for a mix and intensity of them all drawn from the seed,
     *  times within `<s>` virtual seconds (default 1e-4). NULL or "": none.
     *  Unless UCC_SIM_FLAG_QUIET, the plan is printed after the seed line. */
    const char *faults;
} ucc_sim_params_t;

/**
 * Runs rank_main(arg) once per rank and returns when every rank has finished.
 * Unless UCC_SIM_FLAG_QUIET, prints "ucc_sim: seed=... ranks=... network=..."
 * to stderr first and "ucc_sim: virtual time ... s, ... events, trace hash
 * 0x..." at the end.
 *
 * @param [in] params     Run parameters; fields not flagged in its mask take their defaults.
 * @param [in] rank_main  Program of one rank, called once per rank.
 * @param [in] arg        Passed to every call of @a rank_main.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for bad parameters (params or rank_main
 *         NULL, n_ranks 0 or above 1,048,576, a bad network spec, a bad
 *         timeline_ranks list, a timeline file that cannot be created, a bad
 *         faults spec); UCC_ERR_NO_MESSAGE when the ranks deadlocked (a report
 *         of what each rank waited for goes to stderr) or a rank's program
 *         threw a C++ exception; UCC_ERR_NO_MEMORY when the simulator ran out
 *         of memory; UCC_ERR_NO_RESOURCE when the timeline could not be
 *         written in full.
 */
ucc_status_t ucc_sim_run(const ucc_sim_params_t *params, void (*rank_main)(void *arg), void *arg);

/**
 * The calling rank's number.
 *
 * @return The rank, in [0, ucc_sim_size()); 0 outside a simulated rank.
 */
uint32_t ucc_sim_rank(void);

/**
 * The number of ranks of the running simulation.
 *
 * @return n_ranks of the run; 0 outside one.
 */
uint32_t ucc_sim_size(void);

/**
 * Fills @a oob with an OOB allgather over all ranks of the simulation
 * (n_oob_eps = size, oob_ep = rank).
 *
 * @param [out] oob  The OOB to fill.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL oob or outside a rank.
 */
ucc_status_t ucc_sim_oob(ucc_oob_coll_t *oob);

/**
 * Inside a rank: runs thread_main(0, arg), ..., thread_main(n_threads - 1,
 * arg) as threads of the calling rank and returns when all have returned. The
 * threads may drive one context concurrently (UCC_THREAD_MULTIPLE): the
 * simulator switches between them at every yield point of the library (the
 * entry of each call on a context, and waiting for the network), each switch
 * drawn from the run's seed, so one seed replays one interleaving exactly.
 * They share the rank's virtual clock.
 *
 * @param [in] n_threads    Number of threads to run.
 * @param [in] thread_main  Body of each thread; gets its index in [0, n_threads) and @a arg.
 * @param [in] arg          Passed to every call of @a thread_main.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM outside a rank, in a rank without a
 *         fiber, from inside a thread, for n_threads 0 or thread_main NULL;
 *         UCC_ERR_NO_MEMORY when the threads' stacks cannot be had.
 */
ucc_status_t ucc_sim_run_threads(uint32_t n_threads,
                                 void (*thread_main)(uint32_t thread, void *arg), void *arg);

/**
 * Inside a rank: its program gives up after an error, as a process that
 * exits. It should destroy what it made and return; once it has returned, its
 * peers see it as a crashed process (transfers with it fail), so that they get
 * an error instead of waiting for it forever. Nothing outside a rank.
 */
void ucc_sim_exit(void);

/**
 * Writes the fault plan that @a spec (as ucc_sim_params_t.faults takes it)
 * gives for @a n_ranks ranks and @a seed into @a buf, in the item form ("" for
 * none), or on UCC_ERR_INVALID_PARAM the reason. At most @a len bytes are
 * written, the terminating NUL included (nothing when len is 0).
 *
 * @param [in]  spec     Fault spec; NULL or "" for none.
 * @param [in]  n_ranks  Number of ranks of the run, 1 to 1,048,576.
 * @param [in]  seed     Seed of the run.
 * @param [out] buf      Receives the plan or the reason; may be NULL when len is 0.
 * @param [in]  len      Size of @a buf in bytes.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a bad spec or n_ranks out of range.
 */
ucc_status_t ucc_sim_faults_describe(const char *spec, uint32_t n_ranks, uint64_t seed, char *buf,
                                     size_t len);

/**
 * Inside a rank run with UCC_SIM_FLAG_FIBERLESS: @a fn(@a arg) is called
 * after each pass of progress over the rank's contexts (each time something
 * reached the rank), in the order hooks were added, until it returns anything
 * but UCC_INPROGRESS; then it is dropped. This is where a program in
 * callback style goes on after a call that has no callback: a team creation
 * (ucc_team_create_test), a team destruction (ucc_team_destroy), a test of its
 * own. A hook may post, add hooks, and destroy teams and contexts. While a
 * rank has a hook it has not finished: one that never completes is reported
 * as a deadlock.
 *
 * @param [in] fn   Hook to call; returns UCC_INPROGRESS to be called again.
 * @param [in] arg  Passed to every call of @a fn.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for fn NULL, outside a rank or in a
 *         rank with a fiber; UCC_ERR_NO_MEMORY.
 */
ucc_status_t ucc_sim_on_progress(ucc_status_t (*fn)(void *arg), void *arg);

/**
 * The calling rank's virtual clock.
 *
 * @return Virtual time in seconds; 0 outside a rank.
 */
double ucc_sim_now(void);

/**
 * Inside a rank: the program computes for @a seconds of virtual time (its own
 * work between UCC calls: the rank's clock moves on, nothing else happens).
 * Nothing outside a rank, or for seconds <= 0.
 *
 * @param [in] seconds  Virtual time the computation takes.
 */
void ucc_sim_compute(double seconds);

/**
 * Trace hash of the last run started from this thread.
 *
 * @return The hash; 0 before any run.
 */
uint64_t ucc_sim_trace_hash(void);

/**
 * Virtual time taken by the last run started from this thread.
 *
 * @return Virtual seconds; 0 before any run.
 */
double ucc_sim_last_time(void);

/**
 * Events the last run started from this thread processed.
 *
 * @return The event count; 0 before any run.
 */
uint64_t ucc_sim_last_events(void);

/**
 * Switches to a rank's stack in the last run started from this thread (a
 * rank's start and every resume; see UCC_SIM_FLAG_NO_DRAIN).
 *
 * @return The number of switches; 0 before any run.
 */
uint64_t ucc_sim_last_resumes(void);

/**
 * Inside a rank: the name of the algorithm of the calling rank's most recently
 * posted collective ("ring", "knomial", ...); "" when it has posted none (or
 * only zero-size ones), or outside a rank. The string lives as long as libucc.
 *
 * @return The algorithm's name, or ""; never NULL.
 */
const char *ucc_sim_last_algorithm(void);

/**
 * The algorithms of @a coll_type a team runs by itself: the flat, two-sided
 * ones (what `UCC_<COLL>_ALG` and a TUNE string's `@name` may name without
 * UCC_CLS=hier or mapped memory), comma-separated in table order, e.g.
 * "recursive_doubling,rabenseifner,ring,knomial,sra_knomial" for allreduce
 * (ucc_sim --tune measures each). At most @a len bytes are written, the
 * terminating NUL included.
 *
 * @param [in]  coll_type  One collective type.
 * @param [out] buf        Receives the list; may be NULL when len is 0.
 * @param [in]  len        Size of @a buf in bytes.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a type that is not one collective;
 *         UCC_ERR_NO_RESOURCE when @a len is too small (nothing written).
 */
ucc_status_t ucc_sim_algorithms(ucc_coll_type_t coll_type, char *buf, size_t len);

/**
 * Parses a network spec (as ucc_sim_params_t.network takes it) and writes the
 * model it gives, in full, into @a buf ("hdr,ppn=8,lat_intra=300ns,..."), or
 * on UCC_ERR_INVALID_PARAM the reason. At most @a len bytes are written, the
 * terminating NUL included (nothing when len is 0).
 *
 * @param [in]  spec  Network spec; NULL or "" for the default "hdr".
 * @param [out] buf   Receives the model or the reason; may be NULL when len is 0.
 * @param [in]  len   Size of @a buf in bytes.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a bad spec.
 */
ucc_status_t ucc_sim_network_describe(const char *spec, char *buf, size_t len);

/**
 * Resolves a network as the tools and UCC_NETWORK name one: a preset (hdr,
 * eth100, slow, ideal), a spec ("hdr,ppn=16,lat_inter=2us") or the path of a
 * network file (key = value lines, '#' comments, `preset` and `nodes` keys;
 * the networks/ directory's format). Writes the equivalent spec into @a buf,
 * or on UCC_ERR_INVALID_PARAM the reason ("path:line: why"); at most @a len
 * bytes, the terminating NUL included.
 *
 * @param [in]  name   The network's name, spec or file.
 * @param [out] buf    Receives the spec or the reason; may be NULL when len is 0.
 * @param [in]  len    Size of @a buf in bytes.
 * @param [out] slots  When not NULL: a file's nodes x ranks per node (0: a
 *                     preset, a spec, or a file without `nodes`).
 * @return UCC_OK; UCC_ERR_INVALID_PARAM when it is none of the three;
 *         UCC_ERR_NO_RESOURCE when @a len is too small (nothing written).
 */
ucc_status_t ucc_sim_network_resolve(const char *name, char *buf, size_t len, uint64_t *slots);

/**
 * Entry point of a user program run by the ucc_sim tool (`ucc_sim -np N
 * --program LIB.so [-- ARGS...]`). The program is a shared library that
 * defines this function with C linkage and default visibility; the tool
 * dlopen()s it and every simulated rank calls it once, as a process calls
 * main(): argv[0] is the library's path, the ARGS follow, argv[argc] is NULL.
 * Inside, ucc_sim_rank(), ucc_sim_size() and ucc_sim_oob() work as in any
 * rank. All ranks share the library's global variables (they are fibers of
 * one process): keep per-rank state on the stack or indexed by rank.
 * libucc itself does not define this symbol.
 *
 * @param [in] argc  Number of entries of @a argv before its terminating NULL.
 * @param [in] argv  The library's path, then the ARGS; argv[argc] is NULL.
 * @return 0 on success; the tool counts the ranks that return anything else.
 */
int ucc_sim_main(int argc, char **argv);

/** The symbol name the ucc_sim tool looks up in a --program library. */
#define UCC_SIM_MAIN_SYMBOL "ucc_sim_main"

END_C_DECLS

#endif /* UCC_SIM_H_ */
