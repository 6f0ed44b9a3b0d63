// metrics/backends/backend_type.cpp — the list of types, and what they share.
#include "metrics/backends/backend_type.hpp"

#include "metrics/backends/types.hpp"

#include <array>

namespace hpaplus::metrics {
namespace {

std::array<const backend_type*, 3> all_types() {
    return {&metrics_api_type(), &prometheus_type(), &monitor_type()};
}

} // namespace

kube::api_request backend_type::range_request(const backend_config&, const std::string&,
                                              const std::string&, core::time_point,
                                              core::time_point, std::chrono::seconds) const {
    return {};
}

range_answer backend_type::read_range(std::string_view) const {
    return {"not a backend with history (range queries)", {}};
}

const backend_type* find_backend_type(std::string_view name) {
    for (const backend_type* t : all_types())
        if (t->name() == name) return t;
    return nullptr;
}

std::string backend_type_names() {
    const auto types = all_types();
    std::string out;
    for (std::size_t i = 0; i < types.size(); ++i) {
        if (i > 0) out += i + 1 == types.size() ? " or " : ", ";
        out += types[i]->name();
    }
    return out;
}

std::pair<std::string, std::string> split_origin(const std::string& url) {
    const auto scheme_end = url.find("://");
    const auto path = url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
    if (path == std::string::npos) return {url, ""};
    return {url.substr(0, path), url.substr(path)};
}

std::string seconds_text(std::chrono::milliseconds d) {
    const auto ms = d.count();
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + "s" : std::to_string(ms) + "ms";
}

} // namespace hpaplus::metrics
