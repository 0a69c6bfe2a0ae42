// One job of the real-process swarm (scripts/swarm_mp.sh): a random mix of
// collectives over UCX with one fault, every choice drawn from the seed.
//
//   ucc_run --keep-going -n N build/mp_ucx_swarm --seed S [--fault KIND] [--describe]
//   ucc_run --keep-going -n N build/mp_ucx_swarm --seed S --bcast-loop
//
// Every rank draws the same job from S: 4-8 collectives (allreduce, reduce,
// bcast, allgather, alltoall, barrier) of 0 B to 4 MiB, int32 or int64,
// with or without a 1 s timeout (UCC_SWARM_TIMEOUT), and one fault (or
// --fault: none, kill, stall, count, type, op, root, dtype, init): a victim
// rank that kills itself (SIGKILL, before or while its collective runs),
// stops for 1.5 s (SIGSTOP), posts another count, collective, op, root or
// datatype, or whose init fails (NULL src). Op, root and datatype mismatches are invisible without
// a check, so their jobs set UCC_CHECK_ASYMMETRIC_DT or UCC_DESYNC_CHECK
// (the seed picks which).
//
// Each rank checks, for every collective: UCC_OK with exactly the data its
// own arguments define (the model: inputs are a function of rank, collective
// and index), or an error after which the team is done; no wait beyond 2.5
// times the timeout; without a timeout, a wait beyond 3 s is allowed only
// when the fault makes progress impossible (the rank then gives up), and
// beyond 20 s never (the bounds scale with UCC_SWARM_TIMEOUT). Then teardown: team and context
// destroy, request finalize and ucc_finalize return UCC_OK even with collectives still in progress
// (cancelled). A rank prints "swarm: rank R ok ..." and exits 0, or
// "FAIL ..." and exits 1; the first line names the job, so that any failure
// replays with its seed. --bcast-loop: 40 bcasts of 1 MiB from rotating
// roots, rank 1 killed while the 21st runs (a survivor must not abort).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/mp/world.h"
#include "ucc/api/ucc.h"

