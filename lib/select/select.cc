// Algorithm selection: the built-in rules as a table (ucc_info prints it), a
// forced <COLL>_ALG, the cheapest predicted (by_cost.cc) or the rules, then
// the TUNE rules on top; with reasons on request (ucc_info --explain,
// COLL_TRACE). The core's side is context.cc.
#include <array>
#include <cctype>
#include <cstring>
#include <string>

#include "lib/coll/algorithms.h"
#include "lib/coll/topology.h"
#include "lib/core/core.h"
#include "lib/select/select.h"

namespace ucc::select {

namespace {

uint32_t ceil_log2(uint64_t n) {
    uint32_t r = 0;
    while ((uint64_t{1} << r) < n) {
        ++r;
    }
    return r;
}

// Bruck moves log2(n)/2 times the bytes (plus packing) in log2(n) rounds
// instead of n - 1: worth it while a block is small next to the latency.
// Under LogGP the two cost the same at about B = 2(L + o) / (log2(n) (G + 2 /
// copy bandwidth)): some 2.4 KB at 1,024 ranks and 4 KB at 64 on an HDR-like
// fabric, which B log2(n) <= 20 KiB follows.
// A team spread over several nodes, with several ranks on one, when the
// hierarchical algorithms may run (UCC_CLS with hier): they take what the
// reference's CL/HIER takes by default (its score map: allreduce, bcast and
// reduce below 4 KiB, allgatherv below 8 MiB, every barrier), the flat rules
// the rest.
bool spans_nodes(const Query &q) {
    return q.topo != nullptr && !q.topo->flat();
}
constexpr uint64_t kHierSmallMsg = 4096;

constexpr AutoRule kRules[] = {
    // The reference's tl/sharp scores 30, above every host algorithm.
    {UCC_COLL_TYPE_ALLREDUCE, "sharp",
     "the network reduces in its switches and every member is on a node of its own",
     [](const Thresholds &, const Query &q) { return q.net_reduce; }},
    {UCC_COLL_TYPE_ALLREDUCE, "rab", "UCC_CLS has hier, the team spans nodes, bytes < 4K",
     [](const Thresholds &, const Query &q) {
         return spans_nodes(q) && q.msgsize() < kHierSmallMsg;
     }},
    {UCC_COLL_TYPE_BCAST, "2step", "UCC_CLS has hier, the team spans nodes, bytes < 4K",
     [](const Thresholds &, const Query &q) {
         return spans_nodes(q) && q.msgsize() < kHierSmallMsg;
     }},
    {UCC_COLL_TYPE_REDUCE, "2step", "UCC_CLS has hier, the team spans nodes, bytes < 4K",
     [](const Thresholds &, const Query &q) {
         return spans_nodes(q) && q.msgsize() < kHierSmallMsg;
     }},
    {UCC_COLL_TYPE_ALLGATHERV, "gab", "UCC_CLS has hier, the team spans nodes, bytes < 8M",
     [](const Thresholds &, const Query &q) { return spans_nodes(q) && q.msgsize() < (8u << 20); }},
    {UCC_COLL_TYPE_BARRIER, "hier", "UCC_CLS has hier and the team spans nodes",
     [](const Thresholds &, const Query &q) { return spans_nodes(q); }},
    {UCC_COLL_TYPE_ALLREDUCE, "recursive_doubling",
     "bytes < ALLREDUCE_LARGE_MSG, or fewer elements than ranks",
     [](const Thresholds &t, const Query &q) {
         return q.count * q.esize < t.allreduce_large_msg || q.count < q.team_size;
     }},
    {UCC_COLL_TYPE_ALLREDUCE, "ring", "team size <= 8",
     [](const Thresholds &, const Query &q) { return q.team_size <= 8; }},
    {UCC_COLL_TYPE_ALLREDUCE, "rabenseifner", "otherwise",
     [](const Thresholds &, const Query &) { return true; }},
    // Up to three ranks the ring takes as few rounds as Bruck and copies
    // nothing but the rank's own block.
    {UCC_COLL_TYPE_ALLGATHER, "ring", "team size <= 3, or block bytes >= ALLGATHER_LARGE_MSG",
     [](const Thresholds &t, const Query &q) {
         return q.team_size <= 3 || q.count * q.esize >= t.allgather_large_msg;
     }},
    {UCC_COLL_TYPE_ALLGATHER, "bruck", "otherwise",
     [](const Thresholds &, const Query &) { return true; }},
    {UCC_COLL_TYPE_ALLTOALL, "linear", "team size <= 16 and block bytes <= 4096",
     [](const Thresholds &, const Query &q) {
         return q.team_size <= 16 && q.count * q.esize <= 4096;
     }},
    {UCC_COLL_TYPE_ALLTOALL, "bruck", "team size >= 64 and block bytes x ceil(log2 size) <= 20K",
     [](const Thresholds &, const Query &q) {
         return q.team_size >= 64 && q.count * q.esize * ceil_log2(q.team_size) <= 20 * 1024;
     }},
    {UCC_COLL_TYPE_ALLTOALL, "pairwise", "otherwise",
     [](const Thresholds &, const Query &) { return true; }},
    {UCC_COLL_TYPE_BARRIER, "dissemination", "always",
     [](const Thresholds &, const Query &) { return true; }},
};

const coll::Algorithm *find(std::span<const coll::Algorithm> table, const char *name) {
    for (const coll::Algorithm &a : table) {
        if (std::strcmp(a.name, name) == 0) {
            return &a;
        }
    }
    return nullptr;
}

std::string score_text(uint32_t s) {
    return s == kScoreInf ? "inf" : std::to_string(s);
}

// The score an algorithm's component gives it in the reference: cl/hier's
// above tl/sharp's above every other's.
uint32_t builtin_score(const coll::Algorithm &a) {
    return a.hierarchical ? kHierScore : a.score != 0 ? a.score : kDefaultScore;
}

// The built-in choice among the flat algorithms (what runs where CL/HIER
// does not).
const coll::Algorithm *flat_builtin(std::span<const coll::Algorithm> table, const Thresholds &t,
                                    Query q, const coll::Args *args) {
    q.topo = nullptr;
    if (by_cost(q, args)) {
        if (const coll::Algorithm *alg = cheapest(q, *args, nullptr)) {
            return alg;
        }
    }
    for (const AutoRule &r : kRules) {
        if (r.type == q.type && r.match(t, q)) {
            return find(table, r.alg);
        }
    }
    return &table[0];
}

}  // namespace

// "ALLREDUCE_ALG" for UCC_COLL_TYPE_ALLREDUCE: the variable that forces its
// algorithm. Built once, never written after (every context reads all 16).
const std::string &alg_var(ucc_coll_type_t t) {
    static const std::array<std::string, 16> kNames = [] {
        std::array<std::string, 16> names;
        for (uint32_t bit = 0; bit < names.size(); ++bit) {
            std::string name = core::coll_type_name(static_cast<ucc_coll_type_t>(1u << bit));
            for (char &ch : name) {
                ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
            }
            names[bit] = name + "_ALG";
        }
        return names;
    }();
    return kNames[coll::type_index(t)];
}

std::span<const AutoRule> auto_rules() {
    return kRules;
}

Choice choose(const Query &q, const Thresholds &t, const std::string *forced,
              std::span<const TuneRule> rules, const coll::Args *args, bool explain) {
    Choice c;
    std::span<const coll::Algorithm> table = coll::algorithms(q.type);
    const char *type = core::coll_type_name(q.type);
    if (table.empty()) {
        c.error = std::string("no algorithm implements ") + type + " yet";
        return c;
    }
    // 1. The built-in choice, or the forced one.
    const coll::Algorithm *base = nullptr;
    if (forced != nullptr) {
        base = find(table, forced->c_str());
        if (base == nullptr) {
            c.error = "UCC_" + alg_var(q.type) + "=" + *forced + ": no such " + type + " algorithm";
            return c;
        }
        if (explain) {
            c.why = "UCC_" + alg_var(q.type) + "=" + *forced + " forces it";
        }
        if (base->hierarchical && args != nullptr && !base->supports(*args, q.team_size)) {
            // The layout, not the arguments, rules it out (one node, one
            // rank per node, or UCC_CLS without hier): the built-in choice.
            if (explain) {
                c.why += std::string("; ") + base->name +
                         " needs a team over several nodes and UCC_CLS with hier";
            }
            forced = nullptr;
            base = nullptr;
        }
    }
    if (base == nullptr) {
        const bool cost = by_cost(q, args);
        for (const AutoRule &r : kRules) {
            if (r.type == q.type && r.match(t, q)) {
                base = find(table, r.alg);
                if ((args != nullptr && !base->supports(*args, q.team_size)) ||
                    (cost && by_cost_among(*base))) {
                    base = nullptr;  // not these arguments, or chosen by cost: the next rule
                    continue;
                }
                if (explain) {
                    c.why += std::string(c.why.empty() ? "" : "; ") + "built-in rule: " + r.when;
                }
                break;
            }
        }
        if (base == nullptr && cost) {
            std::string figures;
            base = cheapest(q, *args, explain ? &figures : nullptr);
            if (base != nullptr && explain) {
                c.why += std::string(c.why.empty() ? "" : "; ") + figures;
            }
        }
        if (base == nullptr && cost) {
            // No formula runs these arguments: the rules after all.
            for (const AutoRule &r : kRules) {
                const coll::Algorithm *alg = find(table, r.alg);
                if (r.type == q.type && by_cost_among(*alg) && r.match(t, q) &&
                    alg->supports(*args, q.team_size)) {
                    base = alg;
                    if (explain) {
                        c.why +=
                            std::string(c.why.empty() ? "" : "; ") + "built-in rule: " + r.when;
                    }
                    break;
                }
            }
        }
        if (base == nullptr) {
            base = &table[0];
            if (explain) {
                c.why += std::string(c.why.empty() ? "" : "; ") +
                         (table.size() == 1 ? "the only algorithm"
                                            : "built-in rule: the first algorithm");
            }
        }
    }
    // 2. TUNE rules, in order: each that matches replaces the algorithm or
    // the score.
    const coll::Algorithm *alg = base;
    uint32_t score = kDefaultScore;
    const TuneRule *decided = nullptr;
    const uint32_t bit = coll::type_index(q.type);
    for (const TuneRule &r : rules) {
        if (!r.matches(q)) {
            continue;
        }
        if (r.hier) {
            // CL/HIER's string: its algorithm, or its rank against the flat
            // layer (a score never disables the collective itself).
            const coll::Algorithm *was = alg;
            if (r.has_alg && r.alg[bit] != nullptr) {
                alg = r.alg[bit];
            } else if (r.has_score && r.score > kDefaultScore && !alg->hierarchical &&
                       hier_alg(q.type, 0) != nullptr) {
                alg = hier_alg(q.type, 0);
            } else if (r.has_score && r.score <= kDefaultScore && alg->hierarchical) {
                alg = flat_builtin(table, t, q, args);
            }
            if (explain) {
                c.why +=
                    "; TUNE token '" + r.token + "' (" + r.source + ") matches: " +
                    (alg != was ? std::string("algorithm ") + alg->name : std::string("no change"));
            }
            continue;
        }
        if (r.has_alg && r.alg[bit] != nullptr && forced == nullptr &&
            builtin_score(*alg) > builtin_score(*r.alg[bit]) &&
            (!r.has_score || r.score <= builtin_score(*alg))) {
            // A component's string ranks its own algorithms at its score (the
            // reference's tl/ucp at 10): an algorithm of a component that
            // scores higher (cl/hier, tl/sharp) stays on top, and the levels
            // of a hierarchical one take the string.
            if (explain) {
                c.why += "; TUNE token '" + r.token + "' (" + r.source +
                         ") matches: " + r.alg[bit]->name + " ranks below " + alg->name +
                         " (score " + std::to_string(builtin_score(*alg)) + ")";
            }
            continue;
        }
        if (r.has_alg && r.alg[bit] != nullptr) {
            alg = r.alg[bit];
        }
        if (r.has_score) {
            score = r.score;
        }
        decided = &r;
        if (explain) {
            c.why += "; TUNE token '" + r.token + "' (" + r.source + ") matches: " +
                     (r.has_alg ? std::string("algorithm ") + alg->name : std::string()) +
                     (r.has_alg && r.has_score ? ", " : "") +
                     (r.has_score ? "score " + score_text(r.score) : std::string());
        }
    }
    if (score == 0) {
        c.error = std::string(type) + " of " + std::to_string(q.msgsize()) + " bytes on " +
                  std::to_string(q.team_size) + " ranks is disabled by TUNE token '" +
                  decided->token + "' (" + decided->source + ")";
        return c;
    }
    if (args != nullptr && alg != base && !alg->supports(*args, q.team_size) &&
        base->supports(*args, q.team_size)) {
        if (explain) {
            c.why += std::string("; ") + alg->name + " cannot run these arguments: " + base->name +
                     " instead";
        }
        alg = base;
    }
    if (args != nullptr && !alg->supports(*args, q.team_size) && forced == nullptr &&
        decided == nullptr) {
        // Nothing asked for this one: the first algorithm that can run them
        // (a one-sided alltoallv, whose arguments mean what only it reads).
        for (const coll::Algorithm &other : table) {
            if (other.supports(*args, q.team_size)) {
                if (explain) {
                    c.why += std::string("; ") + alg->name +
                             " cannot run these arguments: " + other.name + " can";
                }
                alg = &other;
                break;
            }
        }
    }
    if (args != nullptr && !alg->supports(*args, q.team_size)) {
        c.error = std::string(type) + " algorithm " + alg->name + " cannot run these arguments";
        return c;
    }
    c.alg = alg;
    return c;
}

}  // namespace ucc::select
