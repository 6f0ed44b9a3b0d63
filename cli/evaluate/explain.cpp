// cli/evaluate/explain.cpp — a decision told in words. What it tells is recomputed with the
// decision core's own functions (pod grouping, tolerances, policy bounds) on the same input; the
// numbers it concludes with are the decision's.
#include "cli/evaluate/explain.hpp"

#include "core/duration.hpp"
#include "policy/behavior.hpp"
#include "policy/metric_evaluation.hpp"
#include "policy/pod_grouping.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace hpaplus::cli {
namespace {

using policy::metric_source_type;

constexpr std::size_t names_shown = 12;

template <class Names> std::string name_list(const Names& names) {
    std::string out;
    std::size_t shown = 0;
    for (const auto& n : names) {
        if (shown == names_shown) {
            out += fmt::format(", … and {} more", names.size() - shown);
            break;
        }
        out += (shown++ == 0 ? "" : ", ") + std::string(n);
    }
    return out;
}

std::string number(double v) {
    std::string s = fmt::format("{:.3f}", v);
    while (s.back() == '0')
        s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

std::string clock_time(core::time_point t) {
    return core::format_rfc3339(t);
}

std::string target_text(const policy::metric_target& t) {
    switch (t.type) {
    case policy::metric_target_type::utilization:
        return fmt::format("{}% utilization", t.average_utilization.value_or(0));
    case policy::metric_target_type::value:
        return "value " + (t.value ? t.value->to_string() : std::string("?"));
    case policy::metric_target_type::average_value:
        return "average value " + (t.average_value ? t.average_value->to_string() : "?");
    }
    return "?";
}

// The current value as status reports it, and its ratio to the target when both are known.
std::string current_text(const policy::metric_spec& m, const policy::metric_status& s,
                         const policy::tolerances& band) {
    const auto& c = s.current;
    std::string text;
    std::optional<double> ratio;
    if (c.average_utilization) {
        text = fmt::format("{}% utilization", *c.average_utilization);
        if (m.target.average_utilization && *m.target.average_utilization > 0)
            ratio = double(*c.average_utilization) / *m.target.average_utilization;
    } else if (c.average_value) {
        text = "average value " + c.average_value->to_string();
        if (m.target.average_value && m.target.average_value->milli_value() != 0)
            ratio = double(c.average_value->milli_value()) / m.target.average_value->milli_value();
    } else if (c.value) {
        text = "value " + c.value->to_string();
        if (m.target.value && m.target.value->milli_value() != 0)
            ratio = double(c.value->milli_value()) / m.target.value->milli_value();
    }
    if (ratio)
        text += fmt::format(" — ratio {} to the target, {} the band", number(*ratio),
                            band.within(*ratio) ? "within" : "outside");
    return text;
}

std::string metric_title(const policy::metric_spec& m) {
    std::string what;
    switch (m.type) {
    case metric_source_type::resource:
        what = m.resource_name;
        break;
    case metric_source_type::container_resource:
        what = m.resource_name + " of container " + m.container;
        break;
    case metric_source_type::object:
        what = m.metric.name + " of " + m.described_object.kind + "/" + m.described_object.name;
        break;
    case metric_source_type::formula:
        what = m.formula;
        break;
    default:
        what = m.metric.name;
    }
    if (!m.backend.empty()) what += " (backend " + m.backend + ")";
    return std::string(policy::to_string(m.type)) + " " + what;
}

// The pods that took part, as decide selected them: the namespace's pods the scale's selector
// picks, less those podSelection excluded.
std::vector<const policy::pod_info*> selected_pods(const policy::reconcile_input& in,
                                                   const policy::decision& d) {
    std::vector<const policy::pod_info*> pods;
    if (!in.scale) return pods;
    const auto selector = core::parse_label_selector(in.scale->selector);
    if (!selector) return pods;
    for (const auto* p : in.pods) {
        if (p->namespace_() != in.hpa.namespace_ || !selector->matches(p->labels)) continue;
        if (std::binary_search(d.stages.excluded_pods.begin(), d.stages.excluded_pods.end(),
                               p->name))
            continue;
        pods.push_back(p);
    }
    return pods;
}

void explain_pod_groups(std::string& out, const policy::metric_spec& m,
                        const policy::metric_reading& r,
                        const std::vector<const policy::pod_info*>& pods,
                        const policy::reconcile_input& in) {
    std::unordered_set<std::string_view> selected; // linear in pods and samples, not their product
    for (const auto* p : pods)
        selected.insert(p->name);
    policy::sample_set samples;
    for (const auto& s : r.samples)
        if (selected.count(s.pod)) samples.push_back(s);
    const bool cpu = m.resource_name == "cpu";
    const std::string_view resource =
        m.type == metric_source_type::pods ? std::string_view() : m.resource_name;
    const auto g =
        policy::group_pods(pods, samples, resource, in.config, in.now, in.hpa.spec.unready);
    std::unordered_set<std::string_view> grouped(g.unready.begin(), g.unready.end());
    grouped.insert(g.missing.begin(), g.missing.end());
    grouped.insert(g.ignored.begin(), g.ignored.end());
    std::vector<std::string_view> ready;
    for (const auto* p : pods)
        if (!grouped.count(p->name)) ready.push_back(p->name);
    out += fmt::format("      ready, with a sample ({}): {}\n", ready.size(), name_list(ready));
    if (!g.counted_unready.empty())
        out += fmt::format("      of them not Ready but counted ({}): {} — unreadyPods Count, past "
                           "their start-up windows\n",
                           g.counted_unready.size(), name_list(g.counted_unready));
    if (!g.unready.empty())
        out += fmt::format(
            "      unready ({}): {} — {}; left out, or counted at 0 when the others ask for more\n",
            g.unready.size(), name_list(g.unready),
            cpu ? fmt::format("Pending, not Ready within {}s of its start, or Ready but started "
                              "less than {}s ago with a sample from before it was Ready",
                              in.config.initial_readiness_delay.count(),
                              in.config.cpu_initialization_period.count())
                : std::string("Pending"));
    if (!g.missing.empty())
        out += fmt::format("      missing ({}): {} — no sample; counted at the target when the "
                           "others ask for fewer, at 0 when they ask for more\n",
                           g.missing.size(), name_list(g.missing));
    if (!g.ignored.empty())
        out += fmt::format("      ignored ({}): {} — being deleted, Failed or Succeeded\n",
                           g.ignored.size(), name_list(g.ignored));
}

void explain_metrics(std::string& out, const policy::reconcile_input& in,
                     const policy::decision& d) {
    if (d.metrics.empty()) return;
    const auto& spec = in.hpa.spec;
    const auto band = policy::tolerances_for(spec, in.config);
    out += fmt::format("Metrics (a ratio within [{}, {}] of the target keeps the count):\n",
                       number(1 - band.scale_down), number(1 + band.scale_up));
    const auto pods = selected_pods(in, d);
    for (const auto& rec : d.metrics) {
        if (rec.index >= spec.metrics.size()) continue;
        const auto& m = spec.metrics[rec.index];
        out += fmt::format("  #{} {} — target {}\n", rec.index, metric_title(m),
                           m.target_set ? target_text(m.target) : "none (a Formula's input)");
        const auto own_band = policy::tolerances_for(m, band);
        if (m.tolerance)
            out += fmt::format("      its own band: a ratio within [{}, {}] keeps the count\n",
                               number(1 - own_band.scale_down), number(1 + own_band.scale_up));
        if (rec.status) out += "      current " + current_text(m, *rec.status, own_band) + "\n";
        if (rec.error) out += "      error: " + *rec.error + "\n";
        if (!rec.fallback.empty()) out += "      fallback " + rec.fallback + "\n";
        if (rec.proposal) out += fmt::format("      proposes {} replicas\n", *rec.proposal);
        const bool per_pod = m.type == metric_source_type::resource ||
                             m.type == metric_source_type::container_resource ||
                             m.type == metric_source_type::pods;
        if (per_pod && rec.index < in.readings.size() && !in.readings[rec.index].error)
            explain_pod_groups(out, m, in.readings[rec.index], pods, in);
        const bool ratio_of_ready =
            (m.type == metric_source_type::object || m.type == metric_source_type::external) &&
            m.target.type == policy::metric_target_type::value;
        if (ratio_of_ready) {
            const auto ready = std::count_if(pods.begin(), pods.end(), [](const auto* p) {
                return p->phase == policy::pod_phase::running &&
                       p->ready == core::condition_status::true_;
            });
            if (rec.replicas_stood_in)
                out += fmt::format("      the ratio times the {} current replicas (unreadyPods "
                                   "Count: no pod ready or past its start-up windows)\n",
                                   in.scale->spec_replicas);
            else if (!rec.counted_unready.empty())
                out += fmt::format("      the ratio times the {} Running and Ready pods and the {} "
                                   "not Ready past their start-up windows (unreadyPods Count): "
                                   "{}\n",
                                   ready, rec.counted_unready.size(),
                                   name_list(rec.counted_unready));
            else
                out += fmt::format("      the ratio times the {} Running and Ready pods\n", ready);
        }
    }
    if (d.stages.excluded_pods.size())
        out += fmt::format("  excluded by podSelection ({}): {}\n", d.stages.excluded_pods.size(),
                           name_list(d.stages.excluded_pods));
    if (d.stages.boosted_pods.size())
        out += fmt::format("  CPU counted at the unboosted request ({}): {}\n",
                           d.stages.boosted_pods.size(), name_list(d.stages.boosted_pods));
    if (d.stages.ignored_boosts.size())
        out += fmt::format("  boost records not believed ({}): {}\n",
                           d.stages.ignored_boosts.size(), name_list(d.stages.ignored_boosts));
}

// The recommendations the stabilization windows held: what was remembered within each window,
// and this pass's.
void explain_stabilization(std::string& out, const policy::reconcile_input& in,
                           const policy::decision& d) {
    if (!d.stages.recommended || !d.stages.stabilized) return;
    const auto& spec = in.hpa.spec;
    std::chrono::seconds up{0};
    std::chrono::seconds down = in.config.downscale_stabilization_window;
    if (spec.behavior) {
        if (spec.behavior->scale_up)
            up = std::chrono::seconds(
                spec.behavior->scale_up->stabilization_window_seconds.value_or(0));
        if (spec.behavior->scale_down && spec.behavior->scale_down->stabilization_window_seconds)
            down = std::chrono::seconds(*spec.behavior->scale_down->stabilization_window_seconds);
    }
    if (spec.behavior)
        out += fmt::format("Stabilization: the lowest recommendation of the last {}s going up, "
                           "the highest of the last {}s going down\n",
                           up.count(), down.count());
    else
        out += fmt::format("Stabilization (no spec.behavior): the highest recommendation of the "
                           "last {}s\n",
                           down.count());
    const auto longest = std::max(up, down);
    // Stale slots are reused, so the log is not in time order.
    std::vector<policy::timed_recommendation> held;
    for (const auto& r : in.hist.recommendations)
        if (r.time > in.now - longest) held.push_back(r);
    std::sort(held.begin(), held.end(), [](auto& a, auto& b) { return a.time > b.time; });
    std::vector<std::string> entries;
    for (const auto& r : held)
        entries.push_back(fmt::format("{} at {}", r.replicas, clock_time(r.time)));
    out += fmt::format("  remembered, newest first: {}\n  this pass: {}\n  → {}\n",
                       entries.empty() ? std::string("none") : name_list(entries),
                       *d.stages.recommended, *d.stages.stabilized);
}

void explain_rate_limits(std::string& out, const policy::reconcile_input& in,
                         const policy::decision& d) {
    const auto& spec = in.hpa.spec;
    if (!d.stages.stabilized || !d.stages.limited || !in.scale) return;
    const std::int32_t current = in.scale->spec_replicas;
    const std::int32_t min = policy::effective_min_replicas(spec, in.floor);
    out += fmt::format("Bounds: minReplicas {}{}, maxReplicas {}\n", min,
                       d.floor && min > spec.min_replicas.value_or(1)
                           ? " (the floor of CronHPA " + d.floor->cronhpa + ", job " +
                                 d.floor->job + ")"
                           : std::string(),
                       spec.max_replicas);
    const std::int32_t stabilized = *d.stages.stabilized;
    if (stabilized == current) {
        out += fmt::format("Rate limits: none apply (no change from {})\n", current);
    } else if (!spec.behavior) {
        out += fmt::format("Rate limits (no spec.behavior): at most max({} × {}, {}) going up\n",
                           number(in.config.scale_up_limit_factor), current,
                           number(in.config.scale_up_limit_minimum));
    } else {
        const bool up = stabilized > current;
        const auto& rules = up ? spec.behavior->scale_up : spec.behavior->scale_down;
        const auto select =
            rules ? rules->select.value_or(policy::select_policy::max) : policy::select_policy::max;
        out += fmt::format("Rate limits going {} (selectPolicy {}):\n", up ? "up" : "down",
                           select == policy::select_policy::max   ? "Max"
                           : select == policy::select_policy::min ? "Min"
                                                                  : "Disabled");
        const policy::scaling_rules none;
        const policy::scaling_rules& given = rules ? *rules : none;
        const auto limit = up ? policy::scale_up_limit(current, in.hist, given, in.now)
                              : policy::scale_down_limit(current, in.hist, given, in.now);
        std::string binding; // the policies whose bound is the limit
        for (const auto& p :
             given.policies ? *given.policies : std::vector<policy::scaling_policy>{}) {
            const auto b = policy::bound_of(up, current, in.hist, p, in.now);
            const std::string name = fmt::format(
                "{} {}{} per {}s", p.type == policy::scaling_policy_type::pods ? "Pods" : "Percent",
                p.value, p.type == policy::scaling_policy_type::pods ? "" : "%", p.period_seconds);
            out += fmt::format("  {}: {} added and {} removed since {} → from {}, {} {}\n", name,
                               b.added, b.removed,
                               clock_time(in.now - std::chrono::seconds(p.period_seconds)),
                               b.period_start, up ? "at most" : "at least", b.bound);
            if (b.bound == limit) binding += (binding.empty() ? "" : ", ") + name;
        }
        if (select == policy::select_policy::disabled)
            out += fmt::format("  → scaling {} is disabled: {}\n", up ? "up" : "down", limit);
        else
            out += fmt::format("  → the policies allow {} {}{}\n", up ? "up to" : "down to", limit,
                               binding.empty() ? "" : " (" + binding + ")");
    }
    out += fmt::format("  → {} ({})\n", *d.stages.limited, d.stages.limit_reason);
}

void explain_outcome(std::string& out, const policy::reconcile_input& in,
                     const policy::decision& d) {
    const std::int32_t current = in.scale ? in.scale->spec_replicas : d.current_replicas;
    if (d.scale_updated)
        out += fmt::format("Decision: {} → {} replicas, written to /scale\n", current,
                           d.target_replicas);
    else if (d.rescale)
        out += fmt::format("Decision: {} → {} replicas, but the /scale write failed\n", current,
                           d.target_replicas);
    else if (d.dry_run_rescale)
        out += fmt::format("Decision: {} → {} replicas in DryRun: not written\n", current,
                           d.target_replicas);
    else if (d.stopped_early)
        out += fmt::format("Decision: none; {} replicas stay\n", current);
    else
        out += fmt::format("Decision: {} replicas stay\n", current);
    if ((d.rescale || d.dry_run_rescale) && !d.rescale_reason.empty())
        out += "  reason: " + d.rescale_reason + "\n";
    if (d.error) out += "  error: " + *d.error + "\n";
    out += fmt::format("  status: currentReplicas {}, desiredReplicas {}\n", d.current_replicas,
                       d.desired_replicas);
}

} // namespace

std::string explain_decision(const policy::reconcile_input& in, const policy::decision& d,
                             const std::optional<kinds::decided_outcome>& decided) {
    std::string out;
    const auto& ref = in.hpa.spec.scale_target_ref;
    out += fmt::format("{}/{} scales {}/{} (at {})\n", in.hpa.namespace_, in.hpa.name, ref.kind,
                       ref.name, clock_time(in.now));
    explain_outcome(out, in, d);
    if (decided) {
        const bool same = decided->desired_replicas == d.desired_replicas &&
                          decided->current_replicas == d.current_replicas;
        out += same ? fmt::format("  the controller decided the same (desiredReplicas {})\n",
                                  decided->desired_replicas)
                    : fmt::format("  THE CONTROLLER DECIDED OTHERWISE: currentReplicas {}, "
                                  "desiredReplicas {}\n",
                                  decided->current_replicas, decided->desired_replicas);
    }
    if (in.scale)
        out += fmt::format("Scale: spec.replicas {}, status.replicas {}, selector \"{}\"\n",
                           in.scale->spec_replicas, in.scale->status_replicas, in.scale->selector);
    explain_metrics(out, in, d);
    if (d.stages.recommended) {
        out += fmt::format("Recommendation: {} (the highest proposal)\n", *d.stages.recommended);
        if (const auto& p = d.stages.prediction)
            out += fmt::format("  forecast {} → {} replicas, {}\n", number(p->value), p->replicas,
                               p->voting ? (p->decided ? "voting, and it decided" : "voting")
                                         : "not voting");
    }
    explain_stabilization(out, in, d);
    explain_rate_limits(out, in, d);
    if (d.stages.gated)
        out += fmt::format("Gate: {} → {}\n", d.stages.gate_reason, *d.stages.gated);
    if (!d.events.empty()) {
        out += "Events:\n";
        for (const auto& e : d.events)
            out += fmt::format("  {} {}: {}\n", e.type, e.reason, e.message);
    }
    return out;
}

} // namespace hpaplus::cli
