// The simulator's fault plans (faults.h): their text form and seeded draws.
// Injecting them is the cluster's (cluster_faults.cc, cluster.cc).
#include "transports/sim/faults.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "transports/sim/rng.h"

namespace ucc::sim {

namespace {

bool parse_seconds(const std::string &s, double *out) {
    if (s.empty()) {
        return false;
    }
    char *end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v) || v < 0) {
        return false;
    }
    *out = v;
    return true;
}

std::string format_seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", s);
    return buf;
}

}  // namespace

bool FaultPlan::fails_calls() const {
    if (!nomem.empty() || nomem_p > 0) {
        return true;
    }
    for (const OobFault &f : oob) {
        if (f.stall_s == 0) {
            return true;
        }
    }
    return false;
}

std::string FaultPlan::describe() const {
    std::string s;
    auto add = [&s](const std::string &item) { s += (s.empty() ? "" : ",") + item; };
    for (const Crash &c : crashes) {
        add("crash=" + std::to_string(c.rank) + "@" + format_seconds(c.at_s));
    }
    for (const Stall &st : stalls) {
        add("stall=" + std::to_string(st.rank) + "@" + format_seconds(st.at_s) + ":" +
            format_seconds(st.for_s));
    }
    if (spike_p > 0) {
        add("spike=" + format_seconds(spike_p) + ":" + format_seconds(spike_s));
    }
    for (const NoMemory &m : nomem) {
        add("nomem=" + std::to_string(m.rank) + "#" + std::to_string(m.visit));
    }
    if (nomem_p > 0) {
        add("nomem_p=" + format_seconds(nomem_p));
    }
    for (const OobFault &f : oob) {
        add("oob=" + std::to_string(f.rank) + "#" + std::to_string(f.call) +
            (f.stall_s > 0 ? ":" + format_seconds(f.stall_s) : ""));
    }
    if (!crashes.empty()) {
        add("detect=" + format_seconds(detect_s));
    }
    return s;
}

namespace {

bool parse_rank(const std::string &s, uint32_t n_ranks, uint32_t *out) {
    char *end = nullptr;
    errno = 0;
    const unsigned long long r = std::strtoull(s.c_str(), &end, 10);
    if (s.empty() || s[0] == '-' || errno != 0 || end != s.c_str() + s.size() || r >= n_ranks) {
        return false;
    }
    *out = static_cast<uint32_t>(r);
    return true;
}

bool parse_count(const std::string &s, uint32_t *out) {
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (s.empty() || s[0] == '-' || errno != 0 || end != s.c_str() + s.size() || v > UINT32_MAX) {
        return false;
    }
    *out = static_cast<uint32_t>(v);
    return true;
}

// "<a><sep><b>" split at the first `sep`.
bool split(const std::string &s, char sep, std::string *a, std::string *b) {
    const size_t at = s.find(sep);
    if (at == std::string::npos) {
        return false;
    }
    *a = s.substr(0, at);
    *b = s.substr(at + 1);
    return true;
}

}  // namespace

