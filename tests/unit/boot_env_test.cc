// The bootstrap's environment contract (lib/boot/env.h): every launcher's
// variables, the precedence between them, and the errors.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "lib/boot/env.h"

namespace ucc::boot {
namespace {

using Vars = std::map<std::string, std::string>;

GetEnv from(const Vars &vars) {
    return [&vars](const char *name) -> const char * {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

BootEnv parse_ok(const Vars &vars) {
    BootEnv e;
    std::string error;
    EXPECT_EQ(parse_env(from(vars), &e, &error), UCC_OK) << error;
    return e;
}

// The error message, which must name `variable`.
std::string parse_error(const Vars &vars, const std::string &variable) {
    BootEnv e;
    std::string error;
    EXPECT_EQ(parse_env(from(vars), &e, &error), UCC_ERR_INVALID_PARAM);
    EXPECT_NE(error.find(variable), std::string::npos) << "'" << error << "' names no " << variable;
    return error;
}

TEST(BootEnv, NothingSetIsASingletonHostingAPrivateStore) {
    Vars v;
    EXPECT_FALSE(env_launched(from(v)));
    BootEnv e = parse_ok(v);
    EXPECT_FALSE(e.launched);
    EXPECT_EQ(e.rank, 0u);
    EXPECT_EQ(e.size, 1u);
    EXPECT_EQ(e.local_rank, 0u);
    EXPECT_EQ(e.local_size, 1u);
    EXPECT_TRUE(e.host_store);
    EXPECT_EQ(e.store_host, "127.0.0.1");
    EXPECT_EQ(e.store_port, 0);
}

TEST(BootEnv, OurOwnVariables) {
    Vars v = {{"UCC_RANK", "2"},
              {"UCC_WORLD_SIZE", "4"},
              {"UCC_LOCAL_RANK", "0"},
              {"UCC_LOCAL_SIZE", "2"},
              {"UCC_STORE", "127.0.0.1:4567"}};
    EXPECT_TRUE(env_launched(from(v)));
    BootEnv e = parse_ok(v);
    EXPECT_TRUE(e.launched);
    EXPECT_EQ(e.rank, 2u);
    EXPECT_EQ(e.size, 4u);
    EXPECT_EQ(e.local_rank, 0u);
    EXPECT_EQ(e.local_size, 2u);
    EXPECT_EQ(e.store_host, "127.0.0.1");
    EXPECT_EQ(e.store_port, 4567);
    EXPECT_FALSE(e.host_store);
    // UCC_STORE names a running store: rank 0 connects too.
    v["UCC_RANK"] = "0";
    EXPECT_FALSE(parse_ok(v).host_store);
}

TEST(BootEnv, Torchrun) {
    Vars v = {{"RANK", "0"},
              {"WORLD_SIZE", "2"},
              {"LOCAL_RANK", "0"},
              {"LOCAL_WORLD_SIZE", "1"},
              {"MASTER_ADDR", "127.0.0.1"},
              {"MASTER_PORT", "29500"}};
    BootEnv e = parse_ok(v);
    EXPECT_EQ(e.rank, 0u);
    EXPECT_EQ(e.size, 2u);
    EXPECT_EQ(e.local_size, 1u);
    EXPECT_EQ(e.store_host, "127.0.0.1");
    EXPECT_EQ(e.store_port, 29500);
    EXPECT_TRUE(e.host_store);  // rank 0 hosts at MASTER_ADDR:MASTER_PORT
    v["RANK"] = "1";
    v["LOCAL_RANK"] = "0";
    EXPECT_FALSE(parse_ok(v).host_store);
    // UCC_STORE wins over MASTER_*.
    v["RANK"] = "0";
    v["UCC_STORE"] = "localhost:1234";
    e = parse_ok(v);
    EXPECT_FALSE(e.host_store);
    EXPECT_EQ(e.store_host, "localhost");
    EXPECT_EQ(e.store_port, 1234);
}

TEST(BootEnv, OpenMpi) {
    Vars v = {{"OMPI_COMM_WORLD_RANK", "3"},       {"OMPI_COMM_WORLD_SIZE", "4"},
              {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
              {"MASTER_ADDR", "127.0.0.1"},        {"MASTER_PORT", "5000"}};
    BootEnv e = parse_ok(v);
    EXPECT_EQ(e.rank, 3u);
    EXPECT_EQ(e.size, 4u);
    EXPECT_EQ(e.local_rank, 1u);
    EXPECT_EQ(e.local_size, 2u);
    EXPECT_FALSE(e.host_store);
}

TEST(BootEnv, Slurm) {
    Vars v = {{"SLURM_PROCID", "5"},
              {"SLURM_NTASKS", "6"},
              {"SLURM_LOCALID", "1"},
              {"SLURM_NTASKS_PER_NODE", "3"},
              {"UCC_STORE", "[::1]:7000"}};
    BootEnv e = parse_ok(v);
    EXPECT_EQ(e.rank, 5u);
    EXPECT_EQ(e.size, 6u);
    EXPECT_EQ(e.local_rank, 1u);
    EXPECT_EQ(e.local_size, 3u);
    EXPECT_EQ(e.store_host, "::1");
    EXPECT_EQ(e.store_port, 7000);
    // Without SLURM_NTASKS_PER_NODE the local size comes from the node's entry
    // in SLURM_TASKS_PER_NODE.
    v.erase("SLURM_NTASKS_PER_NODE");
    v["SLURM_TASKS_PER_NODE"] = "2(x2),1,1";
    v["SLURM_NODEID"] = "2";
    v["SLURM_LOCALID"] = "0";
    EXPECT_EQ(parse_ok(v).local_size, 1u);
    v["SLURM_NODEID"] = "1";
    EXPECT_EQ(parse_ok(v).local_size, 2u);
    v["SLURM_NODEID"] = "4";
    parse_error(v, "SLURM_TASKS_PER_NODE");
}

TEST(BootEnv, SlurmTasksPerNode) {
    uint32_t n = 0;
    EXPECT_TRUE(slurm_tasks_on_node("4", 0, &n));
    EXPECT_EQ(n, 4u);
    EXPECT_FALSE(slurm_tasks_on_node("4", 1, &n));
    EXPECT_TRUE(slurm_tasks_on_node("2(x3),1", 2, &n));
    EXPECT_EQ(n, 2u);
    EXPECT_TRUE(slurm_tasks_on_node("2(x3),1", 3, &n));
    EXPECT_EQ(n, 1u);
    EXPECT_FALSE(slurm_tasks_on_node("2(x3),1", 4, &n));
    EXPECT_FALSE(slurm_tasks_on_node("2(3)", 0, &n));
    EXPECT_FALSE(slurm_tasks_on_node("", 0, &n));
    EXPECT_FALSE(slurm_tasks_on_node("a", 0, &n));
}

TEST(BootEnv, PrecedenceIsPerFieldOursTorchrunOpenMpiSlurm) {
    Vars v = {{"UCC_RANK", "1"},
              {"RANK", "2"},
              {"OMPI_COMM_WORLD_RANK", "3"},
              {"SLURM_PROCID", "4"},
              {"WORLD_SIZE", "10"},
              {"OMPI_COMM_WORLD_SIZE", "11"},
              {"SLURM_NTASKS", "12"},
              {"OMPI_COMM_WORLD_LOCAL_RANK", "2"},
              {"SLURM_LOCALID", "3"},
              {"SLURM_NTASKS_PER_NODE", "4"},
              {"OMPI_COMM_WORLD_LOCAL_SIZE", "5"},
              {"MASTER_ADDR", "127.0.0.1"},
              {"MASTER_PORT", "1"}};
    BootEnv e = parse_ok(v);
    EXPECT_EQ(e.rank, 1u);        // UCC_RANK
    EXPECT_EQ(e.size, 10u);       // WORLD_SIZE
    EXPECT_EQ(e.local_rank, 2u);  // OMPI_COMM_WORLD_LOCAL_RANK
    EXPECT_EQ(e.local_size, 5u);  // OMPI_COMM_WORLD_LOCAL_SIZE
    v.erase("UCC_RANK");
    EXPECT_EQ(parse_ok(v).rank, 2u);
    v.erase("RANK");
    EXPECT_EQ(parse_ok(v).rank, 3u);
    v.erase("OMPI_COMM_WORLD_RANK");
    EXPECT_EQ(parse_ok(v).rank, 4u);
    v.erase("WORLD_SIZE");
    EXPECT_EQ(parse_ok(v).size, 11u);
    v.erase("OMPI_COMM_WORLD_LOCAL_SIZE");
    EXPECT_EQ(parse_ok(v).local_size, 4u);
    // An empty variable counts as unset.
    v["UCC_RANK"] = "";
    EXPECT_EQ(parse_ok(v).rank, 4u);
}

TEST(BootEnv, NoLocalVariablesMeansOneNode) {
    BootEnv e = parse_ok({{"UCC_RANK", "3"}, {"UCC_WORLD_SIZE", "5"}, {"UCC_STORE", "h:1"}});
    EXPECT_EQ(e.local_rank, 3u);
    EXPECT_EQ(e.local_size, 5u);
}

TEST(BootEnv, ErrorsNameTheVariable) {
    const Vars store = {{"UCC_STORE", "127.0.0.1:1"}};
    auto with = [&](Vars v) {
        v.insert(store.begin(), store.end());
        return v;
    };
    parse_error(with({{"UCC_RANK", "1"}}), "UCC_WORLD_SIZE");
    parse_error(with({{"WORLD_SIZE", "2"}}), "RANK");
    parse_error(with({{"RANK", "x"}, {"WORLD_SIZE", "2"}}), "RANK='x'");
    parse_error(with({{"RANK", "-1"}, {"WORLD_SIZE", "2"}}), "RANK");
    parse_error(with({{"RANK", "1"}, {"WORLD_SIZE", "99999999999"}}), "WORLD_SIZE");
    parse_error(with({{"RANK", "0"}, {"WORLD_SIZE", "0"}}), "WORLD_SIZE=0");
    EXPECT_NE(
        parse_error(with({{"RANK", "2"}, {"WORLD_SIZE", "2"}}), "RANK=2").find("WORLD_SIZE=2"),
        std::string::npos);
    parse_error(with({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}}),
                "LOCAL_WORLD_SIZE");
    parse_error(with({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_WORLD_SIZE", "2"}}),
                "LOCAL_RANK");
    parse_error(
        with({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "2"}, {"LOCAL_WORLD_SIZE", "2"}}),
        "LOCAL_RANK=2");
    parse_error(
        with({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "3"}}),
        "LOCAL_WORLD_SIZE=3");
    parse_error(
        with({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}, {"LOCAL_WORLD_SIZE", "0"}}),
        "LOCAL_WORLD_SIZE=0");
    // The store.
    parse_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}}, "MASTER_ADDR");
    parse_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}, "MASTER_PORT");
    parse_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}}, "MASTER_ADDR");
    parse_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "0"}},
                "MASTER_PORT=0");
    parse_error(
        {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "65536"}},
        "MASTER_PORT");
    parse_error({{"UCC_STORE", "nohostport"}}, "UCC_STORE");
    parse_error({{"UCC_STORE", "h:"}}, "UCC_STORE");
    parse_error({{"UCC_STORE", ":5"}}, "UCC_STORE");
    parse_error({{"UCC_STORE", "::1:5"}}, "UCC_STORE");
    parse_error({{"UCC_STORE", "[::1]5"}}, "UCC_STORE");
}

TEST(BootEnv, HostPort) {
    std::string host;
    uint16_t port = 0;
    std::string error;
    ASSERT_EQ(parse_host_port("node7:29500", &host, &port, &error), UCC_OK);
    EXPECT_EQ(host, "node7");
    EXPECT_EQ(port, 29500);
    ASSERT_EQ(parse_host_port("[fe80::1]:1", &host, &port, &error), UCC_OK);
    EXPECT_EQ(host, "fe80::1");
    EXPECT_EQ(port, 1);
    EXPECT_EQ(parse_host_port("h:65536", &host, &port, &error), UCC_ERR_INVALID_PARAM);
}

}  // namespace
}  // namespace ucc::boot
