// Shared machinery of the property tests: the case-count knob, a RapidCheck
// GoogleTest wrapper whose number of cases is set per property, and the
// coverage table printed after every property.
//
// UCC_PROP(Suite, Name, base_cases, (args)) is RC_GTEST_PROP with one addition:
// the property runs base_cases * UCC_PROPTEST_SCALE cases (at least 1) unless
// RC_PARAMS sets max_success, which then wins. Everything else of RC_PARAMS
// (seed, reproduce, max_size, verbose_progress, ...) works as with
// RC_GTEST_PROP; a failure prints RapidCheck's counterexample and the
// `RC_PARAMS="reproduce=..."` line that replays the shrunk case.
//
// Seeds: before the first test the binary prints the RapidCheck seed of the run
// ("proptests: RapidCheck seed=<n> ..."); every property's cases, the simulator
// seeds included, derive from it, so RC_PARAMS="seed=<n>" replays the run.
// scripts/test.sh derives it from the commit under test (docs/conformance.md, Seeds).
//
// Tag cases with RC_TAG("key=value", ...): on success the property prints,
// per key, how often each value occurred among the cases that ran.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <sstream>
#include <string>
#include <utility>

namespace ucc::proptest {

// UCC_PROPTEST_SCALE (default 1.0; must be a positive number).
double scale();

// The number of cases a property with `base_cases` runs at the current scale.
int scaled_cases(int base_cases);

// The RapidCheck seed of this run (RC_PARAMS's seed, or the fresh one RapidCheck drew).
uint64_t configuration_seed();

// Whether RC_PARAMS sets max_success (then it overrides every property's count).
bool max_success_from_rc_params();

// Prints "key: value1 n1 (p1%), value2 ..." lines for "key=value" tags.
void print_coverage(const std::string &property, const rc::detail::SuccessResult &success);

template <typename Testable>
void check_property(Testable &&testable, int base_cases) {
    const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
    rc::detail::TestMetadata metadata;
    metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
    metadata.description = info->name();
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    if (!max_success_from_rc_params()) {
        params.maxSuccess = scaled_cases(base_cases);
    }
    const rc::detail::TestResult result =
        rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
    if (result.template is<rc::detail::SuccessResult>()) {
        print_coverage(metadata.id, result.template get<rc::detail::SuccessResult>());
    } else {
        std::ostringstream ss;
        rc::detail::printResultMessage(result, ss);
        FAIL() << ss.str() << "\nThe run's seed: RC_PARAMS=\"seed=" << configuration_seed()
               << "\" UCC_PROPTEST_SCALE=" << scale()
               << " replays the whole run (the reproduce line above, this case alone)" << std::endl;
    }
}

}  // namespace ucc::proptest

#define UCC_PROP(Suite, Name, base_cases, ArgList)                                    \
    void ucc_prop_impl_##Suite##_##Name ArgList;                                      \
    TEST(Suite, Name) {                                                               \
        ::ucc::proptest::check_property(&ucc_prop_impl_##Suite##_##Name, base_cases); \
    }                                                                                 \
    void ucc_prop_impl_##Suite##_##Name ArgList
