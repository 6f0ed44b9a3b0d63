// tests/unit/policy/test_support.cpp — builders for policy table tests.
#include "test_support.hpp"

#include "policy/defaults.hpp"
#include "policy/pod_grouping.hpp"

namespace hpaplus::policy::test {

core::time_point now() {
    return core::parse_rfc3339("2026-01-01T00:10:00Z").value();
}

core::time_point ago(int seconds) {
    return now() - std::chrono::seconds(seconds);
}

pod_set make_pods(const std::vector<P>& rows, const std::string& resource) {
    pod_set set;
    for (const auto& r : rows) {
        auto pod = std::make_unique<pod_info>();
        pod->name = r.name;
        pod->labels = {{"app", "web"}};
        pod->phase = r.phase;
        pod->deleting = r.deleting;
        if (r.start_ago >= 0) pod->start_time = ago(r.start_ago);
        pod->ready = r.ready;
        if (r.ready) pod->ready_transition_time = ago(r.ready_ago);
        container_spec app;
        app.name = "app";
        if (r.request >= 0)
            app.requests.emplace_back(resource, core::quantity::from_milli(r.request));
        auto& shared = pod->own_template();
        shared.namespace_ = "default";
        shared.containers.push_back(std::move(app));
        set.view.push_back(pod.get());
        set.owned.push_back(std::move(pod));
    }
    return set;
}

std::vector<pod_sample> make_samples(const std::vector<S>& rows) {
    // The samples view their pods' names; the rows are often temporaries, so the names are kept
    // for the whole test program (a few bytes per row).
    static sample_names names;
    std::vector<pod_sample> out;
    for (const auto& r : rows)
        out.push_back({names.keep(r.pod), r.milli, ago(r.age), std::chrono::seconds(r.window)});
    sort_samples(out);
    return out;
}

autoscaler make_hpa(std::int32_t min, std::int32_t max, std::int32_t target_utilization) {
    autoscaler a;
    a.name = "web";
    a.namespace_ = "default";
    a.spec.scale_target_ref = {"Deployment", "web", "apps/v1"};
    a.spec.min_replicas = min;
    a.spec.max_replicas = max;
    metric_spec cpu;
    cpu.type = metric_source_type::resource;
    cpu.resource_name = "cpu";
    cpu.target.type = metric_target_type::utilization;
    cpu.target.average_utilization = target_utilization;
    a.spec.metrics.push_back(cpu);
    apply_defaults(a.spec);
    return a;
}

} // namespace hpaplus::policy::test
