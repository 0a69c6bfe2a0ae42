// CONFORMANCE.md P13, 64-bit counts and displacements, on the simulator
// through the C API.
//
// Placement with payload: the v-collectives (allgatherv, gatherv, scatterv,
// alltoallv) place small blocks at byte offsets just below, across and above
// 2^31 and 2^32 of sparse buffers (anonymous mmap with MAP_NORESERVE: only the
// pages touched cost memory, a few per block). Every layout is run with
// 64-bit arrays (element displacements above 2^32, and below 2^32 with
// displacement x esize above it), with 32-bit arrays whose values fit in 32
// bits (some above 2^31) while the byte offsets pass 2^32, and with mixed
// widths (64-bit counts with 32-bit displacements, and the reverse). Each
// placed block is checked byte for byte, 64 bytes either side of it must be
// zero, and mincore() shows that no page outside those windows was touched
// (a write at an offset truncated to 32 bits would touch one).
//
// Counts without payload: timing-only runs of allreduce, bcast, allgather,
// alltoall, reduce, gather, scatter and reduce_scatter (every algorithm) with
// counts above 2^31 and 2^32 and n x count above 2^31 and 2^32, and of the
// five v-collectives with counts above 2^31 in 32-bit arrays (above 2^32 in
// 64-bit ones). Their buffers are an inaccessible (PROT_NONE) reservation,
// so a byte the library touched would fault. Each completes UCC_OK, takes at
// least the time its bytes need at the network's bandwidth, and doubling the
// count doubles its virtual time (within [1.6, 2.4]).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "lib/coll/coll.h"
#include "lib/dt/dt.h"
#include "tests/common/scenario.h"
#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace {

constexpr uint64_t k2G = uint64_t{1} << 31;
constexpr uint64_t k4G = uint64_t{1} << 32;
// Bytes either side of a placed block that are checked (zero unless another
// block's).
constexpr uint64_t kMargin = 64;

// Byte j of the data identified by `key` (a rank, or a pair of ranks): never 0.
uint8_t content(uint32_t key, uint64_t j) {
    return static_cast<uint8_t>(1 + (key * 37 + j * 11) % 251);
}

// Where one block of data lies in a buffer.
struct Block {
    uint64_t offset = 0;  // bytes from the buffer's start
    uint64_t bytes = 0;
    uint32_t key = 0;  // byte j holds content(key, j)
};

void fill(uint8_t *base, const Block &b) {
    for (uint64_t j = 0; j < b.bytes; ++j) {
        base[b.offset + j] = content(b.key, j);
    }
}

// The window around a block that is checked: [lo, hi) in bytes.
uint64_t window_lo(const Block &b) {
    return b.offset >= kMargin ? b.offset - kMargin : 0;
}
uint64_t window_hi(const Block &b, uint64_t size) {
    return std::min(size, b.offset + b.bytes + kMargin);
}

// "" when every byte of every block's window in `base` (of `size` bytes)
// equals the image of `blocks`: their contents, zero between them.
std::string check_blocks(const uint8_t *base, uint64_t size, const std::vector<Block> &blocks) {
    for (const Block &b : blocks) {
        for (uint64_t pos = window_lo(b); pos < window_hi(b, size); ++pos) {
            uint8_t want = 0;
            for (const Block &o : blocks) {
                if (pos >= o.offset && pos - o.offset < o.bytes) {
                    want = content(o.key, pos - o.offset);
                }
            }
            if (base[pos] != want) {
                return "byte " + std::to_string(pos) + " is " + std::to_string(base[pos]) +
                       ", expected " + std::to_string(want) + " (near the block of key " +
                       std::to_string(b.key) + " at byte " + std::to_string(b.offset) + ")";
            }
        }
    }
    return "";
}

