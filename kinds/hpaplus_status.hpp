// kinds/hpaplus_status.hpp — the HPAPlus status a reconcile writes: the autoscaling/v2 status
// fields, each metric's proposal, and the one-line summaries `kubectl get hpap` shows.
#pragma once

#include "policy/decision.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace hpaplus::kinds {

/// Which status an object has: an HPAPlus's (the autoscaling/v2 fields and HPAPlus's own:
/// proposals, reference, targets, lastDecision, cronFloor) or a plain HorizontalPodAutoscaler's
/// (exactly the fields kube-controller-manager writes).
enum class status_form { hpaplus, hpa };

/// What building a status reuses from one to the next, so that a steady pass allocates nothing
/// for it: a JSON pool that starts in a buffer of its own (what a large status adds is given back
/// at the next build), the text the summaries are built in, and the text writer's buffer. Its
/// owner keeps one per thread that builds statuses (a lane keeps one); never shared.
class status_scratch {
  public:
    status_scratch();
    ~status_scratch();
    status_scratch(const status_scratch&) = delete;
    status_scratch& operator=(const status_scratch&) = delete;
    struct parts;
    parts& get() { return *parts_; }

  private:
    std::unique_ptr<parts> parts_;
};

/// The `status` object (JSON) after decision `d` on `hpa`.
std::string encode_status(const policy::autoscaler& hpa, const policy::decision& d,
                          status_form form, status_scratch& scratch);
std::string encode_status(const policy::autoscaler& hpa, const policy::decision& d,
                          status_form form = status_form::hpaplus);

/// The digest (kube::json_digest) of what encode_status would give, taken without encoding it:
/// equal digests mean equal texts, so a pass whose digest matches the one of a status already
/// found stored (at the object's same resourceVersion) needs no text, no parse and no write.
std::uint64_t status_digest(const policy::autoscaler& hpa, const policy::decision& d,
                            status_form form, status_scratch& scratch);
std::uint64_t status_digest(const policy::autoscaler& hpa, const policy::decision& d,
                            status_form form = status_form::hpaplus);

/// The `status` object of an object that does not scale for a reason of its own (a spec that
/// cannot be used, another autoscaler on its target): the object's status with the condition
/// `ScalingActive=False`, `reason` and `message`.
std::string encode_blocked_status(const policy::autoscaler_status& current, std::int64_t generation,
                                  const std::string& reason, const std::string& message,
                                  core::time_point now, status_form form = status_form::hpaplus);

/// `cpu: 45%/60%, qps: 120/100` — kubectl's TARGETS column for the metrics of `d`.
std::string targets_summary(const policy::autoscaler_spec& spec, const policy::decision& d);

/// `3 -> 5 (recommended 5, stabilized 5, limited 5: DesiredWithinRange)` — what the reconcile did.
std::string decision_summary(const policy::decision& d);

} // namespace hpaplus::kinds
