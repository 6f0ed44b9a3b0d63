// bench/pod_metrics_decode.cpp — `hpaplus-bench pod-metrics`: what the controller's PodMetrics
// pipeline costs per pod, in-process and without HTTP (issue 21 item 4; docs/performance-history-21.md "CPU
// per reconcile" puts a third of a reconcile there). One pass = decode a PodMetricsList of the
// shape the simulated API server sends (kinds::decode_pod_metrics_list), take the CPU samples of
// every pod from it (policy::samples_from_pod_metrics) and drop the list.
//
// The baseline, measured in the same run over the same text: parsing it into a RapidJSON document,
// as the bare client of the other modes does. The two run in alternating slices and are timed by
// the thread's CPU clock.
#include "pod_metrics_decode.hpp"

#include "json_line.hpp"

#include "kinds/pod_metrics.hpp"
#include "policy/metric_samples.hpp"

#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <stdexcept>
#include <string>

namespace hpaplus::bench {
namespace {

using clock = std::chrono::steady_clock;

// The simulated API server's PodMetrics of a bench pod (sim/apiserver/metrics_apis.cpp; the
// pod's labels as its ReplicaSet gives them), `pods` of them in one list.
std::string pod_metrics_list_text(int pods) {
    std::string text = R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1",)"
                       R"("metadata":{},"items":[)";
    for (int i = 0; i < pods; ++i) {
        const std::string object = "o-" + std::to_string(1000 + i / 10);
        const std::string pod = object + "-7d9f8b6c5d-" + std::to_string(10000 + i);
        if (i > 0) text += ',';
        text +=
            R"({"kind":"PodMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":")" +
            pod +
            R"(","namespace":"bench-100","creationTimestamp":"2026-11-27T04:00:00Z",)"
            R"("labels":{"app":")" +
            object +
            R"(","pod-template-hash":"7d9f8b6c5d"}},"timestamp":"2026-11-27T03:59:59Z",)"
            R"("window":"15s","containers":[{"name":"app","usage":{"cpu":"50000000n",)"
            R"("memory":"65536Ki"}}]})";
    }
    return text + "]}";
}

// This thread's CPU time: the machine's other tenants do not count.
std::chrono::nanoseconds thread_cpu() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

template <class Pass> std::chrono::nanoseconds cpu_of(int passes, Pass&& pass) {
    const auto start = thread_cpu();
    for (int i = 0; i < passes; ++i)
        pass();
    return thread_cpu() - start;
}

} // namespace

int pod_metrics_decode(int pods, double seconds) {
    const std::string text = pod_metrics_list_text(pods);
    std::size_t sink = 0;
    auto parse_document = [&] {
        rapidjson::Document doc;
        doc.Parse(text.data(), text.size());
        if (doc.HasParseError()) throw std::runtime_error("the bench list does not parse");
        sink += doc["items"].Size();
    };
    auto pipeline = [&] {
        auto list = kinds::decode_pod_metrics_list(text);
        if (!list) throw std::runtime_error("the bench list is not decoded in one pass");
        auto samples = policy::samples_from_pod_metrics(*list, "cpu", "");
        if (!samples) throw std::runtime_error("the bench list has no CPU samples");
        sink += samples.value().size();
    };
    parse_document(); // warm both up: the first pass pays for page faults
    pipeline();
    // Short slices of each in turn, so that a change of the machine's speed hits both alike.
    constexpr int passes_per_slice = 20;
    std::chrono::nanoseconds bare_cpu{0}, pipeline_cpu{0};
    std::uint64_t slices = 0;
    const auto until = clock::now() + std::chrono::duration<double>(seconds);
    while (clock::now() < until) {
        bare_cpu += cpu_of(passes_per_slice, parse_document);
        pipeline_cpu += cpu_of(passes_per_slice, pipeline);
        ++slices;
    }
    const double pods_done = static_cast<double>(slices) * passes_per_slice * pods;
    const double decoded = static_cast<double>(pipeline_cpu.count()) / pods_done;
    const double bare = static_cast<double>(bare_cpu.count()) / pods_done;
    json_line("pod_metrics_pipeline")
        .add("pods_per_list", pods)
        .add("list_bytes", static_cast<double>(text.size()))
        .add("ns_per_pod", decoded)
        .add("bare_parse_ns_per_pod", bare)
        .add("ratio", decoded / bare)
        .add("checksum", static_cast<double>(sink % 1000))
        .print();
    return 0;
}

} // namespace hpaplus::bench