// A zero-filled buffer of address space only: no huge pages, so a touched
// byte costs one page.
class SparseBuf {
  public:
    explicit SparseBuf(uint64_t bytes) : bytes_(bytes) {
        void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            data_ = static_cast<uint8_t *>(p);
            madvise(p, bytes, MADV_NOHUGEPAGE);
        }
    }
    ~SparseBuf() {
        if (data_ != nullptr) {
            munmap(data_, bytes_);
        }
    }
    SparseBuf(const SparseBuf &) = delete;
    SparseBuf &operator=(const SparseBuf &) = delete;
    uint8_t *data() const { return data_; }

    // "" when the buffer holds exactly `blocks` (check_blocks) and no page
    // outside their windows was ever written or read.
    std::string check(const std::vector<Block> &blocks) const {
        if (data_ == nullptr) {
            return "mmap of " + std::to_string(bytes_) + " bytes failed";
        }
        std::string e = check_blocks(data_, bytes_, blocks);
        if (!e.empty()) {
            return e;
        }
        const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
        std::vector<unsigned char> resident((bytes_ + page - 1) / page);
        if (mincore(data_, bytes_, resident.data()) != 0) {
            return "mincore failed";
        }
        for (uint64_t i = 0; i < resident.size(); ++i) {
            auto in_window = [&](const Block &b) {
                return window_lo(b) / page <= i && i <= (window_hi(b, bytes_) - 1) / page;
            };
            if ((resident[i] & 1) != 0 && std::none_of(blocks.begin(), blocks.end(), in_window)) {
                return "the page at byte " + std::to_string(i * page) + " was touched";
            }
        }
        return "";
    }

  private:
    uint64_t bytes_;
    uint8_t *data_ = nullptr;
};

// A contiguous buffer of one block with kMargin zero bytes either side.
class SmallBuf {
  public:
    SmallBuf(uint64_t bytes, uint32_t key, bool filled)
        : mem_(bytes + 2 * kMargin), block_{kMargin, bytes, key} {
        if (filled) {
            fill(mem_.data(), block_);
        }
    }
    uint8_t *data() { return mem_.data() + kMargin; }
    std::string check() const { return check_blocks(mem_.data(), mem_.size(), {block_}); }

  private:
    std::vector<uint8_t> mem_;
    Block block_;
};

// A counts or displacements array as the library reads it: uint64_t entries,
// or uint32_t ones (values that fit in 32 bits).
class VArray {
  public:
    VArray(std::vector<uint64_t> values, bool wide) : values_(std::move(values)), wide_(wide) {
        for (uint64_t v : values_) {
            EXPECT_TRUE(wide || v <= UINT32_MAX) << v << " in a 32-bit array";
            narrow_.push_back(static_cast<uint32_t>(v));
        }
    }
    uint64_t operator[](size_t i) const { return values_[i]; }
    // ucc_count_t and ucc_aint_t are both uint64_t.
    uint64_t *data() {
        return wide_ ? values_.data() : reinterpret_cast<uint64_t *>(narrow_.data());
    }

  private:
    std::vector<uint64_t> values_;
    std::vector<uint32_t> narrow_;
    bool wide_;
};

// One rank's outcome of one collective.
struct RankRun {
    std::string error;  // setup or teardown
    ucc_status_t status = UCC_ERR_NO_MESSAGE;
    const char *stage = "not run";  // where status came from
    double seconds = 0;             // virtual, from the post to completion
};

// Runs the collective args_of(rank) once on n simulated ranks ("hdr"
// network) with a team of all, configured by `env`.
std::vector<RankRun> run_on_team(uint32_t n, bool timing_only, const ucc::testkit::EnvParams &env,
                                 const std::function<ucc_coll_args_t(uint32_t)> &args_of) {
    ucc::sim::ClusterParams cp;
    cp.n_ranks = n;
    cp.seed = 13;
    cp.timing_only = timing_only;
    std::string err;
    EXPECT_EQ(ucc::net::parse_network("hdr", &cp.net, &err), UCC_OK) << err;
    std::vector<RankRun> out(n);
    const ucc::sim::RunResult run = ucc::sim::run(cp, [&](uint32_t r) {
        RankRun &me = out[r];
        ucc::testkit::RankEnv renv;
        me.error = ucc::testkit::setup(env, r, n, &renv);
        if (me.error.empty()) {
            ucc_coll_args_t args = args_of(r);
            ucc_coll_req_h req = nullptr;
            me.stage = "init";
            me.status = ucc_collective_init(&args, &req, renv.team);
            if (me.status == UCC_OK) {
                const double t0 = ucc::sim::now_s();
                me.stage = "post";
                me.status = ucc_collective_post(req);
                if (me.status == UCC_OK) {
                    me.stage = "completion";
                    while ((me.status = ucc_collective_test(req)) == UCC_INPROGRESS) {
                        ucc_context_progress(renv.ctx);
                    }
                }
                me.seconds = ucc::sim::now_s() - t0;
                ucc_collective_finalize(req);
            }
        }
        const std::string down = ucc::testkit::teardown(&renv);
        me.error += down;
    });
    EXPECT_EQ(run.status, UCC_OK) << run.report;
    return out;
}

