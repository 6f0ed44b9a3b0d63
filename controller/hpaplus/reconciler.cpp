// controller/hpaplus/reconciler.cpp — one reconcile of one HPAPlus.
#include "controller/hpaplus/reconciler.hpp"

#include "controller/coordination.hpp"
#include "controller/runtime/debug_snapshots.hpp"
#include "controller/runtime/logging.hpp"
#include "kinds/cronhpa.hpp"
#include "kinds/evaluate_input.hpp"
#include "kinds/hpaplus_status.hpp"
#include "kinds/native_hpa.hpp"
#include "kinds/records.hpp"
#include "kinds/scale_target.hpp"
#include "kube/resources.hpp"
#include "kube/status_writer.hpp"
#include "policy/decision.hpp"

#include <spdlog/spdlog.h>

namespace hpaplus::controller {
namespace {

// Another manager's status write within the window ("kube-controller-manager at T"), if any.
std::optional<std::string> foreign_status_writer(const std::vector<kinds::status_write>& writes,
                                                 const native_hpa_options& o,
                                                 core::time_point now) {
    if (o.force_takeover) return std::nullopt;
    std::optional<std::string> newest;
    core::time_point newest_time{};
    for (const auto& w : writes) {
        if (w.manager == kinds::hpaplus_field_manager || now - w.time > o.foreign_status_window)
            continue;
        if (!newest || w.time > newest_time) {
            newest = w.manager + " at " + core::format_rfc3339(w.time);
            newest_time = w.time;
        }
    }
    return newest;
}

// The object's record, and a copy of its autoscaler that the reconcile may lend out (lent below):
// made once per stored version, not per pass.
decoded_autoscaler decode(const kube::object_cptr& object) {
    decoded_autoscaler out;
    out.source = object;
    out.record = object->share<kinds::autoscaler_record>();
    if (out.record) out.hpa = out.record->hpa;
    return out;
}

// A plain HPA in DryRun is a shadow: HPAPlus decides and reports through Events, logs and
// metrics, but writes neither /scale nor status, so it can run beside kube-controller-manager.
bool shadow(const autoscaler_kind& kind, const policy::autoscaler_spec& spec) {
    return kind.native && spec.mode == policy::run_mode::dry_run;
}

// Writes the status of an object that does not scale (condition ScalingActive=False, `reason`;
// not for a shadow) and records the Warning Event.
boost::asio::awaitable<void>
block(reconcile_env& env, const autoscaler_kind& kind, const kube::cached_object& object,
      const kinds::autoscaler_record& record, const policy::autoscaler_spec& spec,
      const kube::involved_object& involved, const char* reason, const std::string& message,
      core::time_point now, reconcile_outcome& out) {
    // An object that cannot act reports from the backlog budget: behind every object that can.
    const core::event e{"Warning", reason, message};
    co_await env.events.record(involved, e, now, kube::request_class::backlog);
    ++out.events;
    if (shadow(kind, spec)) co_return;
    const std::string status = kinds::encode_blocked_status(
        record.status(), object.generation, reason, message, now,
        kind.native ? kinds::status_form::hpa : kinds::status_form::hpaplus);
    out.status_written =
        co_await kube::write_status(env.client, kind.resource, object, record.stored_status.get(),
                                    status, nullptr, kube::request_class::backlog);
}

// Moves `home` into `borrower` for as long as the guard lives and back when it goes, however the
// reconcile ends (co_return, exception): the autoscaler and its history are kept per object and
// read by every pass, and copying them cost allocations on every pass (the recommendation log
// alone holds an entry per pass of the stabilization window).
template <class T> class lent {
  public:
    lent(T& home, T& borrower) : home_(home), borrower_(borrower) { borrower_ = std::move(home_); }
    ~lent() { home_ = std::move(borrower_); }
    lent(const lent&) = delete;
    lent& operator=(const lent&) = delete;

  private:
    T& home_;
    T& borrower_;
};

// Registers the target's selector with the kind's registry (AmbiguousSelector), parsed only when
// it differs from the one this object last registered; false when it has none that parses.
bool register_selector(autoscaler_kind& kind, const std::string& ns, const std::string& name,
                       const std::string& selector, object_memory& memory) {
    if (selector.empty()) return false;
    if (selector == memory.registered_selector) return true;
    auto parsed = core::parse_label_selector(selector);
    if (!parsed) return false;
    memory.selector = std::make_shared<const core::label_selector>(std::move(*parsed));
    kind.selectors.put(ns, name, memory.selector); // one selector, shared
    memory.registered_selector = selector;
    return true;
}

// podSelection OwnerReferences: each ReplicaSet controlling one of `pods`, with its own
// controller, from the cache (a ReplicaSet not cached links nowhere: its pods are excluded).
std::vector<policy::controller_link>
controller_links(const kube::object_cache& replicasets, const std::string& ns,
                 const std::vector<const policy::pod_info*>& pods) {
    std::vector<policy::controller_link> links;
    for (const policy::pod_info* p : pods) {
        const auto& c = p->controller();
        if (c.kind != "ReplicaSet" || std::any_of(links.begin(), links.end(), [&](const auto& l) {
                return l.object.name == c.name;
            }))
            continue;
        const auto cached = replicasets.find(ns, c.name);
        const auto* rs = cached ? cached->as<kinds::replicaset_record>() : nullptr;
        if (rs && !rs->controller.kind.empty()) links.push_back({c, rs->controller});
    }
    return links;
}

// Whether the object is no longer on the server: asked when its status write answered 404 while
// the cache still holds it (a 404 of the status subresource alone would leave the object there).
boost::asio::awaitable<bool> deleted_on_server(kube::api_client& client,
                                               const autoscaler_kind& kind, const std::string& ns,
                                               const std::string& name) {
    const auto r = co_await kube::get(client, kind.resource, ns, name);
    co_return r.ec == kube::errc::not_found;
}

// /debug/objects asked for this pass: its input as an `evaluate` document, with the object as the
// API server has it now (read here, as nothing is kept of its text) when that is still the spec
// decided from; else the next pass answers.
boost::asio::awaitable<void> write_down_input(const reconcile_env& env, const autoscaler_kind& kind,
                                              const kube::cached_object& object,
                                              const policy::reconcile_input& in,
                                              const policy::decision& d, bool write_failed) {
    const std::string ns(object.namespace_()), name(object.name());
    const auto r = co_await kube::get(env.client, kind.resource, ns, name);
    if (!r) {
        spdlog::warn("/debug/objects: reading {} {}: {}", kind.name, object.key, r.message());
        co_return;
    }
    rapidjson::Document doc;
    if (kube::parse_json(doc, r.body, "") || !doc.IsObject() || !doc.HasMember("metadata") ||
        !doc["metadata"].IsObject())
        co_return;
    const auto& meta = doc["metadata"];
    const auto generation = meta.HasMember("generation") && meta["generation"].IsInt64()
                                ? meta["generation"].GetInt64()
                                : 0;
    if (generation != object.generation) co_return; // the spec changed since: the next pass
    const kinds::decided_outcome outcome{d.current_replicas, d.desired_replicas, d.scale_updated,
                                         d.error};
    env.snapshots->answer(kind.name, ns, name,
                          kinds::encode_evaluate_input(in, r.body, outcome, write_failed));
}

// Windows, policy periods and scale-event ages are measured on the steady clock, as upstream's Go
// times carry a monotonic reading (an NTP step changes nothing there), while decisions take the
// wall time they show and write: a wall-clock step since the last pass moves what the object
// remembers by the same step. Below `jitter` the two readings differ by their own timing only.
void follow_wall_clock(object_memory& memory, core::time_point now, const std::string& key) {
    constexpr std::chrono::milliseconds jitter{100};
    const auto steady = std::chrono::steady_clock::now();
    if (memory.steady_seen != std::chrono::steady_clock::time_point{}) {
        const auto step = now - (memory.wall_seen + (steady - memory.steady_seen));
        if (step > jitter || step < -jitter) {
            policy::shift_history(memory.hist, step);
            spdlog::debug("{}: the wall clock stepped by {} ms since the last pass; its windows "
                          "and periods follow the steady clock",
                          key, std::chrono::duration_cast<std::chrono::milliseconds>(step).count());
        }
    }
    memory.wall_seen = now;
    memory.steady_seen = steady;
}

// Logs a problem of the object once: when `key` (what identifies it; "" = no problem) differs from
// the one `last` logged — `what` and `detail` at `level` when it appears or changes, `ended` and
// `detail` at info when it goes. A problem that lasts is in the object's status and Events every
// period, not in the log. Nothing is built while nothing changes.
const std::string no_problem; // log_on_change's key when nothing is wrong

// The reasons kube-controller-manager's HPA controller records (horizontal.go): a native HPA's
// Events with them come from its component; HPAPlus's own (StandingBack, InvalidAnnotation,
// FallbackActive, DryRunRescale, ...) say they are HPAPlus's.
bool kcm_reason(std::string_view reason) {
    return reason.starts_with("FailedGet") || reason == "FailedComputeMetricsReplicas" ||
           reason == "FailedRescale" || reason == "SuccessfulRescale" ||
           reason == "SelectorRequired" || reason == "InvalidSelector" ||
           reason == "AmbiguousSelector" || reason == "InvalidMetricSourceType" ||
           reason == "FailedUpdateStatus";
}

void log_on_change(std::string& last, const std::string& key, spdlog::level::level_enum level,
                   const log_subject& subject, std::string_view what, std::string_view detail,
                   std::string_view ended) {
    if (key == last) return;
    if (!key.empty())
        log_about(level, subject, "{}{}", what, detail);
    else
        log_about(spdlog::level::info, subject, "{}{}", ended, detail);
    last = key;
}

// The failing metrics of a decision as a key ("0,2"), and their errors as one message.
std::pair<std::string, std::string> metric_failures(const policy::decision& d) {
    std::string key, message;
    for (const policy::metric_record& m : d.metrics) {
        if (!m.error) continue;
        key += (key.empty() ? "" : ",") + std::to_string(m.index);
        message += (message.empty() ? "" : "; ") + std::string("metric ") +
                   std::to_string(m.index) + " (" + policy::to_string(m.type) + "): " + *m.error;
    }
    return {key, message};
}

// The name /metrics gives a metric: its resource, its metric's name, or a Formula's name.
const std::string& series_metric_name(const policy::metric_spec& m) {
    switch (m.type) {
    case policy::metric_source_type::resource:
    case policy::metric_source_type::container_resource:
        return m.resource_name;
    case policy::metric_source_type::formula:
        return m.name;
    default:
        return m.metric.name;
    }
}

std::string_view target_type_name(policy::metric_target_type t) {
    switch (t) {
    case policy::metric_target_type::utilization:
        return "Utilization";
    case policy::metric_target_type::value:
        return "Value";
    case policy::metric_target_type::average_value:
        return "AverageValue";
    }
    return "";
}

// A target or a current value in the unit /metrics gives it: percent for utilization, else the
// quantity in its base unit (cores, bytes, the metric's own).
std::optional<double> value_of(policy::metric_target_type t,
                               const std::optional<std::int32_t>& utilization,
                               const std::optional<core::quantity>& value,
                               const std::optional<core::quantity>& average_value) {
    switch (t) {
    case policy::metric_target_type::utilization:
        if (utilization) return *utilization;
        break;
    case policy::metric_target_type::value:
        if (value) return value->as_double();
        break;
    case policy::metric_target_type::average_value:
        if (average_value) return average_value->as_double();
        break;
    }
    return std::nullopt;
}

std::string_view action_of(std::int32_t proposed, std::int32_t current) {
    return proposed > current ? "scale_up" : proposed < current ? "scale_down" : "none";
}

// What /metrics shows of a pass that decided, written over the last one's storage.
void fill_report(pass_report& r, const policy::reconcile_input& in, const policy::decision& d) {
    const auto& spec = in.hpa.spec;
    r.min_replicas = spec.min_replicas.value_or(1);
    r.max_replicas = spec.max_replicas;
    r.action = d.scale_updated ? action_of(d.target_replicas, d.current_replicas) : "none";
    r.error = d.error ? "internal" : "none";
    r.metrics.resize(spec.metrics.size());
    for (std::size_t i = 0; i < spec.metrics.size(); ++i) {
        const policy::metric_spec& m = spec.metrics[i];
        pass_report::metric& out = r.metrics[i];
        out.type = policy::to_string(m.type);
        out.name = series_metric_name(m);
        out.target_type = target_type_name(m.target.type);
        out.target = m.target_set ? value_of(m.target.type, m.target.average_utilization,
                                             m.target.value, m.target.average_value)
                                  : std::nullopt;
        out.computed = false;
        out.current.reset();
        out.sample_time =
            i < in.readings.size() ? policy::oldest_sample(in.readings[i]) : std::nullopt;
        out.sample_age.reset();
        if (out.sample_time)
            out.sample_age = std::chrono::duration<double>(in.now - *out.sample_time).count();
    }
    // Upstream labels a metric's computation against the status's replicas before the pass.
    const std::int32_t before = in.hpa.status.current_replicas;
    for (const policy::metric_record& record : d.metrics) {
        if (record.index >= r.metrics.size()) continue;
        pass_report::metric& out = r.metrics[record.index];
        out.computed = true;
        out.error = record.error ? "internal" : "none";
        out.action =
            record.error || !record.proposal ? "none" : action_of(*record.proposal, before);
        if (record.status) {
            const auto& c = record.status->current;
            out.current = value_of(spec.metrics[record.index].target.type, c.average_utilization,
                                   c.value, c.average_value);
        }
    }
    r.conditions.resize(d.status.conditions.size());
    for (std::size_t i = 0; i < d.status.conditions.size(); ++i) {
        r.conditions[i].first = d.status.conditions[i].type;
        r.conditions[i].second = d.status.conditions[i].status;
    }
}

// One pass of one object as named steps: gate → gather inputs → decide → write /scale → finish →
// answer /debug/objects → record the forecast's sample → remember → publish status → publish
// Events. What the steps share lives here for the pass's length; the object's
// autoscaler, target, rollout and history are lent from its memory into the decision's input and
// given back when the pass ends (members are destroyed in reverse: the loans before the input).
class pass {
  public:
    pass(reconcile_env& env, autoscaler_kind& kind, const std::string& ns, const std::string& name,
         object_memory& memory, kube::object_cptr object, core::time_point now,
         reconcile_outcome& out)
        : env_(env), kind_(kind), ns_(ns), name_(name), memory_(memory), object_(std::move(object)),
          record_(memory.decoded.record), now_(now), subject_{kind.name, ns, name}, out_(out) {
        // `memory.decoded.hpa` is not read again: the input holds it until the pass ends.
        hpa_lent_.emplace(memory.decoded.hpa, in_.hpa);
        if (in_.hpa.spec.sync_period_seconds && *in_.hpa.spec.sync_period_seconds > 0)
            out_.period = std::chrono::seconds(*in_.hpa.spec.sync_period_seconds);
    }
    pass(const pass&) = delete;
    pass& operator=(const pass&) = delete;

