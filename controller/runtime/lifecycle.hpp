// controller/runtime/lifecycle.hpp — what every long-running `hpaplus` process does the same way:
// its log format, its view of the environment, and stopping on SIGINT or SIGTERM.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <spdlog/fwd.h>

#include <string_view>

namespace boost::asio {
class io_context;
}

namespace hpaplus::controller {

/// Log lines as `TIME LEVEL message` on stderr (the object key leads every per-object message);
/// $HPAPLUS_LOG_LEVEL sets the level (log_level_of; an unknown one is reported, info kept).
void configure_logging();

/// The level a name gives, in any case: trace, debug, info, warn (or warning), error (or err),
/// critical, off; nullopt for anything else.
std::optional<spdlog::level::level_enum> log_level_of(std::string_view text);

/// The formatter of configure_logging's lines: `TIME LEVEL message`, the message with its control
/// characters escaped (a user's string can neither end a line nor reach the terminal as a control).
std::unique_ptr<spdlog::formatter> log_formatter();

/// `text` with its control characters escaped as log_formatter writes a message.
std::string escape_log_text(std::string_view text);

/// The process environment as a map (for kube::load_config).
std::map<std::string, std::string> environment();

/// Calls `on_signal` (on the io_context's thread) the first time SIGINT or SIGTERM arrives;
/// cancel() or destruction stops waiting, so a process that finished on its own can exit.
class stop_signal {
  public:
    stop_signal(boost::asio::io_context& io, std::function<void()> on_signal);
    ~stop_signal();
    stop_signal(const stop_signal&) = delete;
    stop_signal& operator=(const stop_signal&) = delete;
    void cancel();

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace hpaplus::controller