// Every rank completed UCC_OK; the longest rank's virtual seconds.
double expect_all_ok(const std::vector<RankRun> &runs, const std::string &what) {
    double seconds = 0;
    for (size_t r = 0; r < runs.size(); ++r) {
        EXPECT_EQ(runs[r].error, "") << what << ", rank " << r;
        EXPECT_EQ(runs[r].status, UCC_OK) << what << ", rank " << r << ": " << runs[r].stage
                                          << " returned " << ucc_status_string(runs[r].status);
        seconds = std::max(seconds, runs[r].seconds);
    }
    return seconds;
}

// ---- payload runs: placement around 2^31 and 2^32 bytes ----

// Four blocks of a v-buffer (a team uses its first n entries): element
// counts and displacements, their datatype and the widths of their arrays.
struct Layout {
    const char *name;
    ucc_datatype_t dt;
    bool counts64;
    bool displs64;
    uint64_t counts[4];
    uint64_t displs[4];
};

// Byte offsets in the comments (block ends are exclusive).
constexpr Layout kLayouts[] = {
    // 2^32+8; 2^31-16 across 2^31; 2^32-48 ending at 2^32, 8 bytes before
    // the first; 2^31+4096.
    {"int8, 64-bit arrays, displacements above 2^32 elements",
     UCC_DT_INT8,
     true,
     true,
     {48, 32, 48, 64},
     {k4G + 8, k2G - 16, k4G - 48, k2G + 4096}},
    // 2^32+24; 2^31-8 across 2^31; 2^32-16 across 2^32, ending where the
    // first starts; 2^31+512.
    {"int64, 64-bit arrays, displacements below 2^32 elements, bytes above",
     UCC_DT_INT64,
     true,
     true,
     {4, 4, 5, 2},
     {(uint64_t{1} << 29) + 3, (uint64_t{1} << 28) - 1, (uint64_t{1} << 29) - 2,
      (uint64_t{1} << 28) + 64}},
    // Displacements above 2^31 as uint32_t: 2^32+16; 2^31-16 across 2^31;
    // 2^32-64 ending at 2^32; 2^31+512.
    {"int16, 32-bit arrays, bytes above 2^32",
     UCC_DT_INT16,
     false,
     false,
     {24, 24, 32, 8},
     {0x80000008, 0x3FFFFFF8, 0x7FFFFFE0, 0x40000100}},
    // 2^32+28; 2^31-16 across 2^31; 2^32-64 ending at 2^32; 2^31+128.
    {"float32, 64-bit counts, 32-bit displacements",
     UCC_DT_FLOAT32,
     true,
     false,
     {8, 12, 16, 4},
     {(uint64_t{1} << 30) + 7, 0x1FFFFFFC, 0x3FFFFFF0, (uint64_t{1} << 29) + 32}},
    // 2^34+4; 2^31-16 across 2^31; 2^32-64 ending at 2^32; 2^31+256.
    {"int32, 32-bit counts, 64-bit displacements",
     UCC_DT_INT32,
     false,
     true,
     {4, 8, 16, 6},
     {k4G + 1, (uint64_t{1} << 29) - 4, (uint64_t{1} << 30) - 16, (uint64_t{1} << 29) + 64}},
};