    // The steps follow, in the order reconcile (below) runs them. Only the waits are coroutines,
    // called when there is something to wait for: each coroutine called is one more frame for
    // Asio's recycling allocator (which keeps two), so a steady pass calls few.

    // Made only when an Event is recorded (most passes record none).
    kube::involved_object involved(std::string_view reason) const {
        kube::involved_object who{ns_, name_, record_->uid, kind_.name, kind_.api_version, {}};
        if (kind_.native && kcm_reason(reason))
            who.source = kube::event_source{env_.options.native_hpas.event_source, {}};
        return who;
    }

    // Whether the pass may decide: not while another controller writes a native HPA's status,
    // not with an invalid spec, not while another autoscaler scales the same target.
    boost::asio::awaitable<bool> gate() {
        if (const auto writer = foreign_writer()) {
            co_await stand_back(*writer);
            co_return false;
        }
        memory_.logged.standing_back.clear();
        log_annotation_problems();
        for (const auto& problem : record_->annotation_problems) {
            const core::event e{"Warning", "InvalidAnnotation", problem};
            const auto who = involved(e.reason);
            co_await env_.events.record(who, e, now_);
            ++out_.events;
        }
        const std::string& invalid = record_->invalid ? *record_->invalid : no_problem;
        log_on_change(memory_.logged.invalid_spec, invalid, spdlog::level::warn, subject_,
                      "invalid spec: ", invalid, "its spec is valid again");
        if (record_->invalid) {
            out_.valid = false;
            out_.error = "invalid spec: " + *record_->invalid;
            const auto who = involved("InvalidSpec");
            co_await block(env_, kind_, *object_, *record_, in_.hpa.spec, who, "InvalidSpec",
                           *record_->invalid, now_, out_);
            co_return false;
        }
        const std::string other =
            kind_.others ? autoscaler_scaling(*kind_.others, ns_, in_.hpa.spec.scale_target_ref)
                         : std::string();
        if (!other.empty()) {
            co_await block_for(other);
            co_return false;
        }
        log_on_change(memory_.logged.multiple, no_problem, spdlog::level::warn, subject_, "", "",
                      "no other autoscaler scales its target any more");
        co_return true;
    }

