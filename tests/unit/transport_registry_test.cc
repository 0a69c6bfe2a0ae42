// The transport registry: which transport serves a context, UCC_TLS, the
// loopback refusing more than one process, component names, the tag layout.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "lib/core/transport_select.h"
#include "lib/tag.h"
#include "ucc/api/ucc.h"

namespace {

using ucc::core::parse_tls;
using ucc::core::TlsChoice;

const ucc::TransportEntry &entry(const char *name) {
    const ucc::TransportEntry *e = ucc::core::find_transport(name);
    EXPECT_NE(e, nullptr) << name;
    return *e;
}

TEST(TransportRegistry, TableListsTheBuiltInTransportsInPreferenceOrder) {
    auto t = ucc::transport_table();
    ASSERT_GE(t.size(), 2u);
    EXPECT_STREQ(t.front().name, "sim");
    EXPECT_STREQ(t.back().name, "self");
#ifdef UCC_WITH_UCX
    ASSERT_EQ(t.size(), 3u);
    EXPECT_STREQ(t[1].name, "ucx");
    EXPECT_EQ(ucc::core::find_transport("ucp"), &t[1]) << "the reference's name for it";
#endif
    EXPECT_EQ(ucc::core::find_transport("nccl"), nullptr);
}

TEST(TransportRegistry, TlsLists) {
    TlsChoice c;
    std::string why;
    ASSERT_EQ(parse_tls("", &c, &why), UCC_OK);
    EXPECT_TRUE(c.all);
    ASSERT_EQ(parse_tls("all", &c, &why), UCC_OK);
    EXPECT_TRUE(c.allows(entry("self")));
    ASSERT_EQ(parse_tls("self", &c, &why), UCC_OK);
    EXPECT_FALSE(c.all);
    EXPECT_TRUE(c.allows(entry("self")));
    EXPECT_FALSE(c.allows(entry("sim")));
    ASSERT_EQ(parse_tls("^self", &c, &why), UCC_OK);
    EXPECT_FALSE(c.allows(entry("self")));
    EXPECT_TRUE(c.allows(entry("sim")));
    // Names of transports not built here are accepted and match nothing.
    ASSERT_EQ(parse_tls(" SELF , cuda,nccl", &c, &why), UCC_OK);
    EXPECT_TRUE(c.allows(entry("self")));
    EXPECT_EQ(c.names.size(), 1u);
    EXPECT_EQ(parse_tls("all,self", &c, &why), UCC_ERR_INVALID_PARAM);
    EXPECT_NE(why.find("all"), std::string::npos);
}

// A one-process OOB that claims `n` members (every slot gets this process's data).
struct FakeOob {
    uint32_t n = 1;
};
ucc_status_t fake_allgather(void *src, void *dst, size_t size, void *info, void **req) {
    auto *o = static_cast<FakeOob *>(info);
    for (uint32_t i = 0; i < o->n; ++i) {
        std::memcpy(static_cast<uint8_t *>(dst) + i * size, src, size);
    }
    *req = o;
    return UCC_OK;
}
ucc_status_t fake_test(void *) {
    return UCC_OK;
}
ucc_status_t fake_free(void *) {
    return UCC_OK;
}

class Registry : public ::testing::Test {
  protected:
    void SetUp() override {
        ucc_lib_config_h cfg;
        ASSERT_EQ(ucc_lib_config_read(nullptr, nullptr, &cfg), UCC_OK);
        ucc_lib_params_t p{};
        ASSERT_EQ(ucc_init(&p, cfg, &lib_), UCC_OK);
        ucc_lib_config_release(cfg);
    }
    void TearDown() override { EXPECT_EQ(ucc_finalize(lib_), UCC_OK); }

    // Creates a context over a fake OOB of `n` members with context TLS `tls`.
    ucc_status_t create(uint32_t n, const char *tls, ucc_context_h *ctx) {
        oob_.n = n;
        ucc_context_config_h cfg;
        EXPECT_EQ(ucc_context_config_read(lib_, nullptr, &cfg), UCC_OK);
        if (tls != nullptr) {
            EXPECT_EQ(ucc_context_config_modify(cfg, nullptr, "TLS", tls), UCC_OK);
        }
        ucc_context_params_t p{};
        p.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
        p.oob.allgather = fake_allgather;
        p.oob.req_test = fake_test;
        p.oob.req_free = fake_free;
        p.oob.coll_info = &oob_;
        p.oob.n_oob_eps = n;
        p.oob.oob_ep = 0;
        ucc_status_t st = ucc_context_create(lib_, &p, cfg, ctx);
        ucc_context_config_release(cfg);
        return st;
    }

