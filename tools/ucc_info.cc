// ucc_info: what this UCC is and how it is configured, with the reference's
// options (-v -b -c -a -f -s -A -h), and beyond them
//   ucc_info --explain <coll> <bytes> <team size> [-d <datatype>] [-m <memtype>] [-p <ppn>]
//            [-n <network>]
// which says which algorithm a collective of that size would run on a
// network (a ucc_sim network spec or file, default hdr) and why (the
// cheapest predicted, a built-in rule, a forced variable or a TUNE token),
// reading the configuration a context would read (environment and
// ucc.conf), with the predicted time of every flat algorithm of the
// collective (lib/cost/cost.h), and
//   ucc_info --markdown
// which prints the configuration tables of docs/configuration.md from the same tables as -c.
#include <getopt.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lib/coll/algorithms.h"
#include "lib/coll/radix.h"
#include "lib/core/config.h"
#include "lib/core/core.h"
#include "lib/core/cuda_loader.h"
#include "lib/core/transport_select.h"
#include "lib/cost/cost.h"
#include "lib/net/network_model.h"
#include "lib/select/select.h"
#include "tools/perf/colls.h"
#include "tools/perf/network.h"
#include "ucc/api/ucc.h"

namespace {

using ucc::core::Config;
using ucc::core::ConfigVar;

void usage(FILE *f) {
    std::fprintf(f,
                 "Usage: ucc_info [options]\n"
                 "At least one of the following options has to be set:\n"
                 "  -v Show version information\n"
                 "  -b Show build configuration\n"
                 "  -c Show UCC configuration\n"
                 "  -a Show also hidden configuration\n"
                 "  -f Show fully decorated output\n"
                 "  -s Show default components scores\n"
                 "  -A Show collective algorithms available for selection\n"
                 "  -h Show this help message\n"
                 "Beyond the reference:\n"
                 "  --explain <coll> <bytes> <team size> [-d <datatype>] [-m <memtype>] [-p <ranks "
                 "per node>] [-n <network>]\n"
                 "     Which algorithm that collective would run, and why, and every flat\n"
                 "     algorithm's predicted time on the network (a ucc_sim spec or file; hdr)\n"
                 "  --markdown  The configuration tables as Markdown (docs/configuration.md)\n"
                 "\n");
}

std::string capitalised(const char *name) {
    std::string s = name;
    if (!s.empty()) {
        s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    }
    return s;
}

void print_version() {
    std::printf("# UCC version=%s revision %s\n", UCC_VERSION_STRING, UCC_GIT_REVISION);
    std::printf("# Configured with: %s\n", UCC_INFO_CONFIGURED_WITH);
}

// The CUDA component (transports/cuda, libucc_cuda.so): where it was found, the
// toolkit it was built with, and whether this machine has a device for it.
void print_cuda_component() {
    std::printf("#define %-25s %d\n", "UCC_WITH_CUDA", UCC_INFO_WITH_CUDA);
    ucc::core::Logger log;
    ucc::core::CudaComponent cuda;
    if (const char *dir = std::getenv("UCC_COMPONENT_PATH"); dir != nullptr && dir[0] != '\0') {
        cuda.set_search_path(dir);
    }
    const ucc_cuda_component_t *ops = cuda.ops(log);
    if (ops == nullptr) {
        std::printf("# component cuda: not loaded: %s; CUDA memory is refused\n",
                    cuda.why(log).c_str());
    } else if (!cuda.usable(log)) {
        std::printf("# component cuda: %s (CUDA %s): %s; CUDA memory is refused\n",
                    cuda.path(log).c_str(), ops->built_with, cuda.why(log).c_str());
    } else {
        std::printf("# component cuda: %s (CUDA %s): %d device(s) usable\n", cuda.path(log).c_str(),
                    ops->built_with, cuda.devices(log));
    }
}

void print_build() {
    std::printf("#define %-25s %s\n", "UCC_VERSION_STRING", "\"" UCC_VERSION_STRING "\"");
    std::printf("#define %-25s %s\n", "UCC_GIT_REVISION", "\"" UCC_GIT_REVISION "\"");
    std::printf("#define %-25s %s\n", "UCC_BUILD_TYPE", "\"" UCC_INFO_BUILD_TYPE "\"");
    std::printf("#define %-25s %s\n", "UCC_CXX_COMPILER", "\"" UCC_INFO_COMPILER "\"");
    std::printf("#define %-25s %s\n", "UCC_INSTALL_PREFIX", "\"" UCC_INFO_PREFIX "\"");
    std::printf("#define %-25s %d\n", "UCC_WITH_UCX", UCC_INFO_WITH_UCX);
    std::printf("#define %-25s \"%s\"\n", "UCC_TRANSPORTS", ucc::core::transport_names().c_str());
    // Each transport, and when a context takes it.
    for (const ucc::TransportEntry &e : ucc::transport_table()) {
        ucc::TransportParams p;
        p.has_oob = true;
        p.n_oob_eps = 2;
        std::string why;
        const bool multi = e.available(p, &why);
        std::printf("# transport %-5s%s%s: %s; %s\n", e.name, e.alias != nullptr ? " alias " : "",
                    e.alias != nullptr ? e.alias : "", e.description,
                    multi ? "available to contexts of several processes"
                          : ("not for several processes: " + why).c_str());
    }
    print_cuda_component();
}

void print_config(const Config &c, const char *title, bool doc, bool aliases) {
    ucc_config_print_flags_t flags = UCC_CONFIG_PRINT_CONFIG;
    if (doc) {
        flags = static_cast<ucc_config_print_flags_t>(flags | UCC_CONFIG_PRINT_HEADER |
                                                      UCC_CONFIG_PRINT_DOC);
    }
    c.print(stdout, title, flags);
    if (!aliases) {
        return;
    }
    // -a: the other names each variable is read under.
    for (const ConfigVar &v : c.table()) {
        for (const char *comp : ucc::core::config_components()) {
            std::printf("# %s%s_%s: alias of %s%s\n", c.prefix().c_str(), comp, v.name,
                        c.prefix().c_str(), v.name);
        }
    }
}

void print_algorithms() {
    // cl/basic: the flat algorithms by their index in the table; cl/hier:
    // the hierarchical ones by CL/HIER's ids (UCC_CL_HIER_TUNE's @id).
    for (bool hier : {false, true}) {
        std::printf("%scl/%s algorithms:\n", hier ? "\n" : "", hier ? "hier" : "basic");
        for (const ucc::perf::CollDesc &cd : ucc::perf::colls()) {
            uint32_t id = 0;
            bool named = false;
            for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(cd.type)) {
                if (a.hierarchical == hier) {
                    if (!named) {
                        std::printf("  %s\n", capitalised(cd.name).c_str());
                        named = true;
                    }
                    std::printf("    %u : %16s : %s\n", id, a.name, a.description);
                }
                id += !hier || a.hierarchical ? 1 : 0;
            }
        }
    }
    std::printf("\ntl/ucp algorithm names and ids (TUNE @name or @id), mapped onto ours:\n");
    ucc_coll_type_t last = UCC_COLL_TYPE_LAST;
    for (const ucc::select::ReferenceAlg &r : ucc::select::reference_algs()) {
        if (r.type != last) {
            std::printf("  %s\n", capitalised(ucc::core::coll_type_name(r.type)).c_str());
            last = r.type;
        }
        std::printf("    %u : %16s : runs %s\n", r.id, r.name, r.ours);
    }
    std::printf("\n");
}