    // Never two writers: who else (kube-controller-manager, say) wrote a native HPA's status
    // recently, if anyone.
    std::optional<std::string> foreign_writer() const {
        if (!kind_.native || shadow(kind_, in_.hpa.spec)) return std::nullopt;
        return foreign_status_writer(record_->status_writes, env_.options.native_hpas, now_);
    }

    boost::asio::awaitable<void> stand_back(const std::string& writer) {
        out_.stood_back = writer;
        const std::string message =
            "status was written by " + writer +
            "; HPAPlus leaves this HorizontalPodAutoscaler alone while another controller "
            "runs it (turn off kube-controller-manager's HPA controller, or start HPAPlus "
            "with --native-hpa-force-takeover)";
        log_on_change(memory_.logged.standing_back, writer, spdlog::level::warn, subject_, "",
                      message, "");
        // Named, not temporaries, in co_await calls: GCC 12 destroys those too early.
        const core::event e{"Warning", "StandingBack", message};
        const auto who = involved(e.reason);
        co_await env_.events.record(who, e, now_, kube::request_class::backlog);
        out_.events = 1;
    }

    void log_annotation_problems() {
        std::string problems;
        for (const auto& problem : record_->annotation_problems)
            problems += (problems.empty() ? "" : "; ") + problem;
        log_on_change(memory_.logged.annotations, problems, spdlog::level::warn, subject_,
                      "invalid annotations (their defaults apply): ", problems,
                      "its annotations are valid again");
    }

