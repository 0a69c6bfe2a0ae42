// Found by the libFuzzer target fuzz_config (fuzz/fuzz_config.cc, scripts/fuzz.sh); each input
// is also in fuzz/corpus/fuzz_config/, so every fuzz run replays it first.
//
// 1. lib/select/tune.cc, parse_token: a TUNE field made of commas only ("," in UCC_TUNE=",",
//    "allreduce:,") split into no items, and the field's first item was read with front() on
//    the empty vector: a null dereference (UBSan: reference binding to null pointer;
//    `UCC_TUNE=, ucc_info --explain allreduce 1024 4` ended in SIGSEGV, and so did every
//    context created with such a string). Input regress-tune-comma: "B," (mode 2, TUNE ",").
//    Now such a field is rejected like any other that is not one ("',' is not a field").
// 2. lib/core/config.cc, parse_size: a number with a unit whose product overflows int64_t
//    ("9223372036854775807K") was signed overflow (UBSan), and a wrapped product could be
//    accepted as another size ("18014398509481985g" read as 1 GiB); a number past int64_t
//    ("99999999999999999999") was read as INT64_MAX. Input regress-size-overflow: a
//    KNOMIAL_RADIX value of 33 digits and " KiB". Now both are rejected.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/config.h"
#include "lib/core/core.h"
#include "lib/core/log.h"
#include "lib/select/select.h"

namespace {

TEST(Regress, TuneFieldOfCommasIsRejected) {
    for (const char *tune : {",", ",,", "allreduce:,", ",:@ring", "host:,#bcast:0"}) {
        std::vector<ucc::select::TuneRule> rules;
        std::string error;
        EXPECT_EQ(ucc::select::parse_tune("UCC_TUNE", tune, &rules, &error), UCC_ERR_INVALID_PARAM)
            << tune;
        EXPECT_TRUE(rules.empty()) << tune;
        EXPECT_NE(error.find("is not a field"), std::string::npos) << error;
    }
    // The context's path: the string is logged and left out.
    ucc::core::Config config(ucc::core::context_config_table(), "UCC_");
    ASSERT_EQ(config.modify("TUNE", ","), UCC_OK);
    ucc::core::Tuning tuning;
    ucc::core::load_tuning(config, ucc::core::Logger(ucc::core::LogLevel::kFatal), &tuning);
    EXPECT_TRUE(tuning.rules.empty());
}

TEST(Regress, SizeThatOverflowsInt64IsRejected) {
    for (const char *s : {"9223372036854775807K", "18014398509481985g", "8589934592g",
                          "-8589934593G", "99999999999999999999", "-99999999999999999999"}) {
        int64_t v = 7;
        EXPECT_FALSE(ucc::core::parse_size(s, &v)) << s << " read as " << v;
        EXPECT_EQ(v, 7) << s;
    }
    // The largest sizes that fit are still sizes.
    int64_t v = 0;
    EXPECT_TRUE(ucc::core::parse_size("8589934591g", &v));
    EXPECT_EQ(v, int64_t{8589934591} << 30);
    EXPECT_TRUE(ucc::core::parse_size("-8589934592G", &v));
    EXPECT_EQ(v, INT64_MIN);
    EXPECT_TRUE(ucc::core::parse_size("9223372036854775807", &v));
    EXPECT_EQ(v, INT64_MAX);
    // Through a variable: refused, not stored as the wrapped value.
    ucc::core::Config config(ucc::core::context_config_table(), "UCC_");
    EXPECT_EQ(config.modify("REDUCE_CHUNK", "18014398509481985g"), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(config.modify("KNOMIAL_RADIX", std::string(31, '5') + "12 KiB"),
              UCC_ERR_INVALID_PARAM);
    EXPECT_FALSE(config.is_set("REDUCE_CHUNK"));
}

}  // namespace
