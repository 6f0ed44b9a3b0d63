// The controller's log format: a message's control characters escaped, so that what users wrote
// (names, annotations, messages) can neither end a log line nor drive a terminal (issue 69, 8).
#include "controller/runtime/logging.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <functional>
#include <regex>
#include <sstream>

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

namespace hpaplus::controller {
namespace {

// The last line a logger with `formatter` writes while `log` runs. The sink formats as it logs, as
// stderr's does (a ring buffer formats later, after log_about has forgotten its object).
std::string one_line(std::unique_ptr<spdlog::formatter> formatter,
                     const std::function<void(spdlog::logger&)>& log) {
    std::ostringstream out;
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
    sink->set_formatter(std::move(formatter));
    auto logger = std::make_shared<spdlog::logger>("hpaplus", sink);
    auto previous = spdlog::default_logger();
    spdlog::set_default_logger(logger);
    log(*logger);
    spdlog::set_default_logger(previous);
    const std::string all = out.str();
    const auto start = all.rfind('\n', all.size() < 2 ? 0 : all.size() - 2);
    return start == std::string::npos ? all : all.substr(start + 1);
}

rapidjson::Document parsed(const std::string& line) {
    rapidjson::Document doc;
    doc.Parse(line.c_str(), line.size());
    return doc;
}

TEST(LogJson, ALineIsOneObjectWithTimeLevelLoggerAndMessage) {
    const std::string line = one_line(json_log_formatter(), [](spdlog::logger& l) {
        l.warn("leader election: {} is not leading", "replica-1");
    });
    ASSERT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1);
    const auto doc = parsed(line);
    ASSERT_TRUE(doc.IsObject()) << line;
    EXPECT_TRUE(
        std::regex_match(std::string(doc["ts"].GetString()),
                         std::regex("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z")));
    EXPECT_STREQ(doc["level"].GetString(), "warn");
    EXPECT_STREQ(doc["logger"].GetString(), "hpaplus");
    EXPECT_STREQ(doc["msg"].GetString(), "leader election: replica-1 is not leading");
    EXPECT_FALSE(doc.HasMember("name"));
}

// log_about: the object as fields in JSON, as the leading key in text.
TEST(LogJson, AMessageAboutAnObjectCarriesItsKindNamespaceAndName) {
    const log_subject web{"HPAPlus", "shop", "web"};
    const auto doc = parsed(one_line(json_log_formatter(), [&](spdlog::logger&) {
        log_about(spdlog::level::info, web, "scaled {} to {}", "Deployment/web", 4);
    }));
    ASSERT_TRUE(doc.IsObject());
    EXPECT_STREQ(doc["msg"].GetString(), "scaled Deployment/web to 4");
    EXPECT_STREQ(doc["kind"].GetString(), "HPAPlus");
    EXPECT_STREQ(doc["namespace"].GetString(), "shop");
    EXPECT_STREQ(doc["name"].GetString(), "web");
    const std::string text = one_line(log_formatter(), [&](spdlog::logger&) {
        log_about(spdlog::level::info, web, "scaled {} to {}", "Deployment/web", 4);
    });
    EXPECT_NE(text.find(" info shop/web: scaled Deployment/web to 4\n"), std::string::npos) << text;
    // Below the level: nothing formatted, nothing left behind for the next line.
    const auto plain = parsed(one_line(json_log_formatter(), [&](spdlog::logger& l) {
        l.set_level(spdlog::level::warn);
        log_about(spdlog::level::info, web, "dropped");
        l.warn("after");
    }));
    EXPECT_STREQ(plain["msg"].GetString(), "after");
    EXPECT_FALSE(plain.HasMember("kind"));
}

// Lines of kube/ and vertical/ start with the object's key by the house convention.
TEST(LogJson, ALeadingKeyBecomesTheObjectsFields) {
    const auto doc = parsed(one_line(json_log_formatter(), [](spdlog::logger& l) {
        l.warn("{}: {}", "kube-system/dns.v2", "writing status failed: 409");
    }));
    EXPECT_STREQ(doc["msg"].GetString(), "writing status failed: 409");
    EXPECT_STREQ(doc["namespace"].GetString(), "kube-system");
    EXPECT_STREQ(doc["name"].GetString(), "dns.v2");
    for (const char* not_a_key : {"leader election: x", "Shop/web: x", "a/b/c: x", "/web: x",
                                  "shop/: x", "shop/-web: x", "shop web/x: y"}) {
        const auto d = parsed(
            one_line(json_log_formatter(), [&](spdlog::logger& l) { l.info("{}", not_a_key); }));
        EXPECT_STREQ(d["msg"].GetString(), not_a_key);
        EXPECT_FALSE(d.HasMember("name")) << not_a_key;
    }
}

// What users wrote stays data: quotes, backslashes, controls, C1 and broken UTF-8 cannot end the
// object or the line.
TEST(LogJson, HostileTextIsEscapedAndTheLineStaysValidJson) {
    const std::string hostile = std::string("q\"b\\n\nl\x1b[2J\x7f c\xc2\x9b") + "\xff\xc3" +
                                "\xe2\x82" + "caf\xc3\xa9 \xf0\x9f\x98\x80";
    const std::string line =
        one_line(json_log_formatter(), [&](spdlog::logger& l) { l.info("{}", hostile); });
    EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
    EXPECT_EQ(line.find('\x1b'), std::string::npos);
    const auto doc = parsed(line);
    ASSERT_TRUE(doc.IsObject()) << line;
    EXPECT_EQ(std::string(doc["msg"].GetString()),
              "q\"b\\n\nl\x1b[2J\x7f c\xc2\x9b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
              "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

TEST(LogOptions, FlagsWinOverTheEnvironmentAndUnknownValuesAreRefused) {
    log_options o;
    EXPECT_EQ(resolve_log_options("", "", {}, o), std::nullopt);
    EXPECT_EQ(o.level, spdlog::level::info);
    EXPECT_EQ(o.format, log_format::text);
    EXPECT_EQ(resolve_log_options(
                  "", "", {{"HPAPLUS_LOG_LEVEL", "INFO"}, {"HPAPLUS_LOG_FORMAT", "JSON"}}, o),
              std::nullopt);
    EXPECT_EQ(o.level, spdlog::level::info);
    EXPECT_EQ(o.format, log_format::json);
    o = {};
    EXPECT_EQ(resolve_log_options("debug", "text", {{"HPAPLUS_LOG_LEVEL", "error"}}, o),
              std::nullopt);
    EXPECT_EQ(o.level, spdlog::level::debug);
    const auto bad_env = resolve_log_options("", "", {{"HPAPLUS_LOG_LEVEL", "verbose"}}, o);
    ASSERT_TRUE(bad_env);
    EXPECT_NE(bad_env->find("HPAPLUS_LOG_LEVEL: \"verbose\" is not a level"), std::string::npos)
        << *bad_env;
    const auto bad_format = resolve_log_options("", "logfmt", {}, o);
    ASSERT_TRUE(bad_format);
    EXPECT_NE(bad_format->find("--log-format: \"logfmt\": want text or json"), std::string::npos);
}

TEST(LogOptions, KlogVerbosityMapsToLevels) {
    EXPECT_EQ(level_of_verbosity(0), spdlog::level::info);
    EXPECT_EQ(level_of_verbosity(2), spdlog::level::info);
    EXPECT_EQ(level_of_verbosity(4), spdlog::level::debug);
    EXPECT_EQ(level_of_verbosity(6), spdlog::level::trace);
}

} // namespace
} // namespace hpaplus::controller