    // Another autoscaler (of the other kind) scales the same target: neither does.
    boost::asio::awaitable<void> block_for(const std::string& other) {
        const auto& ref = in_.hpa.spec.scale_target_ref;
        const char* other_kind = kind_.native ? "HPAPlus" : "HorizontalPodAutoscaler";
        out_.target = &memory_.decoded.hpa.spec.scale_target_ref; // (lent out until the end)
        out_.error = ref.kind + "/" + ref.name + " is also scaled by " + other_kind + " " + ns_ +
                     "/" + other;
        const std::string message = *out_.error + "; neither scales it until one is deleted";
        log_on_change(memory_.logged.multiple, other, spdlog::level::warn, subject_, "", message,
                      "");
        const auto who = involved("MultipleAutoscalers");
        co_await block(env_, kind_, *object_, *record_, in_.hpa.spec, who, "MultipleAutoscalers",
                       message, now_, out_);
    }

    // Everything the decision reads: the target's scale and rollout, the controller-wide
    // settings, the history, the cron floor, the pods and their peers, the metrics, the forecast.
    boost::asio::awaitable<void> gather_inputs() {
        const auto& ref = in_.hpa.spec.scale_target_ref;
        out_.target = &memory_.decoded.hpa.spec.scale_target_ref; // (lent out until the end)
        // A Deployment still at the version last read is in memory already: no wait, no copy.
        if (!kinds::target_unchanged(&env_.deployments, ns_, ref, memory_.target)) {
            memory_.target =
                co_await kinds::read_target(env_.client, &env_.deployments, ns_, ref, false);
            if (!memory_.target.rollout &&
                in_.hpa.spec.rollout != policy::rollout_policy::continue_scaling)
                memory_.target.rollout = co_await kinds::read_rollout(env_.client, ns_, ref);
        }
        // Lent, as the autoscaler is: the input holds the target's scale and rollout for the pass.
        scale_lent_.emplace(memory_.target.scale, in_.scale);
        rollout_lent_.emplace(memory_.target.rollout, in_.rollout);
        in_.scale_error = memory_.target.error;
        in_.config = env_.options.policy;
        if (!kind_.native) in_.config.scale_to_zero = true; // HPAPlus: minReplicas 0 is its own
        history_lent_.emplace(memory_.hist, in_.hist);
        in_.now = now_;
        if (env_.cronhpas && env_.cronhpas->size() > 0) {
            const core::object_reference self{kind_.name, name_, kind_.api_version};
            in_.floor = find_cron_floor(*env_.cronhpas, ns_, self, ref);
        }
        if (in_.scale) select_pods();
        if (policy::needs_metrics(in_.hpa, in_.scale, in_.floor, in_.config)) {
            const auto started = std::chrono::steady_clock::now();
            in_.readings =
                co_await env_.metrics.read(in_.hpa, ref.name, in_.scale->selector, in_.pods,
                                           memory_.pod_metrics_read, in_.scale_selector);
            out_.metrics_latency = std::chrono::steady_clock::now() - started;
        }
        checkpoint_.emplace(prediction_checkpoint_env{env_.client, record_->uid, object_->key,
                                                      env_.options.prediction_checkpoint_interval});
        if (in_.hpa.spec.prediction && in_.scale) {
            const auto untrusted = memory_.prediction.untrusted_checkpoints;
            in_.prediction =
                co_await prediction_for(env_.metrics, env_.forecasts, *checkpoint_, in_.hpa,
                                        ref.name, in_.scale->selector, memory_.prediction, now_);
            out_.untrusted_checkpoints = memory_.prediction.untrusted_checkpoints - untrusted;
        } else if (!in_.hpa.spec.prediction && memory_.prediction.history_of) {
            memory_.prediction = {}; // spec.prediction was removed: its history goes
        }
    }

