#include "proptests/prop_support.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>

namespace ucc::proptest {

double scale() {
    static const double value = [] {
        const char *env = std::getenv("UCC_PROPTEST_SCALE");
        if (env == nullptr || *env == '\0') {
            return 1.0;
        }
        char *end = nullptr;
        double v = std::strtod(env, &end);
        if (end == env || *end != '\0' || !std::isfinite(v) || v <= 0) {
            std::fprintf(stderr, "UCC_PROPTEST_SCALE=%s is not a positive number; using 1\n", env);
            return 1.0;
        }
        return v;
    }();
    return value;
}

int scaled_cases(int base_cases) {
    const double n = std::ceil(base_cases * scale());
    if (n < 1) {
        return 1;
    }
    return n > 1e9 ? 1000000000 : static_cast<int>(n);
}

uint64_t configuration_seed() {
    return rc::detail::configuration().testParams.seed;
}

bool max_success_from_rc_params() {
    const char *env = std::getenv("RC_PARAMS");
    return env != nullptr && std::string(env).find("max_success") != std::string::npos;
}

namespace {

// Prints, before the first test, the RapidCheck seed every property of this run derives its
// cases from (each property mixes it with its own name; the simulator seeds are drawn from those
// cases), so a failure anywhere in the run replays with RC_PARAMS="seed=<n>". RapidCheck reads
// RC_PARAMS from the environment; without a seed there it draws a fresh one.
class SeedBanner : public ::testing::Environment {
  public:
    void SetUp() override {
        const uint64_t seed = configuration_seed();
        const char *env = std::getenv("RC_PARAMS");
        std::printf("proptests: RapidCheck seed=%" PRIu64 " (%s); replay: RC_PARAMS=\"seed=%" PRIu64
                    "\" UCC_PROPTEST_SCALE=%g\n",
                    seed,
                    env != nullptr && std::string(env).find("seed=") != std::string::npos
                        ? "from RC_PARAMS"
                        : "fresh",
                    seed, scale());
        std::fflush(stdout);
    }
};

// gtest owns the environment; registered before main runs the tests.
[[maybe_unused]] const ::testing::Environment *const kSeedBanner =
    ::testing::AddGlobalTestEnvironment(new SeedBanner);

// RapidCheck shows string tags quoted.
std::string unquote(const std::string &s) {
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') {
        return s.substr(1, s.size() - 2);
    }
    return s;
}

}  // namespace

void print_coverage(const std::string &property, const rc::detail::SuccessResult &success) {
    std::map<std::string, std::map<std::string, int>> table;
    int cases = 0;
    for (const auto &[tags, count] : success.distribution) {
        cases += count;
        for (const std::string &raw : tags) {
            const std::string tag = unquote(raw);
            const size_t eq = tag.find('=');
            const std::string key = eq == std::string::npos ? "tag" : tag.substr(0, eq);
            const std::string value = eq == std::string::npos ? tag : tag.substr(eq + 1);
            table[key][value] += count;
        }
    }
    std::cout << property << ": OK, passed " << success.numSuccess << " tests";
    if (cases == 0) {
        std::cout << std::endl;
        return;
    }
    std::cout << "; coverage:\n";
    for (const auto &[key, values] : table) {
        std::cout << "  " << key << ":";
        for (const auto &[value, count] : values) {
            char pct[32];
            std::snprintf(pct, sizeof(pct), "%.0f%%", 100.0 * count / cases);
            std::cout << " " << value << " " << count << " (" << pct << ")";
        }
        std::cout << "\n";
    }
    std::cout << std::flush;
}

}  // namespace ucc::proptest
