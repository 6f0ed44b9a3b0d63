// policy/replay.cpp — a simulated workload under the decision core: pods that become ready after
// the readiness delay, the recorded totals spread over the ready ones, a decision every sync
// period, and the cost and risk counted second by second.
#include "policy/replay.hpp"

#include "policy/formula.hpp"
#include "policy/formula_metrics.hpp"
#include "policy/metric_samples.hpp"
#include "policy/prediction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpaplus::policy {
namespace {

using std::chrono::seconds;

// metrics-server's default resolution: the window every replayed sample covers.
constexpr seconds sample_window{15};
// Pods that exist when the recording starts have been ready for this long.
constexpr seconds warm_age{3600};

struct replay_pod {
    std::string name;
    core::time_point created{};
};

std::int64_t clamped_milli(double value) {
    const double milli = std::round(value * 1000.0);
    if (!(milli < 9.2e18)) return std::numeric_limits<std::int64_t>::max();
    if (!(milli > -9.2e18)) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(milli);
}

class replayed_workload {
  public:
    replayed_workload(const autoscaler& hpa, const recorded_load& load)
        : hpa_(hpa), load_(load), container_(replay_container(hpa.spec)) {
        resize(load.initial_replicas, load.start - warm_age);
    }

    std::int32_t replicas() const { return static_cast<std::int32_t>(pods_.size()); }

    bool is_ready(const replay_pod& p, core::time_point now) const {
        return p.created + load_.readiness_delay <= now;
    }
    std::int32_t ready(core::time_point now) const {
        return static_cast<std::int32_t>(std::count_if(
            pods_.begin(), pods_.end(), [&](const replay_pod& p) { return is_ready(p, now); }));
    }

    // New pods are created now; a scale-down removes the newest first (the unready ones).
    void resize(std::int32_t n, core::time_point now) {
        n = std::max(n, 0);
        while (replicas() > n)
            pods_.pop_back();
        while (replicas() < n)
            pods_.push_back(
                {hpa_.spec.scale_target_ref.name + "-" + std::to_string(++created_), now});
    }

    std::vector<pod_info> pod_infos(core::time_point now) const {
        // The replayed pods are alike: one template.
        pod_template shared;
        shared.namespace_ = hpa_.namespace_;
        shared.containers.push_back({container_, load_.requests, load_.limits, false});
        const auto shared_ptr = std::make_shared<const pod_template>(std::move(shared));
        std::vector<pod_info> out;
        out.reserve(pods_.size());
        for (const replay_pod& p : pods_) {
            pod_info info;
            info.name = p.name;
            info.shared = shared_ptr;
            info.labels = {{"app", "replay"}};
            info.phase = pod_phase::running;
            info.start_time = p.created;
            const bool ready = is_ready(p, now);
            info.ready = ready ? core::condition_status::true_ : core::condition_status::false_;
            info.ready_transition_time = ready ? p.created + load_.readiness_delay : p.created;
            out.push_back(std::move(info));
        }
        return out;
    }

    // The share of `total` (milli) each pod carries: the ready ones split it, the others carry
    // nothing; with none ready, all split it.
    std::vector<std::int64_t> shares(std::int64_t total, core::time_point now) const {
        const std::int32_t ready_pods = ready(now);
        std::vector<std::int64_t> out;
        out.reserve(pods_.size());
        for (const replay_pod& p : pods_) {
            const bool carries = ready_pods == 0 || is_ready(p, now);
            const std::int32_t over = ready_pods == 0 ? replicas() : ready_pods;
            out.push_back(carries ? total / over : 0);
        }
        return out;
    }

    const std::vector<replay_pod>& pods() const { return pods_; }
    const std::string& container() const { return container_; }

  private:
    const autoscaler& hpa_;
    const recorded_load& load_;
    std::string container_;
    std::vector<replay_pod> pods_;
    std::uint64_t created_ = 0;
};

class replayer {
  public:
    replayer(const autoscaler& hpa, const recorded_load& load, const controller_config& config)
        : hpa_(hpa), load_(load), config_(config), workload_(hpa_, load),
          inputs_(formula_inputs(hpa.spec)) {
        for (const metric_spec& m : hpa.spec.metrics) {
            if (m.type != metric_source_type::formula) {
                formulas_.emplace_back(std::nullopt);
                continue;
            }
            auto e = formula_expression::parse(m.formula);
            formulas_.push_back(e ? std::optional<formula_expression>(std::move(*e))
                                  : std::nullopt);
        }
    }

    replay_result run(const replay_observer& observe) {
        replay_result out;
        out.summary.name = hpa_.name;
        out.summary.predicts = hpa_.spec.prediction.has_value();
        out.summary.max_replicas = workload_.replicas();
        const auto sync = seconds(hpa_.spec.sync_period_seconds.value_or(15));
        const auto duration = load_.duration();
        std::size_t index = 0;
        for (seconds s{0}; s < duration; ++s) {
            const core::time_point now = load_.start + s;
            if (s % sync == seconds{0}) {
                out.decisions.push_back(decide_at(now, index++, out.summary, observe));
                out.summary.max_replicas = std::max(out.summary.max_replicas, workload_.replicas());
            }
            out.summary.replica_seconds += workload_.replicas();
            if (above_target(now)) ++out.summary.seconds_above_target;
        }
        return out;
    }

