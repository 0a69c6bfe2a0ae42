// ucx_exchange: what two processes pay over UCX when both send at once. A
// ping-pong (ucx_perftest's tag_lat) times one message in flight; collectives
// exchange: both sides post a receive and a send of the same size together
// and wait for both, as every ring, pairwise and recursive-doubling step
// does. Above the rendezvous threshold each side's receiver then pulls the
// other's payload (CMA) at the same time. This bench times both patterns,
// tag-matched with the UCP API alone (no UCC), between this process and a
// forked child, each pinned to its own CPU where there are two, as
// ucx_perftest runs; the worker addresses travel over a socketpair. One JSON
// line per size:
//   {"bench":"ucx_exchange","bytes":S,"iters":N,"one_way_us":...,"exchange_us":...}
// one_way_us is half a round trip; exchange_us one exchange. Every wait is
// bounded (10 s: a peer that died). scripts/fit_network.sh fits the node's
// shared pull bandwidth (`cma_node`) from the two.
//
//   UCX_NET_DEVICES=lo ucx_exchange [--min-bytes 8] [--max-bytes 4M] [--quick]
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kWaitLimit = std::chrono::seconds(10);
constexpr ucp_tag_t kTag = 0x5eed;

struct Ucp {
    ucp_context_h ctx = nullptr;
    ucp_worker_h worker = nullptr;
    ucp_ep_h ep = nullptr;
};

bool io_all(int fd, void *buf, size_t n, bool writing) {
    auto *p = static_cast<char *>(buf);
    while (n > 0) {
        const ssize_t k = writing ? write(fd, p, n) : read(fd, p, n);
        if (k <= 0) {
            return false;
        }
        p += k;
        n -= static_cast<size_t>(k);
    }
    return true;
}

// A context, a worker and an endpoint to the peer at the other end of `fd`.
bool connect(int fd, Ucp *u) {
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
    params.features = UCP_FEATURE_TAG;
    params.estimated_num_eps = 1;
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    if (ucp_init(&params, nullptr, &u->ctx) != UCS_OK ||
        ucp_worker_create(u->ctx, &wp, &u->worker) != UCS_OK) {
        return false;
    }
    ucp_address_t *mine = nullptr;
    size_t len = 0;
    if (ucp_worker_get_address(u->worker, &mine, &len) != UCS_OK) {
        return false;
    }
    uint64_t peer_len = 0;
    const uint64_t my_len = len;
    bool ok = io_all(fd, const_cast<uint64_t *>(&my_len), sizeof(my_len), true) &&
              io_all(fd, mine, len, true) && io_all(fd, &peer_len, sizeof(peer_len), false) &&
              peer_len > 0 && peer_len < (1u << 20);
    std::vector<char> peer(ok ? peer_len : 0);
    ok = ok && io_all(fd, peer.data(), peer.size(), false);
    ucp_worker_release_address(u->worker, mine);
    if (!ok) {
        return false;
    }
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = reinterpret_cast<const ucp_address_t *>(peer.data());
    return ucp_ep_create(u->worker, &ep, &u->ep) == UCS_OK;
}

// Progresses until every request in `reqs` is done (and frees them).
bool wait_all(Ucp &u, std::vector<void *> reqs) {
    const auto limit = Clock::now() + kWaitLimit;
    uint32_t polls = 0;
    for (void *&r : reqs) {
        if (UCS_PTR_IS_ERR(r)) {
            return false;
        }
        while (r != nullptr) {
            ucp_worker_progress(u.worker);
            const ucs_status_t st = ucp_request_check_status(r);
            if (st != UCS_INPROGRESS) {
                ucp_request_free(r);
                r = nullptr;
                if (st != UCS_OK) {
                    return false;
                }
            } else if (++polls % 1024 == 0 && Clock::now() > limit) {
                return false;
            }
        }
    }
    return true;
}

void *send(Ucp &u, const void *buf, size_t n) {
    ucp_request_param_t p{};
    return ucp_tag_send_nbx(u.ep, buf, n, kTag, &p);
}

void *recv(Ucp &u, void *buf, size_t n) {
    ucp_request_param_t p{};
    return ucp_tag_recv_nbx(u.worker, buf, n, kTag, ~ucp_tag_t{0}, &p);
}

// One iteration: a round trip started by `leader` (ping-pong), or one
// exchange (both at once).
bool step(Ucp &u, bool leader, bool exchange, char *sbuf, char *rbuf, size_t n) {
    if (exchange) {
        return wait_all(u, {recv(u, rbuf, n), send(u, sbuf, n)});
    }
    if (leader) {
        return wait_all(u, {send(u, sbuf, n)}) && wait_all(u, {recv(u, rbuf, n)});
    }
    return wait_all(u, {recv(u, rbuf, n)}) && wait_all(u, {send(u, sbuf, n)});
}

