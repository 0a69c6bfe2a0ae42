// yield_pingpong: what it costs this host to switch between two processes
// that share one CPU, waiting as the UCX transport waits when a host runs
// more processes of a job than it has CPUs (sched_yield in its idle loop:
// transports/ucx/ucx_transport.h). Two processes pass a token back and forth
// through shared memory, first pinned to one CPU, then (where there are two)
// each to its own; the difference of the one-way times is the switch, the
// simulator's `wake` (lib/net/network_model.h; scripts/fit_network.sh).
// Each placement runs five trials of up to N round trips, each within a
// budget (a second; on a loaded host a switch can wait a whole time slice,
// and a trial ends early rather than failing), and reports
// their median (this host's neighbours come and go). One JSON line per
// placement:
//   {"bench":"yield_pingpong","cpus":1|2,"rounds":N,"one_way_us":...}
//
//   yield_pingpong [--rounds 5000] [--quick] [--budget-ms 1000]
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// The CPUs this process may run on, in order.
std::vector<int> allowed_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c) {
            if (CPU_ISSET(c, &set)) {
                cpus.push_back(c);
            }
        }
    }
    return cpus;
}

bool pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set) == 0;
}

constexpr uint64_t kStop = UINT64_MAX;  // the parent's "no more rounds"

// Waits until the token is `want` or kStop (bounded: gives up at `limit`).
// True when it is `want`.
bool await_token(const std::atomic<uint64_t> &token, uint64_t want,
                 std::chrono::steady_clock::time_point limit) {
    uint32_t spins = 0;
    for (;;) {
        const uint64_t t = token.load(std::memory_order_acquire);
        if (t == want || t == kStop) {
            return t == want;
        }
        sched_yield();
        if (++spins % 4096 == 0 && std::chrono::steady_clock::now() > limit) {
            return false;
        }
    }
}

// One-way microseconds of up to `rounds` round trips between this process
// on cpu_a and a child on cpu_b, as many as fit in `budget` (a loaded host
// switches once per time slice: the trial ends early rather than failing);
// negative on failure.
double one_way_us(int cpu_a, int cpu_b, uint64_t rounds, std::chrono::milliseconds budget) {
    void *mem = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        return -1;
    }
    auto *token = new (mem) std::atomic<uint64_t>(0);
    const auto start = std::chrono::steady_clock::now();
    const auto stop_at = start + budget;
    const auto limit = stop_at + std::chrono::seconds(10);  // a peer that died
    const pid_t child = fork();
    if (child < 0) {
        munmap(mem, 4096);
        return -1;
    }
    if (child == 0) {
        bool ok = pin(cpu_b);
        for (uint64_t i = 0; ok && i < rounds; ++i) {
            if (!await_token(*token, 2 * i + 1, limit)) {
                _exit(token->load(std::memory_order_acquire) == kStop ? 0 : 1);
            }
            token->store(2 * i + 2, std::memory_order_release);
        }
        _exit(ok ? 0 : 1);
    }
    bool ok = pin(cpu_a);
    uint64_t done = 0;
    auto end = start;
    while (ok && done < rounds && end <= stop_at) {
        token->store(2 * done + 1, std::memory_order_release);
        ok = await_token(*token, 2 * done + 2, limit);
        end = std::chrono::steady_clock::now();
        done += ok ? 1 : 0;
    }
    token->store(kStop, std::memory_order_release);
    int status = 0;
    waitpid(child, &status, 0);
    munmap(mem, 4096);
    if (!ok || done == 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return -1;
    }
    const double us = std::chrono::duration<double, std::micro>(end - start).count();
    return us / static_cast<double>(2 * done);
}

}  // namespace

int main(int argc, char **argv) {
    uint64_t rounds = 5000;
    long budget_ms = 1000;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--rounds" && i + 1 < argc) {
            rounds = std::strtoull(argv[++i], nullptr, 10);
        } else if (a == "--budget-ms" && i + 1 < argc) {
            budget_ms = std::strtol(argv[++i], nullptr, 10);
        } else if (a == "--quick") {
            rounds = 200;
        } else {
            std::fprintf(stderr, "usage: yield_pingpong [--rounds N] [--quick] [--budget-ms MS]\n");
            return 2;
        }
    }
    const std::vector<int> cpus = allowed_cpus();
    if (cpus.empty() || rounds == 0 || budget_ms <= 0) {
        std::fprintf(stderr, "yield_pingpong: no CPU to run on, no rounds or no budget\n");
        return 1;
    }
    // One CPU, then two where there are (the first two this process may use).
    for (size_t k = 1; k <= 2 && k <= cpus.size(); ++k) {
        std::vector<double> trials;
        for (int i = 0; i < 5; ++i) {
            trials.push_back(
                one_way_us(cpus[0], cpus[k - 1], rounds, std::chrono::milliseconds(budget_ms)));
            if (trials.back() < 0) {
                std::fprintf(stderr, "yield_pingpong: the ping-pong on %zu CPU(s) failed\n", k);
                return 1;
            }
        }
        std::sort(trials.begin(), trials.end());
        const double us = trials[trials.size() / 2];
        std::printf(
            "{\"bench\":\"yield_pingpong\",\"cpus\":%zu,\"rounds\":%llu,\"one_way_us\":%.4f}\n", k,
            static_cast<unsigned long long>(rounds), us);
    }
    return 0;
}
