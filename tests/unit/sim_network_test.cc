// Network model: presets, spec parsing (units, errors), printed form.
#include <gtest/gtest.h>

#include <string>

#include "lib/net/network_model.h"

namespace ucc::net {
namespace {

NetworkModel parse_ok(const char *spec) {
    NetworkModel m;
    std::string err;
    EXPECT_EQ(parse_network(spec, &m, &err), UCC_OK) << spec << ": " << err;
    return m;
}

std::string parse_err(const char *spec) {
    NetworkModel m;
    m.ranks_per_node = 12345;
    std::string err;
    EXPECT_EQ(parse_network(spec, &m, &err), UCC_ERR_INVALID_PARAM) << spec;
    EXPECT_EQ(m.ranks_per_node, 12345u) << "output changed on error: " << spec;
    return err;
}

TEST(SimNetwork, HdrIsTheDefault) {
    NetworkModel m = parse_ok("hdr");
    EXPECT_EQ(m.preset, "hdr");
    EXPECT_EQ(m.ranks_per_node, 8u);
    EXPECT_EQ(m.lat_intra_ps, 300'000);
    EXPECT_EQ(m.lat_inter_ps, 1'300'000);
    EXPECT_EQ(m.bw_intra_bps, 40'000'000'000u);
    EXPECT_EQ(m.bw_inter_bps, 24'000'000'000u);
    EXPECT_EQ(m.o_send_ps, 200'000);
    EXPECT_EQ(m.o_recv_ps, 200'000);
    EXPECT_EQ(m.gap_ps, 50'000);
    EXPECT_EQ(m.copy_bps, 20'000'000'000u);
    EXPECT_EQ(m.reduce_bps, 10'000'000'000u);
    EXPECT_EQ(m.jitter_max_ps, 20'000);
    NetworkModel d = parse_ok("");
    EXPECT_EQ(d.describe(), m.describe());
    NetworkModel n;
    EXPECT_EQ(parse_network(nullptr, &n, nullptr), UCC_OK);
    EXPECT_EQ(n.describe(), m.describe());
}

TEST(SimNetwork, Presets) {
    NetworkModel ideal = parse_ok("ideal");
    EXPECT_EQ(ideal.lat_inter_ps, 0);
    EXPECT_EQ(ideal.lat_intra_ps, 0);
    EXPECT_EQ(ideal.bw_inter_bps, 0u);  // infinite
    EXPECT_EQ(ideal.o_send_ps + ideal.o_recv_ps + ideal.gap_ps + ideal.jitter_max_ps, 0);
    EXPECT_EQ(ideal.wire_ps(0, 1, 1 << 30), 0);
    EXPECT_EQ(ideal.copy_ps(1 << 30), 0);

    NetworkModel eth = parse_ok("eth100");
    EXPECT_EQ(eth.lat_inter_ps, 5'000'000);
    NetworkModel slow = parse_ok("slow");
    EXPECT_GT(slow.jitter_max_ps, slow.lat_inter_ps);
    EXPECT_GT(slow.lat_inter_ps, eth.lat_inter_ps);
    NetworkModel out;
    EXPECT_FALSE(network_preset("nope", &out));
}

TEST(SimNetwork, OverridesAndUnits) {
    NetworkModel m = parse_ok("hdr,ppn=16,lat_inter=2us,bw_inter=12.5GB/s,jitter=1us,o=100ns");
    EXPECT_EQ(m.ranks_per_node, 16u);
    EXPECT_EQ(m.lat_inter_ps, 2'000'000);
    EXPECT_EQ(m.lat_intra_ps, 300'000);
    EXPECT_EQ(m.bw_inter_bps, 12'500'000'000u);
    EXPECT_EQ(m.jitter_max_ps, 1'000'000);
    EXPECT_EQ(m.o_send_ps, 100'000);
    EXPECT_EQ(m.o_recv_ps, 100'000);

    EXPECT_EQ(parse_ok("lat=7ps").lat_inter_ps, 7);
    EXPECT_EQ(parse_ok("lat=7ns").lat_inter_ps, 7'000);
    EXPECT_EQ(parse_ok("lat=1.25us").lat_intra_ps, 1'250'000);
    EXPECT_EQ(parse_ok("lat=3ms").lat_inter_ps, 3'000'000'000);
    EXPECT_EQ(parse_ok("lat=2s").lat_inter_ps, 2'000'000'000'000);
    EXPECT_EQ(parse_ok("lat=0").lat_inter_ps, 0);
    EXPECT_EQ(parse_ok("g=0.5ns").gap_ps, 500);
    EXPECT_EQ(parse_ok("o_send=1us,o_recv=2us").o_recv_ps, 2'000'000);
    EXPECT_EQ(parse_ok("o_send=1us,o_recv=2us").o_send_ps, 1'000'000);
    EXPECT_EQ(parse_ok("bw=5B/s").bw_intra_bps, 5u);
    EXPECT_EQ(parse_ok("bw=5KB/s").bw_inter_bps, 5'000u);
    EXPECT_EQ(parse_ok("bw=5MB/s").bw_inter_bps, 5'000'000u);
    EXPECT_EQ(parse_ok("bw=1GiB/s").bw_inter_bps, 1u << 30);
    EXPECT_EQ(parse_ok("bw=100Gb/s").bw_inter_bps, 12'500'000'000u);
    EXPECT_EQ(parse_ok("bw_intra=inf").bw_intra_bps, 0u);
    EXPECT_EQ(parse_ok("copy=1GB/s,reduce=2GB/s").reduce_bps, 2'000'000'000u);
    EXPECT_EQ(parse_ok("copy=1GB/s,reduce=2GB/s").copy_bps, 1'000'000'000u);
    EXPECT_EQ(parse_ok(" slow , ppn = 2 ").ranks_per_node, 2u);
    EXPECT_EQ(parse_ok("ideal,lat_inter=1us").preset, "ideal");
}

TEST(SimNetwork, Errors) {
    std::string e = parse_err("hdr,bogus=1");
    EXPECT_NE(e.find("unknown key \"bogus\""), std::string::npos) << e;
    e = parse_err("nope");
    EXPECT_NE(e.find("unknown preset \"nope\""), std::string::npos) << e;
    e = parse_err("lat=abc");
    EXPECT_NE(e.find("bad value \"abc\" for lat"), std::string::npos) << e;
    e = parse_err("lat=5");  // a non-zero time needs a unit
    EXPECT_NE(e.find("lat"), std::string::npos) << e;
    parse_err("lat=-1us");
    parse_err("lat=1 fortnight");
    parse_err("lat=1.2.3us");
    parse_err("bw=0GB/s");
    parse_err("bw=10GB");
    parse_err("bw=fast");
    parse_err("ppn=0");
    parse_err("ppn=x");
    parse_err("ppn=-3");
    parse_err("ppn=2,hdr");  // a preset only comes first
    parse_err("hdr,,ppn=2");
    parse_err("hdr,");
    parse_err("lat=99999999s");
    parse_err("noise_hz=1M,noise=1us");  // a detour as long as the time between two
    parse_err("noise_hz=fast");
    parse_err("pcie_bw=fast");
    parse_err("pcie_lat=3");  // a time needs its unit
    parse_err("gpu_lat=2");
    parse_err("nvlink_bw=fast");
    parse_err("gpu_reduce_bw=3GB");
}

TEST(SimNetwork, DescribeParsesBack) {
    for (const char *spec : {"ideal", "hdr", "eth100", "slow",
                             "hdr,ppn=16,lat_inter=2.5us,bw_inter=12.5GB/s,jitter=1us,o=100ns",
                             "ideal,lat_inter=1us,bw_inter=1GB/s,g=7ps",
                             "hdr,ppn=40,nic_bw=25GB/s,nic_rate=215M,node_bw=100GB/s,rndv=8K",
                             "hdr,rndv_inter=16K,rndv_intra=inf",
                             "hdr,short_intra=100,short_inter=2K,o_bcopy=200ns,bcopy_intra=4GB/s,"
                             "bcopy_inter=10GB/s,zcopy=8K,o_call=1us,o_init=300ns,dma_read=500ns,"
                             "sharp_lat=2.4us,sharp_bw=350MB/s",
                             "hdr,zcopy_intra=8K,cma=7.5GB/s,o_cma=1.5us,cache=512K,cma_mem=4GB/s,"
                             "copy_mem=9GB/s,reduce_mem=3GB/s,cores=2,wake=1.5us",
                             "hdr,noise_hz=1000,noise=2.5us", "hdr,pcie_lat=8us,pcie_bw=25GB/s",
                             "hdr,gpu_lat=4us,gpu_bw=2TB/s,gpu_reduce_bw=1.5TB/s,nvlink_bw=300GB/s",
                             "hdr,zcopy_intra=8K,cma=16GB/s,o_cma=1.9us,cache=2M,cma_mem=7GB/s,"
                             "cma_written=6GB/s,o_cma_written=2.5us,cma_mem_written=5GB/s"}) {
        NetworkModel m = parse_ok(spec);
        std::string d = m.describe();
        NetworkModel back = parse_ok(d.c_str());
        EXPECT_EQ(back.describe(), d) << spec;
        EXPECT_EQ(back.lat_inter_ps, m.lat_inter_ps);
        EXPECT_EQ(back.bw_inter_bps, m.bw_inter_bps);
        EXPECT_EQ(back.gap_ps, m.gap_ps);
        EXPECT_EQ(back.nic_bw_bps, m.nic_bw_bps);
        EXPECT_EQ(back.nic_rate, m.nic_rate);
        EXPECT_EQ(back.noise_hz, m.noise_hz);
        EXPECT_EQ(back.noise_ps, m.noise_ps);
        EXPECT_EQ(back.pcie_lat_ps, m.pcie_lat_ps);
        EXPECT_EQ(back.pcie_bw_bps, m.pcie_bw_bps);
        EXPECT_EQ(back.gpu_lat_ps, m.gpu_lat_ps);
        EXPECT_EQ(back.gpu_bw_bps, m.gpu_bw_bps);
        EXPECT_EQ(back.gpu_reduce_bps, m.gpu_reduce_bps);
        EXPECT_EQ(back.nvlink_bw_bps, m.nvlink_bw_bps);
        EXPECT_EQ(back.node_bw_bps, m.node_bw_bps);
        EXPECT_EQ(back.rndv_inter, m.rndv_inter);
        EXPECT_EQ(back.rndv_intra, m.rndv_intra);
        EXPECT_EQ(back.short_intra, m.short_intra);
        EXPECT_EQ(back.short_inter, m.short_inter);
        EXPECT_EQ(back.o_bcopy_ps, m.o_bcopy_ps);
        EXPECT_EQ(back.bcopy_intra_bps, m.bcopy_intra_bps);
        EXPECT_EQ(back.bcopy_inter_bps, m.bcopy_inter_bps);
        EXPECT_EQ(back.zcopy_intra, m.zcopy_intra);
        EXPECT_EQ(back.zcopy_inter, m.zcopy_inter);
        EXPECT_EQ(back.o_call_ps, m.o_call_ps);
        EXPECT_EQ(back.o_init_ps, m.o_init_ps);
        EXPECT_EQ(back.dma_read_ps, m.dma_read_ps);
        EXPECT_EQ(back.sharp_lat_ps, m.sharp_lat_ps);
        EXPECT_EQ(back.sharp_bw_bps, m.sharp_bw_bps);
        EXPECT_EQ(back.cma_bps, m.cma_bps);
        EXPECT_EQ(back.o_cma_ps, m.o_cma_ps);
        EXPECT_EQ(back.cache_bytes, m.cache_bytes);
        EXPECT_EQ(back.cma_mem_bps, m.cma_mem_bps);
        EXPECT_EQ(back.cma_written_bps, m.cma_written_bps);
        EXPECT_EQ(back.o_cma_written_ps, m.o_cma_written_ps);
        EXPECT_EQ(back.cma_mem_written_bps, m.cma_mem_written_bps);
        EXPECT_EQ(back.copy_mem_bps, m.copy_mem_bps);
        EXPECT_EQ(back.reduce_mem_bps, m.reduce_mem_bps);
        EXPECT_EQ(back.cores, m.cores);
        EXPECT_EQ(back.wake_ps, m.wake_ps);
    }
    const NetworkModel c = parse_ok("hdr,cores=2,wake=1us,cma=1GB/s");
    EXPECT_EQ(c.cores, 2u);
    EXPECT_EQ(c.wake_ps, 1'000'000);
    EXPECT_EQ(parse_ok("hdr,cores=0").cores, 0u);
    // Beyond the cache a copy runs at its _mem bandwidth (when set).
    // The working set decides: a lone copy's is its bytes twice.
    const NetworkModel k = parse_ok("ideal,copy=4GB/s,copy_mem=1GB/s,cache=2K");
    EXPECT_EQ(k.copy_ps(1024), 256'000);
    EXPECT_EQ(k.copy_ps(2048), 2'048'000);
    EXPECT_EQ(k.copy_ps(1024, 2048), 256'000);
    EXPECT_EQ(k.copy_ps(1024, 2049), 1'024'000);
    EXPECT_EQ(parse_ok("ideal,copy=4GB/s,cache=1K").copy_ps(2048), 512'000);
    EXPECT_EQ(parse_ok("ideal,reduce=2GB/s,reduce_mem=1GB/s,cache=1K").reduce_ps(2048), 2'048'000);
    EXPECT_EQ(parse_ok("ideal,copy=4GB/s,copy_mem=1GB/s,cache=inf").copy_ps(2048), 512'000);
    EXPECT_NE(parse_err("hdr,cores=-1").find("cores"), std::string::npos);
    EXPECT_NE(parse_err("hdr,cma=fast").find("cma"), std::string::npos);
    EXPECT_NE(parse_err("hdr,cma_written=fast").find("cma_written"), std::string::npos);
    EXPECT_NE(parse_err("hdr,o_cma_written=soon").find("o_cma_written"), std::string::npos);
    // A pull of the sender's unchanged input (clean) and of just-written
    // data; without cma_written both cost the same.
    const NetworkModel w = parse_ok(
        "ideal,ppn=2,zcopy_intra=1K,cma=4GB/s,o_cma=1us,cache=8K,cma_mem=1GB/s,cma_written=2GB/s,"
        "o_cma_written=3us");
    EXPECT_TRUE(w.written_pulls());
    EXPECT_EQ(w.cma_ps(0, 1, 2048, 0, true), 1'000'000 + 512'000);
    EXPECT_EQ(w.cma_ps(0, 1, 2048, 0, false), 3'000'000 + 1'024'000);
    // Beyond the cache: cma_mem_written unset, so cma_mem (and without
    // that, cma_written).
    EXPECT_EQ(w.cma_ps(0, 1, 2048, 16384, true), 1'000'000 + 2'048'000);
    EXPECT_EQ(w.cma_ps(0, 1, 2048, 16384, false), 3'000'000 + 2'048'000);
    EXPECT_EQ(parse_ok("ideal,ppn=2,zcopy_intra=1K,cma=4GB/s,cache=8K,cma_written=2GB/s")
                  .cma_ps(0, 1, 2048, 16384, false),
              1'024'000);
    EXPECT_EQ(parse_ok("ideal,ppn=2,zcopy_intra=1K,cma=4GB/s,cache=8K,cma_mem=1GB/s,"
                       "cma_written=2GB/s,cma_mem_written=512MB/s")
                  .cma_ps(0, 1, 2048, 16384, false),
              4'000'000);
    EXPECT_EQ(w.cma_ps(0, 2, 2048, 0, false), 0);  // another node: a wire
    const NetworkModel one = parse_ok("ideal,ppn=2,zcopy_intra=1K,cma=4GB/s,o_cma=1us");
    EXPECT_FALSE(one.written_pulls());
    EXPECT_EQ(one.cma_ps(0, 1, 2048, 0, false), one.cma_ps(0, 1, 2048, 0, true));
    EXPECT_EQ(parse_ok("hdr").describe().find("cores"), std::string::npos);
    const NetworkModel p = parse_ok("hdr,short=64,bcopy=2GB/s,zcopy_inter=16K");
    EXPECT_EQ(p.short_intra, 64u);
    EXPECT_EQ(p.short_inter, 64u);
    EXPECT_EQ(p.bcopy_intra_bps, 2'000'000'000u);
    EXPECT_EQ(p.bcopy_inter_bps, 2'000'000'000u);
    EXPECT_EQ(p.zcopy_inter, 16384u);
    EXPECT_EQ(p.zcopy_intra, NetworkModel::kNoRndv);
    EXPECT_FALSE(parse_ok("hdr").reduces_in_network());
    EXPECT_EQ(parse_ok("hdr").describe().find("sharp"), std::string::npos);
    EXPECT_NE(parse_err("hdr,sharp_lat=fast").find("sharp_lat"), std::string::npos);
    EXPECT_NE(parse_err("hdr,short=big").find("short"), std::string::npos);
    const NetworkModel m = parse_ok("hdr,nic_rate=1.5G,rndv=64K,rndv_intra=1M");
    EXPECT_EQ(m.nic_rate, 1'500'000'000u);
    EXPECT_EQ(m.nic_ps(0), 667);  // ceil(1e12 / 1.5e9)
    EXPECT_EQ(m.rndv_inter, 65536u);
    EXPECT_EQ(m.rndv_intra, 1u << 20);
    EXPECT_EQ(parse_ok("hdr").describe().find("nic"), std::string::npos);
    EXPECT_NE(parse_err("hdr,rndv=8X").find("rndv"), std::string::npos);
    EXPECT_NE(parse_err("hdr,nic_rate=fast").find("nic_rate"), std::string::npos);
    EXPECT_EQ(format_time_ps(1'300'000), "1.3us");
    EXPECT_EQ(format_time_ps(20'000), "20ns");
    EXPECT_EQ(format_time_ps(0), "0");
    EXPECT_EQ(format_bandwidth(12'500'000'000), "12.5GB/s");
    EXPECT_EQ(format_bandwidth(0), "inf");
}

TEST(SimNetwork, CostsAreExactIntegers) {
    NetworkModel m = parse_ok(
        "ideal,ppn=2,lat_intra=100ns,lat_inter=1us,bw_intra=2GB/s,"
        "bw_inter=1GB/s,copy=4GB/s,reduce=3GB/s");
    EXPECT_TRUE(m.same_node(0, 1));
    EXPECT_FALSE(m.same_node(1, 2));
    EXPECT_EQ(m.latency_ps(0, 1), 100'000);
    EXPECT_EQ(m.latency_ps(0, 2), 1'000'000);
    EXPECT_EQ(m.wire_ps(0, 1, 1000), 500'000);
    EXPECT_EQ(m.wire_ps(0, 3, 1000), 1'000'000);
    EXPECT_EQ(m.copy_ps(1000), 250'000);
    EXPECT_EQ(m.reduce_ps(1), 334);  // ceil(1e12 / 3e9)
}

}  // namespace
}  // namespace ucc::net
