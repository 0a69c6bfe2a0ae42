// The environment contract (see env.h for the table and the rules).
#include "lib/boot/env.h"

#include <span>

#include "lib/util/parse.h"

namespace ucc::boot {

namespace {

// Each field's variables, highest precedence first: ours, torchrun, Open MPI, Slurm.
constexpr const char *kRankVars[] = {"UCC_RANK", "RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"};
constexpr const char *kSizeVars[] = {"UCC_WORLD_SIZE", "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE",
                                     "SLURM_NTASKS"};
constexpr const char *kLocalRankVars[] = {"UCC_LOCAL_RANK", "LOCAL_RANK",
                                          "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"};
constexpr const char *kLocalSizeVars[] = {"UCC_LOCAL_SIZE", "LOCAL_WORLD_SIZE",
                                          "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE"};

// A variable found set (non-empty), or nothing.
struct Var {
    std::string name;
    const char *value = nullptr;
    explicit operator bool() const { return value != nullptr; }
    std::string text() const { return name + "=" + value; }
};

Var lookup(const GetEnv &getenv, const char *name) {
    const char *v = getenv(name);
    if (v == nullptr || *v == '\0') {
        return {};
    }
    return {name, v};
}

Var first_set(const GetEnv &getenv, std::span<const char *const> names) {
    for (const char *n : names) {
        if (Var v = lookup(getenv, n)) {
            return v;
        }
    }
    return {};
}

// "A, B, C or D"
std::string one_of(std::span<const char *const> names) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) {
            s += i + 1 == names.size() ? " or " : ", ";
        }
        s += names[i];
    }
    return s;
}

ucc_status_t read_u32(const Var &v, uint32_t *out, std::string *error) {
    if (!parse_u32(v.value, out)) {
        *error = v.name + "='" + v.value + "' is not a non-negative integer";
        return UCC_ERR_INVALID_PARAM;
    }
    return UCC_OK;
}

ucc_status_t fail(std::string *error, std::string text) {
    *error = std::move(text);
    return UCC_ERR_INVALID_PARAM;
}

}  // namespace

std::span<const char *const> env_contract_names() {
    static constexpr const char *kNames[] = {kRankVars[0], kSizeVars[0], kLocalRankVars[0],
                                             kLocalSizeVars[0], "UCC_STORE"};
    return kNames;
}

bool env_launched(const GetEnv &getenv) {
    return first_set(getenv, kRankVars) && first_set(getenv, kSizeVars);
}

bool slurm_tasks_on_node(std::string_view spec, uint32_t node, uint32_t *tasks) {
    // Items "c" or "c(xN)", comma-separated, in node order.
    uint64_t first_node = 0;
    while (!spec.empty()) {
        size_t comma = spec.find(',');
        std::string_view item = spec.substr(0, comma);
        spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
        uint32_t count = 0;
        uint32_t repeat = 1;
        size_t paren = item.find('(');
        if (!parse_u32(item.substr(0, paren), &count)) {
            return false;
        }
        if (paren != std::string_view::npos) {
            std::string_view rep = item.substr(paren);
            if (rep.size() < 4 || rep.substr(0, 2) != "(x" || rep.back() != ')' ||
                !parse_u32(rep.substr(2, rep.size() - 3), &repeat)) {
                return false;
            }
        }
        if (node < first_node + repeat) {
            *tasks = count;
            return true;
        }
        first_node += repeat;
        if (comma == std::string_view::npos) {
            break;
        }
    }
    return false;
}

ucc_status_t parse_host_port(std::string_view s, std::string *host, uint16_t *port,
                             std::string *error) {
    std::string_view h;
    std::string_view p;
    if (!s.empty() && s.front() == '[') {
        size_t close = s.find(']');
        if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':') {
            *error = "'" + std::string(s) + "' is not [host]:port";
            return UCC_ERR_INVALID_PARAM;
        }
        h = s.substr(1, close - 1);
        p = s.substr(close + 2);
    } else {
        size_t colon = s.rfind(':');
        if (colon == std::string_view::npos || s.find(':') != colon) {
            *error = "'" + std::string(s) + "' is not host:port (an IPv6 host goes in brackets)";
            return UCC_ERR_INVALID_PARAM;
        }
        h = s.substr(0, colon);
        p = s.substr(colon + 1);
    }
    uint32_t v = 0;
    if (h.empty()) {
        *error = "'" + std::string(s) + "' has no host";
        return UCC_ERR_INVALID_PARAM;
    }
    if (!parse_u32(p, &v) || v == 0 || v > 65535) {
        *error = "'" + std::string(s) + "' has no port in 1..65535";
        return UCC_ERR_INVALID_PARAM;
    }
    *host = h;
    *port = static_cast<uint16_t>(v);
    return UCC_OK;
}

