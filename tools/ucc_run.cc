// ucc_run: run N processes of a program on this host, bootstrapped for
// include/ucc/boot/ucc_boot.h.
//
//   ucc_run -n N [--timeout SEC] [--grace SEC] [--keep-going] [--] program [args...]
//
// Starts a rendezvous store on 127.0.0.1 (an ephemeral port), then forks N
// processes with UCC_RANK, UCC_WORLD_SIZE, UCC_LOCAL_RANK, UCC_LOCAL_SIZE and
// UCC_STORE set (one node: local = global). Every line a rank writes to its
// stdout or stderr is printed to the same stream as "[rank] line" (a last
// line without a newline is completed at exit). SIGINT and SIGTERM are
// forwarded to every rank. When a rank exits non-zero or is killed, ucc_run
// says which and how, sends SIGTERM to the other ranks and SIGKILL to those
// left after the grace period (default 3 s), and exits with that rank's exit
// code (128 + signal for a killed rank); with --keep-going the others run on
// and it exits so once they are done. --timeout bounds the whole run (exit
// 124). Each rank is the leader of its own process group (signals reach its
// children too) and reads stdin from /dev/null; it is killed (SIGKILL) when
// ucc_run dies, however ucc_run dies. UCX variables are passed through
// untouched.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/boot/store.h"

extern char **environ;

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRanksMax = 4096;
constexpr size_t kLineBytesMax = 64 * 1024;  // a longer line is printed in pieces
// After the last rank exits, output still buffered in its pipes (or held by a
// child it left behind) is read for at most this long.
constexpr std::chrono::milliseconds kDrainMax{2000};

// The signal handler's only state: a pipe it writes the signal number to.
// (A tool's main, not library code: this is the one place for it.)
int g_signal_pipe = -1;

// What the handler passes to the event loop through the pipe: the signal
// and, for SIGCHLD, the child it reports. SIGCHLDs that arrive while one is
// pending merge into it and keep its information, so the first child to end
// is always named: that names the cause when the others fail because of it.
struct SignalRecord {
    int32_t sig;
    int32_t pid;  // SIGCHLD: the child; else 0
};

void on_signal(int sig, siginfo_t *info, void *) {
    int saved = errno;
    const SignalRecord r{sig, sig == SIGCHLD && info != nullptr ? info->si_pid : 0};
    ssize_t ignored = write(g_signal_pipe, &r, sizeof r);  // atomic: < PIPE_BUF
    (void)ignored;
    errno = saved;
}

struct Options {
    int n = 0;
    double timeout_s = 0;  // 0: none
    double grace_s = 3;
    bool keep_going = false;  // a failed rank does not stop the others
    std::vector<std::string> argv;
};

void usage(FILE *f) {
    std::fprintf(f,
                 "usage: ucc_run -n N [--timeout SEC] [--grace SEC] [--keep-going] [--] program "
                 "[args...]\n"
                 "  -n, -np N       number of processes (1 to %d)\n"
                 "  --timeout SEC   stop every rank and exit 124 after SEC seconds\n"
                 "  --grace SEC     after SIGTERM, SIGKILL ranks still alive after SEC (3)\n"
                 "  --keep-going    when a rank fails, let the others finish (exit code: the\n"
                 "                  first failed rank's)\n",
                 kRanksMax);
}

bool parse_seconds(const char *s, double *out) {
    char *end = nullptr;
    double v = std::strtod(s, &end);
    if (end == s || *end != '\0' || !(v >= 0) || v > 1e7) {
        return false;
    }
    *out = v;
    return true;
}

std::optional<Options> parse_args(int argc, char **argv) {
    Options o;
    int i = 1;
    for (; i < argc; ++i) {
        std::string_view a = argv[i];
        auto value = [&](const char *what) -> const char * {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "ucc_run: %s needs a value\n", what);
                return nullptr;
            }
            return argv[++i];
        };
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "-h" || a == "--help") {
            usage(stdout);
            std::exit(0);
        }
        if (a == "--keep-going") {
            o.keep_going = true;
        } else if (a == "-n" || a == "-np" || a == "--np") {
            const char *v = value("-n");
            char *end = nullptr;
            long n = v != nullptr ? std::strtol(v, &end, 10) : 0;
            if (v == nullptr || *end != '\0' || n < 1 || n > kRanksMax) {
                std::fprintf(stderr, "ucc_run: -n needs a process count from 1 to %d\n", kRanksMax);
                return std::nullopt;
            }
            o.n = static_cast<int>(n);
        } else if (a == "--timeout" || a == "--grace") {
            const char *v = value(argv[i]);
            double *dst = a == "--timeout" ? &o.timeout_s : &o.grace_s;
            if (v == nullptr || !parse_seconds(v, dst)) {
                std::fprintf(stderr, "ucc_run: %s needs seconds, got '%s'\n", a.data(),
                             v != nullptr ? v : "");
                return std::nullopt;
            }
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "ucc_run: unknown option '%s'\n", argv[i]);
            return std::nullopt;
        } else {
            break;
        }
    }
    for (; i < argc; ++i) {
        o.argv.emplace_back(argv[i]);
    }
    if (o.n == 0 || o.argv.empty()) {
        usage(stderr);
        return std::nullopt;
    }
    return o;
}