uint64_t flags_of(const Layout &l) {
    return (l.counts64 ? UCC_COLL_ARGS_FLAG_COUNT_64BIT : 0) |
           (l.displs64 ? UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT : 0);
}

// One rank's v-buffer on a team of n: layout entry (i + rot) % n is peer i's block.
class VBuffer {
  public:
    VBuffer(const Layout &l, uint32_t n, uint32_t rot)
        : l_(l),
          es_(ucc::dt::size_of(l.dt)),
          mem_(extent(l, es_)),
          counts_(entries(l.counts, n, rot), l.counts64),
          displs_(entries(l.displs, n, rot), l.displs64) {}
    uint64_t count(uint32_t i) const { return counts_[i]; }
    Block block(uint32_t i, uint32_t key) const {
        return {displs_[i] * es_, counts_[i] * es_, key};
    }
    void fill_block(uint32_t i, uint32_t key) { fill(mem_.data(), block(i, key)); }
    ucc_coll_buffer_info_v_t info() {
        return {mem_.data(), counts_.data(), displs_.data(), l_.dt, UCC_MEMORY_TYPE_HOST};
    }
    std::string check(const std::vector<Block> &blocks) const { return mem_.check(blocks); }

  private:
    static uint64_t extent(const Layout &l, size_t es) {
        uint64_t end = 0;
        for (int i = 0; i < 4; ++i) {
            end = std::max(end, (l.displs[i] + l.counts[i]) * es);
        }
        return end + 4096;
    }
    static std::vector<uint64_t> entries(const uint64_t (&v)[4], uint32_t n, uint32_t rot) {
        std::vector<uint64_t> out;
        for (uint32_t i = 0; i < n; ++i) {
            out.push_back(v[(i + rot) % n]);
        }
        return out;
    }
    const Layout &l_;
    size_t es_;
    SparseBuf mem_;
    VArray counts_;
    VArray displs_;
};

std::string describe(const char *coll, const Layout &l, uint32_t n, bool inplace) {
    return std::string(coll) + " (" + l.name + ", " + std::to_string(n) + " ranks" +
           (inplace ? ", in place)" : ")");
}

TEST(LargeOffsets, AllgathervPlacesBlocksAround2And4GiB) {
    for (const Layout &l : kLayouts) {
        for (uint32_t n : {2u, 4u}) {
            for (bool inplace : {false, true}) {
                const std::string what = describe("allgatherv", l, n, inplace);
                const size_t es = ucc::dt::size_of(l.dt);
                std::vector<std::unique_ptr<VBuffer>> dst;
                std::vector<SmallBuf> src;
                for (uint32_t r = 0; r < n; ++r) {
                    dst.push_back(std::make_unique<VBuffer>(l, n, 0));
                    src.emplace_back(l.counts[r] * es, r, true);
                    if (inplace) {
                        dst[r]->fill_block(r, r);
                    }
                }
                auto runs = run_on_team(n, false, {}, [&](uint32_t r) {
                    ucc_coll_args_t a{};
                    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                    a.flags = flags_of(l) | (inplace ? UCC_COLL_ARGS_FLAG_IN_PLACE : 0);
                    a.coll_type = UCC_COLL_TYPE_ALLGATHERV;
                    a.src.info = {src[r].data(), l.counts[r], l.dt, UCC_MEMORY_TYPE_HOST};
                    a.dst.info_v = dst[r]->info();
                    return a;
                });
                expect_all_ok(runs, what);
                for (uint32_t r = 0; r < n; ++r) {
                    std::vector<Block> blocks;
                    for (uint32_t i = 0; i < n; ++i) {
                        blocks.push_back(dst[r]->block(i, i));
                    }
                    EXPECT_EQ(dst[r]->check(blocks), "") << what << ", rank " << r << "'s dst";
                    EXPECT_EQ(src[r].check(), "") << what << ", rank " << r << "'s src";
                }
            }
        }
    }
}