ucc_status_t parse_env(const GetEnv &getenv, BootEnv *out, std::string *error) {
    BootEnv e;
    Var rank = first_set(getenv, kRankVars);
    Var size = first_set(getenv, kSizeVars);
    if (rank && !size) {
        return fail(error, rank.text() + " names a rank but no world size is set (" +
                               one_of(kSizeVars) + ")");
    }
    if (size && !rank) {
        return fail(error, size.text() + " names a world size but no rank is set (" +
                               one_of(kRankVars) + ")");
    }
    if (rank) {
        if (read_u32(rank, &e.rank, error) != UCC_OK || read_u32(size, &e.size, error) != UCC_OK) {
            return UCC_ERR_INVALID_PARAM;
        }
        if (e.size == 0) {
            return fail(error, size.text() + ": the world size must be at least 1");
        }
        if (e.rank >= e.size) {
            return fail(error, rank.text() + " is not below " + size.text());
        }
        e.launched = true;
        e.origin = rank.text() + " " + size.text();
    } else {
        e.origin = "not launched: a singleton";
    }

    Var local_rank = first_set(getenv, kLocalRankVars);
    Var local_size = first_set(getenv, kLocalSizeVars);
    std::string derived;  // a Slurm local size worked out from the node's task count
    if (!local_size && local_rank && local_rank.name == "SLURM_LOCALID") {
        Var tasks = lookup(getenv, "SLURM_TASKS_PER_NODE");
        Var node = lookup(getenv, "SLURM_NODEID");
        uint32_t node_id = 0;
        uint32_t n = 0;
        if (tasks && node) {
            if (read_u32(node, &node_id, error) != UCC_OK) {
                return UCC_ERR_INVALID_PARAM;
            }
            if (!slurm_tasks_on_node(tasks.value, node_id, &n)) {
                return fail(error,
                            tasks.text() + " is malformed or has no entry for " + node.text());
            }
            derived = std::to_string(n);
            local_size = {tasks.name + "[" + node.text() + "]", derived.c_str()};
        }
    }
    if (local_rank && !local_size) {
        return fail(error, local_rank.text() + " names a local rank but no local size is set (" +
                               one_of(kLocalSizeVars) + ")");
    }
    if (local_size && !local_rank) {
        return fail(error, local_size.text() + " names a local size but no local rank is set (" +
                               one_of(kLocalRankVars) + ")");
    }
    if (local_rank) {
        if (read_u32(local_rank, &e.local_rank, error) != UCC_OK ||
            read_u32(local_size, &e.local_size, error) != UCC_OK) {
            return UCC_ERR_INVALID_PARAM;
        }
        if (e.local_size == 0) {
            return fail(error, local_size.text() + ": the local size must be at least 1");
        }
        if (e.local_rank >= e.local_size) {
            return fail(error, local_rank.text() + " is not below " + local_size.text());
        }
        if (e.local_size > e.size) {
            return fail(error,
                        local_size.text() + " exceeds the world size " + std::to_string(e.size));
        }
        e.origin += " " + local_rank.text() + " " + local_size.text();
    } else {
        // No local variables: one node.
        e.local_rank = e.rank;
        e.local_size = e.size;
    }

    Var store = lookup(getenv, "UCC_STORE");
    Var master_addr = lookup(getenv, "MASTER_ADDR");
    Var master_port = lookup(getenv, "MASTER_PORT");
    if (store) {
        std::string why;
        if (parse_host_port(store.value, &e.store_host, &e.store_port, &why) != UCC_OK) {
            return fail(error, "UCC_STORE: " + why);
        }
        e.origin += " " + store.text();
    } else if (master_addr || master_port) {
        if (!master_addr || !master_port) {
            Var &given = master_addr ? master_addr : master_port;
            return fail(error, given.text() + " is set but " +
                                   (master_addr ? "MASTER_PORT" : "MASTER_ADDR") +
                                   " is not (rank 0 hosts the store at MASTER_ADDR:MASTER_PORT)");
        }
        uint32_t port = 0;
        if (!parse_u32(master_port.value, &port) || port == 0 || port > 65535) {
            return fail(error, master_port.text() + " is not a port in 1..65535");
        }
        e.store_host = master_addr.value;
        e.store_port = static_cast<uint16_t>(port);
        e.host_store = e.rank == 0;
        e.origin += " " + master_addr.text() + " " + master_port.text();
    } else if (e.size == 1) {
        e.store_host = "127.0.0.1";
        e.store_port = 0;
        e.host_store = true;
    } else {
        return fail(error, "no store address for a job of " + std::to_string(e.size) +
                               " ranks: set UCC_STORE=host:port (a store that runs, as ucc_run "
                               "sets it) or MASTER_ADDR and MASTER_PORT (rank 0 hosts the store)");
    }
    *out = std::move(e);
    return UCC_OK;
}

}  // namespace ucc::boot