// The program's path: as given when it has a '/', else the first executable
// of that name on PATH. Resolved before fork, so the child only calls execve.
std::optional<std::string> resolve_program(const std::string &name) {
    if (name.find('/') != std::string::npos) {
        if (access(name.c_str(), X_OK) != 0) {
            return std::nullopt;
        }
        return name;
    }
    const char *path = std::getenv("PATH");
    std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
    while (true) {
        size_t colon = dirs.find(':');
        std::string dir(dirs.substr(0, colon));
        std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        struct stat st;
        if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
            access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
        if (colon == std::string_view::npos) {
            return std::nullopt;
        }
        dirs = dirs.substr(colon + 1);
    }
}

std::string signal_name(int sig) {
    const char *abbrev = sigabbrev_np(sig);
    return abbrev != nullptr ? std::string("SIG") + abbrev : "unknown signal";
}

// Writes all of it, retrying on EINTR; a closed stdout/stderr is not an error here.
void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return;
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
}

// One of a rank's output streams: a pipe read end and a partial line.
struct Stream {
    int fd = -1;
    int out_fd = 1;  // where its lines go: 1 or 2
    std::string partial;
};

struct Rank {
    pid_t pid = -1;
    bool running = false;
    int status = 0;  // waitpid's
    Stream streams[2];
};

// Prints each complete line of `data` as "[rank] line" and keeps the rest;
// `flush` prints the rest too. A line longer than kLineBytesMax is printed in
// pieces, so the buffer stays bounded.
void emit(int rank, Stream &s, const char *data, size_t n, bool flush) {
    if (n > 0) {
        s.partial.append(data, n);
    }
    const std::string prefix = "[" + std::to_string(rank) + "] ";
    std::string line;
    size_t start = 0;
    while (start < s.partial.size()) {
        size_t nl = s.partial.find('\n', start);
        size_t len = 0;
        size_t consumed = 0;
        if (nl != std::string::npos) {
            len = nl - start;
            consumed = len + 1;
        } else if (flush || s.partial.size() - start >= kLineBytesMax) {
            len = s.partial.size() - start;
            consumed = len;
        } else {
            break;
        }
        if (len > kLineBytesMax) {
            len = kLineBytesMax;
            consumed = len;
        }
        line = prefix;
        line.append(s.partial, start, len);
        line += '\n';
        write_all(s.out_fd, line.data(), line.size());
        start += consumed;
    }
    s.partial.erase(0, start);
}

class Runner {
  public:
    explicit Runner(Options o) : opt_(std::move(o)), ranks_(static_cast<size_t>(opt_.n)) {}
    int run();

  private:
    bool spawn(int r, const std::string &program, const std::string &store);
    // `first`: children that SIGCHLDs named, in the order they came.
    void reap(const std::vector<pid_t> &first = {});
    // Before the first failure is named: moves to the front of `ended` a rank
    // that left the store before the first failed one did (it died first).
    void put_cause_first(std::vector<int> *ended);
    void on_rank_exit(int r);
    void stop_all(int sig);
    void read_stream(int r, Stream &s);
    int exit_code() const;

    Options opt_;
    std::vector<Rank> ranks_;
    const ucc::boot::StoreServer *store_ = nullptr;
    int running_ = 0;
    bool stopping_ = false;
    int failed_rank_ = -1;
    int interrupted_by_ = 0;
    bool timed_out_ = false;
    bool spawn_failed_ = false;
    std::optional<Clock::time_point> kill_at_;
};