TEST(LargeOffsets, GathervPlacesBlocksAround2And4GiB) {
    const uint32_t n = 3;
    const uint32_t root = 1;
    for (const Layout &l : kLayouts) {
        for (bool inplace : {false, true}) {
            const std::string what = describe("gatherv to root 1", l, n, inplace);
            const size_t es = ucc::dt::size_of(l.dt);
            VBuffer dst(l, n, 0);
            std::vector<SmallBuf> src;
            for (uint32_t r = 0; r < n; ++r) {
                src.emplace_back(l.counts[r] * es, r, true);
            }
            if (inplace) {
                dst.fill_block(root, root);
            }
            auto runs = run_on_team(n, false, {}, [&](uint32_t r) {
                ucc_coll_args_t a{};
                a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                a.flags = flags_of(l) | (inplace ? UCC_COLL_ARGS_FLAG_IN_PLACE : 0);
                a.coll_type = UCC_COLL_TYPE_GATHERV;
                a.root = root;
                a.src.info = {src[r].data(), l.counts[r], l.dt, UCC_MEMORY_TYPE_HOST};
                if (r == root) {
                    a.dst.info_v = dst.info();
                }
                return a;
            });
            expect_all_ok(runs, what);
            std::vector<Block> blocks;
            for (uint32_t i = 0; i < n; ++i) {
                blocks.push_back(dst.block(i, i));
                EXPECT_EQ(src[i].check(), "") << what << ", rank " << i << "'s src";
            }
            EXPECT_EQ(dst.check(blocks), "") << what << ", the root's dst";
        }
    }
}

TEST(LargeOffsets, ScattervTakesBlocksAround2And4GiB) {
    const uint32_t n = 4;
    const uint32_t root = 2;
    for (const Layout &l : kLayouts) {
        const std::string what = describe("scatterv from root 2", l, n, false);
        const size_t es = ucc::dt::size_of(l.dt);
        VBuffer src(l, n, 0);
        std::vector<Block> blocks;
        std::vector<SmallBuf> dst;
        for (uint32_t r = 0; r < n; ++r) {
            src.fill_block(r, r);
            blocks.push_back(src.block(r, r));
            dst.emplace_back(l.counts[r] * es, r, false);
        }
        auto runs = run_on_team(n, false, {}, [&](uint32_t r) {
            ucc_coll_args_t a{};
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = flags_of(l);
            a.coll_type = UCC_COLL_TYPE_SCATTERV;
            a.root = root;
            if (r == root) {
                a.src.info_v = src.info();
            }
            a.dst.info = {dst[r].data(), l.counts[r], l.dt, UCC_MEMORY_TYPE_HOST};
            return a;
        });
        expect_all_ok(runs, what);
        for (uint32_t r = 0; r < n; ++r) {
            EXPECT_EQ(dst[r].check(), "") << what << ", rank " << r << "'s dst";
        }
        EXPECT_EQ(src.check(blocks), "") << what << ", the root's src";
    }
}

TEST(LargeOffsets, AlltoallvPlacesBlocksAround2And4GiB) {
    // Rank r's block for peer j is layout entry (r + j) % n in both its src
    // and its dst, so each send matches its receive; the data of the block
    // from i to j has key i * n + j.
    const uint32_t n = 3;
    for (const Layout &l : kLayouts) {
        const std::string what = describe("alltoallv", l, n, false);
        std::vector<std::unique_ptr<VBuffer>> src;
        std::vector<std::unique_ptr<VBuffer>> dst;
        for (uint32_t r = 0; r < n; ++r) {
            src.push_back(std::make_unique<VBuffer>(l, n, r));
            dst.push_back(std::make_unique<VBuffer>(l, n, r));
            for (uint32_t j = 0; j < n; ++j) {
                src[r]->fill_block(j, r * n + j);
            }
        }
        auto runs = run_on_team(n, false, {}, [&](uint32_t r) {
            ucc_coll_args_t a{};
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = flags_of(l);
            a.coll_type = UCC_COLL_TYPE_ALLTOALLV;
            a.src.info_v = src[r]->info();
            a.dst.info_v = dst[r]->info();
            return a;
        });
        expect_all_ok(runs, what);
        for (uint32_t r = 0; r < n; ++r) {
            std::vector<Block> sent;
            std::vector<Block> received;
            for (uint32_t i = 0; i < n; ++i) {
                sent.push_back(src[r]->block(i, r * n + i));
                received.push_back(dst[r]->block(i, i * n + r));
            }
            EXPECT_EQ(dst[r]->check(received), "") << what << ", rank " << r << "'s dst";
            EXPECT_EQ(src[r]->check(sent), "") << what << ", rank " << r << "'s src";
        }
    }
}

