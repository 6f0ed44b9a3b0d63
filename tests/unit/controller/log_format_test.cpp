// The controller's log format: a message's control characters escaped, so that what users wrote
// (names, annotations, messages) can neither end a log line nor drive a terminal (issue 69, 8).
#include "controller/runtime/lifecycle.hpp"

#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <regex>

namespace hpaplus::controller {
namespace {

struct escape_case {
    const char* name;
    std::string text;
    std::string logged;
};

class LogEscape : public ::testing::TestWithParam<escape_case> {};

TEST_P(LogEscape, WritesControlCharactersAsEscapes) {
    EXPECT_EQ(escape_log_text(GetParam().text), GetParam().logged);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LogEscape,
    ::testing::Values(escape_case{"Plain", "default/web: scaled Deployment/web from 2 to 4",
                                  "default/web: scaled Deployment/web from 2 to 4"},
                      escape_case{"Empty", "", ""},
                      escape_case{"ForgedLine",
                                  "job b\n2026-01-01T00:00:00.000Z info default/victim: scaled",
                                  "job b\\n2026-01-01T00:00:00.000Z info default/victim: scaled"},
                      escape_case{"TerminalControl", "a\x1b[2Jb", "a\\x1b[2Jb"},
                      escape_case{"CarriageReturnAndTab", "x\r\ty", "x\\r\\ty"},
                      escape_case{"NulAndDel", std::string("n\0d\x7f", 4), "n\\x00d\\x7f"},
                      escape_case{"C1ControlAsUtf8",
                                  "c\xc2\x9b"
                                  "2J",
                                  "c\\u009b2J"},
                      escape_case{"OtherUtf8Kept", "caf\xc3\xa9 \xc2\xa0 \xe2\x80\x94",
                                  "caf\xc3\xa9 \xc2\xa0 \xe2\x80\x94"},
                      escape_case{"LoneLeadByteAtTheEnd", "x\xc2", "x\xc2"},
                      escape_case{"BackslashKept", "a\\nb", "a\\nb"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(LogFormat, ALineIsTimeLevelAndTheEscapedMessage) {
    auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(4);
    sink->set_formatter(log_formatter());
    spdlog::logger logger("test", sink);
    logger.warn("{}: {}", "default/victim", "job b\n2026-01-01T00:00:00.000Z info forged");
    const auto lines = sink->last_formatted();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_TRUE(std::regex_match(
        lines[0], std::regex("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z warn "
                             "default/victim: job b\\\\n2026-01-01T00:00:00\\.000Z info forged\n")))
        << lines[0];
}

// HPAPLUS_LOG_LEVEL in any case, and spdlog's own spellings; anything else is no level (spdlog's
// from_str gives `off` for it: `INFO` used to silence every line).
TEST(LogLevel, NamesInAnyCaseAndNothingElse) {
    using spdlog::level::level_enum;
    EXPECT_EQ(log_level_of("INFO"), level_enum::info);
    EXPECT_EQ(log_level_of("Debug"), level_enum::debug);
    EXPECT_EQ(log_level_of("warn"), level_enum::warn);
    EXPECT_EQ(log_level_of("WARNING"), level_enum::warn);
    EXPECT_EQ(log_level_of("err"), level_enum::err);
    EXPECT_EQ(log_level_of("error"), level_enum::err);
    EXPECT_EQ(log_level_of("trace"), level_enum::trace);
    EXPECT_EQ(log_level_of("critical"), level_enum::critical);
    EXPECT_EQ(log_level_of("off"), level_enum::off);
    EXPECT_EQ(log_level_of("verbose"), std::nullopt);
    EXPECT_EQ(log_level_of(""), std::nullopt);
    EXPECT_EQ(log_level_of("4"), std::nullopt);
}

} // namespace
} // namespace hpaplus::controller