    // The target's pods (memory.pods keeps them alive until the object's next pass), the links
    // to their controllers, what their boost records must agree with, and the other autoscalers
    // picking them.
    void select_pods() {
        const auto& ref = in_.hpa.spec.scale_target_ref;
        const auto& pods = env_.pods.select(ns_, in_.scale->selector, memory_.pods);
        in_.pods.reserve(pods.size());
        for (const auto& p : pods)
            in_.pods.push_back(p.get());
        if (in_.hpa.spec.pods == policy::pod_selection::owner_references)
            in_.controllers = controller_links(env_.replicasets, ns_, in_.pods);
        if (std::any_of(in_.pods.begin(), in_.pods.end(),
                        [](const policy::pod_info* p) { return !p->boosted.empty(); })) {
            memory_.boosts =
                boost_authority_for(env_.vpapluses, ns_, ref, memory_.target.template_cpu);
            in_.boosts = &memory_.boosts;
        }
        if (!register_selector(kind_, ns_, name_, in_.scale->selector, memory_)) return;
        in_.scale_selector = memory_.selector;
        const std::uint64_t selectors = kind_.selectors.version(ns_);
        if (memory_.peers_pods != memory_.pods.generation || memory_.peers_selectors != selectors) {
            memory_.peers = kind_.selectors.peers_picking(ns_, name_, in_.pods);
            memory_.peers_pods = memory_.pods.generation;
            memory_.peers_selectors = selectors;
        }
        in_.peers = memory_.peers;
    }