namespace {

enum class Fault { kNone, kKill, kStall, kCount, kType, kOp, kRoot, kDtype, kInit };
constexpr const char *kFaultNames[] = {"none", "kill", "stall", "count", "type",
                                       "op",   "root", "dtype", "init"};
constexpr ucc_coll_type_t kTypes[] = {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_REDUCE,
                                      UCC_COLL_TYPE_BCAST,     UCC_COLL_TYPE_ALLGATHER,
                                      UCC_COLL_TYPE_ALLTOALL,  UCC_COLL_TYPE_BARRIER};
constexpr const char *kTypeNames[] = {"allreduce", "reduce",   "bcast",
                                      "allgather", "alltoall", "barrier"};

struct Op {
    int type = 0;        // index into kTypes
    uint64_t count = 0;  // elements per rank block (allgather, alltoall) or vector
    bool wide = false;   // int64 (else int32)
    ucc_reduction_op_t op = UCC_OP_SUM;
    uint32_t root = 0;
};

struct Job {
    uint32_t n = 0;
    std::vector<Op> ops;
    bool timeouts = false;
    Fault fault = Fault::kNone;
    uint32_t victim = 0;
    size_t at = 0;            // the collective the fault hits
    bool mid_flight = false;  // kill: after posting it, while it runs
    uint32_t delay_us = 0;
    bool desync_check = false;  // else UCC_CHECK_ASYMMETRIC_DT (op, root, dtype faults)
};

Job draw(uint64_t seed, uint32_t n, int forced) {
    std::mt19937_64 g(seed);
    auto pick = [&](uint64_t k) { return g() % k; };
    Job j;
    j.n = n;
    j.timeouts = pick(2) == 0;
    const size_t nops = 4 + pick(5);
    for (size_t i = 0; i < nops; ++i) {
        Op o;
        o.type = static_cast<int>(pick(6));
        o.wide = pick(2) == 0;
        o.op = pick(2) == 0 ? UCC_OP_SUM : UCC_OP_MAX;
        o.root = static_cast<uint32_t>(pick(n));
        // 0 B to 4 MiB per rank's buffer, log-uniform.
        const uint64_t esize = o.wide ? 8 : 4;
        const bool blocks =
            kTypes[o.type] == UCC_COLL_TYPE_ALLGATHER || kTypes[o.type] == UCC_COLL_TYPE_ALLTOALL;
        const uint64_t cap = (uint64_t{4} << 20) / esize / (blocks ? n : 1);
        const uint64_t bits = pick(23);
        o.count = pick(8) == 0 ? 0 : std::min<uint64_t>(cap, (uint64_t{1} << bits) + pick(7));
        j.ops.push_back(o);
    }
    j.fault = forced >= 0 ? static_cast<Fault>(forced) : static_cast<Fault>(pick(9));
    j.victim = static_cast<uint32_t>(pick(n));
    j.at = pick(nops);
    j.mid_flight = pick(2) == 0;
    j.delay_us = static_cast<uint32_t>(pick(3000));
    j.desync_check = pick(2) == 0;
    // A mismatch needs a collective it can show in.
    Op &hit = j.ops[j.at];
    if (j.fault == Fault::kCount || j.fault == Fault::kDtype) {
        hit.type = hit.type == 5 ? 0 : hit.type;
        hit.count = std::max<uint64_t>(hit.count, 16);
    } else if (j.fault == Fault::kOp) {
        hit.type = pick(2) == 0 ? 0 : 1;
        hit.count = std::max<uint64_t>(hit.count, 16);
    } else if (j.fault == Fault::kRoot) {
        hit.type = pick(2) == 0 ? 1 : 2;
        hit.count = std::max<uint64_t>(hit.count, 16);
    }
    return j;
}

// The input of element i of rank r in collective k (small: sums of 6 stay exact).
int64_t input(uint32_t r, size_t k, uint64_t i) {
    return static_cast<int64_t>((r + 1) * 7919 + k * 104729 + i * 31) % 1000003;
}

struct Buffers {
    std::vector<int64_t> src;  // values, stored in the op's width
    std::vector<uint8_t> s;
    std::vector<uint8_t> d;
};

void put(std::vector<uint8_t> &b, bool wide, uint64_t i, int64_t v) {
    if (wide) {
        std::memcpy(b.data() + i * 8, &v, 8);
    } else {
        const auto w = static_cast<int32_t>(v);
        std::memcpy(b.data() + i * 4, &w, 4);
    }
}

int64_t get(const std::vector<uint8_t> &b, bool wide, uint64_t i) {
    if (wide) {
        int64_t v;
        std::memcpy(&v, b.data() + i * 8, 8);
        return v;
    }
    int32_t w;
    std::memcpy(&w, b.data() + i * 4, 4);
    return w;
}

uint32_t g_rank = 0;
uint64_t g_seed = 0;
// The collectives' timeout, seconds (UCC_SWARM_TIMEOUT; 1 by default): the
// stall, the give-up and the hang bounds scale with it (a sanitizer build
// runs slower).
double g_timeout = 1.0;

// Stops this process (SIGSTOP: every thread, UCX's own included) for `us`
// microseconds: a child continues it and exits.
void stall(useconds_t us) {
    const pid_t me = getpid();
    const pid_t child = fork();
    if (child == 0) {
        usleep(us);
        kill(me, SIGCONT);
        _exit(0);
    }
    if (child < 0) {
        usleep(us);  // no process to spare: a stall without the stop
        return;
    }
    raise(SIGSTOP);
    waitpid(child, nullptr, 0);
}

int fail(const std::string &what) {
    std::printf("FAIL seed %llu rank %u: %s\n", static_cast<unsigned long long>(g_seed), g_rank,
                what.c_str());
    std::fflush(stdout);
    return 1;
}

}  // namespace

