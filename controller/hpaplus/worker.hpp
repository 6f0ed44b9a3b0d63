// controller/hpaplus/worker.hpp — the worker rules of HPAPlus objects and of plain
// HorizontalPodAutoscalers (one instance per kind): a reconcile (reconciler.hpp) every
// syncPeriodSeconds, the first one spread over the period for objects listed together (so they do
// not all fire at once after a restart), and every reconcile told to the observers.
#pragma once

#include "controller/hpaplus/reconciler.hpp"
#include "controller/runtime/workers.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace hpaplus::controller {

/// Told about every reconcile (for /metrics and the demo); implementations must be cheap.
class reconcile_observer {
  public:
    virtual ~reconcile_observer() = default;
    /// `kind`: HPAPlus or HorizontalPodAutoscaler.
    virtual void reconciled(const std::string& kind, const std::string& ns, const std::string& name,
                            const reconcile_outcome& outcome, std::chrono::nanoseconds took) = 0;
    virtual void forgotten(const std::string& kind, const std::string& ns,
                           const std::string& name) = 0;
};

class hpaplus_rules : public worker_rules {
  public:
    hpaplus_rules(reconcile_env& env, autoscaler_kind kind)
        : env_(env), kind_(std::move(kind)), kind_name_(kind_.name) {}

    std::shared_ptr<worker_slot> make(boost::asio::any_io_executor ex, const std::string& ns,
                                      const std::string& name) override;
    boost::asio::awaitable<pass_result> pass(worker_slot& w) override;
    std::chrono::steady_clock::duration after_failure(const worker_slot& w) override;
    std::chrono::milliseconds first_delay(const worker_slot& w, bool listed) override;
    void forgotten(const worker_slot& w) override;
    /// Plain HPAs: with --native-hpas=annotated only those that ask for HPAPlus.
    bool takes(const kube::cached_object& object) override;
    /// Plain HPAs also wake when their autoscaling.hpaplus.io/ annotations change.
    bool wakes(const kube::cached_object& object, const kube::cached_object& previous) override;
    /// The object's sync period: decided at most once per period, as upstream.
    std::chrono::steady_clock::duration min_spacing(const worker_slot& w) override;

    void add_observer(reconcile_observer* observer) { observers_.push_back(observer); }
    /// The selectors this kind last scaled by (AmbiguousSelector).
    selector_registry& selectors() { return kind_.selectors; }
    std::uint64_t rescales() const { return rescales_; }
    std::uint64_t status_writes() const { return status_writes_; }

  private:
    reconcile_env& env_;
    autoscaler_kind kind_;
    std::string kind_name_;
    std::vector<reconcile_observer*> observers_;
    std::uint64_t rescales_ = 0;
    std::uint64_t status_writes_ = 0;
};

} // namespace hpaplus::controller
