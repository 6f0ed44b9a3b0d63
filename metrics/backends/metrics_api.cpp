// metrics/backends/metrics_api.cpp — type metricsAPI: the cluster's own metrics APIs
// (metrics.k8s.io, custom.metrics.k8s.io, external.metrics.k8s.io), read with the controller's
// API client by metrics_api.cpp; nothing to configure but its name.
#include "metrics/backends/types.hpp"

namespace hpaplus::metrics {
namespace {

class metrics_api final : public backend_type {
  public:
    std::string_view name() const override { return "metricsAPI"; }
    bool over_http() const override { return false; }
    void decode_fields(kube::json_decoder& d, const kube::json_node& entry,
                       backend_config&) const override {
        d.known_fields(entry, {"name", "type"});
    }
    core::outcome<kube::api_request> request(const backend_config&, const std::string&,
                                             const std::string&, template_values) const override {
        return core::error_message("the metrics APIs are read with the API client");
    }
    backend_answer read(const backend_config&, std::string_view) const override { return {}; }
    std::string error_text(const backend_config&, std::string_view) const override { return {}; }
};

} // namespace

const backend_type& metrics_api_type() {
    static const metrics_api type;
    return type;
}

} // namespace hpaplus::metrics