    // Decides, and writes /scale when it rescales: a conflict (the target changed since it was
    // read) or an unanswered write reads the target again and decides again on what it is now.
    void decide() {
        decision_ = env_.scratch.take_decision();
        policy::decide(in_, decision_);
        decided_ = true;
    }
    bool rescales() const { return decision_.rescale; }

    // The decision's storage goes to the lane's spares for a later pass to decide into. Only at
    // the end of a pass that ran to its end: a pass destroyed on the way (its lane shutting down)
    // must not reach the lane's scratch, which may be gone by then.
    void lend_decision() {
        if (decided_) env_.scratch.give_back(std::move(decision_));
        decided_ = false;
    }

    // Writes /scale: a conflict (the target changed since it was read) or an unanswered write
    // reads the target again and decides again on what it is now.
    boost::asio::awaitable<void> write_scale() {
        const auto& ref = in_.hpa.spec.scale_target_ref;
        kinds::target_view reread; // the target read again after a conflict
        const std::string* version = &memory_.target.resource_version; // the precondition
        for (int attempt = 1; decision_.rescale; ++attempt) {
            auto response = co_await kinds::write_scale(
                env_.client, ns_, ref, decision_.target_replicas, *version, object_->key);
            if (response) break;
            write_error_ = response.message();
            const bool unanswered = response.unanswered();
            const bool last = attempt >= env_.options.scale_write_attempts;
            if ((response.ec != kube::errc::conflict || last) && !unanswered) break;
            log_about(spdlog::level::info, subject_, "/scale {}, reading the target again",
                      unanswered ? "write unanswered" : "conflict");
            reread = co_await kinds::read_target(env_.client, &env_.deployments, ns_, ref, true);
            version = &reread.resource_version;
            // The decision rescales, so the target was not at this size when it was read.
            if (unanswered && reread.scale &&
                reread.scale->spec_replicas == decision_.target_replicas) {
                write_error_.reset(); // it landed
                break;
            }
            if (last) break;
            // (The object's memory keeps the version first read, so the next pass reads the
            // target again once the cache shows what changed.)
            in_.scale = reread.scale;
            in_.scale_error = reread.error;
            write_error_.reset();
            policy::decide(in_, decision_);
        }
    }

