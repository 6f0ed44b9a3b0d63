// cli/client_flags.cpp — the API client's flags in the shared flag table.
#include "cli/client_flags.hpp"

#include <charconv>
#include <climits>

namespace hpaplus::cli {

void add_client_flags(flag_table& flags, kube::client_options& o) {
    flags.section("API client");
    flags.number("kube-api-qps", "sustained API requests per second", o.qps, true);
    flags.integer("kube-api-burst", "requests allowed in a burst", o.burst, 1, INT_MAX);
    flags.duration("kube-request-timeout", "deadline of one API request", o.request_timeout);
    flags.duration("kube-connect-timeout", "deadline of connecting to the API server",
                   o.connect_timeout);
    flags.custom("kube-api-connections", "keep-alive connections to the API server, at most",
                 std::to_string(o.max_connections),
                 [&o](std::string_view v) -> std::optional<std::string> {
                     std::size_t n = 0;
                     const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
                     if (ec != std::errc{} || end != v.data() + v.size() || n < 1 || n > INT_MAX)
                         return "want an integer >= 1, got \"" + std::string(v) + "\"";
                     o.max_connections = o.max_idle_connections = n;
                     return std::nullopt;
                 });
    flags.integer("kube-max-retries", "retries of reads, connection failures and 429",
                  o.max_retries, 0, INT_MAX);
}

} // namespace hpaplus::cli
