// Table tests for Go durations and RFC 3339 times.
#include "core/duration.hpp"
#include "core/time.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace hpaplus::core {
namespace {

using namespace std::chrono_literals;

struct duration_case {
    const char* input;
    std::chrono::nanoseconds expect;
};
void PrintTo(const duration_case& c, std::ostream* os) {
    *os << '"' << c.input << '"';
}

class GoDuration : public ::testing::TestWithParam<duration_case> {};
TEST_P(GoDuration, Parses) {
    const auto d = parse_go_duration(GetParam().input);
    ASSERT_TRUE(d) << GetParam().input;
    EXPECT_EQ(*d, GetParam().expect) << GetParam().input;
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, GoDuration,
    ::testing::Values(duration_case{"0", 0ns}, duration_case{"30s", 30s}, duration_case{"1m30s", 90s},
                      duration_case{"1h30m", 90min}, duration_case{"15.012s", 15012ms}, duration_case{"500ms", 500ms},
                      duration_case{"2us", 2us}, duration_case{"7ns", 7ns}, duration_case{"-1.5h", -90min},
                      duration_case{"1.5m", 90s}, duration_case{"+5s", 5s}),
    [](const auto& info) { return "Row" + std::to_string(info.index); });
// clang-format on

TEST(GoDuration, RejectsBadInput) {
    for (const char* bad : {"", "s", "1", "1x", "1.s5", "--1s", "9999999999999999999h", "1 s"}) {
        EXPECT_FALSE(parse_go_duration(bad)) << bad;
    }
}

TEST(GoDuration, FormatsAsGoAndParsesBack) {
    const std::pair<std::chrono::nanoseconds, const char*> rows[] = {
        {0ns, "0s"},
        {7ns, "7ns"},
        {1500ns, "1.5us"},
        {250ms, "250ms"},
        {15s, "15s"},
        {1500ms, "1.5s"},
        {90s, "1m30s"},
        {3600s, "1h0m0s"},
        {5400s, "1h30m0s"},
        {-90s, "-1m30s"},
        {15012ms, "15.012s"},
        {std::chrono::nanoseconds(std::numeric_limits<std::int64_t>::min()),
         "-2562047h47m16.854775808s"}};
    for (const auto& [value, text] : rows) {
        EXPECT_EQ(format_go_duration(value), text);
        if (value.count() != std::numeric_limits<std::int64_t>::min()) {
            EXPECT_EQ(parse_go_duration(text).value(), value) << text;
        }
    }
}

TEST(Rfc3339, ParsesAndFormats) {
    const auto t = parse_rfc3339("2026-01-01T00:00:00Z");
    ASSERT_TRUE(t);
    EXPECT_EQ(format_rfc3339(*t), "2026-01-01T00:00:00Z");
    EXPECT_EQ(format_rfc3339(*t + 1500ms), "2026-01-01T00:00:01Z");
    EXPECT_EQ(format_rfc3339_nano(*t + 1500ms), "2026-01-01T00:00:01.5Z");
    EXPECT_EQ(parse_rfc3339("2026-01-01T02:00:00+02:00").value(), *t);
    EXPECT_EQ(parse_rfc3339("2025-12-31T19:30:00-04:30").value(), *t);
    EXPECT_EQ(parse_rfc3339("2026-01-01T00:00:00.123456789Z").value() - *t, 123456789ns);
    EXPECT_EQ(format_rfc3339(parse_rfc3339("2024-02-29T23:59:59Z").value()),
              "2024-02-29T23:59:59Z");
    EXPECT_EQ(format_rfc3339(parse_rfc3339("1969-12-31T23:59:59Z").value()),
              "1969-12-31T23:59:59Z");
}

TEST(Rfc3339, RejectsBadInput) {
    for (const char* bad : {"", "2026-01-01", "2026-01-01T00:00:00", "2026-13-01T00:00:00Z",
                            "2026-02-30T00:00:00Z", "2026-01-01T25:00:00Z", "2026-01-01T00:00:00.Z",
                            "2026-01-01T00:00:00Zjunk", "2026-01-01T00:00:00+2:00", "yesterday"}) {
        EXPECT_FALSE(parse_rfc3339(bad)) << bad;
    }
}

TEST(Rfc3339, TimesTimePointCannotHoldAreErrorsNotWrappedValues) {
    // 64-bit nanoseconds since 1970 hold 1677-09-21T00:12:43.145224192Z to
    // 2262-04-11T23:47:16.854775807Z.
    EXPECT_EQ(format_rfc3339_nano(parse_rfc3339("2262-04-11T23:47:16.854775807Z").value()),
              "2262-04-11T23:47:16.854775807Z");
    EXPECT_EQ(format_rfc3339_nano(parse_rfc3339("1677-09-21T00:12:43.145224192Z").value()),
              "1677-09-21T00:12:43.145224192Z");
    for (const char* far :
         {"2262-04-11T23:47:16.854775808Z", "2262-04-12T00:00:00Z", "9999-12-31T23:59:59Z",
          "1677-09-21T00:12:43.145224191Z", "0000-01-01T00:00:00Z", "2262-04-11T23:47:17+00:00",
          "2262-04-11T23:00:00-01:00"}) {
        const auto t = parse_rfc3339(far);
        ASSERT_FALSE(t) << far << " -> " << format_rfc3339(*t);
        EXPECT_EQ(t.error(), boost::system::errc::value_too_large) << far;
    }
    EXPECT_TRUE(parse_rfc3339("2262-04-12T00:00:00+01:00")); // 23:00 UTC on the 11th
}

} // namespace
} // namespace hpaplus::core