    ucc_lib_h lib_ = nullptr;
    FakeOob oob_;
};

TEST_F(Registry, LoopbackRefusesMoreThanOneProcess) {
    ucc_context_h ctx = nullptr;
    // Forced: creation fails instead of resolving every peer to itself.
    EXPECT_EQ(create(2, "self", &ctx), UCC_ERR_NOT_SUPPORTED);
    EXPECT_EQ(ctx, nullptr);
    // One process: the loopback serves it.
    ASSERT_EQ(create(1, nullptr, &ctx), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}

TEST_F(Registry, TlsThatExcludesEverythingFails) {
    ucc_context_h ctx = nullptr;
    EXPECT_EQ(create(1, "^sim,ucx,self", &ctx), UCC_ERR_NOT_FOUND);
    EXPECT_EQ(create(1, "sim", &ctx), UCC_ERR_NOT_SUPPORTED)
        << "the simulator serves only simulated ranks";
}

#ifdef UCC_WITH_UCX
TEST_F(Registry, MoreThanOneProcessGetsUcx) {
    ucc_context_h ctx = nullptr;
    // Two members (both slots hold this process's address: the same sender).
    ASSERT_EQ(create(2, nullptr, &ctx), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    // Forced for one process, too.
    ASSERT_EQ(create(1, "ucp", &ctx), UCC_OK);
    // Memory maps register with UCX: the packed handle carries a remote key.
    std::vector<uint8_t> buf(1 << 16);
    ucc_mem_map_t seg{buf.data(), buf.size()};
    ucc_mem_map_params_t mp{&seg, 1};
    size_t size = 0;
    ucc_mem_map_mem_h h = nullptr;
    ASSERT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_EXPORT, &mp, &size, &h), UCC_OK);
    EXPECT_GT(size, 4 * sizeof(uint64_t) + 8) << "address, length, key length and a UCX key";
    std::vector<uint8_t> packed(static_cast<uint8_t *>(h), static_cast<uint8_t *>(h) + size);
    ucc_mem_map_mem_h imported = packed.data();
    size_t isize = 0;
    ASSERT_EQ(ucc_mem_map(ctx, UCC_MEM_MAP_MODE_IMPORT, &mp, &isize, &imported), UCC_OK);
    EXPECT_EQ(isize, size);
    EXPECT_EQ(std::memcmp(imported, packed.data(), size), 0);
    EXPECT_EQ(ucc_mem_unmap(&imported), UCC_OK);
    EXPECT_EQ(ucc_mem_unmap(&h), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
}
#endif

TEST_F(Registry, ContextConfigKnowsTheComponents) {
    ucc_context_config_h cfg;
    ASSERT_EQ(ucc_context_config_read(lib_, nullptr, &cfg), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(cfg, "tl/self", "LOG_LEVEL", "WARN"), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(cfg, "tl/sim", "LOG_LEVEL", "WARN"), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(cfg, "cl/basic", "LOG_LEVEL", "WARN"), UCC_OK);
#ifdef UCC_WITH_UCX
    EXPECT_EQ(ucc_context_config_modify(cfg, "tl/ucx", "LOG_LEVEL", "WARN"), UCC_OK);
    EXPECT_EQ(ucc_context_config_modify(cfg, "tl/ucp", "LOG_LEVEL", "WARN"), UCC_OK);
#endif
    EXPECT_EQ(ucc_context_config_modify(cfg, "tl/nccl", "LOG_LEVEL", "WARN"), UCC_ERR_NOT_FOUND);
    ucc_context_config_release(cfg);
}

TEST(TagLayout, LogicalFields) {
    const ucc::tag::Tag t = ucc::tag::make(0x1234, 0xdeadbeef, 0x8005);
    EXPECT_EQ(ucc::tag::team_of(t), 0x1234);
    EXPECT_EQ(ucc::tag::key_of(t), 0xdeadbeefu);
    EXPECT_EQ(ucc::tag::step_of(t), 0x8005u);
    EXPECT_EQ(t & ucc::tag::kInstanceMask, ucc::tag::make(0x1234, 0xdeadbeef));
    EXPECT_EQ(t & ucc::tag::kTeamMask, ucc::tag::team_prefix(0x1234));
}

TEST(TagLayout, WireTagCarriesTheSenderAndKeepsDistinctFieldsDistinct) {
    using ucc::tag::make;
    using ucc::tag::wire;
    const uint32_t sender = ucc::tag::kMaxSenders - 1;
    const uint64_t w = wire(sender, make(0xffff, 0x8000ffff, 0x8000 | ucc::tag::kTypeMask | 0x3f));
    EXPECT_EQ(ucc::tag::wire_sender(w), sender);
    EXPECT_EQ(w, ~uint64_t{0}) << "every field at its maximum fills the 64 bits exactly";
    const uint64_t base = wire(5, make(7, 9, 3));
    EXPECT_NE(base, wire(6, make(7, 9, 3)));                // sender
    EXPECT_NE(base, wire(5, make(8, 9, 3)));                // team
    EXPECT_NE(base, wire(5, make(7, 10, 3)));               // key
    EXPECT_NE(base, wire(5, make(7, 9 | 0x80000000u, 3)));  // active set
    EXPECT_NE(base, wire(5, make(7, 9, 4)));                // step
    EXPECT_NE(base, wire(5, make(7, 9, 3 | 0x8000)));       // the core's step space
    // What the layout drops (documented in lib/tag.h): the key above 16 bits
    // (sequence numbers mod 2^16, re-post counts) and steps mod 2^10.
    EXPECT_EQ(base, wire(5, make(7, 9 + 0x10000, 3)));
    EXPECT_EQ(base, wire(5, make(7, 9, 3 + 0x400)));
}

}  // namespace
