// ucx_latency: UCC collectives between real processes over UCX, from 8 B to
// 64 MiB, timed like nccl-tests (bench/coll_bench.h has the methodology).
// One JSON line per (collective, size), printed by rank 0:
//   {"bench":"ucc","np":2,"collective":"allreduce","bytes":8,"iters":...,
//    "avg_us":...,"algbw_GBps":...,"busbw_GBps":...,"dtype":"float32",
//    "min_rank_avg_us":...,"mode":"persistent","persistent_us":...,"init_us":...,
//    "cpu":0,"timeout":null}
// (--timeout S: every collective with UCC_COLL_ARGS_FLAG_TIMEOUT of S seconds.)
// Each point is timed twice: one persistent request re-posted
// (UCC_COLL_ARGS_FLAG_PERSISTENT) and a fresh init/post/finalize per
// iteration; avg_us (and iters, bandwidths) is the faster of the two, named by
// "mode", and both averages are given. Each rank pins itself to a CPU of its
// own where there are enough ("cpu"; null when unbound, or with --no-bind), as
// mpirun does at np <= 2: busy-polling ranks sharing a CPU wait for the
// scheduler's tick.
//
// Run under a launcher, one process per rank:
//   UCX_NET_DEVICES=lo ucc_run -n 2 build/ucx_latency [options]
//   mpirun -np 2 build/ucx_latency --oob mpi        (MPI_Allgather as the OOB)
// scripts/ucx_latency.sh runs it next to the floor (ucx_perftest, memcpy) and
// Open MPI's own collectives (bench/mpi_latency.cc).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/coll_bench.h"
#include "tests/mp/world.h"
#include "ucc/api/ucc.h"

namespace {

using ucc::bench::Buffer;
using ucc::bench::CollKind;
using ucc::bench::Shape;

constexpr double kWaitTimeoutS = 120;  // one collective, from post to completion

[[noreturn]] void die(uint32_t rank, const std::string &what) {
    std::fprintf(stderr, "ucx_latency rank %u: %s\n", rank, what.c_str());
    std::fflush(stderr);
    std::exit(1);  // the launcher stops the other ranks
}

struct Ucc {
    uint32_t rank = 0;
    uint32_t size = 1;
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
};

void check(const Ucc &u, ucc_status_t st, const char *call) {
    if (st != UCC_OK) {
        die(u.rank, std::string(call) + ": " + ucc_status_string(st));
    }
}

// `segs`: memory the context maps (one-sided runs; empty: none), with the
// one-sided alltoall chosen by TUNE.
void open_ucc(const ucc::mp::World &w, Ucc *u, const std::vector<ucc_mem_map_t> &segs) {
    u->rank = w.rank;
    u->size = w.size;
    ucc_lib_config_h lcfg;
    check(*u, ucc_lib_config_read(nullptr, nullptr, &lcfg), "ucc_lib_config_read");
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    const ucc_status_t st = ucc_init(&lp, lcfg, &u->lib);
    ucc_lib_config_release(lcfg);
    check(*u, st, "ucc_init");
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    cp.oob = w.oob;
    ucc_context_config_h cc = nullptr;
    check(*u, ucc_context_config_read(u->lib, nullptr, &cc), "ucc_context_config_read");
    if (!segs.empty()) {
        cp.mask |= UCC_CONTEXT_PARAM_FIELD_MEM_PARAMS;
        cp.mem_params.segments = const_cast<ucc_mem_map_t *>(segs.data());
        cp.mem_params.n_segments = segs.size();
        check(*u, ucc_context_config_modify(cc, nullptr, "TUNE", "alltoall:0-inf:@onesided"),
              "ucc_context_config_modify");
    }
    const ucc_status_t cst = ucc_context_create(u->lib, &cp, cc, &u->ctx);
    ucc_context_config_release(cc);
    check(*u, cst, "ucc_context_create");
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.oob = w.oob;
    tp.ep = w.rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    check(*u, ucc_team_create_post(&u->ctx, 1, &tp, &u->team), "ucc_team_create_post");
    const double deadline = ucc::bench::now_s() + kWaitTimeoutS;
    ucc_status_t ts;
    while ((ts = ucc_team_create_test(u->team)) == UCC_INPROGRESS) {
        ucc_context_progress(u->ctx);
        if (ucc::bench::now_s() > deadline) {
            die(u->rank, "team creation did not finish in time");
        }
    }
    check(*u, ts, "ucc_team_create_test");
}

void close_ucc(Ucc *u) {
    const double deadline = ucc::bench::now_s() + kWaitTimeoutS;
    while (ucc_team_destroy(u->team) == UCC_INPROGRESS && ucc::bench::now_s() < deadline) {
        ucc_context_progress(u->ctx);
    }
    ucc_context_destroy(u->ctx);
    ucc_finalize(u->lib);
}

// Drives the context until the request completes (bounded in time; the clock
// is read every 1024 polls only).
void wait(const Ucc &u, ucc_coll_req_h req) {
    ucc_status_t st;
    double deadline = 0;
    uint32_t polls = 0;
    while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
        ucc_context_progress(u.ctx);
        if ((++polls & 1023) == 0) {
            const double t = ucc::bench::now_s();
            if (deadline == 0) {
                deadline = t + kWaitTimeoutS;
            } else if (t > deadline) {
                die(u.rank, "a collective did not complete in time");
            }
        }
    }
    check(u, st, "ucc_collective_test");
}

