// TUNE strings, the reference's grammar: token#token#..., each token fields
// separated by ':' in any order, each kind at most once: a list of collective
// names, a list of memory types, a score (digits or inf), message ranges
// (start-end[,start-end]: memory units or inf, half-open), team size ranges
// ([N] or [a-b], b may be inf, inclusive) and @algorithm (a name or an id).
// Empty pieces are skipped; a token with neither a score nor an algorithm
// does nothing.
#include <strings.h>

#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "lib/coll/coll_types.h"
#include "lib/core/core.h"
#include "lib/select/select.h"
#include "lib/select/tokens.h"

namespace ucc::select {

namespace {

bool coll_from_name(const std::string &s, uint32_t *bit) {
    for (uint32_t b = 0; b < 16; ++b) {
        if (strcasecmp(s.c_str(), core::coll_type_name(static_cast<ucc_coll_type_t>(1u << b))) ==
            0) {
            *bit = b;
            return true;
        }
    }
    return false;
}

bool parse_msg_ranges(const std::string &s, std::vector<Range> *out) {
    for (const std::string &r : split(s, ',')) {
        const std::vector<std::string> ends = split(r, '-');
        Range range;
        if (ends.size() != 2 || !parse_units(ends[0], &range.lo) ||
            !parse_units(ends[1], &range.hi) || range.lo >= range.hi) {
            return false;
        }
        out->push_back(range);
    }
    return !out->empty();
}

bool parse_team_ranges(const std::string &s, std::vector<Range> *out) {
    for (const std::string &r : split(s.substr(1, s.size() - 2), ',')) {
        const std::vector<std::string> ends = split(r, '-');
        Range range;
        if (ends.size() == 1 && all_digits(ends[0])) {
            range.lo = range.hi = std::strtoull(ends[0].c_str(), nullptr, 10);
        } else if (ends.size() == 2 && all_digits(ends[0]) &&
                   (all_digits(ends[1]) || strcasecmp(ends[1].c_str(), "inf") == 0)) {
            range.lo = std::strtoull(ends[0].c_str(), nullptr, 10);
            range.hi =
                all_digits(ends[1]) ? std::strtoull(ends[1].c_str(), nullptr, 10) : UINT64_MAX;
            if (range.hi < range.lo) {
                return false;
            }
        } else {
            return false;
        }
        out->push_back(range);
    }
    return !out->empty();
}

// One token into `rule`; false with *why on an error.
bool parse_token(const std::string &token, bool hier, TuneRule *rule, std::string *why) {
    bool have_colls = false, have_mem = false, have_msg = false, have_teams = false;
    std::string alg;
    for (const std::string &f : split(token, ':')) {
        uint32_t bit = 0;
        // A list's first item says what the field is (a field of commas has none).
        const std::vector<std::string> items = split(f, ',');
        const std::string first = items.empty() ? std::string() : items.front();
        if (!have_colls && coll_from_name(first, &bit)) {
            rule->colls = 0;
            for (const std::string &c : split(f, ',')) {
                if (!coll_from_name(c, &bit)) {
                    *why = "'" + c + "' is not a collective";
                    return false;
                }
                rule->colls |= 1u << bit;
            }
            have_colls = true;
        } else if (!have_mem && mem_from_name(first, &bit)) {
            rule->mem_types = 0;
            for (const std::string &m : split(f, ',')) {
                if (!mem_from_name(m, &bit)) {
                    *why = "'" + m + "' is not a memory type";
                    return false;
                }
                rule->mem_types |= 1u << bit;
            }
            have_mem = true;
        } else if (!rule->has_score && (strcasecmp(f.c_str(), "inf") == 0 || all_digits(f))) {
            const uint64_t v = all_digits(f) ? std::strtoull(f.c_str(), nullptr, 10) : kScoreInf;
            rule->score = static_cast<uint32_t>(v > kScoreInf ? kScoreInf : v);
            rule->has_score = true;
        } else if (!have_msg && f.find('-') != std::string::npos && f[0] != '[' && f[0] != '@') {
            if (!parse_msg_ranges(f, &rule->msg)) {
                *why = "bad message range '" + f + "'";
                return false;
            }
            have_msg = true;
        } else if (!have_teams && f.size() >= 2 && f.front() == '[' && f.back() == ']') {
            if (!parse_team_ranges(f, &rule->teams)) {
                *why = "bad team size range '" + f + "'";
                return false;
            }
            have_teams = true;
        } else if (alg.empty() && f.size() >= 2 && f[0] == '@') {
            alg = f.substr(1);
        } else {
            *why = "'" + f + "' is not a field (or repeats one)";
            return false;
        }
    }
    if (alg.empty()) {
        return true;
    }
    // The algorithm, for every collective of the token; without a list of
    // collectives, for those that have an algorithm of that name or id.
    for (uint32_t b = 0; b < 16; ++b) {
        if (rule->colls & (1u << b)) {
            rule->alg[b] = resolve_alg(static_cast<ucc_coll_type_t>(1u << b), alg, hier);
            if (rule->alg[b] == nullptr && have_colls) {
                *why = "incorrect algorithm '" + alg + "' for " +
                       core::coll_type_name(static_cast<ucc_coll_type_t>(1u << b));
                return false;
            }
            rule->has_alg = rule->has_alg || rule->alg[b] != nullptr;
        }
    }
    if (!rule->has_alg) {
        *why = "no collective has an algorithm '" + alg + "'";
        return false;
    }
    return true;
}

}  // namespace

uint64_t Query::msgsize() const {
    return coll::message_bytes(type, count, esize, team_size);
}

bool TuneRule::matches(const Query &q) const {
    const auto type = static_cast<uint64_t>(q.type);
    if (type == 0 || type >= (uint64_t{1} << 16)) {
        return false;
    }
    const uint32_t bit = coll::type_index(type);
    if (!(colls & (1u << bit))) {
        return false;
    }
    if (static_cast<uint32_t>(q.mem) < 32 && !(mem_types & (1u << static_cast<uint32_t>(q.mem)))) {
        return false;
    }
    if (has_alg && alg[bit] == nullptr) {
        return false;
    }
    const uint64_t m = q.msgsize();
    bool in = msg.empty();
    for (const Range &r : msg) {
        in = in || (m >= r.lo && m < r.hi) || (r.hi == UINT64_MAX && m == UINT64_MAX);
    }
    if (!in) {
        return false;
    }
    in = teams.empty();
    for (const Range &r : teams) {
        in = in || (q.team_size >= r.lo && q.team_size <= r.hi);
    }
    return in;
}

bool is_hier_source(const std::string &source) {
    return source.find("CL_HIER_") != std::string::npos;
}

ucc_status_t parse_tune(const std::string &source, const std::string &value,
                        std::vector<TuneRule> *out, std::string *error) {
    std::vector<TuneRule> rules;
    const bool hier = is_hier_source(source);
    for (const std::string &token : split(value, '#')) {
        TuneRule rule;
        rule.hier = hier;
        std::string why;
        if (!parse_token(token, hier, &rule, &why)) {
            *error =
                "failed to parse token '" + token + "' in " + source + "=" + value + ": " + why;
            return UCC_ERR_INVALID_PARAM;
        }
        if (!rule.has_score && !rule.has_alg) {
            continue;
        }
        rule.source = source;
        rule.token = token;
        rules.push_back(std::move(rule));
    }
    out->insert(out->end(), rules.begin(), rules.end());
    return UCC_OK;
}

}  // namespace ucc::select
