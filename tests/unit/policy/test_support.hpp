// tests/unit/policy/test_support.hpp — terse builders for policy table tests.
#pragma once

#include "core/time.hpp"
#include "policy/types.hpp"

#include <memory>
#include <string>
#include <vector>

namespace hpaplus::policy::test {

/// The fixed "now" of every table: 2026-01-01T00:10:00Z.
core::time_point now();
core::time_point ago(int seconds);

/// A pod row: name, cpu request (milli), and state relative to now().
struct P {
    std::string name;
    std::int64_t request = 1000;
    pod_phase phase = pod_phase::running;
    std::optional<core::condition_status> ready = core::condition_status::true_;
    int start_ago = 600; ///< seconds before now; < 0 = no startTime
    int ready_ago = 590; ///< lastTransitionTime of Ready, seconds before now
    bool deleting = false;
};

/// A sample row: pod, value (milli), age of the sample and its window (seconds).
struct S {
    std::string pod;
    std::int64_t milli = 0;
    int age = 15;
    int window = 15;
};

/// Pods with one container "app" requesting `request` of `resource`; owned by the returned holder.
struct pod_set {
    std::vector<std::unique_ptr<pod_info>> owned;
    std::vector<const pod_info*> view;
};
pod_set make_pods(const std::vector<P>& rows, const std::string& resource = "cpu");
std::vector<pod_sample> make_samples(const std::vector<S>& rows);

/// A fully defaulted autoscaler on Deployment "web" in "default", with one CPU utilization metric.
autoscaler make_hpa(std::int32_t min, std::int32_t max, std::int32_t target_utilization = 50);

} // namespace hpaplus::policy::test