bool Runner::spawn(int r, const std::string &program, const std::string &store) {
    int out[2];
    int err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        std::fprintf(stderr, "ucc_run: pipe: %s\n", std::strerror(errno));
        return false;
    }
    // Everything the child needs is built before fork: it only calls
    // async-signal-safe functions until execve.
    std::vector<std::string> env_strings;
    for (char **e = environ; *e != nullptr; ++e) {
        std::string_view kv = *e;
        std::string_view name = kv.substr(0, kv.find('='));
        if (name != "UCC_RANK" && name != "UCC_WORLD_SIZE" && name != "UCC_LOCAL_RANK" &&
            name != "UCC_LOCAL_SIZE" && name != "UCC_STORE") {
            env_strings.emplace_back(kv);
        }
    }
    env_strings.push_back("UCC_RANK=" + std::to_string(r));
    env_strings.push_back("UCC_WORLD_SIZE=" + std::to_string(opt_.n));
    env_strings.push_back("UCC_LOCAL_RANK=" + std::to_string(r));
    env_strings.push_back("UCC_LOCAL_SIZE=" + std::to_string(opt_.n));
    env_strings.push_back("UCC_STORE=" + store);
    std::vector<char *> envp;
    for (auto &s : env_strings) {
        envp.push_back(s.data());
    }
    envp.push_back(nullptr);
    std::vector<char *> argv;
    for (auto &a : opt_.argv) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    std::string exec_error = "ucc_run: rank " + std::to_string(r) + ": cannot execute " + program;

    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        std::fprintf(stderr, "ucc_run: fork: %s\n", std::strerror(errno));
        return false;
    }
    if (pid == 0) {
        // The rank dies with ucc_run, also when ucc_run is killed with SIGKILL
        // (no orphans); if ucc_run died before this line, exit now.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) {
            _exit(137);
        }
        setpgid(0, 0);
        struct sigaction dfl = {};
        dfl.sa_handler = SIG_DFL;
        for (int sig : {SIGINT, SIGTERM, SIGCHLD, SIGPIPE}) {
            sigaction(sig, &dfl, nullptr);
        }
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0) {
            dup2(null_fd, 0);
        }
        dup2(out[1], 1);
        dup2(err[1], 2);
        execve(program.c_str(), argv.data(), envp.data());
        int e = errno;
        write_all(2, exec_error.data(), exec_error.size());
        const char *why = strerror(e);
        write_all(2, ": ", 2);
        write_all(2, why, std::strlen(why));
        write_all(2, "\n", 1);
        _exit(127);
    }
    setpgid(pid, pid);  // also here: no race with signalling the group early
    close(out[1]);
    close(err[1]);
    Rank &rk = ranks_[static_cast<size_t>(r)];
    rk.pid = pid;
    rk.running = true;
    rk.streams[0].fd = out[0];
    rk.streams[0].out_fd = 1;
    rk.streams[1].fd = err[0];
    rk.streams[1].out_fd = 2;
    ++running_;
    return true;
}

void Runner::stop_all(int sig) {
    for (Rank &rk : ranks_) {
        if (rk.running) {
            kill(-rk.pid, sig);
        }
    }
}

void Runner::on_rank_exit(int r) {
    const Rank &rk = ranks_[static_cast<size_t>(r)];
    bool ok = WIFEXITED(rk.status) && WEXITSTATUS(rk.status) == 0;
    if (ok || stopping_) {
        return;
    }
    if (WIFEXITED(rk.status)) {
        std::fprintf(stderr, "ucc_run: rank %d exited with code %d\n", r, WEXITSTATUS(rk.status));
    } else {
        int sig = WTERMSIG(rk.status);
        std::fprintf(stderr, "ucc_run: rank %d killed by signal %d (%s)\n", r, sig,
                     signal_name(sig).c_str());
    }
    if (failed_rank_ < 0) {
        failed_rank_ = r;
    }
    if (opt_.keep_going) {
        return;
    }
    stopping_ = true;
    if (running_ > 0) {
        std::fprintf(stderr, "ucc_run: stopping the other %d running ranks\n", running_);
    }
    stop_all(SIGTERM);
    kill_at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(opt_.grace_s));
}

