// What Prometheus and a company's monitor answer, read through the mappings a backends file may
// name: the first byte picks the reader, the rest is the body. Never a crash; values are finite.
#include "metrics/backend_answer.hpp"
#include "fuzz/fuzz.hpp"
#include "metrics/backends/monitor.hpp"
#include "metrics/backends/prometheus.hpp"

#include <cmath>

namespace {

using namespace hpaplus::metrics;

void check(const backend_answer& a) {
    if (a.kind != answer_kind::values) return;
    for (const auto& v : a.values)
        hpaplus::fuzz::require(std::isfinite(v.value), "a backend value is finite");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string_view body = hpaplus::fuzz::text(data + 1, size - 1);
    static const response_mapping per_pod{"/data/items", "/value", "/pod", "/error", "/ts"};
    static const response_mapping whole{"", "/result/0/v", "", "/err/message", ""};
    switch (data[0] % 6) {
    case 0:
        check(parse_prometheus(body, "pod", 1));
        break;
    case 1:
        check(parse_prometheus(body, "pod", 1e300));
        break;
    case 2:
        (void)parse_prometheus_matrix(body);
        break;
    case 3:
        check(parse_monitor(body, per_pod, 0.001));
        break;
    case 4:
        check(parse_monitor(body, whole, 1));
        break;
    default:
        (void)prometheus_error(body);
        (void)monitor_error(body, "/error/message");
        break;
    }
    return 0;
}
