// cli/adapter_command.cpp — the metrics adapter process.
#include "cli/adapter_command.hpp"

#include "cli/flags.hpp"
#include "controller/runtime/lifecycle.hpp"
#include "kube/config.hpp"
#include "metrics/adapter_api.hpp"
#include "net/http_server.hpp"
#include "net/listen_address.hpp"
#include "net/tls.hpp"

#include <boost/asio/io_context.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>
#include <string_view>

namespace hpaplus::cli {
namespace {

constexpr const char* adapter_usage =
    "Usage: hpaplus adapter --metric-backends FILE [--listen ADDR:PORT]\n"
    "                       [--tls-cert-file FILE --tls-private-key-file FILE]\n"
    "\n"
    "Serves external.metrics.k8s.io/v1beta1 and custom.metrics.k8s.io/v1beta2 from the\n"
    "Prometheus and monitor backends named in FILE (its `adapter:` section lists the metrics),\n"
    "so a plain HPA, KEDA or kubectl can read them through an APIService (deploy/adapter.yaml).\n"
    "Prints 'listening on URL' once it accepts connections; stops on SIGINT or SIGTERM.\n"
    "\n"
    "Flags (--name=value or --name value):\n";

struct adapter_flags {
    std::string backends_path;
    std::string listen = "0.0.0.0:6443";
    std::string cert_file;
    std::string key_file;
};

void add_adapter_flags(flag_table& flags, adapter_flags& f) {
    flags.text("metric-backends", "the backends file (docs/metrics-backends.md); required",
               f.backends_path, false);
    flags.listen("listen", "HTTPS address (port 0 = any free port)", f.listen, "0.0.0.0:6443",
                 false);
    flags.text("tls-cert-file",
               "serving certificate (PEM); without it a self-signed one is made at start (the "
               "APIService then needs insecureSkipTLSVerify)",
               f.cert_file, false);
    flags.text("tls-private-key-file", "its private key (PEM)", f.key_file, false);
}

boost::asio::awaitable<void> serve(metrics::adapter_api& api, net::http_request& request,
                                   net::http_responder& responder) {
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
        boost::asio::io_context io(1);
        metrics::adapter_api api(io.get_executor(), *file);
        net::http_server server(
            io.get_executor(), server_options,
            [&api](net::http_request& request, net::http_responder& responder)
                -> boost::asio::awaitable<void> { return serve(api, request, responder); });
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