// ---- timing-only runs: counts above 2^31 and 2^32 elements ----

// Address space no byte of which may be touched: the buffers of timing-only
// runs (src at the start, dst in the second half).
class Reserved {
  public:
    static constexpr uint64_t kBytes = uint64_t{1} << 37;
    Reserved() {
        void *p =
            mmap(nullptr, kBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        base_ = p == MAP_FAILED ? nullptr : static_cast<uint8_t *>(p);
    }
    ~Reserved() {
        if (base_ != nullptr) {
            munmap(base_, kBytes);
        }
    }
    Reserved(const Reserved &) = delete;
    Reserved &operator=(const Reserved &) = delete;
    bool ok() const { return base_ != nullptr; }
    void *src() const { return base_; }
    void *dst() const { return base_ + kBytes / 2; }

  private:
    uint8_t *base_ = nullptr;
};

// The fastest link of the network the runs use, bytes per second.
double max_bandwidth() {
    ucc::net::NetworkModel net;
    std::string err;
    EXPECT_EQ(ucc::net::parse_network("hdr", &net, &err), UCC_OK) << err;
    return static_cast<double>(std::max(net.bw_intra_bps, net.bw_inter_bps));
}

// Times one timing-only collective; checks that it completes and takes at
// least `min_bytes` at the fastest link's bandwidth.
double timed(uint32_t n, const ucc::testkit::EnvParams &env, const std::string &what,
             uint64_t min_bytes, const std::function<ucc_coll_args_t(uint32_t)> &args_of) {
    const double seconds = expect_all_ok(run_on_team(n, true, env, args_of), what);
    EXPECT_GE(seconds, static_cast<double>(min_bytes) / max_bandwidth())
        << what << ": faster than its bytes allow";
    return seconds;
}

void expect_doubles(double once, double twice, const std::string &what) {
    EXPECT_GE(twice, 1.6 * once) << what << ": " << once << " s, then " << twice << " s";
    EXPECT_LE(twice, 2.4 * once) << what << ": " << once << " s, then " << twice << " s";
}

struct Sized {
    ucc_coll_type_t type;
    ucc_datatype_t dt;
    uint64_t count;  // vector length (allreduce, bcast) or block (allgather, alltoall)
};

// Every timed collective is run with `count` and 2 * `count` on 3 ranks:
// counts 2^31+5 and 2^32+10, n x count up to about 3 x 2^32.
constexpr Sized kSized[] = {
    {UCC_COLL_TYPE_BCAST, UCC_DT_INT8, k2G + 5},
    {UCC_COLL_TYPE_ALLREDUCE, UCC_DT_FLOAT32, k2G + 5},
    // Blocks below 2^31 with n x count above it (2^31 + 2^30 + 3), then above.
    {UCC_COLL_TYPE_ALLGATHER, UCC_DT_INT8, (k2G >> 1) + 1},
    {UCC_COLL_TYPE_ALLTOALL, UCC_DT_INT8, (k2G >> 1) + 1},
    {UCC_COLL_TYPE_ALLGATHER, UCC_DT_INT16, k2G + 5},
    {UCC_COLL_TYPE_ALLTOALL, UCC_DT_UINT8, k2G + 5},
    // The rooted ones and reduce_scatter (root 1 of 3).
    {UCC_COLL_TYPE_REDUCE, UCC_DT_INT32, k2G + 5},
    {UCC_COLL_TYPE_GATHER, UCC_DT_INT8, k2G + 5},
    {UCC_COLL_TYPE_SCATTER, UCC_DT_INT8, k2G + 5},
    {UCC_COLL_TYPE_REDUCE_SCATTER, UCC_DT_FLOAT64, (k2G >> 1) + 1},
};

bool is_type(const Sized &s, std::initializer_list<ucc_coll_type_t> types) {
    return std::find(types.begin(), types.end(), s.type) != types.end();
}

ucc_coll_args_t sized_args(const Sized &s, uint64_t count, uint32_t n, const Reserved &mem) {
    ucc_coll_args_t a{};
    a.coll_type = s.type;
    a.op = UCC_OP_SUM;
    a.root = 1;
    const bool n_src =
        is_type(s, {UCC_COLL_TYPE_ALLTOALL, UCC_COLL_TYPE_SCATTER, UCC_COLL_TYPE_REDUCE_SCATTER});
    const bool n_dst =
        is_type(s, {UCC_COLL_TYPE_ALLGATHER, UCC_COLL_TYPE_ALLTOALL, UCC_COLL_TYPE_GATHER});
    a.src.info = {mem.src(), n_src ? n * count : count, s.dt, UCC_MEMORY_TYPE_HOST};
    if (s.type != UCC_COLL_TYPE_BCAST) {
        a.dst.info = {mem.dst(), n_dst ? n * count : count, s.dt, UCC_MEMORY_TYPE_HOST};
    }
    return a;
}

// Bytes some rank must send: every element of every rank's data reaches
// another rank (bcast: the root's vector; gather: some block; reduce: every
// non-root's vector), every rank all but its 1/n share of the vector
// (allreduce), some rank n - 1 blocks (the others).
uint64_t min_bytes(const Sized &s, uint64_t count, uint32_t n) {
    const uint64_t bytes = count * ucc::dt::size_of(s.dt);
    if (is_type(s, {UCC_COLL_TYPE_BCAST, UCC_COLL_TYPE_GATHER, UCC_COLL_TYPE_REDUCE})) {
        return bytes;
    }
    return s.type == UCC_COLL_TYPE_ALLREDUCE ? bytes / n * (n - 1) : bytes * (n - 1);
}

TEST(LargeOffsets, TimingOnlyCountsAbove2And4G) {
    const uint32_t n = 3;
    Reserved mem;
    ASSERT_TRUE(mem.ok());
    for (const Sized &s : kSized) {
        for (const ucc::coll::Algorithm &alg : ucc::coll::algorithms(s.type)) {
            if (alg.onesided || !alg.supports(ucc::coll::Args{}, n)) {
                continue;  // mapped memory: tests/integration/onesided_test.cc; or
                           // refused on 3 ranks (allgather neighbor)
            }
            ucc::testkit::EnvParams env;
            env.type = s.type;
            env.alg = alg.name;
            env.reduce_chunk = uint64_t{64} << 20;  // few chunks of huge vectors
            env.segment = int64_t{64} << 20;        // and few segments
            const std::string what = std::string(ucc::testkit::coll_name(s.type)) + " " + alg.name +
                                     ", count " + std::to_string(s.count);
            double seconds[2];
            for (uint64_t k : {1u, 2u}) {
                const uint64_t count = k * s.count;
                seconds[k - 1] =
                    timed(n, env, what + " x" + std::to_string(k), min_bytes(s, count, n),
                          [&](uint32_t) { return sized_args(s, count, n, mem); });
            }
            expect_doubles(seconds[0], seconds[1], what);
        }
    }
}

// The v-collectives of a timing-only run on 3 ranks (root 1): rank i's block
// of {big, 5, big} elements (allgatherv, gatherv, scatterv,
// reduce_scatterv), and for alltoallv a block between i and j (either way)
// that is big when (i + j) % 3 == 1. Displacements are prefix sums, and fit
// in 32 bits while big is below 2^32.
class BigBlocks {
  public:
    static constexpr uint32_t kRanks = 3;
    BigBlocks(uint64_t big, bool wide)
        : flags_(wide ? UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT
                      : 0),
          counts_({big, 5, big}, wide),
          displs_(prefix({big, 5, big}), wide),
          total_(2 * big + 5) {
        for (uint32_t r = 0; r < kRanks; ++r) {
            std::vector<uint64_t> c;
            for (uint32_t j = 0; j < kRanks; ++j) {
                c.push_back((r + j) % kRanks == 1 ? big : 5 + r + j);
            }
            a2a_counts_.emplace_back(c, wide);
            a2a_displs_.emplace_back(prefix(c), wide);
        }
    }