void run_blocking(const Ucc &u, ucc_coll_args_t *args) {
    ucc_coll_req_h req;
    check(u, ucc_collective_init(args, &req, u.team), "ucc_collective_init");
    check(u, ucc_collective_post(req), "ucc_collective_post");
    wait(u, req);
    check(u, ucc_collective_finalize(req), "ucc_collective_finalize");
}

ucc_coll_args_t args_of(CollKind k, const Shape &s, Buffer &src, Buffer &dst) {
    ucc_coll_args_t a{};
    a.op = UCC_OP_SUM;
    a.root = 0;
    a.src.info = {src.data(), s.src_count, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst.data(), s.dst_count, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    switch (k) {
        case CollKind::kAllreduce:
            a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
            break;
        case CollKind::kBcast:
            a.coll_type = UCC_COLL_TYPE_BCAST;
            a.dst.info = {};
            break;
        case CollKind::kAllgather:
            a.coll_type = UCC_COLL_TYPE_ALLGATHER;
            break;
        case CollKind::kAlltoall:
            a.coll_type = UCC_COLL_TYPE_ALLTOALL;
            break;
        case CollKind::kReduceScatter:
            a.coll_type = UCC_COLL_TYPE_REDUCE_SCATTER;
            break;
        case CollKind::kBarrier:
            a.coll_type = UCC_COLL_TYPE_BARRIER;
            a.src.info = {};
            a.dst.info = {};
            break;
    }
    return a;
}

// One point in one mode, for ucc::bench::measure().
class Point {
  public:
    Point(const Ucc &u, const ucc_coll_args_t &args, bool persistent)
        : u_(u), args_(args), persistent_(persistent) {
        if (persistent_) {
            args_.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
            args_.flags |= UCC_COLL_ARGS_FLAG_PERSISTENT;
            check(u_, ucc_collective_init(&args_, &req_, u_.team), "ucc_collective_init");
        }
    }
    Point(const Point &) = delete;
    Point &operator=(const Point &) = delete;
    ~Point() {
        if (req_ != nullptr) {
            ucc_collective_finalize(req_);
        }
    }

    void iterate() {
        if (persistent_) {
            check(u_, ucc_collective_post(req_), "ucc_collective_post");
            wait(u_, req_);
            return;
        }
        ucc_coll_req_h req;
        check(u_, ucc_collective_init(&args_, &req, u_.team), "ucc_collective_init");
        check(u_, ucc_collective_post(req), "ucc_collective_post");
        wait(u_, req);
        check(u_, ucc_collective_finalize(req), "ucc_collective_finalize");
    }

    void barrier() {
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_BARRIER;
        run_blocking(u_, &a);
    }

    double max_over_ranks(double v) {
        double in = v;
        double out = 0;
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_MAX;
        a.src.info = {&in, 1, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {&out, 1, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_HOST};
        run_blocking(u_, &a);
        return out;
    }

  private:
    const Ucc &u_;
    ucc_coll_args_t args_;
    bool persistent_;
    ucc_coll_req_h req_ = nullptr;
};

}  // namespace

int main(int argc, char **argv) {
    ucc::mp::World w;
    std::string err;
    if (!ucc::mp::world_init(argc, argv, &w, &err)) {
        std::fprintf(stderr, "ucx_latency: %s\n", err.c_str());
        return 2;
    }
    ucc::bench::Options o;
    bool bind = true;
    double coll_timeout = 0;
    bool onesided = false;
    const bool ok = ucc::bench::parse_options(argc, argv, &o, &err, [&](int left, char **arg) {
        if (std::strcmp(arg[0], "--mode") == 0 && left > 1) {
            o.mode = arg[1];
            return o.mode == "persistent" || o.mode == "init" || o.mode == "both" ? 2 : 0;
        }
        if (std::strcmp(arg[0], "--timeout") == 0 && left > 1) {
            coll_timeout = std::atof(arg[1]);
            return coll_timeout > 0 ? 2 : 0;
        }
        if (std::strcmp(arg[0], "--no-bind") == 0) {
            bind = false;
            return 1;
        }
        if (std::strcmp(arg[0], "--onesided") == 0) {
            onesided = true;
            return 1;
        }
        return 0;
    });
    if (!ok) {
        if (w.rank == 0) {
            std::fprintf(
                stderr,
                "ucx_latency: %s\nusage: ucc_run -n N ucx_latency [options]\n%s"
                "  --mode M            persistent, init or both (both)\n"
                "  --no-bind           do not pin each rank to a CPU of its own\n"
                "  --onesided          alltoall one-sided: buffers in memory the context\n"
                "                      maps, TUNE alltoall:0-inf:@onesided (\"onesided\")\n"
                "  --timeout S         every collective with UCC_COLL_ARGS_FLAG_TIMEOUT\n"
                "                      of S seconds (\"timeout\" in each line)\n"
                "  --oob mpi           under mpirun: MPI_Allgather as the OOB\n",
                err.c_str(), ucc::bench::kUsage);
        }
        ucc::mp::world_finalize(&w);
        return 2;
    }
    // This node's share of the job: from the launcher (ucc_boot), else (mpirun)
    // Open MPI's variables, else every rank local.
    uint32_t local_rank = w.rank;
    uint32_t local_size = w.size;
    bool from_launcher = false;
#ifdef UCC_MP_WITH_BOOT
    if (w.boot != nullptr) {
        local_rank = ucc_boot_local_rank(w.boot);
        local_size = ucc_boot_local_size(w.boot);
        from_launcher = true;
    }
#endif
    if (!from_launcher && std::getenv("OMPI_COMM_WORLD_LOCAL_RANK") != nullptr &&
        std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE") != nullptr) {
        local_rank = static_cast<uint32_t>(std::atoi(std::getenv("OMPI_COMM_WORLD_LOCAL_RANK")));
        local_size = static_cast<uint32_t>(std::atoi(std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")));
    }
    const int cpu = bind ? ucc::bench::bind_to_cpu(local_rank, local_size) : -1;
    // One-sided: the alltoall buffers (for its largest point) and the work
    // buffer are mapped by the context when it is made.
    Buffer os_src, os_dst, os_work(16);
    std::vector<ucc_mem_map_t> segs;
    if (onesided) {
        for (CollKind k : o.colls) {
            if (k != CollKind::kAlltoall) {
                die(w.rank, "--onesided: alltoall only");
            }
        }
        const std::vector<Shape> shapes = ucc::bench::sweep(o, CollKind::kAlltoall, w.size);
        os_src = Buffer(shapes.back().src_count);
        os_dst = Buffer(shapes.back().dst_count);
        segs = {{os_src.data(), os_src.bytes()},
                {os_dst.data(), os_dst.bytes()},
                {os_work.data(), os_work.bytes()}};
    }
    Ucc u;
    open_ucc(w, &u, segs);
    for (CollKind k : o.colls) {
        const std::vector<Shape> shapes = ucc::bench::sweep(o, k, u.size);
        // Buffers for the largest point, reused by the smaller ones.
        Buffer src(onesided ? 0 : shapes.back().src_count);
        Buffer dst(onesided ? 0 : shapes.back().dst_count);
        if (onesided) {
            src = std::move(os_src);
            dst = std::move(os_dst);
        }
        for (const Shape &s : shapes) {
            ucc::bench::fill_inputs(k, u.rank, src, dst);
            ucc_coll_args_t args = args_of(k, s, src, dst);
            if (onesided) {
                args.mask |= UCC_COLL_ARGS_FIELD_FLAGS | UCC_COLL_ARGS_FIELD_GLOBAL_WORK_BUFFER;
                args.flags |= UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS;
                args.global_work_buffer = os_work.data();
            }
            if (coll_timeout > 0) {
                args.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
                args.flags |= UCC_COLL_ARGS_FLAG_TIMEOUT;
                args.timeout = coll_timeout;
            }
            ucc::bench::Measured best;
            double us[2] = {0, 0};  // persistent, init
            const char *best_mode = "";
            for (int persistent = 1; persistent >= 0; --persistent) {
                if ((persistent && o.mode == "init") || (!persistent && o.mode == "persistent")) {
                    continue;
                }
                Point p(u, args, persistent != 0);
                const ucc::bench::Measured m = ucc::bench::measure(p, o);
                us[persistent ? 0 : 1] = m.avg_s * 1e6;
                if (best.iters == 0 || m.avg_s < best.avg_s) {
                    best = m;
                    best_mode = persistent ? "persistent" : "init";
                }
            }
            if (o.check && !ucc::bench::expect_ok(k, u.rank, u.size, s, src, dst, &err)) {
                die(u.rank, "wrong result: " + err);
            }
            if (u.rank == 0) {
                auto field = [](double v) {
                    char b[32];
                    std::snprintf(b, sizeof b, "%.3f", v);
                    return v > 0 ? std::string(b) : std::string("null");
                };
                const std::string extra =
                    std::string(",\"mode\":\"") + best_mode +
                    "\",\"persistent_us\":" + field(us[0]) + ",\"init_us\":" + field(us[1]) +
                    ",\"cpu\":" + (cpu >= 0 ? std::to_string(cpu) : std::string("null")) +
                    ",\"timeout\":" + (coll_timeout > 0 ? field(coll_timeout) : "null") +
                    ",\"onesided\":" + (onesided ? "true" : "false");
                std::printf("%s\n",
                            ucc::bench::json_line("ucc", u.size, k, s, best, o, extra).c_str());
                std::fflush(stdout);
            }
        }
    }
    close_ucc(&u);
    ucc::mp::world_finalize(&w);
    return 0;
}
