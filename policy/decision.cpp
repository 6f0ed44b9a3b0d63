// policy/decision.cpp — upstream reconcileAutoscaler / computeReplicasForMetrics as pure code, with
// the HPAPlus stages (fallback, rollout gate, mode) applied where they belong.
#include "policy/decision.hpp"

#include "core/duration.hpp"
#include "core/kubernetes.hpp"
#include "policy/defaults.hpp"
#include "policy/formula_metrics.hpp"
#include "policy/prediction.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <forward_list>

namespace hpaplus::policy {
namespace {

constexpr auto true_ = core::condition_status::true_;
constexpr auto false_ = core::condition_status::false_;

bool has_object_or_external(const autoscaler_spec& spec) {
    return std::any_of(spec.metrics.begin(), spec.metrics.end(), [](const metric_spec& m) {
        return m.type == metric_source_type::object || m.type == metric_source_type::external ||
               m.type == metric_source_type::formula;
    });
}

bool scaled_to_zero(const autoscaler_status& status) {
    const core::condition* c = core::find_condition(status.conditions, "ScaledToZero");
    return c && c->status == true_;
}

// setStatus / setCurrentReplicasAndMetricsInStatus. The metric statuses are assigned in place
// (the status's vector and strings keep their storage).
void set_status(decision& d, std::int32_t current, std::int32_t desired) {
    d.current_replicas = current;
    d.desired_replicas = desired;
    d.status.current_replicas = current;
    d.status.desired_replicas = desired;
    auto& statuses = d.status.current_metrics;
    statuses.resize(d.metrics.size());
    for (std::size_t i = 0; i < d.metrics.size(); ++i)
        statuses[i] = d.metrics[i].status;
}

void warn(decision& d, std::string reason, std::string message) {
    d.events.push_back({"Warning", std::move(reason), std::move(message)});
}

// The failure path of computeReplicasForMetrics: status gets current replicas and the metric
// statuses, desiredReplicas keeps its previous value, and the reconcile returns the error.
void fail_metrics(decision& d, const reconcile_input& in, std::int32_t current,
                  const std::string& error) {
    set_status(d, current, in.hpa.status.desired_replicas);
    warn(d, "FailedComputeMetricsReplicas", error);
    d.error = "failed to compute desired number of replicas based on listed metrics for " +
              target_reference(in.hpa) + ": " + error;
    d.stopped_early = true;
}

// hpasControllingPodsUnderSelector: when another autoscaler also picks one of `pods`, upstream's
// message naming every autoscaler that does, as namespace/name in order.
std::optional<std::string> ambiguity(const reconcile_input& in, const std::string& selector,
                                     const std::vector<const pod_info*>& pods) {
    std::vector<std::string> selecting;
    for (const peer_autoscaler& peer : in.peers) {
        if (peer.name == in.hpa.name) continue;
        const bool picks = std::any_of(pods.begin(), pods.end(), [&](const pod_info* p) {
            return peer.selector.matches(p->labels);
        });
        if (picks) selecting.push_back(in.hpa.namespace_ + "/" + peer.name);
    }
    if (selecting.empty()) return std::nullopt;
    selecting.push_back(in.hpa.namespace_ + "/" + in.hpa.name);
    std::sort(selecting.begin(), selecting.end());
    std::string msg = "pods by selector " + selector + " are controlled by multiple HPAs: [";
    for (std::size_t i = 0; i < selecting.size(); ++i)
        msg += (i ? " " : "") + selecting[i];
    return msg + "]";
}

const known_good_proposal* find_last_good(const history& h, std::size_t index) {
    const auto it = std::find_if(h.last_known_good.begin(), h.last_known_good.end(),
                                 [&](const auto& l) { return l.index == index; });
    return it == h.last_known_good.end() ? nullptr : &*it;
}

void remember_good(history& h, std::size_t index, core::time_point now, std::int32_t replicas) {
    auto it = std::find_if(h.last_known_good.begin(), h.last_known_good.end(),
                           [&](const auto& l) { return l.index == index; });
    if (it == h.last_known_good.end()) {
        h.last_known_good.push_back({index, now, replicas});
    } else {
        *it = {index, now, replicas};
    }
}

struct metrics_result {
    bool ok = false;
    std::int32_t replicas = 0;
    std::string metric_name;
    std::optional<std::string> partial_error; ///< some metrics failed but scaling goes on
};

// HPAPlus fallback for one failed metric; returns true when the metric still yields a proposal
// (or is ignored) and records what was used.
bool apply_fallback(const metric_spec& spec, metric_record& record, const reconcile_input& in,
                    std::int32_t spec_replicas, const std::string& why, bool& ignored,
                    std::vector<std::string>& notes) {
    const fallback_spec& fb = *spec.fallback;
    const std::size_t first_note = notes.size();
    const bool rescued = [&] {
        if (const known_good_proposal* good = find_last_good(in.hist, record.index);
            good && in.now - good->time <= fb.stale_after) {
            record.proposal = good->replicas;
            record.fallback = "LastKnownGood";
            notes.push_back("metric " + std::to_string(record.index) +
                            ": last known good proposal " + std::to_string(good->replicas) +
                            " from " + core::format_rfc3339(good->time));
            return true;
        }
        switch (fb.action) {
        case on_failure::fail:
            return false;
        case on_failure::hold:
            record.proposal = spec_replicas;
            record.fallback = "Hold";
            notes.push_back("metric " + std::to_string(record.index) + ": holding " +
                            std::to_string(spec_replicas) + " replicas");
            return true;
        case on_failure::replicas:
            record.proposal = fb.replicas;
            record.fallback = "Replicas";
            notes.push_back("metric " + std::to_string(record.index) + ": fallback of " +
                            std::to_string(fb.replicas) + " replicas");
            return true;
        case on_failure::ignore:
            record.fallback = "Ignore";
            ignored = true;
            notes.push_back("metric " + std::to_string(record.index) +
                            ": ignored while it cannot be read");
            return true;
        }
        return false;
    }();
    // Say why: a backend that is down, one without data, and an unreadable answer differ.
    if (notes.size() > first_note) notes.back() += " (" + why + ")";
    return rescued;
}

// podSelection OwnerReferences: keeps in `pods` those the target owns, names the others in the
// decision (and in an Event when they changed since the last one), and returns the readings
// without their samples (upstream's Pods metrics average every sample they are given).
std::vector<metric_reading> exclude_unowned(decision& d, const reconcile_input& in,
                                            std::vector<const pod_info*>& pods) {
    const core::object_reference& target = in.hpa.spec.scale_target_ref;
    d.stages.excluded_pods = keep_owned(pods, target, in.controllers);
    std::string reported;
    for (const auto& name : d.stages.excluded_pods)
        reported += name + "\n";
    if (reported != d.hist.excluded_pods) {
        if (!reported.empty())
            d.events.push_back(
                {"Normal", "PodsExcluded", excluded_pods_message(d.stages.excluded_pods, target)});
        d.hist.excluded_pods = std::move(reported);
    }
    if (d.stages.excluded_pods.empty()) return {};
    std::vector<metric_reading> readings = in.readings;
    for (auto& r : readings)
        std::erase_if(r.samples, [&](const pod_sample& s) {
            return std::binary_search(d.stages.excluded_pods.begin(), d.stages.excluded_pods.end(),
                                      s.pod);
        });
    return readings;
}

// Start-up boost records that do not agree with the cluster are not believed: those pods count at
// the CPU they request, and a Warning says so once per set of pods (issue 69).
void vet_boost_records(decision& d, const reconcile_input& in, std::vector<const pod_info*>& pods,
                       std::forward_list<pod_info>& vetted) {
    d.stages.ignored_boosts = vet_boosts(pods, in.boosts, vetted);
    std::string reported;
    for (const auto& name : d.stages.ignored_boosts)
        reported += name + "\n";
    if (reported != d.hist.ignored_boosts) {
        if (!reported.empty())
            d.events.push_back({"Warning", "StartupBoostIgnored",
                                ignored_boosts_message(d.stages.ignored_boosts)});
        d.hist.ignored_boosts = std::move(reported);
    }
    for (const pod_info* p : pods)
        if (!p->boosted.empty()) d.stages.boosted_pods.push_back(p->name);
}

// A number for a message: at most three decimals, no trailing zeros ("1.5", "90", "0.333");
// from a trillion on in exponent form ("1e+308").
std::string format_double(double v) {
    char text[64];
    if (!(std::abs(v) < 1e12)) {
        std::snprintf(text, sizeof text, "%g", v);
        return text;
    }
    std::snprintf(text, sizeof text, "%.3f", v);
    std::string out = text;
    if (out.find('.') != std::string::npos) {
        out.erase(out.find_last_not_of('0') + 1);
        if (out.back() == '.') out.pop_back();
    }
    return out;
}

// spec.prediction: the forecast votes (mode Auto, a forecast there, and at least one metric that
// voted: a forecast never decides alone) like one more metric; PredictionReady says what it is,
// and an Event says when it starts or stops taking part.
void predict(decision& d, const reconcile_input& in, std::int32_t current, const tolerances& t,
             std::size_t valid, metrics_result& result) {
    const prediction_spec& p = *in.hpa.spec.prediction;
    const metric_spec* m = named_metric(in.hpa.spec, p.metric);
    auto& conditions = d.status.conditions;
    bool voting = false;
    if (!m || !in.prediction.value) {
        core::set_condition(conditions, "PredictionReady", false_,
                            in.prediction.why.empty() ? "NoForecast" : in.prediction.why,
                            in.prediction.message.empty() ? "no forecast of " + p.metric
                                                          : in.prediction.message,
                            in.now);
    } else {
        prediction_vote vote = vote_of(*m, *in.prediction.value, current, t);
        vote.voting = !p.preview;
        d.stages.prediction = {vote.value, vote.replicas,        vote.voting,
                               false,      in.prediction.period, in.prediction.next_peak};
        core::set_condition(conditions, "PredictionReady", true_, "ForecastReady",
                            "the forecast of " + p.metric + " over the next " +
                                core::format_go_duration(p.look_ahead) + " is " +
                                format_double(vote.value) + " (" + format_double(vote.ratio * 100) +
                                " % of its target on " + std::to_string(std::max(current, 1)) +
                                " replicas): " + std::to_string(vote.replicas) + " replicas" +
                                (p.preview ? "; mode Preview: not taking part" : ""),
                            in.now);
        voting = vote.voting && valid > 0;
        if (voting && vote.replicas > result.replicas) {
            result.replicas = vote.replicas;
            result.metric_name = vote.metric;
            d.stages.prediction->decided = true;
        }
    }
    if (voting != d.hist.prediction_voting) {
        d.events.push_back(
            {"Normal", voting ? "PredictionStarted" : "PredictionStopped",
             voting ? "the forecast of " + p.metric + " takes part in the decision"
                    : "the forecast of " + p.metric + " no longer takes part in the decision"});
        d.hist.prediction_voting = voting;
    }
}

// What the metrics proposed so far: the highest proposal, how many could and could not be read,
// the first failure, what the fallbacks did.
struct metric_tally {
    metrics_result result;
    std::size_t invalid = 0;
    std::size_t valid = 0;
    std::vector<metric_outcome> outcomes;
    const metric_outcome* first_failure = nullptr;
    std::vector<std::string> fallback_notes;
};

// What the metric stages share: the pods that count, each metric's reading, the formulas'
// results and the tally of the proposals.
struct metrics_pass {
    explicit metrics_pass(const scale_snapshot& s) : scale(s) {}
    const scale_snapshot& scale;
    std::optional<core::outcome<core::label_selector>> parsed_here;
    const core::label_selector* selector = nullptr;
    std::vector<const pod_info*> pods;
    std::vector<metric_reading> owned_readings; ///< OwnerReferences: without the excluded pods
    std::forward_list<pod_info> vetted; ///< pods whose boost record is not believed, without it
    metric_context ctx;
    std::vector<const metric_reading*> readings; ///< one per metric
    std::optional<formula_results> formulas;
    metric_tally tally;
};

// The metric stages, in order, with one signature: each reads what the ones before it left in
// the pass, adds its part, records what it did in the decision (conditions, Events, a field of
// `decision::stages`), and returns false when the metrics cannot decide (the reconcile then
// stops, as upstream's computeReplicasForMetrics returns its error). A feature that changes how
// metrics are read or proposed is one more function in `metric_stages`.
using metric_stage = bool (*)(decision&, const reconcile_input&, metrics_pass&);

// The scale's selector, parsed here unless the caller keeps it parsed; false (and the metrics
// fail, as upstream's validateAndParseSelector) when it is empty or does not parse.
bool find_selector(decision& d, const reconcile_input& in, metrics_pass& p) {
    auto& conditions = d.status.conditions;
    if (p.scale.selector.empty()) {
        warn(d, "SelectorRequired", "selector is required");
        core::set_condition(conditions, "ScalingActive", false_, "InvalidSelector",
                            "the HPA target's scale is missing a selector", in.now);
        fail_metrics(d, in, p.scale.spec_replicas, "selector is required");
        return false;
    }
    if (in.scale_selector) {
        p.selector = in.scale_selector.get();
        return true;
    }
    auto& here = p.parsed_here.emplace(core::parse_label_selector(p.scale.selector));
    if (here) {
        p.selector = &here.value();
        return true;
    }
    const std::string msg =
        "couldn't convert selector into a corresponding internal selector object: " +
        here.error().text;
    warn(d, "InvalidSelector", msg);
    core::set_condition(conditions, "ScalingActive", false_, "InvalidSelector", msg, in.now);
    fail_metrics(d, in, p.scale.spec_replicas, msg);
    return false;
}

// The pods that count: the namespace's pods the selector picks, less those podSelection
// excludes (their samples go from `owned_readings`), with boost records vetted. False (and the
// metrics fail) when another autoscaler picks the same pods.
bool select_pods(decision& d, const reconcile_input& in, metrics_pass& p) {
    p.pods.reserve(in.pods.size());
    for (const pod_info* pod : in.pods) {
        if (pod->namespace_() == in.hpa.namespace_ && p.selector->matches(pod->labels))
            p.pods.push_back(pod);
    }
    if (in.hpa.spec.pods == pod_selection::owner_references)
        p.owned_readings = exclude_unowned(d, in, p.pods);
    vet_boost_records(d, in, p.pods, p.vetted);
    if (auto msg = ambiguity(in, p.scale.selector, p.pods)) {
        warn(d, "AmbiguousSelector", *msg);
        core::set_condition(d.status.conditions, "ScalingActive", false_, "AmbiguousSelector", *msg,
                            in.now);
        fail_metrics(d, in, p.scale.spec_replicas, *msg);
        return false;
    }
    return true;
}

bool gather_readings(decision& d, const reconcile_input& in, metrics_pass& p) {
    const autoscaler_spec& spec = in.hpa.spec;
    p.ctx = metric_context{in.hpa.namespace_,
                           p.scale.spec_replicas,
                           p.scale.status_replicas,
                           tolerances_for(spec, in.config),
                           &p.pods,
                           &in.config,
                           in.now,
                           spec.unready};
    static const metric_reading missing_reading = [] {
        metric_reading r;
        r.error = "no reading was provided for this metric";
        return r;
    }();
    p.readings.reserve(spec.metrics.size());
    const std::vector<metric_reading>& given =
        d.stages.excluded_pods.empty() ? in.readings : p.owned_readings;
    for (std::size_t i = 0; i < spec.metrics.size(); ++i)
        p.readings.push_back(i < given.size() ? &given[i] : &missing_reading);
    return true;
}

bool compute_formulas(decision&, const reconcile_input& in, metrics_pass& p) {
    const auto& metrics = in.hpa.spec.metrics;
    if (std::any_of(metrics.begin(), metrics.end(),
                    [](auto& m) { return m.type == metric_source_type::formula; }))
        p.formulas = evaluate_formulas(in.hpa.spec, p.readings, p.ctx);
    return true;
}

// One metric's proposal (or its fallback's), recorded in the decision and the tally.
void propose(decision& d, const reconcile_input& in, const scale_snapshot& scale, std::size_t i,
             const metric_reading& reading, const metric_context& ctx, formula_results* formulas,
             metric_tally& t) {
    const metric_spec& spec = in.hpa.spec.metrics[i];
    metric_outcome& outcome = t.outcomes[i];
    metric_record record;
    record.index = i;
    record.type = spec.type;
    if (formulas && formulas->input_only[i]) {
        // An input of a Formula: reported, but it does not vote (the Formula does).
        const metric_outcome& input = *formulas->outcomes[i];
        record.status = input.status;
        if (!input.ok) record.error = input.error;
        d.metrics.push_back(std::move(record));
        return;
    }
    outcome = formulas && formulas->outcomes[i] ? std::move(*formulas->outcomes[i])
                                                : evaluate_metric(spec, reading, ctx);
    bool ignored = false;
    if (outcome.ok) {
        record.proposal = outcome.proposal;
        record.status = outcome.status;
        record.counted_unready.assign(outcome.counted_unready.begin(),
                                      outcome.counted_unready.end());
        record.replicas_stood_in = outcome.replicas_stood_in;
        if (spec.fallback) remember_good(d.hist, i, in.now, outcome.proposal);
    } else {
        record.error = outcome.error;
        warn(d, outcome.failure_reason, outcome.failure_detail);
        const bool rescued = spec.fallback && apply_fallback(spec, record, in, scale.spec_replicas,
                                                             reading.error.value_or(outcome.error),
                                                             ignored, t.fallback_notes);
        if (!rescued) {
            if (t.invalid == 0) t.first_failure = &outcome;
            ++t.invalid;
            d.metrics.push_back(std::move(record));
            return;
        }
        outcome.name = metric_name(spec) + " (fallback: " + record.fallback + ")";
    }
    if (!ignored) {
        ++t.valid;
        // Upstream: the first proposal, or any larger one, wins (so a 0 is replaced by anything).
        if (t.result.replicas == 0 || *record.proposal > t.result.replicas) {
            t.result.replicas = *record.proposal;
            t.result.metric_name = std::move(outcome.name); // read no more below
        }
    }
    d.metrics.push_back(std::move(record));
}

bool propose_each(decision& d, const reconcile_input& in, metrics_pass& p) {
    const std::size_t n = in.hpa.spec.metrics.size();
    p.tally.outcomes.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        propose(d, in, p.scale, i, *p.readings[i], p.ctx, p.formulas ? &*p.formulas : nullptr,
                p.tally);
    return true;
}

// unreadyPods Count: which unready pods the metrics counted, said in an Event when it changes.
bool report_unready(decision& d, const reconcile_input& in, metrics_pass& p) {
    if (in.hpa.spec.unready != unready_pods::count && d.hist.counted_unready.empty()) return true;
    // A pass where no metric proposed says nothing about the pods: what was said stands.
    if (std::none_of(d.metrics.begin(), d.metrics.end(), [](auto& r) { return r.proposal; }))
        return true;
    auto& counted = d.stages.counted_unready;
    bool stood_in = false;
    for (const metric_record& r : d.metrics) {
        counted.insert(counted.end(), r.counted_unready.begin(), r.counted_unready.end());
        stood_in = stood_in || r.replicas_stood_in;
    }
    std::sort(counted.begin(), counted.end());
    counted.erase(std::unique(counted.begin(), counted.end()), counted.end());
    std::string reported = stood_in ? "(replicas)\n" : "";
    for (const auto& name : counted)
        reported.append(name).append("\n");
    if (reported == d.hist.counted_unready) return true;
    std::string message;
    if (!counted.empty()) {
        message = std::to_string(counted.size()) + " unready pod" +
                  (counted.size() == 1 ? "" : "s") + " counted (readiness collapse):";
        for (const auto& name : counted)
            message.append(" ").append(name);
    }
    if (stood_in) {
        message += message.empty() ? "" : "; ";
        message += "no pod is ready or past its start-up windows: the " +
                   std::to_string(p.scale.spec_replicas) +
                   " current replicas stand in for ready pods (readiness collapse)";
    }
    if (message.empty())
        message = in.hpa.spec.unready == unready_pods::count
                      ? "every pod that counts is ready again; no unready pod counted"
                      : "unreadyPods is no longer Count; no unready pod counted";
    d.events.push_back({"Normal", "UnreadyPodsCounted", std::move(message)});
    d.hist.counted_unready = std::move(reported);
    return true;
}

// spec.prediction's vote, or the end of it when spec.prediction was removed.
bool vote_prediction(decision& d, const reconcile_input& in, metrics_pass& p) {
    auto& conditions = d.status.conditions;
    if (in.hpa.spec.prediction) {
        predict(d, in, p.scale.spec_replicas, p.ctx.tol, p.tally.valid, p.tally.result);
    } else if (d.hist.prediction_voting || core::find_condition(conditions, "PredictionReady")) {
        // spec.prediction was removed: what it showed goes, and its end is said once.
        core::remove_condition(conditions, "PredictionReady");
        if (d.hist.prediction_voting)
            d.events.push_back({"Normal", "PredictionStopped",
                                "spec.prediction was removed; the forecast no longer takes part "
                                "in the decision"});
        d.hist.prediction_voting = false;
    }
    return true;
}

bool report_fallback(decision& d, const reconcile_input& in, metrics_pass& p) {
    const metric_tally& t = p.tally;
    const auto& metrics = in.hpa.spec.metrics;
    if (std::none_of(metrics.begin(), metrics.end(), [](auto& m) { return m.fallback; }))
        return true;
    if (t.fallback_notes.empty()) {
        core::set_condition(d.status.conditions, "FallbackActive", false_, "MetricsAvailable",
                            "every metric could be read", in.now);
        return true;
    }
    std::string message;
    for (const auto& n : t.fallback_notes)
        message += (message.empty() ? "" : "; ") + n;
    core::set_condition(d.status.conditions, "FallbackActive", true_, "FallbackActive", message,
                        in.now);
    warn(d, "FallbackActive", message);
    return true;
}

// Whether the proposals decide: not when every metric failed, nor when some failed and the rest
// would scale down (upstream); holding when every metric is ignored by its fallback.
metrics_result conclude(decision& d, const reconcile_input& in, const scale_snapshot& scale,
                        metric_tally& t) {
    auto& conditions = d.status.conditions;
    std::optional<std::string> invalid_error;
    if (t.first_failure) {
        invalid_error = "invalid metrics (" + std::to_string(t.invalid) + " invalid out of " +
                        std::to_string(in.hpa.spec.metrics.size()) +
                        "), first error is: " + t.first_failure->error;
    }
    if (t.first_failure && (t.valid == 0 || t.result.replicas < scale.spec_replicas)) {
        core::set_condition(conditions, "ScalingActive", false_, t.first_failure->failure_reason,
                            "the HPA was unable to compute the replica count: " +
                                t.first_failure->failure_detail,
                            in.now);
        fail_metrics(d, in, scale.spec_replicas, *invalid_error);
        return std::move(t.result);
    }
    if (t.valid == 0) { // every metric ignored by its fallback: nothing to decide on, hold.
        core::set_condition(
            conditions, "ScalingActive", false_, "FallbackActive",
            "every metric is ignored by its fallback; holding the current replica count", in.now);
        t.result.ok = true;
        t.result.replicas = scale.spec_replicas;
        return std::move(t.result);
    }
    core::set_condition(conditions, "ScalingActive", true_, "ValidMetricFound",
                        "the HPA was able to successfully calculate a replica count from ",
                        t.result.metric_name, in.now);
    t.result.ok = true;
    t.result.partial_error = invalid_error;
    return std::move(t.result);
}

constexpr metric_stage metric_stages[] = {
    find_selector,    // the scale's selector (InvalidSelector, SelectorRequired)
    select_pods,      // the selected pods: podSelection, boost records, AmbiguousSelector
    gather_readings,  // each metric's reading, without the excluded pods' samples
    compute_formulas, // Formula metrics over their inputs
    propose_each,     // each metric's proposal (readiness, tolerance) or its fallback's
    report_unready,   // unreadyPods Count: the unready pods counted (UnreadyPodsCounted)
    vote_prediction,  // spec.prediction's vote (PredictionReady)
    report_fallback,  // FallbackActive
};

metrics_result compute_metrics(decision& d, const reconcile_input& in,
                               const scale_snapshot& scale) {
    metrics_pass p(scale);
    for (const metric_stage stage : metric_stages)
        if (!stage(d, in, p)) return {};
    return conclude(d, in, scale, p.tally);
}

} // namespace

std::string target_reference(const autoscaler& hpa) {
    return hpa.spec.scale_target_ref.kind + "/" + hpa.namespace_ + "/" +
           hpa.spec.scale_target_ref.name;
}

std::int32_t effective_min_replicas(const autoscaler_spec& spec,
                                    const std::optional<cron_floor>& floor) {
    const std::int32_t min = spec.min_replicas.value_or(1);
    if (!floor) return min;
    return std::max(min, std::min(floor->replicas, spec.max_replicas));
}

bool needs_metrics(const autoscaler& hpa, const std::optional<scale_snapshot>& scale,
                   const std::optional<cron_floor>& floor, const controller_config& config) {
    if (!scale) return false;
    const std::int32_t current = scale->spec_replicas;
    const std::int32_t min = effective_min_replicas(hpa.spec, floor);
    if (current == 0) {
        if (!config.scale_to_zero) return false;
        const bool cond = scaled_to_zero(hpa.status);
        return (min != 0 && cond) || (cond && has_object_or_external(hpa.spec));
    }
    return current <= hpa.spec.max_replicas && current >= min;
}

namespace {

// The bounds a decision keeps to: minReplicas raised by a cron floor, and how to say so.
struct replica_bounds {
    std::int32_t current = 0;
    std::int32_t min = 0;
    bool floor_raises_min = false;
    std::string floor_text; ///< "the cron floor N set by CronHPA c (job j)" when it does
};

replica_bounds bounds_of(decision& d, const reconcile_input& in) {
    const autoscaler_spec& spec = in.hpa.spec;
    replica_bounds b;
    b.current = in.scale->spec_replicas;
    b.min = effective_min_replicas(spec, in.floor);
    b.floor_raises_min = b.min > spec.min_replicas.value_or(1);
    if (in.floor) {
        d.floor = in.floor;
        d.floor->replicas = std::min(in.floor->replicas, spec.max_replicas);
    }
    if (b.floor_raises_min)
        b.floor_text = "the cron floor " + std::to_string(b.min) + " set by CronHPA " +
                       in.floor->cronhpa + " (job " + in.floor->job + ")";
    return b;
}

// Stage: the target's scale. False (and the reconcile stops) when it could not be read.
bool read_scale(decision& d, const reconcile_input& in) {
    auto& conditions = d.status.conditions;
    if (in.scale) {
        core::set_condition(conditions, "AbleToScale", true_, "SucceededGetScale",
                            "the HPA controller was able to get the target's current scale",
                            in.now);
        return true;
    }
    warn(d, "FailedGetScale", in.scale_error);
    core::set_condition(conditions, "AbleToScale", false_, "FailedGetScale",
                        "the HPA controller was unable to get the target's current scale: " +
                            in.scale_error,
                        in.now);
    d.current_replicas = in.hpa.status.current_replicas;
    d.desired_replicas = in.hpa.status.desired_replicas;
    d.error =
        "failed to query scale subresource for " + target_reference(in.hpa) + ": " + in.scale_error;
    d.stopped_early = true;
    return false;
}

// Stage: the out-of-range shortcuts upstream takes before any metric (for a running target), or
// scaling disabled at zero replicas. nullopt: the metrics decide.
std::optional<std::int32_t> out_of_range(decision& d, const reconcile_input& in,
                                         const replica_bounds& b, bool& rescale) {
    const autoscaler_spec& spec = in.hpa.spec;
    if (b.current == 0 && !needs_metrics(in.hpa, in.scale, in.floor, in.config)) {
        rescale = false;
        if (!in.config.scale_to_zero) core::remove_condition(d.status.conditions, "ScaledToZero");
        core::set_condition(d.status.conditions, "ScalingActive", false_, "ScalingDisabled",
                            "scaling is disabled since the replica count of the target is zero",
                            in.now);
        return 0;
    }
    if (b.current != 0 && b.current > spec.max_replicas) {
        d.rescale_reason = "Current number of replicas above Spec.MaxReplicas";
        d.stages.limited = spec.max_replicas;
        d.stages.limit_reason = "TooManyReplicas";
        return spec.max_replicas;
    }
    if (b.current != 0 && b.current < b.min) {
        d.rescale_reason = b.floor_raises_min ? "Current number of replicas below " + b.floor_text
                                              : "Current number of replicas below Spec.MinReplicas";
        d.stages.limited = b.min;
        d.stages.limit_reason = b.floor_raises_min ? "CronFloor" : "TooFewReplicas";
        return b.min;
    }
    return std::nullopt;
}

// Stage: the metrics' recommendation (the highest proposal), or the given one. nullopt: the
// metrics could not decide and the reconcile stops.
std::optional<std::int32_t> recommend(decision& d, const reconcile_input& in,
                                      const replica_bounds& b) {
    std::int32_t metric_desired = 0;
    std::string metric_name;
    if (in.recommendation_override) {
        metric_desired = *in.recommendation_override;
        metric_name = "recommendation";
    } else {
        metrics_result m = compute_metrics(d, in, *in.scale);
        if (!m.ok) return std::nullopt;
        metric_desired = m.replicas;
        metric_name = std::move(m.metric_name);
        d.error = m.partial_error;
    }
    const std::int32_t desired = std::max(metric_desired, 0);
    if (desired > b.current) d.rescale_reason = metric_name + " above target";
    if (desired < b.current) d.rescale_reason = "All metrics below target";
    d.stages.recommended = desired;
    return desired;
}

// Stage: the stabilization windows, the rate policies and min/max (with the cron floor).
std::int32_t normalize(decision& d, const reconcile_input& in, const replica_bounds& b,
                       std::int32_t desired) {
    const autoscaler_spec& spec = in.hpa.spec;
    auto& conditions = d.status.conditions;
    normalization n = spec.behavior ? normalize_with_behavior(d.hist, b.current, desired, b.min,
                                                              spec.max_replicas, *spec.behavior,
                                                              in.config, in.now)
                                    : normalize_legacy(d.hist, b.current, desired, b.min,
                                                       spec.max_replicas, in.config, in.now);
    core::set_condition(conditions, "AbleToScale", true_, n.stabilize_reason, n.stabilize_message,
                        in.now);
    std::string floor_message; // what n.limit_message views when the cron floor limits
    if (b.floor_raises_min && n.limit_reason == "TooFewReplicas") {
        n.limit_reason = "CronFloor";
        floor_message = "the desired replica count is less than " + b.floor_text;
        n.limit_message = floor_message;
    }
    core::set_condition(conditions, "ScalingLimited", n.limited == n.stabilized ? false_ : true_,
                        n.limit_reason, n.limit_message, in.now);
    d.stages.stabilized = n.stabilized;
    d.stages.limited = n.limited;
    d.stages.limit_reason = n.limit_reason;
    // Scaling from zero with a raised minReplicas lands on at least minReplicas.
    if (b.current == 0 && b.min != 0 && scaled_to_zero(in.hpa.status) && n.limited < b.min) {
        if (d.rescale_reason.empty())
            d.rescale_reason = "Current number of replicas below Spec.MinReplicas";
        return b.min;
    }
    return n.limited;
}

// Stage (HPAPlus): the rollout gate holds the count while the target rolls out.
std::int32_t rollout_gate(decision& d, const reconcile_input& in, const replica_bounds& b,
                          std::int32_t desired) {
    const autoscaler_spec& spec = in.hpa.spec;
    const std::int32_t current = b.current;
    if (spec.rollout == rollout_policy::continue_scaling || !in.rollout) return desired;
    core::set_condition(d.status.conditions, "RolloutInProgress",
                        in.rollout->in_progress ? true_ : false_,
                        in.rollout->in_progress ? "RolloutInProgress" : "NoRollout",
                        "target rollout: " + in.rollout->message, in.now);
    const bool freeze = in.rollout->in_progress &&
                        ((spec.rollout == rollout_policy::freeze && desired != current) ||
                         (spec.rollout == rollout_policy::freeze_scale_down && desired < current));
    if (!freeze) return desired;
    d.stages.gated = current;
    d.stages.gate_reason =
        spec.rollout == rollout_policy::freeze ? "RolloutFreeze" : "RolloutFreezeScaleDown";
    return current;
}

// Stage (HPAPlus): mode Off observes only — it keeps the count and remembers nothing but what
// its Events already said.
std::int32_t mode_off_gate(decision& d, const reconcile_input& in, const replica_bounds& b,
                           std::int32_t desired) {
    if (in.hpa.spec.mode != run_mode::off) return desired;
    const std::int32_t current = b.current;
    d.stages.gated = current;
    d.stages.gate_reason = "ModeOff";
    std::string reported = std::move(d.hist.excluded_pods);
    const bool voting = d.hist.prediction_voting;
    d.hist = in.hist;
    d.hist.excluded_pods = std::move(reported);
    d.hist.prediction_voting = voting;
    return current;
}

// The stages from the recommendation to the count written, in order, with one signature: each
// takes the count the stage before it let through and returns the count it lets through, and
// records what it did in `decision::stages` (the decision record's row for it). A feature that
// changes the count after the metrics have spoken is one more function here.
using replica_stage = std::int32_t (*)(decision&, const reconcile_input&, const replica_bounds&,
                                       std::int32_t);
constexpr replica_stage after_recommendation[] = {
    normalize,     // stabilization windows, rate policies, min/max and the cron floor
    rollout_gate,  // HPAPlus rollout: Freeze / FreezeScaleDown while the target rolls out
    mode_off_gate, // HPAPlus mode Off: keeps the count
};

// What is written: Off never writes, not even to bring the replicas into [min, max]; DryRun
// says what it would write.
void settle(decision& d, const autoscaler_spec& spec, std::int32_t current, std::int32_t desired,
            bool rescale) {
    if (rescale && spec.mode == run_mode::off) {
        d.stages.gated = current;
        d.stages.gate_reason = "ModeOff";
        desired = current;
        rescale = false;
    }
    d.target_replicas = desired;
    if (rescale && spec.mode == run_mode::dry_run) {
        d.dry_run_rescale = true;
        rescale = false;
    }
    d.rescale = rescale;
    d.current_replicas = current;
    d.desired_replicas = rescale || d.dry_run_rescale ? desired : current;
}

decision decide_reusing(const reconcile_input& in, decision&& recycled) {
    decision d;
    // Copied into the recycled buffers: an assigned string or vector keeps its capacity.
    d.status = std::move(recycled.status);
    d.status = in.hpa.status;
    d.hist = std::move(recycled.hist);
    d.hist = in.hist;
    d.metrics = std::move(recycled.metrics);
    d.metrics.clear();
    d.metrics.reserve(in.hpa.spec.metrics.size());

    if (!read_scale(d, in)) return d;
    seed_history(d.hist, in.scale->spec_replicas, in.now);
    const replica_bounds b = bounds_of(d, in);
    bool rescale = true;
    std::int32_t desired = 0;
    if (const auto shortcut = out_of_range(d, in, b, rescale)) {
        desired = *shortcut;
    } else {
        const auto recommended = recommend(d, in, b);
        if (!recommended) return d;
        desired = *recommended;
        for (const replica_stage stage : after_recommendation)
            desired = stage(d, in, b, desired);
        rescale = desired != b.current;
    }
    settle(d, in.hpa.spec, b.current, desired, rescale);
    return d;
}

} // namespace

decision decide(const reconcile_input& in) {
    return decide_reusing(in, {});
}

void decide(const reconcile_input& in, decision& into) {
    into = decide_reusing(in, std::move(into));
}

void finish(decision& d, const reconcile_input& in, const std::optional<std::string>& write_error) {
    if (d.stopped_early) return;
    auto& conditions = d.status.conditions;
    const autoscaler_spec& spec = in.hpa.spec;
    const std::int32_t current = d.current_replicas;
    const std::int32_t desired = d.target_replicas;

    if (d.dry_run_rescale) {
        core::set_condition(conditions, "AbleToScale", true_, "DryRun",
                            "dry-run mode: the HPA controller would scale the target to " +
                                std::to_string(desired),
                            in.now);
        d.events.push_back(
            {"Normal", "DryRunRescale",
             "Would rescale to " + std::to_string(desired) + "; reason: " + d.rescale_reason});
        set_status(d, current, desired);
        return;
    }
    if (!d.rescale) {
        set_status(d, current, current);
        return;
    }
    if (write_error) {
        warn(d, "FailedRescale",
             "New size: " + std::to_string(desired) + "; reason: " + d.rescale_reason +
                 "; error: " + *write_error);
        core::set_condition(
            conditions, "AbleToScale", false_, "FailedUpdateScale",
            "the HPA controller was unable to update the target scale: " + *write_error, in.now);
        set_status(d, current, in.hpa.status.desired_replicas);
        d.error = "failed to rescale " + target_reference(in.hpa) + ": " + *write_error;
        return;
    }
    d.scale_updated = true;
    core::set_condition(conditions, "AbleToScale", true_, "SucceededRescale",
                        "the HPA controller was able to update the target scale to " +
                            std::to_string(desired),
                        in.now);
    d.events.push_back({"Normal", "SuccessfulRescale",
                        "New size: " + std::to_string(desired) + "; reason: " + d.rescale_reason});
    if (spec.behavior) store_scale_event(d.hist, *spec.behavior, current, desired, in.now);
    const std::int32_t min = spec.min_replicas.value_or(1);
    if (!in.config.scale_to_zero) {
        core::remove_condition(conditions, "ScaledToZero");
    } else if (current > 0 && desired == 0 && min == 0 && has_object_or_external(spec)) {
        core::set_condition(conditions, "ScaledToZero", true_, "ScaledToZero",
                            "the HPA controller scaled the workload to zero", in.now);
    } else {
        core::set_condition(conditions, "ScaledToZero", false_, "NotScaledToZero",
                            "the HPA controller did not scale the workload to zero", in.now);
    }
    set_status(d, current, desired);
    d.status.last_scale_time = in.now;
}

} // namespace hpaplus::policy
