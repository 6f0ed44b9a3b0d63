#include "kube/client_flags.hpp"

#include "core/duration.hpp"

#include <charconv>
#include <cmath>
#include <limits>

namespace hpaplus::kube {
namespace {

using core::error_message;

template <class Number> bool parse_number(std::string_view text, Number& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && end == text.data() + text.size();
}

core::outcome<bool> set_duration(std::string_view name, std::string_view value,
                                 std::chrono::milliseconds& out) {
    const auto d = core::parse_go_duration(value);
    if (!d || *d <= std::chrono::nanoseconds::zero())
        return error_message("--" + std::string(name) +
                             ": want a positive duration such as 30s, got \"" + std::string(value) +
                             "\"");
    out = std::chrono::ceil<std::chrono::milliseconds>(*d);
    return true;
}

core::outcome<bool> set_count(std::string_view name, std::string_view value, int min, int& out) {
    int n = 0;
    if (!parse_number(value, n) || n < min)
        return error_message("--" + std::string(name) + ": want an integer >= " +
                             std::to_string(min) + ", got \"" + std::string(value) + "\"");
    out = n;
    return true;
}

} // namespace

core::outcome<bool> apply_client_flag(std::string_view name, std::string_view value,
                                      client_options& options) {
    if (name == "kube-api-qps") {
        double qps = 0;
        if (!parse_number(value, qps) || !std::isfinite(qps) || qps <= 0)
            return error_message("--kube-api-qps: want a positive number, got \"" +
                                 std::string(value) + "\"");
        options.qps = qps;
        return true;
    }
    if (name == "kube-api-burst") return set_count(name, value, 1, options.burst);
    if (name == "kube-max-retries") return set_count(name, value, 0, options.max_retries);
    if (name == "kube-api-connections") {
        int n = 0;
        auto ok = set_count(name, value, 1, n);
        if (ok)
            options.max_connections = options.max_idle_connections = static_cast<std::size_t>(n);
        return ok;
    }
    if (name == "kube-request-timeout") return set_duration(name, value, options.request_timeout);
    if (name == "kube-connect-timeout") return set_duration(name, value, options.connect_timeout);
    return false;
}

std::string client_flags_help() {
    const client_options d; // the defaults, so the help never disagrees with the code
    const auto ms = [](std::chrono::milliseconds v) { return std::to_string(v.count()) + "ms"; };
    const auto qps = [](double v) {
        std::string s = std::to_string(v);
        s.erase(s.find_last_not_of('0') + 1);
        if (s.back() == '.') s.pop_back();
        return s;
    };
    return "  --kube-api-qps=N            sustained API requests per second (default " +
           qps(d.qps) + ")\n  --kube-api-burst=N          requests allowed in a burst (default " +
           std::to_string(d.burst) +
           ")\n  --kube-request-timeout=D    deadline of one API request (default " +
           ms(d.request_timeout) +
           ")\n  --kube-connect-timeout=D    deadline of connecting to the API server (default " +
           ms(d.connect_timeout) +
           ")\n  --kube-api-connections=N    keep-alive connections to the API server, at most "
           "(default " +
           std::to_string(d.max_connections) +
           ")\n  --kube-max-retries=N        retries of reads, connection failures and 429 "
           "(default " +
           std::to_string(d.max_retries) + ")\n";
}

} // namespace hpaplus::kube
