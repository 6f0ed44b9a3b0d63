// metrics/backend_config.hpp — the metric backends file (`--metric-backends`): named backends of
// type metricsAPI, prometheus and monitor (a generic HTTP/JSON adapter for a company monitor),
// and the metrics `hpaplus adapter` serves from them. Read once at start-up; every mistake is a
// start-up error naming the field.
#pragma once

#include "core/outcome.hpp"
#include "metrics/query_template.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::metrics {

class backend_type; // metrics/backends/backend_type.hpp

/// Where the values are in a monitor's JSON answer (RFC 6901 JSON pointers).
struct response_mapping {
    /// The array of results; "" = the whole document is one result. A pointer that does not
    /// resolve means "no data".
    std::string items;
    std::string value;     ///< the value, relative to each result (number or numeric string)
    std::string pod;       ///< the pod name, relative to each result ("" = not per pod)
    std::string error;     ///< an error text in the document ("" = none)
    std::string timestamp; ///< RFC 3339 text or Unix seconds, relative to each result (optional)
};

struct circuit_breaker_options {
    int failure_threshold = 5;         ///< consecutive failures that open the circuit
    std::chrono::seconds open_for{30}; ///< then one probe request is let through
};

struct backend_config {
    std::string name;
    const backend_type* type = nullptr; ///< never null in a parsed file
    std::string url;                    ///< prometheus: base URL; monitor: URL template
    std::string method = "GET";         ///< monitor
    std::string body;                   ///< monitor: body template
    std::string content_type;           ///< monitor: body content type
    std::map<std::string, std::string> headers;
    std::string bearer_token;
    std::string bearer_token_file;
    std::string basic_username;
    std::string basic_password;
    std::string ca_file;
    bool insecure_skip_tls_verify = false;
    std::string pod_label = "pod"; ///< prometheus: the label that names pods
    std::string window = "1m";     ///< what `{{window}}` expands to
    /// What query placeholders are escaped for: promql for prometheus; a monitor's `queryLanguage`
    /// (PromQL, InfluxQL, or None = as is).
    value_encoding query_language = value_encoding::raw;
    double scale = 1;          ///< every value is multiplied by this
    response_mapping response; ///< monitor
    std::chrono::milliseconds timeout{5000};
    /// Identical requests within this window share one answer (0 = only requests in flight).
    std::chrono::milliseconds coalesce{5000};
    std::size_t max_response_bytes = 4u << 20;
    circuit_breaker_options breaker;
};

/// One metric `hpaplus adapter` serves.
struct adapter_metric {
    std::string name;
    std::string backend;
    std::string query;
    /// custom.metrics.k8s.io only: "pods" (per-pod values) or a resource plural such as
    /// "services" / "ingresses.networking.k8s.io" (one value per object).
    std::string resource;
};

struct backends_file {
    std::vector<backend_config> backends;
    std::vector<adapter_metric> adapter_external;
    std::vector<adapter_metric> adapter_custom;

    const backend_config* find(const std::string& name) const;
};

/// Parses the file's text (YAML or JSON). Errors name the field: `backends[1].url: ...`.
core::outcome<backends_file> parse_backends(const std::string& text);

/// Reads and parses a file; errors start with the file name.
core::outcome<backends_file> load_backends(const std::string& path);

} // namespace hpaplus::metrics
