// Network presets, the spec parser and the model's printed form.
#include "lib/net/network_model.h"

#include <cstring>
#include <string_view>

#include "lib/util/parse.h"

namespace ucc::net {

namespace {

constexpr int64_t kNs = 1'000;
constexpr int64_t kUs = 1'000'000;
constexpr uint64_t kGBps = 1'000'000'000;

// Largest accepted time (1,000,000 s) and bandwidth (1 PB/s).
constexpr int64_t kTimeMaxPs = 1'000'000'000'000'000'000;
constexpr uint64_t kBandwidthMax = 1'000'000'000'000'000;

const char *const kKnownKeys =
    "ppn, lat, lat_intra, lat_inter, bw, bw_intra, bw_inter, o, o_send, o_recv, o_call, o_init, g, "
    "copy, "
    "reduce, jitter, nic_bw, nic_rate, node_bw, rndv, rndv_inter, rndv_intra, bcopy, bcopy_intra, "
    "bcopy_inter, o_bcopy, short, short_intra, short_inter, zcopy, zcopy_intra, zcopy_inter, "
    "dma_read, sharp_lat, sharp_bw, cma, o_cma, cache, cma_mem, copy_mem, reduce_mem, "
    "cma_written, o_cma_written, cma_mem_written, cores, wake, noise_hz, noise, pcie_lat, pcie_bw, "
    "gpu_lat, gpu_bw, gpu_reduce_bw, nvlink_bw";
const char *const kKnownPresets = "ideal, hdr, eth100, slow";

struct Unit {
    const char *name;
    uint64_t num;  // value = number * num / den
    uint64_t den;
};

constexpr Unit kTimeUnits[] = {
    {"ps", 1, 1},
    {"ns", 1'000, 1},
    {"us", 1'000'000, 1},
    {"ms", 1'000'000'000, 1},
    {"s", 1'000'000'000'000, 1},
};

constexpr Unit kBandwidthUnits[] = {
    {"B/s", 1, 1},
    {"KB/s", 1'000, 1},
    {"MB/s", 1'000'000, 1},
    {"GB/s", 1'000'000'000, 1},
    {"TB/s", 1'000'000'000'000, 1},
    {"KiB/s", 1ull << 10, 1},
    {"MiB/s", 1ull << 20, 1},
    {"GiB/s", 1ull << 30, 1},
    {"b/s", 1, 8},
    {"Kb/s", 1'000, 8},
    {"Mb/s", 1'000'000, 8},
    {"Gb/s", 1'000'000'000, 8},
    {"Tb/s", 1'000'000'000'000, 8},
};

// Parses a non-negative decimal number followed by one of `units` into an exact
// rounded integer. A bare "0" needs no unit. "inf" is accepted when allow_inf.
bool parse_quantity(std::string_view s, const Unit *units, size_t n_units, unsigned __int128 max,
                    unsigned __int128 *out) {
    size_t i = 0;
    unsigned __int128 mant = 0;
    unsigned __int128 scale = 1;  // 10^(fraction digits)
    int digits = 0;
    bool dot = false;
    for (; i < s.size(); ++i) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            if (++digits > 24) {  // keeps mant * unit within 128 bits
                return false;
            }
            mant = mant * 10 + static_cast<unsigned>(c - '0');
            if (dot) {
                scale *= 10;
            }
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (digits == 0) {
        return false;
    }
    std::string_view unit = s.substr(i);
    if (unit.empty()) {
        if (mant != 0) {
            return false;  // a non-zero quantity needs its unit
        }
        *out = 0;
        return true;
    }
    for (size_t u = 0; u < n_units; ++u) {
        if (unit == units[u].name) {
            unsigned __int128 num = mant * units[u].num;
            unsigned __int128 den = scale * units[u].den;
            unsigned __int128 v = (num + den / 2) / den;
            if (v > max) {
                return false;
            }
            *out = v;
            return true;
        }
    }
    return false;
}

bool parse_time(std::string_view s, int64_t *out) {
    unsigned __int128 v = 0;
    if (!parse_quantity(s, kTimeUnits, std::size(kTimeUnits), kTimeMaxPs, &v)) {
        return false;
    }
    *out = static_cast<int64_t>(v);
    return true;
}

bool parse_bandwidth(std::string_view s, uint64_t *out) {
    if (s == "inf") {
        *out = 0;
        return true;
    }
    unsigned __int128 v = 0;
    if (!parse_quantity(s, kBandwidthUnits, std::size(kBandwidthUnits), kBandwidthMax, &v) ||
        v == 0) {
        return false;
    }
    *out = static_cast<uint64_t>(v);
    return true;
}

bool parse_count(std::string_view s, uint32_t *out) {
    return parse_u32(s, out) && *out != 0 && *out <= (1u << 31);
}

// "215M", "1.5G", "800K", "0": a count per second.
constexpr Unit kRateUnits[] = {
    {"/s", 1, 1},          {"K", 1'000, 1},         {"K/s", 1'000, 1},         {"M", 1'000'000, 1},
    {"M/s", 1'000'000, 1}, {"G", 1'000'000'000, 1}, {"G/s", 1'000'000'000, 1},
};
// A bare number means units of one.
std::string with_unit(std::string_view s, const char *unit) {
    std::string v(s);
    if (!v.empty() && v.back() >= '0' && v.back() <= '9') {
        v += unit;
    }
    return v;
}

bool parse_rate(std::string_view s, uint64_t *out) {
    unsigned __int128 v = 0;
    if (!parse_quantity(with_unit(s, "/s"), kRateUnits, std::size(kRateUnits), kBandwidthMax, &v)) {
        return false;
    }
    *out = static_cast<uint64_t>(v);
    return true;
}

// "8K", "64KiB", "1M", "512", "inf": a size in bytes (K, M, G: powers of 1024).
constexpr Unit kSizeUnits[] = {
    {"B", 1, 1},
    {"K", 1ull << 10, 1},
    {"KiB", 1ull << 10, 1},
    {"M", 1ull << 20, 1},
    {"MiB", 1ull << 20, 1},
    {"G", 1ull << 30, 1},
    {"GiB", 1ull << 30, 1},
};
bool parse_size(std::string_view s, uint64_t *out) {
    if (s == "inf") {
        *out = NetworkModel::kNoRndv;
        return true;
    }
    unsigned __int128 v = 0;
    if (!parse_quantity(with_unit(s, "B"), kSizeUnits, std::size(kSizeUnits), uint64_t{1} << 62,
                        &v)) {
        return false;
    }
    *out = static_cast<uint64_t>(v);
    return true;
}

std::string format_size(uint64_t v) {
    return v == NetworkModel::kNoRndv ? "inf" : std::to_string(v);
}

// Exact decimal of v / unit with trailing zeros stripped.
std::string exact_decimal(uint64_t v, uint64_t unit) {
    std::string s = std::to_string(v / unit);
    uint64_t frac = v % unit;
    if (frac != 0) {
        std::string f;
        for (uint64_t d = unit / 10; d > 0; d /= 10) {
            f.push_back(static_cast<char>('0' + (frac / d) % 10));
        }
        while (!f.empty() && f.back() == '0') {
            f.pop_back();
        }
        s += "." + f;
    }
    return s;
}

}  // namespace

int64_t NetworkModel::bytes_cost_ps(uint64_t bytes, uint64_t bandwidth_bps) {
    if (bandwidth_bps == 0 || bytes == 0) {
        return 0;
    }
    unsigned __int128 num = static_cast<unsigned __int128>(bytes) * 1'000'000'000'000ull;
    unsigned __int128 ps = (num + bandwidth_bps - 1) / bandwidth_bps;
    if (ps > static_cast<unsigned __int128>(INT64_MAX / 4)) {
        return INT64_MAX / 4;
    }
    return static_cast<int64_t>(ps);
}

std::string format_time_ps(int64_t ps) {
    if (ps <= 0) {
        return "0";
    }
    uint64_t v = static_cast<uint64_t>(ps);
    if (v >= 1'000'000'000'000ull) {
        return exact_decimal(v, 1'000'000'000'000ull) + "s";
    }
    if (v >= 1'000'000'000ull) {
        return exact_decimal(v, 1'000'000'000ull) + "ms";
    }
    if (v >= 1'000'000ull) {
        return exact_decimal(v, 1'000'000ull) + "us";
    }
    if (v >= 1'000ull) {
        return exact_decimal(v, 1'000ull) + "ns";
    }
    return std::to_string(v) + "ps";
}

std::string format_bandwidth(uint64_t bps) {
    if (bps == 0) {
        return "inf";
    }
    if (bps >= 1'000'000'000'000ull) {
        return exact_decimal(bps, 1'000'000'000'000ull) + "TB/s";
    }
    if (bps >= kGBps) {
        return exact_decimal(bps, kGBps) + "GB/s";
    }
    if (bps >= 1'000'000ull) {
        return exact_decimal(bps, 1'000'000ull) + "MB/s";
    }
    if (bps >= 1'000ull) {
        return exact_decimal(bps, 1'000ull) + "KB/s";
    }
    return std::to_string(bps) + "B/s";
}

std::string NetworkModel::describe() const {
    std::string s = preset;
    s += ",ppn=" + std::to_string(ranks_per_node);
    s += ",lat_intra=" + format_time_ps(lat_intra_ps);
    s += ",lat_inter=" + format_time_ps(lat_inter_ps);
    s += ",bw_intra=" + format_bandwidth(bw_intra_bps);
    s += ",bw_inter=" + format_bandwidth(bw_inter_bps);
    s += ",o_send=" + format_time_ps(o_send_ps);
    s += ",o_recv=" + format_time_ps(o_recv_ps);
    s += ",g=" + format_time_ps(gap_ps);
    s += ",copy=" + format_bandwidth(copy_bps);
    s += ",reduce=" + format_bandwidth(reduce_bps);
    s += ",jitter=" + format_time_ps(jitter_max_ps);
    // The shared resources and rendezvous only when modelled (the form of
    // the models without them is unchanged).
    if (nic_bw_bps != 0) {
        s += ",nic_bw=" + format_bandwidth(nic_bw_bps);
    }
    if (nic_rate != 0) {
        s += ",nic_rate=" + std::to_string(nic_rate);
    }
    if (node_bw_bps != 0) {
        s += ",node_bw=" + format_bandwidth(node_bw_bps);
    }
    if (rndv_inter != kNoRndv) {
        s += ",rndv_inter=" + format_size(rndv_inter);
    }
    if (rndv_intra != kNoRndv) {
        s += ",rndv_intra=" + format_size(rndv_intra);
    }
    if (bcopy_intra_bps != 0) {
        s += ",bcopy_intra=" + format_bandwidth(bcopy_intra_bps);
    }
    if (bcopy_inter_bps != 0) {
        s += ",bcopy_inter=" + format_bandwidth(bcopy_inter_bps);
    }
    if (o_call_ps != 0) {
        s += ",o_call=" + format_time_ps(o_call_ps);
    }
    if (o_init_ps != 0) {
        s += ",o_init=" + format_time_ps(o_init_ps);
    }
    if (o_bcopy_ps != 0) {
        s += ",o_bcopy=" + format_time_ps(o_bcopy_ps);
    }
    if (short_intra != 0) {
        s += ",short_intra=" + format_size(short_intra);
    }
    if (short_inter != 0) {
        s += ",short_inter=" + format_size(short_inter);
    }
    if (zcopy_intra != kNoRndv) {
        s += ",zcopy_intra=" + format_size(zcopy_intra);
    }
    if (zcopy_inter != kNoRndv) {
        s += ",zcopy_inter=" + format_size(zcopy_inter);
    }
    if (dma_read_ps != 0) {
        s += ",dma_read=" + format_time_ps(dma_read_ps);
    }
    if (sharp_lat_ps != 0) {
        s += ",sharp_lat=" + format_time_ps(sharp_lat_ps);
        s += ",sharp_bw=" + format_bandwidth(sharp_bw_bps);
    }
    if (cma_bps != 0) {
        s += ",cma=" + format_bandwidth(cma_bps);
    }
    if (o_cma_ps != 0) {
        s += ",o_cma=" + format_time_ps(o_cma_ps);
    }
    if (cache_bytes != 0) {
        s += ",cache=" + format_size(cache_bytes);
    }
    if (cma_mem_bps != 0) {
        s += ",cma_mem=" + format_bandwidth(cma_mem_bps);
    }
    if (cma_written_bps != 0) {
        s += ",cma_written=" + format_bandwidth(cma_written_bps);
    }
    if (o_cma_written_ps != 0) {
        s += ",o_cma_written=" + format_time_ps(o_cma_written_ps);
    }
    if (cma_mem_written_bps != 0) {
        s += ",cma_mem_written=" + format_bandwidth(cma_mem_written_bps);
    }
    if (copy_mem_bps != 0) {
        s += ",copy_mem=" + format_bandwidth(copy_mem_bps);
    }
    if (reduce_mem_bps != 0) {
        s += ",reduce_mem=" + format_bandwidth(reduce_mem_bps);
    }
    if (cores != 0) {
        s += ",cores=" + std::to_string(cores);
    }
    if (wake_ps != 0) {
        s += ",wake=" + format_time_ps(wake_ps);
    }
    if (noise_hz != 0) {
        s += ",noise_hz=" + std::to_string(noise_hz);
    }
    if (noise_ps != 0) {
        s += ",noise=" + format_time_ps(noise_ps);
    }
    if (pcie_lat_ps != 0) {
        s += ",pcie_lat=" + format_time_ps(pcie_lat_ps);
    }
    if (pcie_bw_bps != 0) {
        s += ",pcie_bw=" + format_bandwidth(pcie_bw_bps);
    }
    if (gpu_lat_ps != 0) {
        s += ",gpu_lat=" + format_time_ps(gpu_lat_ps);
    }
    if (gpu_bw_bps != 0) {
        s += ",gpu_bw=" + format_bandwidth(gpu_bw_bps);
    }
    if (gpu_reduce_bps != 0) {
        s += ",gpu_reduce_bw=" + format_bandwidth(gpu_reduce_bps);
    }
    if (nvlink_bw_bps != 0) {
        s += ",nvlink_bw=" + format_bandwidth(nvlink_bw_bps);
    }
    return s;
}

bool network_preset(const std::string &name, NetworkModel *out) {
    NetworkModel m;  // the defaults are the "hdr" preset
    if (name == "hdr") {
        // InfiniBand-HDR-like cluster, 8 ranks per node.
    } else if (name == "ideal") {
        // Zero cost everywhere: only ordering rules remain.
        m.ranks_per_node = 1;
        m.lat_intra_ps = m.lat_inter_ps = 0;
        m.bw_intra_bps = m.bw_inter_bps = 0;
        m.o_send_ps = m.o_recv_ps = m.gap_ps = 0;
        m.copy_bps = m.reduce_bps = 0;
        m.jitter_max_ps = 0;
    } else if (name == "eth100") {
        // 100 Gb Ethernet (TCP/RoCE-like): higher latency and overheads.
        m.lat_intra_ps = 300 * kNs;
        m.lat_inter_ps = 5 * kUs;
        m.bw_inter_bps = 12'500'000'000;
        m.o_send_ps = m.o_recv_ps = 500 * kNs;
        m.gap_ps = 100 * kNs;
        m.jitter_max_ps = 200 * kNs;
    } else if (name == "slow") {
        // Big latencies and a jitter larger than them, to shake out ordering bugs.
        m.ranks_per_node = 4;
        m.lat_intra_ps = 5 * kUs;
        m.lat_inter_ps = 50 * kUs;
        m.bw_intra_bps = 5 * kGBps;
        m.bw_inter_bps = 1 * kGBps;
        m.o_send_ps = m.o_recv_ps = 2 * kUs;
        m.gap_ps = 1 * kUs;
        m.copy_bps = 2 * kGBps;
        m.reduce_bps = 1 * kGBps;
        m.jitter_max_ps = 200 * kUs;
    } else {
        return false;
    }
    m.preset = name;
    *out = m;
    return true;
}

ucc_status_t parse_network(const char *spec, NetworkModel *out, std::string *error) {
    std::string_view all = trim(spec == nullptr ? std::string_view() : std::string_view(spec));
    auto fail = [&](const std::string &msg) {
        if (error != nullptr) {
            *error = "network spec \"" + std::string(all) + "\": " + msg;
        }
        return UCC_ERR_INVALID_PARAM;
    };
    NetworkModel m;
    network_preset("hdr", &m);
    if (all.empty()) {
        *out = m;
        return UCC_OK;
    }
    size_t pos = 0;
    bool first = true;
    while (pos <= all.size()) {
        size_t comma = all.find(',', pos);
        if (comma == std::string_view::npos) {
            comma = all.size();
        }
        std::string_view item = trim(all.substr(pos, comma - pos));
        pos = comma + 1;
        if (item.empty()) {
            return fail("empty item");
        }
        size_t eq = item.find('=');
        if (eq == std::string_view::npos) {
            if (!first) {
                return fail("\"" + std::string(item) +
                            "\" is not key=value (a preset name may only come first)");
            }
            if (!network_preset(std::string(item), &m)) {
                return fail("unknown preset \"" + std::string(item) +
                            "\" (presets: " + kKnownPresets + ")");
            }
            first = false;
            continue;
        }
        first = false;
        std::string_view key = trim(item.substr(0, eq));
        std::string_view val = trim(item.substr(eq + 1));
        auto bad_value = [&](const char *expect) {
            return fail("bad value \"" + std::string(val) + "\" for " + std::string(key) +
                        ": expected " + expect);
        };
        const char *time_expect = "a time like 1.3us (units ps, ns, us, ms, s)";
        const char *bw_expect =
            "a bandwidth like 12.5GB/s (units B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, "
            "Gb/s) or inf";
        int64_t t = 0;
        uint64_t bw = 0;
        if (key == "ppn") {
            if (!parse_count(val, &m.ranks_per_node)) {
                return bad_value("a rank count >= 1");
            }
        } else if (key == "lat" || key == "lat_intra" || key == "lat_inter" || key == "o" ||
                   key == "o_send" || key == "o_recv" || key == "g" || key == "jitter" ||
                   key == "sharp_lat" || key == "o_bcopy" || key == "o_call" || key == "o_init" ||
                   key == "dma_read" || key == "wake" || key == "o_cma" || key == "o_cma_written" ||
                   key == "noise" || key == "pcie_lat" || key == "gpu_lat") {
            if (!parse_time(val, &t)) {
                return bad_value(time_expect);
            }
            if (key == "lat") {
                m.lat_intra_ps = m.lat_inter_ps = t;
            } else if (key == "lat_intra") {
                m.lat_intra_ps = t;
            } else if (key == "lat_inter") {
                m.lat_inter_ps = t;
            } else if (key == "o") {
                m.o_send_ps = m.o_recv_ps = t;
            } else if (key == "o_send") {
                m.o_send_ps = t;
            } else if (key == "o_recv") {
                m.o_recv_ps = t;
            } else if (key == "g") {
                m.gap_ps = t;
            } else if (key == "sharp_lat") {
                m.sharp_lat_ps = t;
            } else if (key == "o_bcopy") {
                m.o_bcopy_ps = t;
            } else if (key == "o_call") {
                m.o_call_ps = t;
            } else if (key == "o_init") {
                m.o_init_ps = t;
            } else if (key == "dma_read") {
                m.dma_read_ps = t;
            } else if (key == "wake") {
                m.wake_ps = t;
            } else if (key == "o_cma") {
                m.o_cma_ps = t;
            } else if (key == "o_cma_written") {
                m.o_cma_written_ps = t;
            } else if (key == "noise") {
                m.noise_ps = t;
            } else if (key == "pcie_lat") {
                m.pcie_lat_ps = t;
            } else if (key == "gpu_lat") {
                m.gpu_lat_ps = t;
            } else {
                m.jitter_max_ps = t;
            }
        } else if (key == "nic_rate" || key == "noise_hz") {
            if (!parse_rate(val, key == "nic_rate" ? &m.nic_rate : &m.noise_hz)) {
                return bad_value("a count per second like 215M (suffixes K, M, G; 0: off)");
            }
        } else if (key == "rndv" || key == "rndv_inter" || key == "rndv_intra" || key == "zcopy" ||
                   key == "zcopy_inter" || key == "zcopy_intra" || key == "short" ||
                   key == "short_inter" || key == "short_intra" || key == "cache") {
            uint64_t size = 0;
            if (!parse_size(val, &size)) {
                return bad_value("a size in bytes like 8K (K, M, G: powers of 1024) or inf");
            }
            if (key == "cache") {
                m.cache_bytes = size == NetworkModel::kNoRndv ? 0 : size;  // inf: no limit
                continue;
            }
            uint64_t *inter = key.starts_with("rndv")    ? &m.rndv_inter
                              : key.starts_with("zcopy") ? &m.zcopy_inter
                                                         : &m.short_inter;
            uint64_t *intra = key.starts_with("rndv")    ? &m.rndv_intra
                              : key.starts_with("zcopy") ? &m.zcopy_intra
                                                         : &m.short_intra;
            if (!key.ends_with("_intra")) {
                *inter = size;
            }
            if (!key.ends_with("_inter")) {
                *intra = size;
            }
        } else if (key == "cores") {
            uint32_t cores = 0;
            if (val != "0" && !parse_count(val, &cores)) {
                return bad_value("a core count (0: a core per rank)");
            }
            m.cores = cores;
        } else if (key == "nic_bw" || key == "node_bw" || key == "sharp_bw" || key == "cma" ||
                   key == "cma_mem" || key == "copy_mem" || key == "reduce_mem" ||
                   key == "cma_written" || key == "cma_mem_written" || key == "pcie_bw" ||
                   key == "gpu_bw" || key == "gpu_reduce_bw" || key == "nvlink_bw") {
            if (!parse_bandwidth(val, &bw)) {
                return bad_value(bw_expect);
            }
            (key == "nic_bw"            ? m.nic_bw_bps
             : key == "node_bw"         ? m.node_bw_bps
             : key == "cma"             ? m.cma_bps
             : key == "cma_mem"         ? m.cma_mem_bps
             : key == "cma_written"     ? m.cma_written_bps
             : key == "cma_mem_written" ? m.cma_mem_written_bps
             : key == "copy_mem"        ? m.copy_mem_bps
             : key == "reduce_mem"      ? m.reduce_mem_bps
             : key == "pcie_bw"         ? m.pcie_bw_bps
             : key == "gpu_bw"          ? m.gpu_bw_bps
             : key == "gpu_reduce_bw"   ? m.gpu_reduce_bps
             : key == "nvlink_bw"       ? m.nvlink_bw_bps
                                        : m.sharp_bw_bps) = bw;
        } else if (key == "bcopy" || key == "bcopy_intra" || key == "bcopy_inter") {
            if (!parse_bandwidth(val, &bw)) {
                return bad_value(bw_expect);
            }
            if (key != "bcopy_intra") {
                m.bcopy_inter_bps = bw;
            }
            if (key != "bcopy_inter") {
                m.bcopy_intra_bps = bw;
            }
        } else if (key == "bw" || key == "bw_intra" || key == "bw_inter" || key == "copy" ||
                   key == "reduce") {
            if (!parse_bandwidth(val, &bw)) {
                return bad_value(bw_expect);
            }
            if (key == "bw") {
                m.bw_intra_bps = m.bw_inter_bps = bw;
            } else if (key == "bw_intra") {
                m.bw_intra_bps = bw;
            } else if (key == "bw_inter") {
                m.bw_inter_bps = bw;
            } else if (key == "copy") {
                m.copy_bps = bw;
            } else {
                m.reduce_bps = bw;
            }
        } else {
            return fail("unknown key \"" + std::string(key) + "\" (keys: " + kKnownKeys + ")");
        }
    }
    if (m.noise_period_ps() != 0 && m.noise_ps >= m.noise_period_ps()) {
        return fail("noise (" + format_time_ps(m.noise_ps) +
                    ") must be shorter than the time between detours (1 / noise_hz)");
    }
    *out = m;
    return UCC_OK;
}

cost::Params cost_params(const NetworkModel &m) {
    auto seconds = [](int64_t ps) { return static_cast<double>(ps) * 1e-12; };
    auto per_byte = [](uint64_t bps) { return bps == 0 ? 0.0 : 1.0 / static_cast<double>(bps); };
    auto size = [](uint64_t bytes) {
        return bytes == NetworkModel::kNoRndv ? cost::Protocol::kNever : static_cast<double>(bytes);
    };
    cost::Params p;
    p.ppn = m.ranks_per_node;
    p.intra = {seconds(m.lat_intra_ps), per_byte(m.bw_intra_bps), 0};
    p.inter = {seconds(m.lat_inter_ps), per_byte(m.bw_inter_bps), 1};
    p.o_send = seconds(m.o_send_ps);
    p.o_recv = seconds(m.o_recv_ps);
    p.gap = seconds(m.gap_ps);
    p.copy = per_byte(m.copy_bps);
    p.reduce = per_byte(m.reduce_bps);
    p.o_call = seconds(m.o_call_ps);
    p.sharp_lat = seconds(m.sharp_lat_ps);
    p.sharp_G = per_byte(m.sharp_bw_bps);
    p.nic_G = per_byte(m.nic_bw_bps);
    p.nic_msg = m.nic_rate == 0 ? 0.0 : 1.0 / static_cast<double>(m.nic_rate);
    for (const bool within : {true, false}) {
        cost::Protocol &x = within ? p.intra_msgs : p.inter_msgs;
        x.inline_max = static_cast<double>(within ? m.short_intra : m.short_inter);
        x.zcopy = size(within ? m.zcopy_intra : m.zcopy_inter);
        x.bcopy_G = per_byte(within ? m.bcopy_intra_bps : m.bcopy_inter_bps);
        x.o_bcopy = x.bcopy_G > 0 ? seconds(m.o_bcopy_ps) : 0;
        x.rndv = size(within ? m.rndv_intra : m.rndv_inter);
        x.rndv_wait = 2 * seconds(within ? m.lat_intra_ps : m.lat_inter_ps);
    }
    p.intra_msgs.pulls = m.cma_bps != 0;
    p.intra_msgs.o_pull = seconds(m.o_cma_ps);
    p.intra_msgs.pull_G = per_byte(m.cma_bps);
    p.inter_msgs.dma = seconds(m.dma_read_ps);
    p.cores = m.cores;
    p.wake = seconds(m.wake_ps);
    p.cache = static_cast<double>(m.cache_bytes);
    p.copy_mem = per_byte(m.copy_mem_bps);
    p.reduce_mem = per_byte(m.reduce_mem_bps);
    p.pull_mem = per_byte(m.cma_mem_bps);
    return p;
}

}  // namespace ucc::net