// -s: scores and where the selector uses each algorithm.
void print_scores(const ucc::core::Tuning &t) {
    std::printf("Default CLs scores: basic=%u hier=%u\n", ucc::select::kDefaultScore,
                ucc::select::kHierScore);
    std::printf("Default TLs scores:");
    for (const ucc::TransportEntry &e : ucc::transport_table()) {
        std::printf(" %s=%u", e.name, ucc::select::kDefaultScore);
    }
    std::printf("\n\nBuilt-in selection (the first rule that holds; TUNE rules apply on top):\n");
    std::printf(t.by_cost
                    ? "  UCC_SELECT=cost: where the transport knows its network (the simulator), "
                      "the\n  cheapest predicted algorithm replaces the rules but tl/sharp's "
                      "(with UCC_CLS=basic,hier\n  the hierarchical ones compete too; "
                      "ucc_info --explain)\n"
                    : "  UCC_SELECT=rules: the rules below everywhere\n");
    // The names right-aligned in one column, as wide as the longest.
    int w = 16;
    for (const ucc::select::AutoRule &r : ucc::select::auto_rules()) {
        w = std::max(w, static_cast<int>(std::strlen(r.alg)));
    }
    for (const ucc::perf::CollDesc &cd : ucc::perf::colls()) {
        if (const std::string *forced = t.forced(cd.type); forced != nullptr) {
            w = std::max(w, static_cast<int>(forced->size()));
        }
        w = std::max(w, static_cast<int>(std::strlen(ucc::coll::algorithms(cd.type)[0].name)));
    }
    for (const ucc::perf::CollDesc &cd : ucc::perf::colls()) {
        std::printf("  %s\n", capitalised(cd.name).c_str());
        if (const std::string *forced = t.forced(cd.type); forced != nullptr) {
            std::string var = ucc::core::coll_type_name(cd.type);
            std::transform(var.begin(), var.end(), var.begin(),
                           [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
            std::printf("    %*s : forced by UCC_%s_ALG\n", w, forced->c_str(), var.c_str());
            continue;
        }
        bool any = false;
        for (const ucc::select::AutoRule &r : ucc::select::auto_rules()) {
            if (r.type == cd.type) {
                std::printf("    %*s : %s\n", w, r.alg, r.when);
                any = true;
            }
        }
        if (!any) {
            std::printf("    %*s : always\n", w, ucc::coll::algorithms(cd.type)[0].name);
        }
    }
    std::printf("  thresholds: ALLREDUCE_LARGE_MSG=%llu ALLGATHER_LARGE_MSG=%llu\n",
                static_cast<unsigned long long>(t.thresholds.allreduce_large_msg),
                static_cast<unsigned long long>(t.thresholds.allgather_large_msg));
    if (!t.rules.empty()) {
        std::printf("\nTUNE rules in effect, in order:\n");
        for (const ucc::select::TuneRule &r : t.rules) {
            std::printf("  %s: %s\n", r.source.c_str(), r.token.c_str());
        }
    }
}

// The tables of docs/configuration.md: | Variable | Default | Status | Meaning |.
void print_markdown(const Config &c, const char *title) {
    std::printf("%s\n\n| Variable | Default | Status | Meaning |\n|---|---|---|---|\n", title);
    for (const ConfigVar &v : c.table()) {
        std::string doc = v.doc;
        if (doc.rfind("Ignored: ", 0) == 0) {
            doc = doc.substr(9);
        }
        std::string escaped;
        for (char ch : doc) {
            escaped += ch == '|' ? std::string("\\|") : std::string(1, ch);
        }
        std::printf("| `%s%s` | %s | %s | %s |\n", c.prefix().c_str(), v.name,
                    v.default_value[0] != '\0' ? ("`" + std::string(v.default_value) + "`").c_str()
                                               : "(empty)",
                    v.ignored ? "ignored" : "implemented", escaped.c_str());
    }
}

// `network` (a preset, a spec or a file) with `ppn` ranks per node when
// given, as the selector and the formulas see it.
bool load_network(const char *network, uint32_t ppn, ucc::cost::Params *out) {
    ucc::perf::NetworkArg net;
    std::string error;
    if (!ucc::perf::resolve_network(network, &net, &error)) {
        std::fprintf(stderr, "ucc_info: %s\n", error.c_str());
        return false;
    }
    ucc::net::NetworkModel model;
    if (ucc::net::parse_network(net.spec.c_str(), &model, &error) != UCC_OK) {
        std::fprintf(stderr, "ucc_info: network '%s': %s\n", network, error.c_str());
        return false;
    }
    if (ppn != 0) {
        model.ranks_per_node = ppn;
    }
    *out = ucc::net::cost_params(model);
    return true;
}

// Every flat algorithm's predicted time for `a` on `n` ranks of network
// `p` (with the radix it runs with, where it reads one), the chosen one marked.
void print_costs(const ucc::coll::Args &a, uint32_t n, const char *network,
                 const ucc::cost::Params &p, const ucc::coll::Algorithm *chosen) {
    std::printf("  predicted on %s, %u ranks per node (uncontended; lib/cost):\n", network, p.ppn);
    for (const ucc::coll::Algorithm &alg : ucc::coll::algorithms(a.type)) {
        const double s = ucc::cost::predict(alg, a, n, p);
        const char *mark = &alg == chosen ? "  <- chosen" : "";
        if (s < 0) {
            std::printf("    %-20s %12s%s\n", alg.name,
                        alg.hierarchical ? "(levels)"
                        : alg.onesided   ? "(one-sided)"
                        : alg.score != 0 ? "(in network)"
                                         : "(none)",
                        mark);
        } else if (alg.hierarchical && a.topo == nullptr) {
            std::printf("    %-20s %9.2f us  (with UCC_CLS=basic,hier)%s\n", alg.name, s * 1e6,
                        mark);
        } else if (!alg.supports(a, n)) {
            std::printf("    %-20s %9.2f us  (cannot run these arguments)%s\n", alg.name, s * 1e6,
                        mark);
        } else if (ucc::coll::reads_radix(alg)) {
            std::printf("    %-20s %9.2f us  (radix %u)%s\n", alg.name, s * 1e6,
                        ucc::cost::radix_for(alg, a, n, p), mark);
        } else {
            std::printf("    %-20s %9.2f us%s\n", alg.name, s * 1e6, mark);
        }
    }
    std::printf("    %-20s %9.2f us\n", "(lower bound)", ucc::cost::lower_bound(a, n, p) * 1e6);
}

int explain(int argc, char **argv, int first, const ucc::core::Tuning &t, bool hier) {
    if (argc - first < 3) {
        std::fprintf(stderr, "ucc_info: --explain needs <coll> <bytes> <team size>\n");
        return 1;
    }
    const ucc::perf::CollDesc *cd = ucc::perf::find_coll(argv[first]);
    const ucc::perf::DtDesc *dt = ucc::perf::find_dtype("float32");
    ucc_memory_type_t mem = UCC_MEMORY_TYPE_HOST;
    uint64_t bytes = 0;
    uint64_t n = 0;
    uint64_t ppn = 0;
    const char *network = "hdr";
    if (cd == nullptr) {
        std::fprintf(stderr, "ucc_info: unknown collective '%s' (have %s)\n", argv[first],
                     ucc::perf::coll_names().c_str());
        return 1;
    }
    if (!ucc::perf::parse_units(argv[first + 1], &bytes) ||
        !ucc::perf::parse_units(argv[first + 2], &n) || n == 0 || n > (1u << 30)) {
        std::fprintf(stderr, "ucc_info: bad <bytes> '%s' or <team size> '%s'\n", argv[first + 1],
                     argv[first + 2]);
        return 1;
    }
    for (int i = first + 3; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "-d") == 0) {
            dt = ucc::perf::find_dtype(argv[i + 1]);
            if (dt == nullptr) {
                std::fprintf(stderr, "ucc_info: unknown datatype '%s'\n", argv[i + 1]);
                return 1;
            }
        } else if (std::strcmp(argv[i], "-m") == 0) {
            if (!ucc::perf::parse_memtype(argv[i + 1], &mem)) {
                std::fprintf(stderr, "ucc_info: unknown memory type '%s'\n", argv[i + 1]);
                return 1;
            }
        } else if (std::strcmp(argv[i], "-n") == 0) {
            network = argv[i + 1];
        } else if (std::strcmp(argv[i], "-p") == 0) {
            if (!ucc::perf::parse_units(argv[i + 1], &ppn) || ppn == 0 || ppn > n) {
                std::fprintf(stderr, "ucc_info: bad ranks per node '%s'\n", argv[i + 1]);
                return 1;
            }
        }
    }
    // -p: the team's ranks on nodes of ppn (the hierarchical algorithms see
    // them when UCC_CLS has hier).
    const ucc::coll::Topology topo =
        ucc::coll::Topology::regular(static_cast<uint32_t>(n), 0, static_cast<uint32_t>(ppn));
    ucc::select::Query q;
    q.type = cd->type;
    q.esize = dt->size;
    q.count = bytes / dt->size;
    q.team_size = static_cast<uint32_t>(n);
    q.mem = mem;
    q.topo = ppn != 0 && hier ? &topo : nullptr;
    ucc::cost::Params net;
    if (!load_network(network, static_cast<uint32_t>(ppn), &net)) {
        return 1;
    }
    q.net = t.by_cost ? &net : nullptr;
    ucc::coll::Args a;
    a.type = q.type;
    a.count = q.count;
    a.esize = q.esize;
    a.dt = dt->dt;
    a.src_mem = a.dst_mem = mem;
    a.topo = q.topo;
    a.radix = t.radixes.fallback;
    a.radixes = &t.radixes;
    a.chunk_bytes = t.chunk();
    a.hybrid = &t.hybrid();
    a.pipelines = &t.pipelines();
    a.segment_bytes = t.segment(q.type);
    ucc::select::Choice c =
        ucc::select::choose(q, t.thresholds, t.forced(cd->type), t.rules, &a, true);
    std::printf("%s of %llu bytes (%llu x %s) per rank on %llu ranks, message size %llu: ",
                cd->name, static_cast<unsigned long long>(q.count * q.esize),
                static_cast<unsigned long long>(q.count), dt->name,
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(q.msgsize()));
    if (c.alg == nullptr) {
        std::printf("none\n  why: %s\n", c.error.c_str());
        return 2;
    }
    if (ppn != 0) {
        std::printf("(%u nodes of up to %llu ranks%s) ", topo.nodes(),
                    static_cast<unsigned long long>(ppn), hier ? "" : "; UCC_CLS has no hier");
    }
    std::printf("%s\n  why: %s\n  what: %s\n", c.alg->name, c.why.c_str(), c.alg->description);
    if (const ucc::coll::RadixVar *v = ucc::coll::radix_var(*c.alg)) {
        const uint32_t index = static_cast<uint32_t>(v - ucc::coll::radix_vars().data());
        bool set = false;
        for (const ucc::coll::Radixes::Set &s : t.radixes.set) {
            set = set || s.var == index;
        }
        const bool fallback = t.radixes.fallback != ucc::coll::kRadixAuto;
        const bool by_cost = t.by_cost && ucc::cost::chooses_radix(net);
        const uint32_t k = t.by_cost         ? ucc::cost::radix_for(*c.alg, a, q.team_size, net)
                           : set || fallback ? ucc::coll::radix_for(*c.alg, a, q.team_size)
                                             : ucc::coll::kDefaultRadix;
        std::printf("  radix: %u (UCC_%s%s)\n", k, v->var,
                    set        ? ""
                    : fallback ? " is auto: UCC_KNOMIAL_RADIX"
                    : by_cost  ? " and UCC_KNOMIAL_RADIX are auto: the cheapest predicted"
                    : t.by_cost
                        ? " and UCC_KNOMIAL_RADIX are auto: the default where nodes share a NIC"
                        : " and UCC_KNOMIAL_RADIX are auto: the default without a network");
    }
    if (ucc::cost::reads_segment(*c.alg)) {
        const char *var = q.type == UCC_COLL_TYPE_BCAST       ? "BCAST_SEGMENT"
                          : q.type == UCC_COLL_TYPE_ALLREDUCE ? "REDUCE_CHUNK"
                                                              : "REDUCE_SEGMENT";
        const bool set = a.segment_bytes != ucc::coll::kSegmentAuto;
        const uint64_t seg = set         ? a.segment_bytes
                             : t.by_cost ? ucc::cost::segment_for(*c.alg, a, q.team_size, net)
                                         : ucc::coll::kDefaultSegment;
        char size[32] = "one";
        if (seg != 0) {
            const bool mib = seg % (1u << 20) == 0;
            const bool kib = seg % (1u << 10) == 0;
            std::snprintf(size, sizeof size, "%llu%s",
                          static_cast<unsigned long long>(mib   ? seg >> 20
                                                          : kib ? seg >> 10
                                                                : seg),
                          mib   ? "M"
                          : kib ? "K"
                                : " bytes");
        }
        std::printf("  %s: %s (UCC_%s%s)\n",
                    q.type == UCC_COLL_TYPE_ALLREDUCE ? "chunk" : "segment", size, var,
                    set         ? ""
                    : t.by_cost ? " is auto: the cheapest predicted"
                                : " is auto: the default without a network");
    }
    print_costs(a, q.team_size, network, net, c.alg);
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    bool version = false, build = false, config = false, hidden = false, full = false;
    bool scores = false, algs = false, markdown = false;
    int explain_at = 0;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--explain") == 0) {
            explain_at = i + 1;
            argc = i;  // the rest are its arguments
            break;
        }
    }
    const int full_argc = explain_at > 0 ? explain_at - 1 : argc;
    static const option kLong[] = {{"markdown", no_argument, nullptr, 'M'},
                                   {"help", no_argument, nullptr, 'h'},
                                   {nullptr, 0, nullptr, 0}};
    int c;
    while ((c = getopt_long(full_argc, argv, "vbcafhsA", kLong, nullptr)) != -1) {
        switch (c) {
            case 'v':
                version = true;
                break;
            case 'b':
                build = true;
                break;
            case 'c':
                config = true;
                break;
            case 'a':
                hidden = true;
                break;
            case 'f':
                full = true;
                break;
            case 's':
                scores = true;
                break;
            case 'A':
                algs = true;
                break;
            case 'M':
                markdown = true;
                break;
            case 'h':
                usage(stdout);
                return 0;
            default:
                usage(stderr);
                return 1;
        }
    }
    if (!(version || build || config || scores || algs || markdown || explain_at > 0)) {
        usage(stderr);
        return 2;
    }
    // The configuration as a library and a context would read it.
    Config lib_config(ucc::core::lib_config_table(), "UCC_");
    Config ctx_config(ucc::core::context_config_table(), "UCC_");
    if (lib_config.load(nullptr) != UCC_OK || ctx_config.load(nullptr) != UCC_OK) {
        return 1;
    }
    ucc::core::Logger log;
    ucc::core::Tuning tuning;
    ucc::core::load_tuning(ctx_config, log, &tuning);
    if (explain_at > 0) {
        // (argv after --explain)
        int rest = explain_at;
        int total = rest;
        while (argv[total] != nullptr) {
            ++total;
        }
        return explain(total, argv, rest, tuning, ucc::core::cls_has_hier(lib_config.get("CLS")));
    }
    if (version) {
        print_version();
    }
    if (build) {
        print_build();
    }
    if (config) {
        if (full && !lib_config.file().empty()) {
            std::printf("# configuration file: %s\n", lib_config.file().c_str());
        }
        print_config(lib_config, "UCC global configuration", full, hidden);
        print_config(ctx_config, "UCC context configuration", full, hidden);
    }
    if (markdown) {
        print_markdown(lib_config, "Library (`ucc_lib_config_modify`):");
        std::printf("\n");
        print_markdown(ctx_config,
                       "Context (`ucc_context_config_modify`, with the component `NULL`, `all`, "
                       "`cl/basic` or `tl/<transport>`; all reach the same table):");
    }
    if (scores) {
        print_scores(tuning);
    }
    if (algs) {
        print_algorithms();
    }
    return 0;
}
