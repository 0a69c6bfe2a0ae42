// Algorithm selection: a name forced by the context's `<COLL>_ALG` variable, or
// a choice by message size and team size ("auto").
#include <cctype>
#include <cstring>
#include <string>

#include "lib/coll/coll.h"
#include "lib/core/core.h"

namespace ucc::core {

namespace {

std::string alg_var(ucc_coll_type_t t) {
    std::string name = coll_type_name(t);
    for (char &ch : name) {
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
    return name + "_ALG";
}

uint32_t type_bit(ucc_coll_type_t t) {
    uint32_t bit = 0;
    while (bit < 16 && (static_cast<uint64_t>(t) >> bit) != 1) {
        ++bit;
    }
    return bit;
}

const coll::Algorithm *find(std::span<const coll::Algorithm> table, const char *name) {
    for (const coll::Algorithm &a : table) {
        if (std::strcmp(a.name, name) == 0) {
            return &a;
        }
    }
    return nullptr;
}

// The default choice for each collective.
const char *auto_choice(const Context &ctx, const coll::Args &a, uint32_t n) {
    const uint64_t bytes = a.count * a.esize;
    switch (a.type) {
        case UCC_COLL_TYPE_ALLREDUCE:
            if (bytes < ctx.tuning.allreduce_large_msg || a.count < n) {
                return "recursive_doubling";
            }
            return n <= 8 ? "ring" : "rabenseifner";
        case UCC_COLL_TYPE_ALLGATHER:
            // Up to three ranks the ring takes as few rounds as Bruck and
            // copies nothing but the rank's own block.
            return n <= 3 || bytes >= ctx.tuning.allgather_large_msg ? "ring" : "bruck";
        case UCC_COLL_TYPE_ALLTOALL:
            if (n <= 16 && bytes <= 4096) {
                return "linear";
            }
            // Bruck moves log2(n)/2 times the bytes (plus packing) in log2(n)
            // rounds instead of n-1: worth it while a block is small next to
            // the latency. Under LogGP the two cost the same at about
            // B = 2(L + o) / (log2(n) (G + 2/copy bandwidth)): some 2.4 KB at
            // 1,024 ranks and 4 KB at 64 on an HDR-like fabric, which
            // B log2(n) <= 20 KiB follows.
            if (n >= 64) {
                uint64_t rounds = 0;
                while ((uint64_t{1} << rounds) < n) {
                    ++rounds;
                }
                if (bytes * rounds <= 20 * 1024) {
                    return "bruck";
                }
            }
            return "pairwise";
        case UCC_COLL_TYPE_BARRIER:
            return "dissemination";
        default:
            return nullptr;
    }
}

}  // namespace

void load_tuning(const Config &config, Tuning *out) {
    out->radix = static_cast<uint32_t>(config.get_int("KNOMIAL_RADIX"));
    out->allreduce_large_msg = static_cast<uint64_t>(config.get_int("ALLREDUCE_LARGE_MSG"));
    out->allgather_large_msg = static_cast<uint64_t>(config.get_int("ALLGATHER_LARGE_MSG"));
    out->reduce_chunk = static_cast<uint64_t>(config.get_int("REDUCE_CHUNK"));
    for (uint32_t bit = 0; bit < 16; ++bit) {
        const std::string &v = config.get(alg_var(static_cast<ucc_coll_type_t>(1u << bit)));
        out->forced[bit] = v.empty() || v == "auto" ? nullptr : &v;
    }
}

const coll::Algorithm *select_algorithm(const Context &ctx, const coll::Args &a, uint32_t size,
                                        std::string *why) {
    std::span<const coll::Algorithm> table = coll::algorithms(a.type);
    if (table.empty()) {
        *why = std::string("no algorithm implements ") + coll_type_name(a.type) + " yet";
        return nullptr;
    }
    const std::string *forced = ctx.tuning.forced[type_bit(a.type) & 15];
    const coll::Algorithm *alg = nullptr;
    if (forced != nullptr) {
        alg = find(table, forced->c_str());
        if (alg == nullptr) {
            *why = "UCC_" + alg_var(a.type) + "=" + *forced + ": no such " +
                   coll_type_name(a.type) + " algorithm";
            return nullptr;
        }
    } else {
        const char *choice = auto_choice(ctx, a, size);
        alg = choice != nullptr ? find(table, choice) : nullptr;
        if (alg == nullptr) {
            alg = &table[0];
        }
    }
    if (!alg->supports(a, size)) {
        *why = std::string(coll_type_name(a.type)) + " algorithm " + alg->name +
               " cannot run these arguments";
        return nullptr;
    }
    return alg;
}

}  // namespace ucc::core
