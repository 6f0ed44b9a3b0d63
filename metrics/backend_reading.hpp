// metrics/backend_reading.hpp — a metric read from a Prometheus or monitor backend: the values
// its query template is filled with, and the backend's answer as the reading policy/ evaluates.
#pragma once

#include "metrics/backend_answer.hpp"
#include "metrics/query_template.hpp"
#include "policy/metric_evaluation.hpp"

#include <string>
#include <vector>

namespace hpaplus::metrics {

/// What a metric query of an HPAPlus can refer to.
struct query_context {
    std::string namespace_;
    std::string name;                   ///< the HPAPlus
    std::string target;                 ///< the scale target's name
    std::string pod_selector;           ///< the target's selector (string form)
    std::vector<std::string_view> pods; ///< names of the target's pods
    std::string window;                 ///< the backend's window
};

/// The placeholder values for one metric (see query_placeholders()). For Resource,
/// ContainerResource and Pods metrics `selector` is the target's pod selector; for Object and
/// External it is the metric's own selector. Fails when a selector has no PromQL form.
core::outcome<template_values> query_values(const policy::metric_spec& spec,
                                            const query_context& ctx);

/// Stores `answer` in `r` as the metric's type needs it: per-pod samples (values of one pod are
/// summed), one Object value, or External values; values become milli-units. Errors start with
/// `backend "NAME"` and say whether the backend was down, had no data, or answered badly.
/// maxSampleAgeSeconds on a backend whose answers carry the evaluation time: `times` answers the
/// sample-time query (values are Unix seconds); every value of `answer` is dated by the oldest of
/// them. When `times` has none, `answer` becomes its failure: a sample of unknown age decides
/// nothing.
void date_samples(backend_answer& answer, const backend_answer& times);

void set_backend_reading(const backend_answer& answer, const policy::metric_spec& spec,
                         const std::string& backend, const std::string& pod_label,
                         core::time_point now, policy::metric_reading& r);

} // namespace hpaplus::metrics
