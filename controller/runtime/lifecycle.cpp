// controller/runtime/lifecycle.cpp — environment and stop signals.
#include "controller/runtime/lifecycle.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <cstdlib>

#include <unistd.h>

extern char** environ;

namespace hpaplus::controller {

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