void Runner::reap(const std::vector<pid_t> &first) {
    // Every child that has ended is reaped before any is reported. The ones
    // a SIGCHLD named come first, in that order: when a rank dies, the others
    // fail on it within milliseconds, and waitpid(-1) hands back the oldest
    // child first, which says nothing about who ended first. Of the rest, one
    // killed by a signal comes first (the likelier cause).
    std::vector<int> ended;
    auto take = [&](pid_t pid, int status) {
        for (size_t r = 0; r < ranks_.size(); ++r) {
            if (ranks_[r].pid == pid && ranks_[r].running) {
                ranks_[r].running = false;
                ranks_[r].status = status;
                --running_;
                ended.push_back(static_cast<int>(r));
            }
        }
    };
    for (pid_t pid : first) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            take(pid, status);
        }
    }
    const size_t named = ended.size();
    // Bounded: each pass reaps one child, and there are N.
    for (int i = 0; i < opt_.n; ++i) {
        int status = 0;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) {
            break;
        }
        take(pid, status);
    }
    std::stable_partition(
        ended.begin() + static_cast<std::ptrdiff_t>(named), ended.end(),
        [&](int r) { return WIFSIGNALED(ranks_[static_cast<size_t>(r)].status); });
    if (failed_rank_ < 0) {
        put_cause_first(&ended);
    }
    for (int r : ended) {
        on_rank_exit(r);
    }
}

void Runner::put_cause_first(std::vector<int> *ended) {
    auto failed = [&](int r) {
        const int st = ranks_[static_cast<size_t>(r)].status;
        return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    };
    auto first = std::find_if(ended->begin(), ended->end(), failed);
    if (first == ended->end() || store_ == nullptr) {
        return;
    }
    const int first_failed = *first;
    // The store saw the ranks' connections close in the order they died:
    // the first SIGCHLD can still come from a survivor that failed on the
    // news when the dying rank's exit was slow (a loaded machine).
    for (const std::string &name : store_->departed()) {
        int d = -1;
        if (std::sscanf(name.c_str(), "rank %d", &d) != 1 || d < 0 || d >= opt_.n) {
            continue;
        }
        if (d == first_failed) {
            return;
        }
        Rank &rk = ranks_[static_cast<size_t>(d)];
        // Still running: it is dying, or it left the store and lives on (then
        // it is no cause). Waited for, at most 0.2 s.
        for (int i = 0; i < 200 && rk.running; ++i) {
            int status = 0;
            if (waitpid(rk.pid, &status, WNOHANG) == rk.pid) {
                rk.running = false;
                rk.status = status;
                --running_;
                ended->push_back(d);
                break;
            }
            usleep(1000);
        }
        auto it = std::find(ended->begin(), ended->end(), d);
        if (it != ended->end() && failed(d)) {
            std::rotate(ended->begin(), it, it + 1);  // d first, the rest in order
            return;
        }
        // Ended earlier with 0, or alive: the next one that left.
    }
}

