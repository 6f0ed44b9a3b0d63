// controller/runtime/logging.hpp — how every long-running `hpaplus` process logs: one line per
// message on stderr, as text (`TIME LEVEL message`) or JSON (one object per line: ts, level,
// logger, msg and the object's kind, namespace and name), the level and format from flags or the
// environment. What users wrote is escaped either way: it can neither end a line nor reach a
// terminal as a control character.
#pragma once

#include <spdlog/fwd.h>
#include <spdlog/spdlog.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace hpaplus::controller {

enum class log_format { text, json };

struct log_options {
    log_format format = log_format::text;
    spdlog::level::level_enum level = spdlog::level::info;
};

/// The level a name gives, in any case: trace, debug, info, warn (or warning), error (or err),
/// critical, off; nullopt for anything else.
std::optional<spdlog::level::level_enum> log_level_of(std::string_view text);

/// klog's verbosity as a level: 0–2 info (kube-controller-manager's default is 2), 3–4 debug
/// (where its HPA controller's per-decision lines are), 5 and more trace.
spdlog::level::level_enum level_of_verbosity(int v);

/// `text` or `json`, in any case; nullopt for anything else.
std::optional<log_format> log_format_of(std::string_view text);

/// The log options `level` and `format` (flag values; "" = not given) ask for, falling back on
/// $HPAPLUS_LOG_LEVEL and $HPAPLUS_LOG_FORMAT in `env`, then on info and text. An unknown value,
/// given or in the environment, is an error naming where it came from.
std::optional<std::string> resolve_log_options(std::string_view level, std::string_view format,
                                               const std::map<std::string, std::string>& env,
                                               log_options& out);

/// Makes the process's logger write to stderr as `options` says.
void configure_logging(const log_options& options = {});

/// The formatter of configure_logging's text lines: `TIME LEVEL message`, the message with its
/// control characters escaped.
std::unique_ptr<spdlog::formatter> log_formatter();

/// The formatter of its JSON lines: `{"ts","level","logger","msg"}` and, for a message about an
/// object, `"kind","namespace","name"` (from log_about, or a leading `namespace/name: `).
std::unique_ptr<spdlog::formatter> json_log_formatter();

/// `text` with its control characters escaped as log_formatter writes a message.
std::string escape_log_text(std::string_view text);

/// The object a message is about.
struct log_subject {
    std::string_view kind;
    std::string_view ns;
    std::string_view name;
};

namespace detail {
/// Set around one synchronous log call by log_about, read by the formatters on the same thread.
void set_log_subject(const log_subject* subject);
} // namespace detail

/// Logs a message about `subject`: a text line reads `namespace/name: message`, a JSON line has
/// the object's kind, namespace and name as fields. The object reaches the formatter while the
/// call runs: the sinks format as they log (stderr's do; a ring buffer or an async logger would
/// not see it).
template <class... Args>
void log_about(spdlog::level::level_enum level, const log_subject& subject,
               spdlog::format_string_t<Args...> format, Args&&... args) {
    auto* logger = spdlog::default_logger_raw();
    if (!logger->should_log(level)) return;
    struct scope {
        explicit scope(const log_subject& s) { detail::set_log_subject(&s); }
        ~scope() { detail::set_log_subject(nullptr); }
    } about(subject);
    logger->log(level, format, std::forward<Args>(args)...);
}

} // namespace hpaplus::controller
