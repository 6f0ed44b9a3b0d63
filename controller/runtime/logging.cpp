// controller/runtime/logging.cpp — the text and JSON line formats, levels and formats by name.
#include "controller/runtime/logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <chrono>
#include <ctime>

namespace hpaplus::controller {

namespace {

// The object of the message being logged on this thread (log_about sets it around one
// synchronous call into the logger, whose formatters run on the calling thread).
thread_local const log_subject* current_subject = nullptr;

constexpr char hex[] = "0123456789abcdef";

// Names, annotations and messages users wrote travel in log messages, and a newline or an ESC among
// them would forge log lines with their own timestamps or drive the terminal: C0 controls and DEL
// are written as \n, \r, \t or \xNN; the C1 controls (U+0080..U+009F, which some terminals obey
// as ESC sequences) as \u0085. Linear, one pass, runs of plain bytes copied whole.
template <class Buffer> void append_escaped(std::string_view text, Buffer& out) {
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

// The length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629: no overlong forms,
// no surrogates, nothing past U+10FFFF); 0 when it is not one.
std::size_t utf8_sequence(std::string_view s) {
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const auto cont = [&](std::size_t i) { return i < s.size() && (b(i) & 0xc0) == 0x80; };
    const unsigned char c = b(0);
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        if (!cont(1) || !cont(2)) return 0;
        if ((c == 0xe0 && b(1) < 0xa0) || (c == 0xed && b(1) > 0x9f)) return 0;
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        if (!cont(1) || !cont(2) || !cont(3)) return 0;
        if ((c == 0xf0 && b(1) < 0x90) || (c == 0xf4 && b(1) > 0x8f)) return 0;
        return 4;
    }
    return 0;
}

// `text` as the inside of a JSON string: quotes and backslashes escaped, every control character
// (C0, DEL, C1) as \u00XX, a byte that is not well-formed UTF-8 as U+FFFD. Linear.
template <class Buffer> void append_json_string(std::string_view text, Buffer& out) {
    const auto put = [&](std::string_view s) { out.append(s.data(), s.data() + s.size()); };
    std::size_t plain = 0;
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        const std::size_t n = utf8_sequence(text.substr(i));
        const bool c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f;
        if (n > 0 && c >= 0x20 && c != '"' && c != '\\' && c != 0x7f && !c1) {
            i += n;
            continue;
        }
        put(text.substr(plain, i - plain));
        if (c == '"') {
            put("\\\"");
        } else if (c == '\\') {
            put("\\\\");
        } else if (n == 0) {
            put("\\ufffd");
        } else {
            const unsigned code = c1 ? static_cast<unsigned char>(text[i + 1]) : c;
            const char u[] = {'\\', 'u', '0', '0', hex[code >> 4], hex[code & 15]};
            put({u, sizeof u});
        }
        i += n == 0 ? 1 : n;
        plain = i;
    }
    put(text.substr(plain));
}

// The names HPAPLUS_LOG_LEVEL takes (`warn`, not spdlog's `warning`).
std::string_view level_text(spdlog::level::level_enum level) {
    static constexpr std::string_view names[] = {"trace", "debug",    "info", "warn",
                                                 "error", "critical", "off"};
    const auto i = static_cast<std::size_t>(level);
    return i < std::size(names) ? names[i] : "info";
}

bool dns_char(char c, bool dot) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || (dot && c == '.');
}

// A DNS label (a namespace) or, with `dot`, a DNS subdomain (an object's name).
bool dns_name(std::string_view s, std::size_t max, bool dot) {
    if (s.empty() || s.size() > max || s.front() == '-' || s.back() == '-' || s.front() == '.' ||
        s.back() == '.')
        return false;
    for (char c : s)
        if (!dns_char(c, dot)) return false;
    return true;
}

// The `namespace/name: ` an object's message starts with, by the house convention; the lines that
// do not go through log_about (kube/, vertical/) follow it too.
std::optional<std::pair<std::string_view, std::string_view>> leading_key(std::string_view text) {
    const auto colon = text.substr(0, 63 + 1 + 253 + 2).find(": ");
    if (colon == std::string_view::npos) return std::nullopt;
    const std::string_view key = text.substr(0, colon);
    const auto slash = key.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    const std::string_view ns = key.substr(0, slash), name = key.substr(slash + 1);
    if (!dns_name(ns, 63, false) || !dns_name(name, 253, true)) return std::nullopt;
    return std::pair{ns, name};
}

// The `%*` of the text pattern: `namespace/name: ` for a message about an object, then the
// message, escaped.
class escaped_message final : public spdlog::custom_flag_formatter {
  public:
    void format(const spdlog::details::log_msg& msg, const std::tm&,
                spdlog::memory_buf_t& out) override {
        if (const log_subject* s = current_subject) {
            append_escaped(s->ns, out);
            out.push_back('/');
            append_escaped(s->name, out);
            out.push_back(':');
            out.push_back(' ');
        }
        append_escaped(std::string_view(msg.payload.data(), msg.payload.size()), out);
    }
    std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<escaped_message>();
    }
};

