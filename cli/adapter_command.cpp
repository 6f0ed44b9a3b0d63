// cli/adapter_command.cpp — the metrics adapter process.
#include "cli/adapter_command.hpp"

#include "adapter/api.hpp"
#include "adapter/auth.hpp"
#include "adapter/delegation.hpp"
#include "cli/flags.hpp"
#include "cli/log_flags.hpp"
#include "controller/runtime/lifecycle.hpp"
#include "kube/config.hpp"
#include "net/http_server.hpp"
#include "net/listen_address.hpp"
#include "net/tls.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace hpaplus::cli {
namespace {

constexpr const char* adapter_usage =
    "Usage: hpaplus adapter --metric-backends FILE [--listen ADDR:PORT]\n"
    "                       [--tls-cert-file FILE --tls-private-key-file FILE]\n"
    "                       [--requestheader-client-ca-file FILE [--requestheader-...]]\n"
    "                       [--client-ca-file FILE] [--kubeconfig FILE]\n"
    "\n"
    "Serves external.metrics.k8s.io/v1beta1 and custom.metrics.k8s.io/v1beta2 from the\n"
    "Prometheus and monitor backends named in FILE (its `adapter:` section lists the metrics),\n"
    "so a plain HPA, KEDA or kubectl can read them through an APIService (deploy/adapter.yaml).\n"
    "Callers authenticate as on an aggregated API server: the front-proxy or a client\n"
    "certificate (CAs from the flags, else from kube-system/extension-apiserver-authentication),\n"
    "or a bearer token (TokenReview); others get 401. With an API server (--kubeconfig, or\n"
    "in-cluster) each request is authorized by SubjectAccessReview (403 when denied). Without a\n"
    "CA flag or an API server every caller is served. Prints 'listening on URL' once it accepts\n"
    "connections; stops on SIGINT or SIGTERM.\n"
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
    std::string kubeconfig;
    std::string log_level;
    std::string log_format;
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
    add_log_flags(flags, f.log_level, f.log_format);
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
    flags.text("kubeconfig",
               "the API server that reviews tokens and authorizes requests, and publishes the "
               "request-header CA when no CA flag is given (default: in-cluster when "
               "KUBERNETES_SERVICE_HOST is set, else none)",
               f.kubeconfig, false);
}

bool ca_flags_given(const adapter_flags& f) {
    return !f.requestheader_client_ca_file.empty() || !f.client_ca_file.empty();
}

// The settings the CA flags name, their files read now; the error names the flag.
core::outcome<adapter::authentication_settings> settings_from_flags(const adapter_flags& f) {
    adapter::authentication_settings s;
    for (const auto& [flag, path, pem] :
         {std::tuple{"requestheader-client-ca-file", &f.requestheader_client_ca_file,
                     &s.request_header.client_ca_pem},
          std::tuple{"client-ca-file", &f.client_ca_file, &s.client_ca_pem}}) {
        if (path->empty()) continue;
        auto text = kube::read_file(*path);
        if (!text) return core::error_message(std::string("--") + flag + ": cannot read " + *path);
        *pem = std::move(*text);
    }
    s.request_header.allowed_names = comma_list(f.requestheader_allowed_names);
    s.request_header.username_headers = comma_list(f.requestheader_username_headers);
    s.request_header.group_headers = comma_list(f.requestheader_group_headers);
    s.request_header.extra_headers_prefix = comma_list(f.requestheader_extra_headers_prefix);
    return s;
}

// The API server the adapter delegates to: --kubeconfig, else in-cluster, else none.
core::outcome<std::optional<kube::cluster_config>> delegation_cluster(const adapter_flags& f) {
    if (!f.kubeconfig.empty()) {
        auto c = kube::load_kubeconfig(f.kubeconfig);
        if (!c) return core::error_message("--kubeconfig: " + c.error().text);
        return std::optional<kube::cluster_config>(std::move(*c));
    }
    const auto env = controller::environment();
    if (env.count("KUBERNETES_SERVICE_HOST") == 0) return std::optional<kube::cluster_config>();
    auto c = kube::load_in_cluster(env);
    if (!c) return c.error();
    return std::optional<kube::cluster_config>(std::move(*c));
}

// Who may call, kept current: the CA flags' files or the authentication ConfigMap are read again
// every 10 s, so a rotated CA is trusted without a restart (an unusable one is reported once and
// the last good settings stay).
struct authentication_source {
    const adapter_flags& flags;
    adapter::adapter_authenticator& authenticator;
    adapter::adapter_delegation* delegation; ///< null: no API server
    adapter::authentication_settings current;
    std::string last_error;

    bool uses_configmap() const { return !ca_flags_given(flags) && delegation; }

    boost::asio::awaitable<core::outcome<adapter::authentication_settings>> read() {
        if (uses_configmap()) co_return co_await delegation->read_authentication_settings();
        co_return settings_from_flags(flags);
    }