  private:
    const autoscaler& hpa_;
    const recorded_load& load_;
    const controller_config& config_;
    replayed_workload workload_;
    std::vector<bool> inputs_;
    std::vector<std::optional<formula_expression>> formulas_;
    autoscaler_status status_ = hpa_.status;
    history hist_;
    // spec.prediction: the named metric's recording up to now, and the last forecast.
    struct {
        std::vector<forecast::sample> history;
        std::size_t next = 0; ///< the next recorded value to add
        std::optional<core::time_point> computed_at;
        prediction_input last;
    } prediction_;

    std::optional<double> recorded(std::size_t metric, core::time_point now) const {
        const auto it = load_.series.find(metric);
        if (it == load_.series.end()) return std::nullopt;
        const auto k = static_cast<std::size_t>((now - load_.start) / load_.step);
        return k < it->second.size() ? it->second[k] : std::nullopt;
    }

    // The recorded value as the forecast counts it: a per-pod target's total in the unit of its
    // status (percent of one pod's request for Utilization), a value as recorded.
    std::optional<double> forecast_unit(const metric_spec& m, double total) const {
        if (m.target.type != metric_target_type::utilization) return total;
        const core::resource_list& basis =
            m.basis == usage_basis::limits ? load_.limits : load_.requests;
        const core::quantity* request = core::find_resource(basis, m.resource_name);
        if (!request || request->milli_value() <= 0) return std::nullopt;
        return total * 100.0 / request->as_double();
    }

    prediction_input forecast_at(core::time_point now) {
        const prediction_spec& p = *hpa_.spec.prediction;
        const metric_spec* m = named_metric(hpa_.spec, p.metric);
        const auto series =
            m ? load_.series.find(static_cast<std::size_t>(m - hpa_.spec.metrics.data()))
              : load_.series.end();
        if (series == load_.series.end()) {
            prediction_input none;
            none.why = "HistoryUnavailable";
            none.message = "the recording has no series of " + p.metric;
            return none;
        }
        const auto step = std::max<std::chrono::nanoseconds>(p.step, load_.step);
        if (prediction_.computed_at && now - *prediction_.computed_at < step)
            return prediction_.last;
        auto& k = prediction_.next;
        for (; k < series->second.size() && load_.start + load_.step * k <= now; ++k)
            if (const auto& v = series->second[k])
                if (const auto value = forecast_unit(*m, *v))
                    prediction_.history.push_back({load_.start + load_.step * k, *value});
        forecast::forecast_input in;
        in.history = prediction_.history;
        in.now = now;
        in.step = step;
        in.periods = p.periods;
        in.look_ahead = p.look_ahead;
        in.margin = p.margin;
        in.known_period = prediction_.last.period; // as the controller keeps it
        prediction_.last = prediction_of(forecast::forecast(in));
        prediction_.computed_at = now;
        return prediction_.last;
    }

    metric_reading reading(std::size_t i, core::time_point now) const {
        const metric_spec& m = hpa_.spec.metrics[i];
        metric_reading r;
        if (m.type == metric_source_type::formula) return r;
        const auto value = recorded(i, now);
        if (!value) {
            r.error = "no recorded value for spec.metrics[" + std::to_string(i) + "] at " +
                      core::format_rfc3339(now);
            return r;
        }
        const std::int64_t milli = clamped_milli(*value);
        switch (m.type) {
        case metric_source_type::resource:
        case metric_source_type::container_resource: {
            const auto shares = workload_.shares(milli, now);
            std::vector<core::pod_metrics> items;
            items.reserve(shares.size());
            for (std::size_t p = 0; p < shares.size(); ++p) {
                core::pod_metrics pm;
                pm.name = workload_.pods()[p].name;
                pm.namespace_ = hpa_.namespace_;
                pm.labels = {{"app", "replay"}};
                pm.timestamp = now;
                pm.window = sample_window;
                pm.containers.push_back(
                    {workload_.container(),
                     {{m.resource_name, core::quantity::from_milli(shares[p])}}});
                items.push_back(std::move(pm));
            }
            const auto held =
                std::make_shared<const std::vector<core::pod_metrics>>(std::move(items));
            set_samples(r, samples_from_pod_metrics(*held, m.resource_name, m.container));
            r.names = held;
            break;
        }
        case metric_source_type::pods: {
            const auto shares = workload_.shares(milli, now);
            const auto names = std::make_shared<sample_names>();
            sample_set samples;
            for (std::size_t p = 0; p < shares.size(); ++p)
                samples.push_back(
                    {names->keep(workload_.pods()[p].name), shares[p], now, sample_window});
            set_samples(r, samples_from_custom_metrics(std::move(samples)));
            r.names = names;
            break;
        }
        case metric_source_type::object:
            r.object_value = milli;
            break;
        case metric_source_type::external:
            r.external_values = {milli};
            break;
        case metric_source_type::formula:
            break;
        }
        return r;
    }