    void finish() { policy::finish(decision_, in_, write_error_); }

    // /debug/objects asked for this object's input.
    bool asked_for() const {
        return env_.snapshots && env_.snapshots->wanted(kind_.name, ns_, name_);
    }
    boost::asio::awaitable<void> answer_debug_request() {
        co_await write_down_input(env_, kind_, *object_, in_, decision_, write_error_.has_value());
    }

    bool predicts() const { return in_.hpa.spec.prediction.has_value(); }
    // spec.prediction: the metric's sample of this pass, for the forecast's history.
    boost::asio::awaitable<void> record_forecast_sample() {
        const auto ready = std::count_if(in_.pods.begin(), in_.pods.end(), [](const auto* p) {
            return p->ready == core::condition_status::true_;
        });
        co_await record_prediction_sample(*checkpoint_, in_.hpa, decision_,
                                          static_cast<std::int32_t>(ready), memory_.prediction,
                                          now_);
    }

    // What the pass leaves in the object's memory and tells its caller: the history, the
    // vertical side's view, /metrics' report, the log.
    void remember() {
        std::swap(in_.hist, decision_.hist); // what history_lent_ gives back to memory; the old
                                             // one's storage goes with the decision to the spares
        if (env_.vpapluses)
            note_vertical_use(*env_.vpapluses, ns_, kind_.name, in_.hpa,
                              decision_.status.conditions, now_);
        out_.current_replicas = decision_.current_replicas;
        out_.desired_replicas = decision_.desired_replicas;
        fill_report(memory_.report, in_, decision_);
        out_.report = &memory_.report;
        log_problems();
        out_.rescaled = decision_.scale_updated;
        out_.error = decision_.error;
    }

    void log_problems() {
        if (!decision_.stopped_early || !decision_.metrics.empty()) {
            const auto [failing, errors] = metric_failures(decision_);
            log_on_change(memory_.logged.metrics, failing, spdlog::level::warn, subject_,
                          "metrics failed: ", errors, "every metric is read again");
        }
        if (const auto* c = core::find_condition(decision_.status.conditions, "FallbackActive")) {
            const bool active = c->status == core::condition_status::true_;
            log_on_change(memory_.logged.fallback, active ? c->reason : no_problem,
                          spdlog::level::warn, subject_, "fallback engaged: ", c->message,
                          "fallback ended: ");
        }
    }

    // A pass that could not decide (a target or metrics it cannot read) reports from the backlog
    // budget, so that a crowd of broken objects never delays those that decide.
    kube::request_class reporting() const {
        return decision_.error ? kube::request_class::backlog : kube::request_class::report;
    }

    // Whether the status may have changed since it was last written or found equal. A steady
    // pass stops at the digest: no text, no parse, no comparison.
    bool status_may_differ() {
        if (shadow(kind_, in_.hpa.spec)) return false;
        digest_ = kinds::status_digest(in_.hpa, decision_, form(), env_.scratch.status);
        return memory_.status_version != object_->resource_version ||
               memory_.status_digest != digest_;
    }
    kinds::status_form form() const {
        return kind_.native ? kinds::status_form::hpa : kinds::status_form::hpaplus;
    }

    // Writes the status when it differs; false when the object turned out to be gone.
    boost::asio::awaitable<bool> publish_status() {
        const std::uint64_t digest = digest_;
        const auto form = this->form();
        const std::string status =
            kinds::encode_status(in_.hpa, decision_, form, env_.scratch.status);
        const auto* stored = record_->stored_status.get();
        const bool differs = kube::status_differs(stored, status);
        if (differs) {
            bool gone = false;
            out_.status_written = co_await kube::write_status(env_.client, kind_.resource, *object_,
                                                              stored, status, &gone, reporting());
            if (gone && co_await deleted_on_server(env_.client, kind_, ns_, name_)) {
                // The cache missed its deletion (a watch event lost): stop here, not every
                // period until a relist tells.
                log_about(spdlog::level::info, subject_,
                          "gone from the API server though still cached; its worker stops");
                out_.exists = false;
                co_return false;
            }
            // Until the cache shows the version this write made, the next passes decide from
            // the status written (a busy watch can lag a pass behind): deciding from the one
            // before would move lastTransitionTimes forward and write the same change again.
            if (out_.status_written)
                in_.hpa.status = kinds::written_autoscaler_status(status); // lent back to memory
        }
        if (!differs || out_.status_written) {
            memory_.status_version = object_->resource_version;
            memory_.status_digest = digest;
        }
        co_return true;
    }