    // Reads and applies the settings; returns the error, or "" when they apply.
    boost::asio::awaitable<std::string> refresh() {
        auto settings = co_await read();
        if (!settings) co_return settings.error().text;
        if (*settings == current) co_return std::string();
        try {
            authenticator.configure(*settings);
        } catch (const std::exception& e) {
            co_return std::string(e.what());
        }
        current = std::move(*settings);
        co_return std::string();
    }

    boost::asio::awaitable<void> keep_current(boost::asio::steady_timer& timer) {
        for (;;) {
            timer.expires_after(std::chrono::seconds(10));
            auto [ec] =
                co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            if (ec) co_return;
            const auto before = current;
            std::string error = co_await refresh();
            if (!error.empty() && error != last_error)
                spdlog::warn("keeping the last good authentication settings: {}", error);
            else if (error.empty() && !(before == current))
                spdlog::info("trusting the renewed client CAs");
            last_error = std::move(error);
        }
    }
};

// Serves once the first authentication settings apply (an adapter that cannot tell its callers
// apart must not serve them), then keeps them current.
boost::asio::awaitable<void> start(authentication_source& source, net::http_server& server,
                                   boost::asio::steady_timer& reload, int& exit_code,
                                   std::function<void()> stop) {
    const bool refreshed = source.uses_configmap() || ca_flags_given(source.flags);
    if (refreshed) {
        if (auto error = co_await source.refresh(); !error.empty()) {
            std::fprintf(stderr, "hpaplus adapter: %s\n", error.c_str());
            exit_code = source.uses_configmap() ? 1 : 2;
            stop();
            co_return;
        }
    }
    server.start();
    std::printf("listening on %s\n", server.url().c_str());
    std::fflush(stdout);
    if (refreshed) co_await source.keep_current(reload);
}

// Authenticates (certificates, else a bearer token through TokenReview), authorizes through
// SubjectAccessReview when there is an API server, then serves. Why a caller was refused is
// logged, never told.
boost::asio::awaitable<void> serve(adapter::adapter_api& api,
                                   const adapter::adapter_authenticator& auth,
                                   adapter::adapter_delegation* delegation,
                                   net::http_request& request, net::http_responder& responder) {
    const bool checked = auth.enabled() || delegation;
    if (checked && !auth.always_allowed(request.path)) {
        auto user = auth.authenticate(request);
        if (const auto token = adapter::bearer_token(request); !user && !token.empty()) {
            if (delegation)
                user = co_await delegation->review_token(std::string(token));
            else
                user = core::error_message("a bearer token, and no API server to review it");
        }
        if (!user) {
            spdlog::info("401 for {} {}: {}", request.method, request.path, user.error().text);
            net::http_response refusal = adapter::unauthorized_status();
            co_await responder.send(std::move(refusal));
            co_return;
        }
        if (delegation) {
            const auto attributes = adapter::attributes_of(request);
            const auto decision = co_await delegation->authorize(*user, attributes);
            if (!decision || !decision->allowed) {
                net::http_response refusal =
                    decision ? adapter::forbidden_status(*user, attributes, decision->reason)
                             : adapter::authorization_error_status(decision.error().text);
                spdlog::info("{} for {} {} by {}", refusal.status, request.method, request.path,
                             user->name);
                co_await responder.send(std::move(refusal));
                co_return;
            }
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
    if (!start_logging("hpaplus adapter", f.log_level, f.log_format)) return 2;
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
        auto cluster = delegation_cluster(f);
        if (!cluster) {
            std::fprintf(stderr, "hpaplus adapter: %s\n", cluster.error().text.c_str());
            return 2;
        }
        boost::asio::io_context io(1);
        std::unique_ptr<adapter::adapter_delegation> delegation;
        if (*cluster)
            delegation = std::make_unique<adapter::adapter_delegation>(io.get_executor(),
                                                                       std::move(**cluster));
        else
            spdlog::warn("no --kubeconfig and not in a cluster: bearer tokens are refused and "
                         "every authenticated caller is authorized");
        adapter::adapter_authenticator auth(comma_list(f.always_allow_paths));
        authentication_source source{f, auth, delegation.get(), {}, {}};
        if (!ca_flags_given(f) && !delegation)
            spdlog::warn("no --requestheader-client-ca-file, --client-ca-file or API server: "
                         "every caller is served without authentication");
        server_options.request_client_certificate = ca_flags_given(f) || delegation;
        adapter::adapter_api api(io.get_executor(), *file);
        adapter::adapter_delegation* delegate = delegation.get();
        net::http_server server(
            io.get_executor(), server_options,
            [&api, &auth, delegate](net::http_request& request, net::http_responder& responder)
                -> boost::asio::awaitable<void> {
                return serve(api, auth, delegate, request, responder);
            });
        boost::asio::steady_timer reload(io);
        int exit_code = 0;
        const std::function<void()> stop = [&] {
            reload.cancel();
            server.stop();
            io.stop();
        };
        controller::stop_signal signals(io, stop);
        boost::asio::co_spawn(io, start(source, server, reload, exit_code, stop),
                              boost::asio::detached);
        io.run();
        return exit_code;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hpaplus adapter: %s\n", e.what());
        return 1;
    }
}

} // namespace hpaplus::cli
