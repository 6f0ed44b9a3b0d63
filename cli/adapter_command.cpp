// cli/adapter_command.cpp — the metrics adapter process.
#include "cli/adapter_command.hpp"

#include "cli/flags.hpp"
#include "controller/runtime/lifecycle.hpp"
#include "kube/config.hpp"
#include "metrics/adapter_api.hpp"
#include "metrics/adapter_auth.hpp"
#include "net/http_server.hpp"
#include "net/listen_address.hpp"
#include "net/tls.hpp"

#include <boost/asio/io_context.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::cli {
namespace {

constexpr const char* adapter_usage =
    "Usage: hpaplus adapter --metric-backends FILE [--listen ADDR:PORT]\n"
    "                       [--tls-cert-file FILE --tls-private-key-file FILE]\n"
    "                       [--requestheader-client-ca-file FILE [--requestheader-...]]\n"
    "                       [--client-ca-file FILE]\n"
    "\n"
    "Serves external.metrics.k8s.io/v1beta1 and custom.metrics.k8s.io/v1beta2 from the\n"
    "Prometheus and monitor backends named in FILE (its `adapter:` section lists the metrics),\n"
    "so a plain HPA, KEDA or kubectl can read them through an APIService (deploy/adapter.yaml).\n"
    "With a CA flag, only callers that authenticate as on an aggregated API server (front-proxy\n"
    "or client certificates) are served, others get 401. Prints 'listening on URL' once it\n"
    "accepts connections; stops on SIGINT or SIGTERM.\n"
    "\n"
    "Flags (--name=value or --name value):\n";

struct adapter_flags {
    std::string backends_path;
    std::string listen = "0.0.0.0:6443";
    std::string cert_file;
    std::string key_file;
    std::string requestheader_client_ca_file;
    std::string requestheader_allowed_names;
    std::string requestheader_username_headers = "X-Remote-User";
    std::string requestheader_group_headers = "X-Remote-Group";
    std::string requestheader_extra_headers_prefix = "X-Remote-Extra-";
    std::string client_ca_file;
    std::string always_allow_paths = "/healthz,/readyz,/livez";
};

std::vector<std::string> comma_list(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at <= text.size();) {
        const auto end = std::min(text.find(',', at), text.size());
        if (end > at) out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

void add_adapter_flags(flag_table& flags, adapter_flags& f) {
    flags.text("metric-backends", "the backends file (docs/metrics-backends.md); required",
               f.backends_path, false);
    flags.listen("listen", "HTTPS address (port 0 = any free port)", f.listen, "0.0.0.0:6443",
                 false);
    flags.text("tls-cert-file",
               "serving certificate (PEM), read again every 10 s; without it a self-signed one "
               "is made at start (the APIService then needs insecureSkipTLSVerify)",
               f.cert_file, false);
    flags.text("tls-private-key-file", "its private key (PEM)", f.key_file, false);
    // Authentication, with k8s.io/apiserver's flag names (docs/metrics-backends.md "Security").
    flags.text("requestheader-client-ca-file",
               "CA of the API server's front-proxy client certificate; a request with such a "
               "certificate is the user in the request headers",
               f.requestheader_client_ca_file, false);
    flags.text("requestheader-allowed-names",
               "common names the front-proxy certificate may have (comma-separated; empty = any)",
               f.requestheader_allowed_names, false);
    flags.text("requestheader-username-headers", "headers naming the user (comma-separated)",
               f.requestheader_username_headers);
    flags.text("requestheader-group-headers", "headers naming its groups (comma-separated)",
               f.requestheader_group_headers);
    flags.text("requestheader-extra-headers-prefix",
               "prefixes of headers with extra user attributes (comma-separated)",
               f.requestheader_extra_headers_prefix);
    flags.text("client-ca-file",
               "CA of client certificates: the common name is the user, organizations its groups",
               f.client_ca_file, false);
    flags.text("authorization-always-allow-paths", "paths served without credentials",
               f.always_allow_paths);
}

metrics::adapter_auth_options auth_options(const adapter_flags& f) {
    metrics::adapter_auth_options o;
    o.requestheader_client_ca_file = f.requestheader_client_ca_file;
    o.requestheader_allowed_names = comma_list(f.requestheader_allowed_names);
    o.requestheader_username_headers = comma_list(f.requestheader_username_headers);
    o.requestheader_group_headers = comma_list(f.requestheader_group_headers);
    o.requestheader_extra_headers_prefix = comma_list(f.requestheader_extra_headers_prefix);
    o.client_ca_file = f.client_ca_file;
    o.always_allow_paths = comma_list(f.always_allow_paths);
    return o;
}

// Unauthenticated callers get a 401 Status (why is logged, never told), unless the path is
// always allowed or no way of authenticating is configured.
boost::asio::awaitable<void> serve(metrics::adapter_api& api,
                                   const metrics::adapter_authenticator& auth,
                                   net::http_request& request, net::http_responder& responder) {
    if (auth.enabled() && !auth.always_allowed(request.path)) {
        if (auto user = auth.authenticate(request); !user) {
            spdlog::info("401 for {} {}: {}", request.method, request.path, user.error().text);
            net::http_response refusal = metrics::unauthorized_status();
            co_await responder.send(std::move(refusal));
            co_return;
        }
    }
    net::http_response response = co_await api.handle(request);
    co_await responder.send(std::move(response));
}

} // namespace

int run_adapter(int argc, char** argv) {
    adapter_flags f;
    flag_table flags("hpaplus adapter");
    add_adapter_flags(flags, f);
    const auto help = flags.parse(std::vector<std::string>(argv, argv + argc));
    if (!help) return usage_error("hpaplus adapter", help.error().text);
    if (*help) {
        std::printf("%s%s", adapter_usage, flags.help().c_str());
        return 0;
    }
    const std::string& backends_path = f.backends_path;
    const std::string& cert_file = f.cert_file;
    const std::string& key_file = f.key_file;
    if (backends_path.empty())
        return usage_error("hpaplus adapter", "--metric-backends is required");
    if (cert_file.empty() != key_file.empty())
        return usage_error("hpaplus adapter",
                           "give both --tls-cert-file and --tls-private-key-file, or neither");
    net::http_server_options server_options;
    net::split_listen(f.listen, server_options.address, server_options.port); // checked by --listen
    auto file = metrics::load_backends(backends_path);
    if (!file) {
        std::fprintf(stderr, "hpaplus adapter: --metric-backends: %s\n", file.error().text.c_str());
        return 2;
    }
    if (file->adapter_external.empty() && file->adapter_custom.empty())
        spdlog::warn("{}: the adapter section lists no metrics; only discovery is served",
                     backends_path);
    try {
        if (cert_file.empty()) {
            const auto tls = net::make_self_signed({"127.0.0.1", "localhost"});
            server_options.tls = std::make_pair(tls.cert_pem, tls.key_pem);
        } else {
            for (const std::string& path : {cert_file, key_file})
                if (!kube::read_file(path)) {
                    std::fprintf(stderr, "hpaplus adapter: cannot read %s\n", path.c_str());
                    return 2;
                }
            // Read again every 10 s: a renewed certificate serves without a restart.
            server_options.tls_from_files = net::tls_files{cert_file, key_file};
            server_options.on_tls_reload = [](const std::string& error) {
                if (error.empty())
                    spdlog::info("serving the renewed TLS certificate");
                else
                    spdlog::warn("keeping the last good TLS certificate: {}", error);
            };
        }
        std::unique_ptr<metrics::adapter_authenticator> authenticator;
        try {
            authenticator = std::make_unique<metrics::adapter_authenticator>(auth_options(f));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "hpaplus adapter: %s\n", e.what());
            return 2;
        }
        const metrics::adapter_authenticator& auth = *authenticator;
        if (auth.enabled())
            server_options.request_client_certificate = true;
        else
            spdlog::warn("no --requestheader-client-ca-file or --client-ca-file: every caller is "
                         "served without authentication");
        boost::asio::io_context io(1);
        metrics::adapter_api api(io.get_executor(), *file);
        net::http_server server(
            io.get_executor(), server_options,
            [&api, &auth](net::http_request& request, net::http_responder& responder)
                -> boost::asio::awaitable<void> { return serve(api, auth, request, responder); });
        controller::stop_signal signals(io, [&] {
            server.stop();
            io.stop();
        });
        server.start();
        std::printf("listening on %s\n", server.url().c_str());
        std::fflush(stdout);
        io.run();
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hpaplus adapter: %s\n", e.what());
        return 1;
    }
}

} // namespace hpaplus::cli
