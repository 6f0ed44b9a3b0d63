// cli/log_flags.cpp — the log flags and where they meet the environment.
#include "cli/log_flags.hpp"

#include "controller/runtime/lifecycle.hpp"
#include "controller/runtime/logging.hpp"

#include <charconv>

namespace hpaplus::cli {

void add_log_flags(flag_table& flags, std::string& level, std::string& format) {
    flags.custom("log-level",
                 "trace, debug, info, warn, error, critical or off, in any case (default: "
                 "$HPAPLUS_LOG_LEVEL, else info)",
                 "", [&level](std::string_view v) -> std::optional<std::string> {
                     if (!controller::log_level_of(v))
                         return "want trace, debug, info, warn, error, critical or off, got \"" +
                                controller::escape_log_text(v) + "\"";
                     level = std::string(v);
                     return std::nullopt;
                 });
    flags.custom(
        "v",
        "klog verbosity, as kube-controller-manager takes it (-v=N): 0-2 info, 3-4 "
        "debug, 5 and more trace",
        "", [&level](std::string_view v) -> std::optional<std::string> {
            int n = 0;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec != std::errc() || end != v.data() + v.size() || n < 0)
                return "want a verbosity from 0, got \"" + controller::escape_log_text(v) + "\"";
            const auto name = spdlog::level::to_string_view(controller::level_of_verbosity(n));
            level.assign(name.data(), name.size());
            return std::nullopt;
        });
    flags.custom("log-format",
                 "text (TIME LEVEL message) or json (one object per line) (default: "
                 "$HPAPLUS_LOG_FORMAT, else text)",
                 "", [&format](std::string_view v) -> std::optional<std::string> {
                     if (!controller::log_format_of(v))
                         return "want text or json, got \"" + controller::escape_log_text(v) + "\"";
                     format = std::string(v);
                     return std::nullopt;
                 });
}

bool start_logging(const char* command, const std::string& level, const std::string& format) {
    controller::log_options options;
    if (auto wrong =
            controller::resolve_log_options(level, format, controller::environment(), options)) {
        usage_error(command, *wrong);
        return false;
    }
    controller::configure_logging(options);
    return true;
}

} // namespace hpaplus::cli