    ucc_coll_args_t args(ucc_coll_type_t t, uint32_t r, const Reserved &mem) {
        ucc_coll_args_t a{};
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = flags_;
        a.coll_type = t;
        a.root = 1;
        a.op = UCC_OP_SUM;
        const ucc_coll_buffer_info_t mine = {mem.src(), counts_[r], UCC_DT_INT8,
                                             UCC_MEMORY_TYPE_HOST};
        auto all = [&](void *buf) {
            return ucc_coll_buffer_info_v_t{buf, counts_.data(), displs_.data(), UCC_DT_INT8,
                                            UCC_MEMORY_TYPE_HOST};
        };
        switch (t) {
            case UCC_COLL_TYPE_ALLGATHERV:
            case UCC_COLL_TYPE_GATHERV:
                a.src.info = mine;
                a.dst.info_v = all(mem.dst());
                break;
            case UCC_COLL_TYPE_SCATTERV:
                a.src.info_v = all(mem.src());
                a.dst.info = {mem.dst(), counts_[r], UCC_DT_INT8, UCC_MEMORY_TYPE_HOST};
                break;
            case UCC_COLL_TYPE_REDUCE_SCATTERV:
                a.src.info = {mem.src(), total_, UCC_DT_INT8, UCC_MEMORY_TYPE_HOST};
                a.dst.info_v = all(mem.dst());
                a.dst.info_v.displacements = nullptr;
                break;
            default:  // alltoallv: as much from j as to j
                a.src.info_v = {mem.src(), a2a_counts_[r].data(), a2a_displs_[r].data(),
                                UCC_DT_INT8, UCC_MEMORY_TYPE_HOST};
                a.dst.info_v = a.src.info_v;
                a.dst.info_v.buffer = mem.dst();
                break;
        }
        return a;
    }