void Runner::read_stream(int r, Stream &s) {
    char buf[65536];
    ssize_t n = read(s.fd, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (n <= 0) {
        emit(r, s, nullptr, 0, true);
        close(s.fd);
        s.fd = -1;
        return;
    }
    emit(r, s, buf, static_cast<size_t>(n), false);
}

int Runner::exit_code() const {
    if (timed_out_) {
        return 124;
    }
    if (failed_rank_ >= 0) {
        int st = ranks_[static_cast<size_t>(failed_rank_)].status;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    if (interrupted_by_ != 0) {
        return 128 + interrupted_by_;
    }
    return spawn_failed_ ? 1 : 0;
}

int Runner::run() {
    auto program = resolve_program(opt_.argv[0]);
    if (!program) {
        std::fprintf(stderr, "ucc_run: cannot execute '%s': %s\n", opt_.argv[0].c_str(),
                     opt_.argv[0].find('/') != std::string::npos ? std::strerror(errno)
                                                                 : "not found on PATH");
        return 127;
    }
    int sp[2];
    if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) != 0) {
        std::fprintf(stderr, "ucc_run: pipe: %s\n", std::strerror(errno));
        return 1;
    }
    g_signal_pipe = sp[1];
    struct sigaction sa = {};
    sa.sa_sigaction = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    for (int sig : {SIGINT, SIGTERM, SIGCHLD}) {
        sigaction(sig, &sa, nullptr);
    }
    signal(SIGPIPE, SIG_IGN);

    ucc::boot::StoreServer store;
    if (store.start("127.0.0.1", 0) != UCC_OK) {
        return 1;  // the store said why
    }
    store_ = &store;
    const Clock::time_point start = Clock::now();
    std::optional<Clock::time_point> end_at;
    if (opt_.timeout_s > 0) {
        end_at = start + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(opt_.timeout_s));
    }
    for (int r = 0; r < opt_.n; ++r) {
        if (!spawn(r, *program, store.address())) {
            spawn_failed_ = true;
            stopping_ = true;
            stop_all(SIGTERM);
            kill_at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(opt_.grace_s));
            break;
        }
    }

    // The event loop: output, signals, deadlines. poll() sleeps until one of
    // them; it ends once every rank has exited and its pipes are drained (or
    // the drain bound passed).
    std::optional<Clock::time_point> drain_until;
    std::vector<pollfd> fds;
    std::vector<std::pair<int, int>> owner;  // (rank, stream) of fds[i], i >= 1
    while (true) {
        Clock::time_point now = Clock::now();
        if (running_ == 0 && !drain_until) {
            drain_until = now + kDrainMax;
        }
        fds.assign(1, pollfd{sp[0], POLLIN, 0});
        owner.assign(1, {-1, -1});
        for (size_t r = 0; r < ranks_.size(); ++r) {
            for (int k = 0; k < 2; ++k) {
                if (ranks_[r].streams[k].fd >= 0) {
                    fds.push_back(pollfd{ranks_[r].streams[k].fd, POLLIN, 0});
                    owner.emplace_back(static_cast<int>(r), k);
                }
            }
        }
        if (running_ == 0 && (fds.size() == 1 || now >= *drain_until)) {
            break;
        }
        if (end_at && now >= *end_at && !timed_out_) {
            timed_out_ = true;
            std::fprintf(stderr, "ucc_run: timed out after %g s; stopping %d running ranks\n",
                         opt_.timeout_s, running_);
            stopping_ = true;
            stop_all(SIGTERM);
            kill_at_ = now + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(opt_.grace_s));
        }
        if (kill_at_ && now >= *kill_at_) {
            if (running_ > 0) {
                std::fprintf(stderr, "ucc_run: %d ranks still running after %g s; SIGKILL\n",
                             running_, opt_.grace_s);
                stop_all(SIGKILL);
            }
            kill_at_.reset();
        }
        // Sleep until the nearest deadline (at most a second: a lost wakeup
        // cannot stall the loop).
        Clock::time_point wake = now + std::chrono::seconds(1);
        for (const auto &t : {end_at, kill_at_, drain_until}) {
            if (t && *t < wake) {
                wake = *t;
            }
        }
        auto ms = std::chrono::ceil<std::chrono::milliseconds>(wake - now).count();
        int ready = poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(ms, 0)));
        if (ready < 0 && errno != EINTR) {
            std::fprintf(stderr, "ucc_run: poll: %s\n", std::strerror(errno));
            stop_all(SIGKILL);
            return 1;
        }
        if (ready < 0) {
            continue;  // a signal: its record waits in the pipe
        }
        if (ready == 0) {
            reap();  // in case a SIGCHLD record was lost
            continue;
        }
        if (fds[0].revents & POLLIN) {
            SignalRecord recs[64];
            ssize_t n = read(sp[0], recs, sizeof(recs));
            std::vector<pid_t> ended_first;  // in the order their SIGCHLDs came
            for (ssize_t i = 0; i < n / static_cast<ssize_t>(sizeof(SignalRecord)); ++i) {
                int sig = recs[i].sig;
                if (sig == SIGCHLD) {
                    if (recs[i].pid > 0) {
                        ended_first.push_back(recs[i].pid);
                    }
                    continue;
                }
                if (interrupted_by_ == 0 && !stopping_) {
                    std::fprintf(stderr, "ucc_run: got %s; forwarding it to %d running ranks\n",
                                 signal_name(sig).c_str(), running_);
                }
                if (interrupted_by_ == 0) {
                    interrupted_by_ = sig;
                }
                stopping_ = true;
                stop_all(sig);
                if (!kill_at_) {
                    kill_at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(opt_.grace_s));
                }
            }
            reap(ended_first);
        }
        for (size_t i = 1; i < fds.size(); ++i) {
            if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                auto [r, k] = owner[i];
                read_stream(r, ranks_[static_cast<size_t>(r)].streams[k]);
            }
        }
    }
    // Flush what never ended in a newline, from pipes still held open by
    // something a rank left behind.
    for (size_t r = 0; r < ranks_.size(); ++r) {
        for (Stream &s : ranks_[r].streams) {
            if (s.fd >= 0) {
                emit(static_cast<int>(r), s, nullptr, 0, true);
                close(s.fd);
                s.fd = -1;
            }
        }
    }
    store.stop();
    return exit_code();
}

}  // namespace

int main(int argc, char **argv) {
    auto opt = parse_args(argc, argv);
    if (!opt) {
        return 2;
    }
    Runner runner(std::move(*opt));
    return runner.run();
}
