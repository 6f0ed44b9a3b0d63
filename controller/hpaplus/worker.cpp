// controller/hpaplus/worker.cpp — HPAPlus and HPA workers: period, phase and observers.
#include "controller/hpaplus/worker.hpp"

#include "kinds/records.hpp"

namespace hpaplus::controller {
namespace {

// How soon a pass held while the caches were behind is tried again.
constexpr std::chrono::milliseconds held_retry{500};

struct hpaplus_slot : worker_slot {
    using worker_slot::worker_slot;
    object_memory memory;
};

// The sync period of a cached object: spec.syncPeriodSeconds of an HPAPlus, the annotation of a
// plain HPA (the default when unset or unreadable).
std::chrono::seconds sync_period_of(const kube::object_cptr& o, std::chrono::seconds fallback) {
    const auto* r = o ? o->as<kinds::autoscaler_record>() : nullptr;
    return r && r->sync_period ? *r->sync_period : fallback;
}

const kinds::autoscaler_record* record_of(const kube::cached_object& object) {
    return object.as<kinds::autoscaler_record>();
}

} // namespace

std::shared_ptr<worker_slot> hpaplus_rules::make(boost::asio::any_io_executor ex,
                                                 const std::string& ns, const std::string& name) {
    return std::make_shared<hpaplus_slot>(std::move(ex), ns, name);
}

boost::asio::awaitable<pass_result> hpaplus_rules::pass(worker_slot& slot) {
    auto& w = static_cast<hpaplus_slot&>(slot);
    const auto started = std::chrono::steady_clock::now();
    const reconcile_outcome outcome = co_await reconcile(env_, kind_, w.ns, w.name, w.memory);
    const auto ended = std::chrono::steady_clock::now();
    const auto took = ended - started;
    if (!outcome.exists) co_return pass_result{false, false, {}};
    // Held while the caches are behind: decided again soon, once they have caught up.
    if (outcome.held) co_return pass_result{true, false, ended + held_retry, false};
    if (outcome.rescaled) ++rescales_;
    if (outcome.status_written) ++status_writes_;
    for (auto* o : observers_)
        if (!w.stopped)
            o->reconciled(kind_name_, w.ns, w.name, outcome,
                          std::chrono::duration_cast<std::chrono::nanoseconds>(took));
    if (!outcome.target) {
        w.target.clear();
    } else if (const auto& t = *outcome.target;
               w.target.size() != t.kind.size() + 1 + t.name.size() ||
               !w.target.starts_with(t.kind) || w.target[t.kind.size()] != '/' ||
               !w.target.ends_with(t.name)) {
        w.target = t.kind + "/" + t.name; // `Kind/name`, built only when it changed
    }
    // A period after the pass ended, as upstream re-queues a key after its reconcile: a pass slow
    // to read its metrics does not bring the next one closer (two rescales stay a period apart).
    co_return pass_result{true, outcome.error.has_value(), ended + outcome.period,
                          outcome.rescaled};
}

std::chrono::steady_clock::duration hpaplus_rules::after_failure(const worker_slot&) {
    return reconcile_outcome{}.period;
}

std::chrono::milliseconds hpaplus_rules::first_delay(const worker_slot& w, bool listed) {
    // Objects listed together start spread over their own period; one created later starts now.
    if (!listed) return std::chrono::milliseconds(0);
    const auto period = std::chrono::duration_cast<std::chrono::milliseconds>(
        sync_period_of(kind_.objects.find(w.ns, w.name), env_.options.default_sync_period));
    return std::chrono::milliseconds(static_cast<std::int64_t>(
        std::hash<std::string>{}(w.key) % static_cast<std::size_t>(period.count())));
}

std::chrono::steady_clock::duration hpaplus_rules::min_spacing(const worker_slot& w) {
    return sync_period_of(kind_.objects.find(w.ns, w.name), env_.options.default_sync_period);
}

bool hpaplus_rules::takes(const kube::cached_object& object) {
    if (!kind_.native || env_.options.native_hpas.selection != native_hpa_selection::annotated)
        return true;
    const auto* r = record_of(object);
    return r && r->asks_for_hpaplus;
}

bool hpaplus_rules::wakes(const kube::cached_object& object, const kube::cached_object& previous) {
    if (worker_rules::wakes(object, previous)) return true;
    if (!kind_.native) return false;
    const auto *now = record_of(object), *before = record_of(previous);
    return now && before && now->hpaplus_annotations != before->hpaplus_annotations;
}

void hpaplus_rules::forgotten(const worker_slot& w) {
    kind_.selectors.erase(w.ns, w.name);
    for (auto* o : observers_)
        o->forgotten(kind_name_, w.ns, w.name);
}

} // namespace hpaplus::controller
