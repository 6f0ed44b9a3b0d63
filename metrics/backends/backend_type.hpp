// metrics/backends/backend_type.hpp — what makes a type of metric backend (`type:` in the
// backends file) what it is, behind one interface: the fields it reads from its entry, how
// values are escaped into its queries, the request for a query, the reading of its answer and
// of its error answers, and range queries for history where it has them. One file per type
// (metricsAPI, prometheus, monitor) implements it; http_backend keeps what every HTTP type
// shares (pool, TLS, breaker, coalescing). docs/contributing.md: "Add a metric backend".
#pragma once

#include "core/outcome.hpp"
#include "core/time.hpp"
#include "kube/api_client.hpp"
#include "kube/json_decoder.hpp"
#include "metrics/backend_answer.hpp"
#include "metrics/backend_config.hpp"
#include "metrics/query_template.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace hpaplus::metrics {

class backend_type {
  public:
    virtual ~backend_type() = default;

    /// Its name in the backends file: metricsAPI, prometheus, monitor.
    virtual std::string_view name() const = 0;
    /// False for the cluster's own metrics APIs (read with the controller's API client): no
    /// http_backend, no fields beyond name and type, not served by the adapter.
    virtual bool over_http() const { return true; }
    /// Reads the fields only this type has (the shared ones — url, headers, auth, tls, scale,
    /// timeouts, breaker — are read before), and sets `query_language` (how values are escaped
    /// into its queries). Mistakes fail `d` naming the field.
    virtual void decode_fields(kube::json_decoder& d, const kube::json_node& entry,
                               backend_config& b) const = 0;

    /// The request for one instant query (`query` already expanded; `values` fill a request
    /// template, with `{{query}}` added). `base_path` is the path of its URL, without a trailing
    /// slash.
    virtual core::outcome<kube::api_request> request(const backend_config& b,
                                                     const std::string& base_path,
                                                     const std::string& query,
                                                     template_values values) const = 0;
    /// Its answer to such a request (HTTP 2xx).
    virtual backend_answer read(const backend_config& b, std::string_view body) const = 0;
    /// The error text of an error answer in its own words, or "".
    virtual std::string error_text(const backend_config& b, std::string_view body) const = 0;

    /// metrics[].maxSampleAgeSeconds: a second query whose values are the times (Unix seconds) of
    /// the samples `query` reads, for a type whose answers carry only the evaluation time;
    /// "" when its answers carry the samples' own times (or none).
    virtual std::string sample_time_query(const std::string&) const { return {}; }

    /// Whether it answers range queries (a predictive HPAPlus's history, VPAPlus's history).
    virtual bool has_history() const { return false; }
    /// The request for a range query from `start` to `end` every `step` (only with history).
    virtual kube::api_request range_request(const backend_config& b, const std::string& base_path,
                                            const std::string& query, core::time_point start,
                                            core::time_point end, std::chrono::seconds step) const;
    /// Its answer to a range query.
    virtual range_answer read_range(std::string_view body) const;
};

/// The type named `name` in the backends file, or null.
const backend_type* find_backend_type(std::string_view name);
/// "metricsAPI, prometheus or monitor": for the message of an unknown type.
std::string backend_type_names();

// What the types share.
/// scheme://host:port of a URL, and the rest (path and query).
std::pair<std::string, std::string> split_origin(const std::string& url);
/// `5s`, `1500ms`.
std::string seconds_text(std::chrono::milliseconds d);

} // namespace hpaplus::metrics
