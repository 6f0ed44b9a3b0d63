// controller/runtime/lifecycle.cpp — logging, environment and stop signals.
#include "controller/runtime/lifecycle.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdlib>

#include <unistd.h>

extern char** environ;

namespace hpaplus::controller {

namespace {

// Names, annotations and messages users wrote travel in log messages, and a newline or an ESC among
// them would forge log lines with their own timestamps or drive the terminal: C0 controls and DEL
// are written as \n, \r, \t or \xNN; the C1 controls (U+0080..U+009F, which some terminals obey
// as ESC sequences) as \u0085. Linear, one pass, runs of plain bytes copied whole.
template <class Buffer> void append_escaped(std::string_view text, Buffer& out) {
    static constexpr char hex[] = "0123456789abcdef";
    const auto put = [&](std::string_view s) { out.append(s.data(), s.data() + s.size()); };
    std::size_t plain = 0; // start of the run not yet copied
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const bool c1 = c == 0xc2 && i + 1 < text.size() &&
                        static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                        static_cast<unsigned char>(text[i + 1]) <= 0x9f;
        if (c >= 0x20 && c != 0x7f && !c1) continue;
        put(text.substr(plain, i - plain));
        if (c1) {
            const auto code = static_cast<unsigned char>(text[++i]);
            const char u[] = {'\\', 'u', '0', '0', hex[code >> 4], hex[code & 15]};
            put({u, sizeof u});
        } else if (c == '\n') {
            put("\\n");
        } else if (c == '\r') {
            put("\\r");
        } else if (c == '\t') {
            put("\\t");
        } else {
            const char x[] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            put({x, sizeof x});
        }
        plain = i + 1;
    }
    put(text.substr(plain));
}

// The `%*` of the pattern: the message, escaped.
class escaped_message final : public spdlog::custom_flag_formatter {
  public:
    void format(const spdlog::details::log_msg& msg, const std::tm&,
                spdlog::memory_buf_t& out) override {
        append_escaped(std::string_view(msg.payload.data(), msg.payload.size()), out);
    }
    std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<escaped_message>();
    }
};

// The `%J` of the pattern: the level by the name HPAPLUS_LOG_LEVEL takes (`warn`, not spdlog's
// `warning`), so that a line says its level as the docs and the variable spell it.
class level_name final : public spdlog::custom_flag_formatter {
  public:
    void format(const spdlog::details::log_msg& msg, const std::tm&,
                spdlog::memory_buf_t& out) override {
        static constexpr std::string_view names[] = {"trace", "debug",    "info", "warn",
                                                     "error", "critical", "off"};
        const auto i = static_cast<std::size_t>(msg.level);
        const std::string_view name = i < std::size(names) ? names[i] : "info";
        out.append(name.data(), name.data() + name.size());
    }
    std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<level_name>();
    }
};

} // namespace

std::optional<spdlog::level::level_enum> log_level_of(std::string_view text) {
    std::string name(text);
    for (auto& c : name)
        c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    using spdlog::level::level_enum;
    if (name == "trace") return level_enum::trace;
    if (name == "debug") return level_enum::debug;
    if (name == "info") return level_enum::info;
    if (name == "warn" || name == "warning") return level_enum::warn;
    if (name == "error" || name == "err") return level_enum::err;
    if (name == "critical") return level_enum::critical;
    if (name == "off") return level_enum::off;
    return std::nullopt;
}

std::string escape_log_text(std::string_view text) {
    std::string out;
    append_escaped(text, out);
    return out;
}

std::unique_ptr<spdlog::formatter> log_formatter() {
    auto f = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    f->add_flag<escaped_message>('*').add_flag<level_name>('J').set_pattern(
        "%Y-%m-%dT%H:%M:%S.%eZ %J %*");
    return f;
}

void configure_logging() {
    auto logger = spdlog::stderr_logger_mt("hpaplus");
    logger->set_formatter(log_formatter());
    spdlog::set_default_logger(logger);
    const char* wanted = std::getenv("HPAPLUS_LOG_LEVEL");
    if (!wanted) return;
    if (const auto level = log_level_of(wanted)) {
        spdlog::set_level(*level);
        return;
    }
    // Unknown: say so and keep info (spdlog's own parser would turn every line off).
    logger->warn("HPAPLUS_LOG_LEVEL={} is not a level (trace, debug, info, warn, error, critical, "
                 "off, in any case): logging at info",
                 escape_log_text(wanted));
}

std::map<std::string, std::string> environment() {
    std::map<std::string, std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry = *e;
        const auto eq = entry.find('=');
        if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    return env;
}

struct stop_signal::impl {
    explicit impl(boost::asio::io_context& io) : signals(io, SIGINT, SIGTERM) {}
    boost::asio::signal_set signals;
};

stop_signal::stop_signal(boost::asio::io_context& io, std::function<void()> on_signal)
    : impl_(std::make_unique<impl>(io)) {
    impl_->signals.async_wait(
        [on_signal = std::move(on_signal)](const boost::system::error_code& ec, int) {
            if (!ec) on_signal();
        });
}

stop_signal::~stop_signal() {
    cancel();
}

void stop_signal::cancel() {
    boost::system::error_code ignored;
    impl_->signals.cancel(ignored);
}

} // namespace hpaplus::controller