    replay_decision decide_at(core::time_point now, std::size_t index, replay_summary& summary,
                              const replay_observer& observe) {
        const std::vector<pod_info> pods = workload_.pod_infos(now);
        reconcile_input in;
        in.hpa = hpa_;
        in.hpa.status = status_;
        in.scale = scale_snapshot{workload_.replicas(), workload_.replicas(), "app=replay"};
        for (const pod_info& p : pods)
            in.pods.push_back(&p);
        for (std::size_t i = 0; i < hpa_.spec.metrics.size(); ++i)
            in.readings.push_back(reading(i, now));
        in.config = config_;
        in.hist = hist_;
        in.now = now;
        if (hpa_.spec.prediction) in.prediction = forecast_at(now);

        decision d = decide(in);
        finish(d, in, std::nullopt);
        if (observe) observe(index, in, d);

        replay_decision out{now, workload_.replicas(), workload_.ready(now), {}};
        hist_ = d.hist;
        status_ = d.status;
        if (d.rescale && d.target_replicas != workload_.replicas()) {
            ++summary.rescales;
            ++(d.target_replicas > workload_.replicas() ? summary.scale_ups : summary.scale_downs);
            out.forecast = d.target_replicas > workload_.replicas() && d.stages.prediction &&
                           d.stages.prediction->decided;
            if (out.forecast) ++summary.forecast_ups;
            workload_.resize(d.target_replicas, now);
            out.replicas = workload_.replicas();
            out.reason = d.rescale_reason;
        }
        return out;
    }

    // The metric's value per ready pod as the pods see it now (Resource, ContainerResource, Pods),
    // or as recorded (Object, External), or computed (Formula).
    std::optional<double> current(std::size_t i, core::time_point now, int depth = 0) const {
        const metric_spec& m = hpa_.spec.metrics[i];
        if (m.type == metric_source_type::formula) {
            if (!formulas_[i] || depth > 32) return std::nullopt;
            std::vector<double> values;
            for (const std::string& name : formulas_[i]->inputs()) {
                const auto it = std::find_if(hpa_.spec.metrics.begin(), hpa_.spec.metrics.end(),
                                             [&](const metric_spec& x) { return x.name == name; });
                if (it == hpa_.spec.metrics.end()) return std::nullopt;
                const auto v = current(static_cast<std::size_t>(it - hpa_.spec.metrics.begin()),
                                       now, depth + 1);
                if (!v) return std::nullopt;
                values.push_back(*v);
            }
            const auto v = formulas_[i]->evaluate(values);
            return v ? std::optional<double>(*v) : std::nullopt;
        }
        const auto value = recorded(i, now);
        if (!value) return std::nullopt;
        if (m.type == metric_source_type::object || m.type == metric_source_type::external)
            return *value;
        const std::int32_t ready = workload_.ready(now);
        return ready > 0 ? *value / ready : *value;
    }

    // Whether any voting metric is above its target now (strictly; tolerance not applied).
    bool above_target(core::time_point now) const {
        for (std::size_t i = 0; i < hpa_.spec.metrics.size(); ++i) {
            const metric_spec& m = hpa_.spec.metrics[i];
            if (inputs_[i] || !m.target_set) continue;
            const auto v = current(i, now);
            if (!v) continue;
            const metric_target& t = m.target;
            const bool per_pod_source = m.type == metric_source_type::resource ||
                                        m.type == metric_source_type::container_resource ||
                                        m.type == metric_source_type::pods;
            if (t.type == metric_target_type::utilization && t.average_utilization) {
                const core::resource_list& basis =
                    m.basis == usage_basis::limits ? load_.limits : load_.requests;
                const core::quantity* request = core::find_resource(basis, m.resource_name);
                if (!request || request->milli_value() <= 0) continue;
                if (*v * 1000.0 * 100.0 >
                    static_cast<double>(request->milli_value()) * *t.average_utilization)
                    return true;
            } else if (t.type == metric_target_type::average_value && t.average_value) {
                const double per_pod =
                    per_pod_source || workload_.replicas() == 0 ? *v : *v / workload_.replicas();
                if (per_pod > t.average_value->as_double()) return true;
            } else if (t.type == metric_target_type::value && t.value) {
                if (*v > t.value->as_double()) return true;
            }
        }
        return false;
    }
};

} // namespace

std::chrono::seconds recorded_load::duration() const {
    std::size_t longest = 0;
    for (const auto& [index, values] : series)
        longest = std::max(longest, values.size());
    return step * static_cast<std::int64_t>(longest);
}

std::string replay_container(const autoscaler_spec& spec) {
    for (const metric_spec& m : spec.metrics)
        if (m.type == metric_source_type::container_resource) return m.container;
    return "app";
}

replay_result replay(const autoscaler& hpa, const recorded_load& load,
                     const controller_config& config, const replay_observer& observe) {
    return replayer(hpa, load, config).run(observe);
}

} // namespace hpaplus::policy
