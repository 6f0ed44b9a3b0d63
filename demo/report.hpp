// demo/report.hpp — what `hpaplus demo` records and the report it writes: an SVG chart
// of load and replicas over time (alone, or inside an HTML page with the summary and the scaling
// events), and the machine-readable summary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hpaplus::demo {

/// A pod of the --vertical workload at one sample: what its containers request and what it uses.
struct pod_resources {
    std::string name;
    std::int64_t cpu_request_milli = 0;
    std::int64_t memory_request_bytes = 0;
    std::optional<std::int64_t> cpu_usage_milli; ///< nullopt before it runs
    std::optional<std::int64_t> memory_usage_bytes;
};

/// --predictive: Deployment shop and its predictive HPAPlus at one sample.
struct predictive_sample {
    double load_cores = 0;
    int replicas = 0;
    std::optional<int> forecast_replicas; ///< HPAPlus status.prediction.replicas
    bool ahead = false;                   ///< it scaled up here while its load was still low
};

struct demo_sample {
    double seconds = 0;                    ///< since the scenario started
    double load_cores = 0;                 ///< the load put on the workload
    int replicas = 0;                      ///< the Deployment's spec.replicas
    int ready = 0;                         ///< its ready replicas
    std::optional<int> utilization;        ///< HPAPlus status: current CPU utilization (%)
    std::optional<int> desired;            ///< HPAPlus status: desiredReplicas
    std::optional<int> cron_floor;         ///< HPAPlus status: the CronHPA floor in force
    std::vector<pod_resources> vertical;   ///< --vertical: the pods VPAPlus resizes
    std::optional<predictive_sample> shop; ///< --predictive
};

struct demo_event {
    double seconds = 0;
    std::string text;
};

struct demo_summary {
    int scale_ups = 0;
    int scale_downs = 0;
    int max_replicas = 0;
    int final_replicas = 0;
    std::uint64_t reconciles = 0;
    std::uint64_t errors = 0;
    double duration_seconds = 0;
    int target_utilization = 0;
    int vertical_resizes = 0; ///< --vertical: changes of the api pods' requests seen
    bool predictive = false;
    int shop_scale_ups = 0;       ///< --predictive: shop's scale-ups
    int shop_scale_ups_ahead = 0; ///< of them, those made while its load was still low
};

/// A standalone SVG chart over time: replicas (spec, ready, desired), the cron floor as a band, the
/// load (cores), and below it the CPU utilization against its target; rescales marked with their
/// reasons. With --vertical samples, two more panels: CPU and memory requested and used, per pod;
/// with --predictive samples, one more: shop's load, replicas and forecast, its scale-ups ahead of
/// the load marked.
std::string render_svg(const std::vector<demo_sample>& samples,
                       const std::vector<demo_event>& events, const std::string& title,
                       int target_utilization);

/// An HTML page: the chart, the summary and the list of scaling events.
std::string render_html(const std::vector<demo_sample>& samples,
                        const std::vector<demo_event>& events, const demo_summary& summary,
                        const std::string& title);

/// `{"scaleUps":..,"scaleDowns":..,"maxReplicas":..,"finalReplicas":..,"reconciles":..,"errors":..,
/// "durationSeconds":..,"verticalResizes":..}`, and with --predictive `"predictiveScaleUps"` and
/// `"predictiveScaleUpsAhead"`.
std::string summary_json(const demo_summary& summary);

} // namespace hpaplus::demo
