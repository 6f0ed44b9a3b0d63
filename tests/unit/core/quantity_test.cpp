// Table tests for resource.Quantity: parsing, canonical formatting and milli-values (upstream
// rules).
#include "core/quantity.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace hpaplus::core {
namespace {

struct parse_case {
    const char* input;
    const char* canonical;
    std::int64_t milli;
    std::int64_t value;
};
void PrintTo(const parse_case& c, std::ostream* os) {
    *os << '"' << c.input << '"';
}

class QuantityParse : public ::testing::TestWithParam<parse_case> {};

TEST_P(QuantityParse, CanonicalAndValues) {
    const auto& c = GetParam();
    const auto q = quantity::parse(c.input);
    ASSERT_TRUE(q) << c.input << ": " << q.error().message();
    EXPECT_EQ(q->to_string(), c.canonical) << c.input;
    EXPECT_EQ(q->milli_value(), c.milli) << c.input;
    EXPECT_EQ(q->value(), c.value) << c.input;
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, QuantityParse,
    ::testing::Values(
        parse_case{"0", "0", 0, 0}, parse_case{"-0", "0", 0, 0}, parse_case{"1", "1", 1000, 1},
        parse_case{"1.5", "1500m", 1500, 2}, parse_case{"0.5", "500m", 500, 1}, parse_case{".5", "500m", 500, 1},
        parse_case{"1.", "1", 1000, 1}, parse_case{"+1", "1", 1000, 1}, parse_case{"2000m", "2", 2000, 2},
        parse_case{"250m", "250m", 250, 1}, parse_case{"5300m", "5300m", 5300, 6}, parse_case{"1000", "1k", 1000000, 1000},
        parse_case{"1500", "1500", 1500000, 1500}, parse_case{"0.0001", "100u", 1, 1},
        // MilliValue rounds up: 12.345678m → 13
        parse_case{"12345678n", "12345678n", 13, 1}, parse_case{"1n", "1n", 1, 1}, parse_case{"0.1n", "1n", 1, 1},
        parse_case{"100m", "100m", 100, 1}, parse_case{"5.4", "5400m", 5400, 6}, parse_case{"1k", "1k", 1000000, 1000},
        parse_case{"1M", "1M", 1000000000, 1000000}, parse_case{"5G", "5G", 5000000000000, 5000000000},
        parse_case{"1T", "1T", 1000000000000000, 1000000000000}, parse_case{"1P", "1P", 1000000000000000000, 1000000000000000},
        parse_case{"1E", "1E", std::numeric_limits<std::int64_t>::max(), 1000000000000000000},
        parse_case{"1Ki", "1Ki", 1024000, 1024}, parse_case{"1.5Gi", "1536Mi", 1610612736000, 1610612736},
        parse_case{"1024Mi", "1Gi", 1073741824000, 1073741824}, parse_case{"0.5Ki", "512", 512000, 512},
        parse_case{"1.5Ki", "1536", 1536000, 1536}, parse_case{"5Gi", "5Gi", 5368709120000, 5368709120},
        parse_case{"1Ei", "1Ei", std::numeric_limits<std::int64_t>::max(), 1152921504606846976},
        parse_case{"1e3", "1e3", 1000000, 1000}, parse_case{"1E3", "1e3", 1000000, 1000}, parse_case{"12E-3", "12e-3", 12, 1},
        parse_case{"1.5e3", "1500", 1500000, 1500}, parse_case{"1e+3", "1e3", 1000000, 1000},
        parse_case{"-2.5", "-2500m", -2500, -3}, parse_case{"-1Ki", "-1Ki", -1024000, -1024},
        parse_case{"0.001", "1m", 1, 1}, parse_case{"100000000", "100M", 100000000000, 100000000},
        parse_case{"1.000000001", "1000000001n", 1001, 2}, parse_case{"007", "7", 7000, 7},
        parse_case{"1.23456789012345678901234567890123456789", "1234567891n", 1235, 2}),
    [](const auto& info) { return "Row" + std::to_string(info.index); });
// clang-format on

struct bad_case {
    const char* input;
    quantity_errc error;
};
void PrintTo(const bad_case& c, std::ostream* os) {
    *os << '"' << c.input << '"';
}

class QuantityRejects : public ::testing::TestWithParam<bad_case> {};

TEST_P(QuantityRejects, WithReason) {
    const auto q = quantity::parse(GetParam().input);
    ASSERT_FALSE(q) << GetParam().input;
    EXPECT_EQ(q.error(), make_error_code(GetParam().error)) << GetParam().input;
    EXPECT_FALSE(q.error().message().empty());
}

// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Table, QuantityRejects,
    ::testing::Values(bad_case{"", quantity_errc::empty}, bad_case{"abc", quantity_errc::bad_format},
                      bad_case{"1K", quantity_errc::bad_suffix}, bad_case{"1KB", quantity_errc::bad_format},
                      bad_case{"1mi", quantity_errc::bad_suffix}, bad_case{" 1", quantity_errc::bad_format},
                      bad_case{"1 ", quantity_errc::bad_format}, bad_case{"1.2.3", quantity_errc::bad_format},
                      bad_case{"--1", quantity_errc::bad_format}, bad_case{".", quantity_errc::bad_format},
                      bad_case{"1e", quantity_errc::bad_suffix}, bad_case{"1e3.5", quantity_errc::bad_format},
                      bad_case{"1$", quantity_errc::bad_format}, bad_case{"8Ei", quantity_errc::out_of_range},
                      bad_case{"10E", quantity_errc::out_of_range}, bad_case{"1e40", quantity_errc::out_of_range},
                      bad_case{"1e99999999999", quantity_errc::out_of_range},
                      bad_case{"99999999999999999999999999999999999999999", quantity_errc::out_of_range}),
    [](const auto& info) { return "Row" + std::to_string(info.index); });
// clang-format on

TEST(Quantity, FromMilliKeepsFormat) {
    EXPECT_EQ(quantity::from_milli(1500).to_string(), "1500m");
    EXPECT_EQ(quantity::from_milli(2000).to_string(), "2");
    EXPECT_EQ(quantity::from_milli(104857600000, quantity_format::binary_si).to_string(), "100Mi");
    EXPECT_EQ(quantity::from_milli(1500, quantity_format::binary_si).to_string(), "1500m");
    EXPECT_EQ(quantity::from_value(3).to_string(), "3");
}

TEST(Quantity, ComparesByValue) {
    EXPECT_EQ(quantity::parse("1000m").value(), quantity::parse("1").value());
    EXPECT_LT(quantity::parse("999m").value(), quantity::parse("1").value());
    EXPECT_EQ(quantity::parse("1Ki").value(), quantity::parse("1024").value());
}

TEST(Quantity, TinyExponentRoundsUpToOneNano) {
    const auto q = quantity::parse("1e-30");
    ASSERT_TRUE(q);
    EXPECT_EQ(q->to_string(), "1e-9");
    EXPECT_EQ(quantity::parse("0e99999").value().to_string(), "0");
}

TEST(Quantity, ApproximateDouble) {
    EXPECT_DOUBLE_EQ(quantity::parse("0.05").value().as_double(), 0.05);
    EXPECT_DOUBLE_EQ(quantity::parse("150m").value().as_double(), 0.15);
}

TEST(Quantity, MilliOverflowIsReported) {
    EXPECT_TRUE(quantity::parse("9P").value().milli_fits());
    EXPECT_FALSE(quantity::parse("10E").has_value());
    EXPECT_FALSE(quantity::parse("9E").value().milli_fits());
}

} // namespace
} // namespace hpaplus::core