    bool has_events() const { return !decision_.events.empty() || decision_.scale_updated; }
    boost::asio::awaitable<void> publish_events() {
        for (const auto& e : decision_.events) {
            if (e.reason == "StartupBoostIgnored") {
                // Once per set of pods, as the Event: a forged record is an attack on the decision.
                out_.untrusted_boosts = decision_.stages.ignored_boosts.size();
                log_about(spdlog::level::warn, subject_, "{}", e.message);
            }
            // unreadyPods Count: once per change of the pods counted, as the Event.
            if (e.reason == "UnreadyPodsCounted")
                log_about(spdlog::level::info, subject_, "{}", e.message);
            const auto who = involved(e.reason);
            co_await env_.events.record(who, e, now_, reporting());
            ++out_.events;
        }
        if (decision_.scale_updated) {
            const auto& ref = in_.hpa.spec.scale_target_ref;
            log_about(spdlog::level::info, subject_, "scaled {}/{} from {} to {}: {}", ref.kind,
                      ref.name, decision_.current_replicas, decision_.target_replicas,
                      decision_.rescale_reason);
        }
    }

  private:
    reconcile_env& env_;
    autoscaler_kind& kind_;
    const std::string& ns_;
    const std::string& name_;
    object_memory& memory_;
    const kube::object_cptr object_;
    // Shared: it lives as long as the pass, across every wait for the API server.
    const std::shared_ptr<const kinds::autoscaler_record> record_;
    const core::time_point now_;
    const log_subject subject_;
    reconcile_outcome& out_;
    policy::reconcile_input in_;
    std::optional<lent<policy::autoscaler>> hpa_lent_;
    std::optional<lent<std::optional<policy::scale_snapshot>>> scale_lent_;
    std::optional<lent<std::optional<policy::rollout_state>>> rollout_lent_;
    std::optional<lent<policy::history>> history_lent_;
    std::optional<prediction_checkpoint_env> checkpoint_;
    policy::decision decision_;
    bool decided_ = false;
    std::uint64_t digest_ = 0; ///< of the status decided (status_may_differ)
    std::optional<std::string> write_error_;
};

} // namespace

boost::asio::awaitable<reconcile_outcome> reconcile(reconcile_env& env, autoscaler_kind& kind,
                                                    const std::string& ns, const std::string& name,
                                                    object_memory& memory) {
    reconcile_outcome out;
    out.period = env.options.default_sync_period;
    const kube::object_cptr object = kind.objects.find(ns, name);
    if (!object) {
        out.exists = false;
        co_return out;
    }
    if (env.caches_current && !env.caches_current()) {
        out.held = true; // the informers fell behind (an outage): act on nothing they hold
        co_return out;
    }
    const core::time_point now = env.options.wall_clock();
    follow_wall_clock(memory, now, object->key);
    if (memory.decoded.source != object) memory.decoded = decode(object);
    if (!memory.decoded.record) {
        out.error = "the cached " + object->key + " has no autoscaler record";
        co_return out;
    }
    // The pass gives back what it borrowed from the object's memory when it is destroyed, before
    // the caller resumes.
    pass p(env, kind, ns, name, memory, object, now, out);
    // (Each result named before it is tested: with `if (!co_await p.gate())`, and the same for
    // the status step, GCC 12's build crashed every pass in the resumed frame. The same shape
    // works elsewhere (sim/apiserver/watch.cpp), so the trigger is narrower; keep it named.)
    const bool may_decide = co_await p.gate();
    if (!may_decide) co_return out;
    co_await p.gather_inputs();
    p.decide();
    if (p.rescales()) co_await p.write_scale();
    p.finish();
    if (p.asked_for()) co_await p.answer_debug_request();
    if (p.predicts()) co_await p.record_forecast_sample();
    p.remember();
    if (p.status_may_differ()) {
        const bool exists = co_await p.publish_status();
        if (!exists) {
            p.lend_decision();
            co_return out;
        }
    }
    if (p.has_events()) co_await p.publish_events();
    p.lend_decision();
    co_return out;
}

} // namespace hpaplus::controller