int main(int argc, char **argv) {
    int forced = -1;
    bool describe = false;
    bool bcast_loop = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            g_seed = std::strtoull(argv[++i], nullptr, 10);
        } else if (std::strcmp(argv[i], "--fault") == 0 && i + 1 < argc) {
            for (int f = 0; f < 9; ++f) {
                if (std::strcmp(argv[i + 1], kFaultNames[f]) == 0) {
                    forced = f;
                }
            }
            ++i;
        } else if (std::strcmp(argv[i], "--describe") == 0) {
            describe = true;
        } else if (std::strcmp(argv[i], "--bcast-loop") == 0) {
            bcast_loop = true;
        }
    }
    if (const char *t = std::getenv("UCC_SWARM_TIMEOUT"); t != nullptr && std::atof(t) > 0) {
        g_timeout = std::atof(t);
    }
    ucc::mp::World w;
    std::string err;
    if (!ucc::mp::world_init(argc, argv, &w, &err, 10)) {
        std::fprintf(stderr, "mp_ucx_swarm: %s\n", err.c_str());
        return 2;
    }
    g_rank = w.rank;
    Job job = draw(g_seed, w.size, forced);
    if (bcast_loop) {
        // 1 MiB bcasts from rotating roots (rendezvous: a CMA read of the
        // root's memory), the victim killed while its 20th runs.
        job.ops.clear();
        for (uint32_t i = 0; i < 40; ++i) {
            Op o;
            o.type = 2;
            o.count = 262144;
            o.root = i % w.size;
            job.ops.push_back(o);
        }
        job.fault = Fault::kKill;
        job.victim = 1;
        job.at = 20;
        job.mid_flight = true;
        job.delay_us = static_cast<uint32_t>(g_seed % 200);
    }
    const bool victim = w.rank == job.victim && job.fault != Fault::kNone;
    if (w.rank == 0 || describe) {
        std::printf("swarm: seed %llu np %u fault %s victim %u at %zu%s timeouts %s ops",
                    static_cast<unsigned long long>(g_seed), w.size, kFaultNames[int(job.fault)],
                    job.victim, job.at, job.mid_flight ? " mid-flight" : "",
                    job.timeouts ? "on" : "off");
        for (const Op &o : job.ops) {
            std::printf(" %s:%llu%s", kTypeNames[o.type], static_cast<unsigned long long>(o.count),
                        o.wide ? "x8" : "x4");
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    // Checks the mismatch faults need, set alike on every process.
    if (job.fault == Fault::kOp || job.fault == Fault::kRoot || job.fault == Fault::kDtype) {
        setenv(job.desync_check ? "UCC_DESYNC_CHECK" : "UCC_CHECK_ASYMMETRIC_DT", "y", 1);
    }
    ucc::mp::Ucc u;
    if (!ucc::mp::ucc_open(w, &u, &err)) {
        return fail(err);
    }
    ucc_lib_h lib = u.lib;
    ucc_context_h ctx = u.ctx;
    ucc_team_h team = u.team;
    const auto t0 = std::chrono::steady_clock::now();
    auto since = [](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    ucc_status_t st;

    uint32_t done = 0;
    uint32_t errors = 0;
    bool gave_up = false;
    ucc_coll_req_h pending = nullptr;  // a request given up on (torn down below)
    for (size_t k = 0; k < job.ops.size() && errors == 0 && !gave_up; ++k) {
        Op o = job.ops[k];
        const bool hit = victim && k == job.at;
        if (hit && job.fault == Fault::kKill && !job.mid_flight) {
            raise(SIGKILL);
        }
        if (hit && job.fault == Fault::kStall) {
            stall(static_cast<useconds_t>(1.5e6 * g_timeout));
        }
        if (hit) {
            switch (job.fault) {
                case Fault::kCount:
                    o.count += 1 + o.count / 2;
                    break;
                case Fault::kType:
                    o.type = (o.type + 1 + static_cast<int>(job.delay_us % 5)) % 6;
                    break;
                case Fault::kOp:
                    o.op = o.op == UCC_OP_SUM ? UCC_OP_MAX : UCC_OP_SUM;
                    break;
                case Fault::kRoot:
                    o.root = (o.root + 1) % w.size;
                    break;
                case Fault::kDtype:
                    o.wide = !o.wide;
                    break;
                default:
                    break;
            }
        }
        const ucc_coll_type_t type = kTypes[o.type];
        const uint64_t es = o.wide ? 8 : 4;
        const uint64_t n = w.size;
        const bool blocks = type == UCC_COLL_TYPE_ALLGATHER || type == UCC_COLL_TYPE_ALLTOALL;
        const uint64_t src_elems = type == UCC_COLL_TYPE_ALLTOALL ? o.count * n : o.count;
        const uint64_t dst_elems = blocks ? o.count * n : o.count;
        Buffers b;
        b.s.assign(src_elems * es + 1, 0);
        b.d.assign(dst_elems * es + 1, 0xee);
        for (uint64_t i = 0; i < src_elems; ++i) {
            put(b.s, o.wide, i, input(w.rank, k, i));
        }
        const ucc_datatype_t dt = o.wide ? UCC_DT_INT64 : UCC_DT_INT32;
        ucc_coll_args_t a{};
        a.coll_type = type;
        a.op = o.op;
        a.root = o.root;
        if (type == UCC_COLL_TYPE_BCAST) {
            if (w.rank == o.root) {
                b.d = b.s;
            }
            a.src.info = {b.d.data(), o.count, dt, UCC_MEMORY_TYPE_HOST};
        } else if (type != UCC_COLL_TYPE_BARRIER) {
            a.src.info = {b.s.data(), type == UCC_COLL_TYPE_ALLTOALL ? o.count * n : o.count, dt,
                          UCC_MEMORY_TYPE_HOST};
            a.dst.info = {b.d.data(), dst_elems, dt, UCC_MEMORY_TYPE_HOST};
        }
        if (hit && job.fault == Fault::kInit) {
            a.src.info.buffer = nullptr;
            a.src.info.count = std::max<uint64_t>(a.src.info.count, 1);
            if (type == UCC_COLL_TYPE_BARRIER) {
                a.coll_type = static_cast<ucc_coll_type_t>(0);  // no such type
            }
        }
        if (job.timeouts) {
            a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags |= UCC_COLL_ARGS_FLAG_TIMEOUT;
            a.timeout = g_timeout;
        }
        ucc_coll_req_h req;
        st = ucc_collective_init(&a, &req, team);
        if (hit && job.fault == Fault::kInit) {
            if (st == UCC_OK) {
                return fail("an init with a NULL src buffer succeeded");
            }
            continue;  // the next collective must still match the peers' next one
        }
        if (st != UCC_OK) {
            // Refused together (UCC_CHECK_ASYMMETRIC_DT) or a team failed earlier.
            ++errors;
            break;
        }
        if ((st = ucc_collective_post(req)) != UCC_OK) {
            ucc_collective_finalize(req);
            ++errors;
            break;
        }
        const auto start = std::chrono::steady_clock::now();
        const uint32_t kill_at = hit && job.fault == Fault::kKill ? job.delay_us : UINT32_MAX;
        // Whether this rank may wait forever: a fault in this or an earlier
        // collective, and no timeout.
        const bool may_hang = job.fault != Fault::kNone && k >= job.at && !job.timeouts;
        while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
            const double t = since(start);
            if (t * 1e6 >= kill_at) {
                raise(SIGKILL);
            }
            if (job.timeouts && t > 2.5 * g_timeout) {
                return fail(std::string(kTypeNames[o.type]) + " " + std::to_string(k) +
                            " outlasted its " + std::to_string(g_timeout) + " s timeout (" +
                            std::to_string(t) + " s)");
            }
            if (may_hang && t > 3 * g_timeout) {
                gave_up = true;
                pending = req;
                break;
            }
            if (t > 20 * g_timeout) {
                return fail(std::string(kTypeNames[o.type]) + " " + std::to_string(k) +
                            " hangs without a fault that explains it");
            }
        }
        if (gave_up) {
            break;
        }
        if (hit && job.fault == Fault::kKill) {
            raise(SIGKILL);  // completed before the kill moment: die now
        }
        if (st != UCC_OK) {
            ucc_collective_finalize(req);
            if (job.fault == Fault::kNone) {
                return fail(std::string(kTypeNames[o.type]) + " " + std::to_string(k) +
                            " failed without a fault: " + ucc_status_string(st));
            }
            ++errors;
            break;
        }
        // UCC_OK: exactly the data this rank's own arguments define.
        for (uint64_t i = 0; i < dst_elems && type != UCC_COLL_TYPE_BARRIER; ++i) {
            int64_t want = 0;
            bool check = true;
            switch (type) {
                case UCC_COLL_TYPE_ALLREDUCE:
                case UCC_COLL_TYPE_REDUCE: {
                    check = type == UCC_COLL_TYPE_ALLREDUCE || w.rank == o.root;
                    for (uint32_t r = 0; r < w.size; ++r) {
                        const int64_t v = input(r, k, i);
                        want = o.op == UCC_OP_SUM ? want + v : (r == 0 ? v : std::max(want, v));
                    }
                    break;
                }
                case UCC_COLL_TYPE_BCAST:
                    want = input(o.root, k, i);
                    break;
                case UCC_COLL_TYPE_ALLGATHER:
                    want = input(static_cast<uint32_t>(i / o.count), k, i % o.count);
                    break;
                case UCC_COLL_TYPE_ALLTOALL:
                    want = input(static_cast<uint32_t>(i / o.count), k,
                                 w.rank * o.count + i % o.count);
                    break;
                default:
                    break;
            }
            if (check && get(b.d, o.wide, i) != want) {
                return fail(std::string(kTypeNames[o.type]) + " " + std::to_string(k) +
                            " returned UCC_OK with wrong data at element " + std::to_string(i) +
                            ": " + std::to_string(get(b.d, o.wide, i)) + ", expected " +
                            std::to_string(want));
            }
        }
        ucc_collective_finalize(req);
        ++done;
    }
    // Teardown always works, also with a collective still in progress.
    if ((st = ucc_team_destroy(team)) != UCC_OK) {
        return fail(std::string("ucc_team_destroy: ") + ucc_status_string(st));
    }
    if (pending != nullptr) {
        if ((st = ucc_collective_test(pending)) != UCC_ERR_CANCELED && (st < 0) == false) {
            return fail(std::string("a request given up on is ") + ucc_status_string(st) +
                        " after its team's destroy");
        }
        if ((st = ucc_collective_finalize(pending)) != UCC_OK) {
            return fail(std::string("finalize of a cancelled request: ") + ucc_status_string(st));
        }
    }
    if ((st = ucc_context_destroy(ctx)) != UCC_OK) {
        return fail(std::string("ucc_context_destroy: ") + ucc_status_string(st));
    }
    if ((st = ucc_finalize(lib)) != UCC_OK) {
        return fail(std::string("ucc_finalize: ") + ucc_status_string(st));
    }
    std::printf("swarm: rank %u ok: %u done, %u failed, %s (%.2f s)\n", w.rank, done, errors,
                gave_up ? "gave up" : "no give-up", since(t0));
    std::fflush(stdout);
    // The bootstrap's closing barrier fails when a rank died: not checked here.
    ucc::mp::world_finalize(&w);
    return 0;
}
