// sim/apiserver/admission.hpp — mutating admission webhooks, called as the real API server calls
// them: the stored MutatingWebhookConfigurations (admissionregistration.k8s.io/v1) are matched by
// rules, namespaceSelector and objectSelector, called in configuration-name order with an
// AdmissionReview v1 over HTTPS (clientConfig.url, trusting caBundle), their JSON patches applied
// in turn; failurePolicy and timeoutSeconds hold. The sim calls them on CREATE only (API creates
// and the pods its Deployment controller makes); clientConfig.service cannot be reached here.
#pragma once

#include "sim/api_error.hpp"
#include "sim/store.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <memory>
#include <optional>
#include <string>

namespace hpaplus::sim {

class admission {
  public:
    admission(boost::asio::any_io_executor executor, object_store& store);
    ~admission();

    /// Whether a webhook would be called for a CREATE of `object` (of `type`, in `ns`). No I/O.
    bool wants(const resource_type& type, const std::string& ns, const json& object) const;

    /// Calls the matching webhooks in order and applies their patches to `object`. The error is
    /// the one the create fails with: a webhook denied it, its answer was unusable, or a call
    /// failed under failurePolicy Fail (with Ignore the webhook is skipped).
    /// Runs on: the executor. Cancellation: none; each call is bounded by its timeoutSeconds.
    boost::asio::awaitable<std::optional<api_error>> admit_create(const resource_type& type,
                                                                  std::string ns, json_doc& object);

    /// Webhook calls made so far (every attempt), for tests.
    std::uint64_t calls() const;

  private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

/// Defaults (failurePolicy Fail, timeoutSeconds 10, empty selectors, matchPolicy Equivalent,
/// reinvocationPolicy Never, rule scope "*") and validates a MutatingWebhookConfiguration the way
/// the real server does for the fields the sim acts on; the error is a 422 Invalid.
std::optional<api_error> prepare_webhook_configuration(const resource_type& type,
                                                       const std::string& name, json_doc& body);

} // namespace hpaplus::sim