bool FaultPlan::parse(const std::string &spec, uint32_t n_ranks, FaultPlan *out,
                      std::string *error) {
    FaultPlan plan;
    size_t pos = 0;
    while (pos < spec.size()) {
        size_t comma = spec.find(',', pos);
        if (comma == std::string::npos) {
            comma = spec.size();
        }
        const std::string item = spec.substr(pos, comma - pos);
        pos = comma + 1;
        std::string key;
        std::string value;
        std::string a;
        std::string b;
        std::string c;
        const bool kv = split(item, '=', &key, &value);
        const std::string ranks = "<rank below " + std::to_string(n_ranks) + ">";
        if (kv && key == "crash") {
            Crash cr;
            if (!split(value, '@', &a, &b) || !parse_rank(a, n_ranks, &cr.rank) ||
                !parse_seconds(b, &cr.at_s)) {
                *error = "fault \"" + item + "\": expected crash=" + ranks + "@<seconds>";
                return false;
            }
            plan.crashes.push_back(cr);
        } else if (kv && key == "stall") {
            Stall st;
            std::string at;
            if (!split(value, '@', &a, &b) || !parse_rank(a, n_ranks, &st.rank) ||
                !split(b, ':', &at, &c) || !parse_seconds(at, &st.at_s) ||
                !parse_seconds(c, &st.for_s)) {
                *error = "fault \"" + item + "\": expected stall=" + ranks + "@<seconds>:<seconds>";
                return false;
            }
            plan.stalls.push_back(st);
        } else if (kv && key == "spike") {
            if (!split(value, ':', &a, &b) || !parse_seconds(a, &plan.spike_p) ||
                plan.spike_p > 1 || !parse_seconds(b, &plan.spike_s)) {
                *error = "fault \"" + item + "\": expected spike=<probability 0..1>:<seconds>";
                return false;
            }
        } else if (kv && key == "nomem") {
            NoMemory m;
            if (!split(value, '#', &a, &b) || !parse_rank(a, n_ranks, &m.rank) ||
                !parse_count(b, &m.visit)) {
                *error = "fault \"" + item + "\": expected nomem=" + ranks + "#<visit>";
                return false;
            }
            plan.nomem.push_back(m);
        } else if (kv && key == "nomem_p") {
            if (!parse_seconds(value, &plan.nomem_p) || plan.nomem_p > 1) {
                *error = "fault \"" + item + "\": expected nomem_p=<probability 0..1>";
                return false;
            }
        } else if (kv && key == "oob") {
            OobFault f;
            bool ok = split(value, '#', &a, &b) && parse_rank(a, n_ranks, &f.rank);
            std::string call = b;
            if (ok && split(b, ':', &call, &c)) {
                ok = parse_seconds(c, &f.stall_s);
            }
            if (!ok || !parse_count(call, &f.call)) {
                *error = "fault \"" + item + "\": expected oob=" + ranks + "#<call>[:<seconds>]";
                return false;
            }
            plan.oob.push_back(f);
        } else if (kv && key == "detect") {
            if (!parse_seconds(value, &plan.detect_s)) {
                *error = "fault \"" + item + "\": expected detect=<seconds>";
                return false;
            }
        } else {
            *error = "fault \"" + item +
                     "\": unknown (crash=<rank>@<seconds>, stall=<rank>@<seconds>:<seconds>, "
                     "spike=<probability>:<seconds>, nomem=<rank>#<visit>, "
                     "nomem_p=<probability>, oob=<rank>#<call>[:<seconds>], detect=<seconds>)";
            return false;
        }
    }
    *out = plan;
    return true;
}

FaultPlan FaultPlan::draw(uint64_t seed, uint32_t n_ranks, double horizon_s) {
    FaultPlan plan;
    if (n_ranks == 0) {
        return plan;
    }
    Rng rng(seed ^ 0x6661756c74ull);  // its own stream: the run's seed drives the rest
    auto uniform = [&rng] { return static_cast<double>(rng.next() >> 11) / 9007199254740992.0; };
    auto distinct = [&](uint32_t k) {
        std::vector<uint32_t> ranks;
        while (ranks.size() < std::min(k, n_ranks)) {
            const auto r = static_cast<uint32_t>(rng.next() % n_ranks);
            if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) {
                ranks.push_back(r);
            }
        }
        return ranks;
    };
    if (rng.next() % 2 == 1) {
        const uint32_t most = std::max<uint32_t>(1, n_ranks / 4);
        for (uint32_t r : distinct(1 + static_cast<uint32_t>(rng.next() % most))) {
            plan.crashes.push_back(Crash{r, uniform() * horizon_s});
        }
    }
    if (rng.next() % 3 == 0) {
        for (uint32_t r : distinct(1 + static_cast<uint32_t>(rng.next() % 2))) {
            plan.stalls.push_back(Stall{r, uniform() * horizon_s, uniform() * 2 * horizon_s});
        }
    }
    if (rng.next() % 3 == 0) {
        plan.spike_p = 0.001 + uniform() * 0.199;
        plan.spike_s = uniform() * horizon_s;
    }
    if (rng.next() % 4 == 0) {
        plan.nomem_p = 0.002 + uniform() * 0.048;
    }
    if (rng.next() % 4 == 0) {
        OobFault f;
        f.rank = static_cast<uint32_t>(rng.next() % n_ranks);
        f.call = static_cast<uint32_t>(rng.next() % 3);
        f.stall_s = rng.next() % 2 == 0 ? 0 : uniform() * horizon_s;
        plan.oob.push_back(f);
    }
    return plan;
}

bool FaultPlan::from_spec(const std::string &spec, uint32_t n_ranks, uint64_t seed, FaultPlan *out,
                          std::string *error) {
    if (spec.rfind("swarm", 0) == 0) {
        double horizon = 1e-4;
        if (spec.size() > 5 &&
            (spec[5] != ':' || !parse_seconds(spec.substr(6), &horizon) || horizon <= 0)) {
            *error = "faults \"" + spec + "\": expected swarm or swarm:<seconds above 0>";
            return false;
        }
        *out = draw(seed, n_ranks, horizon);
        return true;
    }
    return parse(spec, n_ranks, out, error);
}

}  // namespace ucc::sim