// The `%J` of the text pattern: the level by the name HPAPLUS_LOG_LEVEL takes.
class level_name final : public spdlog::custom_flag_formatter {
  public:
    void format(const spdlog::details::log_msg& msg, const std::tm&,
                spdlog::memory_buf_t& out) override {
        const std::string_view name = level_text(msg.level);
        out.append(name.data(), name.data() + name.size());
    }
    std::unique_ptr<custom_flag_formatter> clone() const override {
        return std::make_unique<level_name>();
    }
};

class json_formatter final : public spdlog::formatter {
  public:
    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& out) override {
        const auto put = [&](std::string_view s) { out.append(s.data(), s.data() + s.size()); };
        const auto field = [&](std::string_view key, std::string_view value) {
            put(",\"");
            put(key);
            put("\":\"");
            append_json_string(value, out);
            put("\"");
        };
        const auto since_epoch = msg.time.time_since_epoch();
        const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
        const auto millis =
            std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch - seconds).count();
        const std::time_t t = seconds.count();
        std::tm utc{};
        ::gmtime_r(&t, &utc);
        char ts[40];
        const auto n = std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &utc);
        put("{\"ts\":\"");
        put(std::string_view(ts, n));
        const char ms[] = {'.', static_cast<char>('0' + millis / 100),
                           static_cast<char>('0' + millis / 10 % 10),
                           static_cast<char>('0' + millis % 10), 'Z'};
        put(std::string_view(ms, sizeof ms));
        put("\"");
        field("level", level_text(msg.level));
        field("logger", std::string_view(msg.logger_name.data(), msg.logger_name.size()));
        std::string_view text(msg.payload.data(), msg.payload.size());
        std::string_view kind, ns, name;
        if (const log_subject* s = current_subject) {
            kind = s->kind;
            ns = s->ns;
            name = s->name;
        } else if (const auto key = leading_key(text)) {
            std::tie(ns, name) = *key;
            text.remove_prefix(ns.size() + 1 + name.size() + 2);
        }
        field("msg", text);
        if (!kind.empty()) field("kind", kind);
        if (!name.empty()) {
            field("namespace", ns);
            field("name", name);
        }
        put("}\n");
    }
    std::unique_ptr<spdlog::formatter> clone() const override {
        return std::make_unique<json_formatter>();
    }
};

std::string lower(std::string_view text) {
    std::string s(text);
    for (auto& c : s)
        c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
}

} // namespace

namespace detail {
void set_log_subject(const log_subject* subject) {
    current_subject = subject;
}
} // namespace detail

std::optional<spdlog::level::level_enum> log_level_of(std::string_view text) {
    const std::string name = lower(text);
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

spdlog::level::level_enum level_of_verbosity(int v) {
    if (v <= 2) return spdlog::level::info;
    if (v <= 4) return spdlog::level::debug;
    return spdlog::level::trace;
}

std::optional<log_format> log_format_of(std::string_view text) {
    const std::string name = lower(text);
    if (name == "text") return log_format::text;
    if (name == "json") return log_format::json;
    return std::nullopt;
}

std::optional<std::string> resolve_log_options(std::string_view level, std::string_view format,
                                               const std::map<std::string, std::string>& env,
                                               log_options& out) {
    const auto from_env = [&](const char* key) -> std::optional<std::string_view> {
        const auto it = env.find(key);
        if (it == env.end()) return std::nullopt;
        return std::string_view(it->second);
    };
    std::string level_origin = "--log-level", format_origin = "--log-format";
    if (level.empty())
        if (const auto v = from_env("HPAPLUS_LOG_LEVEL")) {
            level = *v;
            level_origin = "HPAPLUS_LOG_LEVEL";
        }
    if (format.empty())
        if (const auto v = from_env("HPAPLUS_LOG_FORMAT")) {
            format = *v;
            format_origin = "HPAPLUS_LOG_FORMAT";
        }
    if (!level.empty()) {
        const auto l = log_level_of(level);
        if (!l)
            return level_origin + ": \"" + escape_log_text(level) +
                   "\" is not a level (trace, debug, info, warn, error, critical, off, in any "
                   "case)";
        out.level = *l;
    }
    if (!format.empty()) {
        const auto f = log_format_of(format);
        if (!f) return format_origin + ": \"" + escape_log_text(format) + "\": want text or json";
        out.format = *f;
    }
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

std::unique_ptr<spdlog::formatter> json_log_formatter() {
    return std::make_unique<json_formatter>();
}

void configure_logging(const log_options& options) {
    auto logger = spdlog::get("hpaplus");
    if (!logger) logger = spdlog::stderr_logger_mt("hpaplus");
    logger->set_formatter(options.format == log_format::json ? json_log_formatter()
                                                             : log_formatter());
    logger->set_level(options.level);
    spdlog::set_default_logger(logger);
}

} // namespace hpaplus::controller
