// cli/adapter_command.cpp — the metrics adapter process.
#include "cli/adapter_command.hpp"

#include "controller/runtime/lifecycle.hpp"
#include "kube/config.hpp"
#include "metrics/adapter_api.hpp"
#include "net/http_server.hpp"
#include "net/listen_address.hpp"
#include "net/tls.hpp"

#include <boost/asio/io_context.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <optional>
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
    "\n"
    "  --metric-backends FILE      the backends file (docs/metrics-backends.md)\n"
    "  --listen ADDR:PORT          HTTPS address (default 0.0.0.0:6443; port 0 = any free port)\n"
    "  --tls-cert-file FILE        serving certificate (PEM); without it a self-signed one is\n"
    "                              made at start (the APIService then needs\n"
    "                              insecureSkipTLSVerify)\n"
    "  --tls-private-key-file FILE its private key (PEM)\n"
    "\n"
    "Prints 'listening on URL' once it accepts connections; stops on SIGINT or SIGTERM.\n";

boost::asio::awaitable<void> serve(metrics::adapter_api& api, net::http_request& request,
                                   net::http_responder& responder) {
    net::http_response response = co_await api.handle(request);
    co_await responder.send(std::move(response));
}

int usage_error(const std::string& message) {
    std::fprintf(stderr, "hpaplus adapter: %s (see 'hpaplus adapter --help')\n", message.c_str());
    return 2;
}

} // namespace

int run_adapter(int argc, char** argv) {
    std::string backends_path, listen = "0.0.0.0:6443", cert_file, key_file;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(adapter_usage, stdout);
            return 0;
        }
        std::string_view name = arg;
        std::optional<std::string> value;
        if (const auto eq = arg.find('='); eq != std::string_view::npos) {
            name = arg.substr(0, eq);
            value = std::string(arg.substr(eq + 1));
        } else if (i + 1 < argc) {
            value = argv[i + 1];
        }
        std::string* target = name == "--metric-backends"        ? &backends_path
                              : name == "--listen"               ? &listen
                              : name == "--tls-cert-file"        ? &cert_file
                              : name == "--tls-private-key-file" ? &key_file
                                                                 : nullptr;
        if (!target || !value)
            return usage_error("unknown or incomplete option '" + std::string(arg) + "'");
        if (arg.find('=') == std::string_view::npos) ++i;
        *target = *value;
    }
    if (backends_path.empty()) return usage_error("--metric-backends is required");
    if (cert_file.empty() != key_file.empty())
        return usage_error("give both --tls-cert-file and --tls-private-key-file, or neither");
    net::http_server_options server_options;
    if (!net::split_listen(listen, server_options.address, server_options.port))
        return usage_error("--listen: expected ADDR:PORT, got '" + listen + "'");
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
            auto cert = kube::read_file(cert_file);
            auto key = kube::read_file(key_file);
            if (!cert || !key) {
                std::fprintf(stderr, "hpaplus adapter: cannot read %s\n",
                             (!cert ? cert_file : key_file).c_str());
                return 2;
            }
            server_options.tls = std::make_pair(std::move(*cert), std::move(*key));
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