// Microseconds per iteration of `iters` after `iters / 10` untimed; < 0 on
// failure. `forward`: each side sends what it last received (a ping-pong
// returns its one buffer; an exchange swaps its two every iteration), so
// every pull reads lines the other CPU has just written, as in a collective;
// otherwise the send buffer is never written, and after the first pull it
// sits in both CPUs' caches (ucx_perftest's way).
double timed(Ucp &u, bool leader, bool exchange, bool forward, char *sbuf, char *rbuf, size_t n,
             int iters) {
    if (forward && !exchange) {
        sbuf = rbuf;
        forward = false;
    }
    auto t0 = Clock::now();
    for (int i = 0; i < iters / 10 + 1 + iters; ++i) {
        if (i == iters / 10 + 1) {
            t0 = Clock::now();
        }
        if (!step(u, leader, exchange, sbuf, rbuf, n)) {
            return -1;
        }
        if (forward) {
            std::swap(sbuf, rbuf);
        }
    }
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / iters;
}

void pin_to(int nth) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) < 2) {
        return;  // one CPU: both share it
    }
    for (int c = 0, seen = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &set) && seen++ == nth) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            sched_setaffinity(0, sizeof(one), &one);
            return;
        }
    }
}

// Both processes run this; the leader prints.
int run(int fd, bool leader, size_t min_bytes, size_t max_bytes, bool quick) {
    pin_to(leader ? 0 : 1);
    Ucp u;
    if (!connect(fd, &u)) {
        std::fprintf(stderr, "ucx_exchange: UCP setup failed\n");
        return 1;
    }
    std::vector<char> sbuf(max_bytes, 1), rbuf(max_bytes, 0);
    for (size_t n = min_bytes; n <= max_bytes; n *= 2) {
        int iters = n <= 65536 ? 20000 : n <= 1048576 ? 2000 : 300;
        iters = quick ? 20 : iters;
        double us[4];  // ping-pong and exchange, from clean and from just-written buffers
        for (int k = 0; k < 4; ++k) {
            us[k] = timed(u, leader, k % 2 == 1, k >= 2, sbuf.data(), rbuf.data(), n, iters);
            if (us[k] < 0) {
                std::fprintf(stderr, "ucx_exchange: %zu bytes failed\n", n);
                return 1;
            }
        }
        if (leader) {
            std::printf(
                "{\"bench\":\"ucx_exchange\",\"bytes\":%zu,\"iters\":%d,"
                "\"one_way_us\":%.4f,\"exchange_us\":%.4f,"
                "\"forward_one_way_us\":%.4f,\"forward_exchange_us\":%.4f}\n",
                n, iters, us[0] / 2, us[1], us[2] / 2, us[3]);
            std::fflush(stdout);
        }
    }
    // Neither side leaves while the other may still pull from its memory.
    char token = 0;
    if (!io_all(fd, &token, 1, true) || !io_all(fd, &token, 1, false)) {
        return 1;
    }
    ucp_ep_destroy(u.ep);
    ucp_worker_destroy(u.worker);
    ucp_cleanup(u.ctx);
    return 0;
}

size_t parse_bytes(const char *s) {
    char *end = nullptr;
    size_t v = std::strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k') {
        v <<= 10;
    } else if (*end == 'M' || *end == 'm') {
        v <<= 20;
    }
    return v;
}

}  // namespace

int main(int argc, char **argv) {
    size_t min_bytes = 8, max_bytes = 4u << 20;
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--min-bytes" && i + 1 < argc) {
            min_bytes = parse_bytes(argv[++i]);
        } else if (a == "--max-bytes" && i + 1 < argc) {
            max_bytes = parse_bytes(argv[++i]);
        } else if (a == "--quick") {
            quick = true;
        } else {
            std::fprintf(stderr, "usage: ucx_exchange [--min-bytes N] [--max-bytes N] [--quick]\n");
            return 2;
        }
    }
    if (min_bytes == 0 || max_bytes < min_bytes || max_bytes > (1ull << 30)) {
        std::fprintf(stderr, "ucx_exchange: sizes must satisfy 0 < min <= max <= 1G\n");
        return 2;
    }
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) {
        std::perror("ucx_exchange: socketpair");
        return 1;
    }
    std::fflush(stdout);
    const pid_t child = fork();
    if (child < 0) {
        std::perror("ucx_exchange: fork");
        return 1;
    }
    if (child == 0) {
        close(fds[0]);
        _exit(run(fds[1], false, min_bytes, max_bytes, quick));
    }
    close(fds[1]);
    const int rc = run(fds[0], true, min_bytes, max_bytes, quick);
    close(fds[0]);  // a child still waiting on its peer sees the end
    int status = 0;
    waitpid(child, &status, 0);
    return rc != 0 ? rc : (WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}