  private:
    static std::vector<uint64_t> prefix(const std::vector<uint64_t> &c) {
        std::vector<uint64_t> d(c.size(), 0);
        for (size_t i = 1; i < c.size(); ++i) {
            d[i] = d[i - 1] + c[i - 1];
        }
        return d;
    }
    uint64_t flags_;
    VArray counts_;
    VArray displs_;
    uint64_t total_;
    std::vector<VArray> a2a_counts_;
    std::vector<VArray> a2a_displs_;
};

TEST(LargeOffsets, TimingOnlyVCountsAbove2GIn32BitArrays) {
    // Big blocks of 2^31 + 3 elements in 32-bit arrays, twice that in 64-bit
    // ones; some rank sends a big block in each collective.
    Reserved mem;
    ASSERT_TRUE(mem.ok());
    for (ucc_coll_type_t t :
         {UCC_COLL_TYPE_ALLGATHERV, UCC_COLL_TYPE_GATHERV, UCC_COLL_TYPE_SCATTERV,
          UCC_COLL_TYPE_REDUCE_SCATTERV, UCC_COLL_TYPE_ALLTOALLV}) {
        double seconds[2];
        for (bool wide : {false, true}) {
            const uint64_t big = (k2G + 3) * (wide ? 2 : 1);
            BigBlocks blocks(big, wide);
            const std::string what = std::string(ucc::testkit::coll_name(t)) +
                                     (wide ? ", 64-bit arrays" : ", 32-bit arrays");
            seconds[wide] = timed(BigBlocks::kRanks, {}, what, big,
                                  [&](uint32_t r) { return blocks.args(t, r, mem); });
        }
        expect_doubles(seconds[0], seconds[1],
                       std::string(ucc::testkit::coll_name(t)) + ", 32-bit then 64-bit counts");
    }
}

}  // namespace
