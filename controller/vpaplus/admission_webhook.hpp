// controller/vpaplus/admission_webhook.hpp — the VPAPlus pod admission webhook (upstream's
// vpa-admission-controller): a pod being created gets the recommendation of the VPAPlus whose
// target selects it, requests and limits per controlledValues, before it is scheduled. That is
// how updateMode Initial applies at all, and how a pod Recreate (or the InPlaceOrRecreate
// fallback) evicted comes back with the recommended resources.
#pragma once

#include "kube/api_client.hpp"
#include "kube/object_cache.hpp"
#include "net/http_message.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <memory>
#include <string>

namespace hpaplus::controller {

struct pod_admission_env {
    kube::api_client& client;
    const kube::object_cache& vpapluses;
    const kube::object_cache& deployments;
};

/// Answers one AdmissionReview: 200 with the review's response (always allowed — VPAPlus never
/// blocks a pod; a JSONPatch when a VPAPlus has a recommendation for it), or 400 when the body is
/// not an admission.k8s.io/v1 AdmissionReview with a request.
/// Runs on: the client's executor. Cancellation: none; a target other than a cached Deployment
/// costs one GET of its /scale.
boost::asio::awaitable<net::http_response> review_pod(pod_admission_env& env,
                                                      const std::string& body);

/// The HTTPS endpoint: POST /mutate-pods. Throws std::runtime_error at construction when the
/// certificate or key cannot be read or the address is taken (start-up errors).
class pod_admission_server {
  public:
    pod_admission_server(boost::asio::any_io_executor executor, const std::string& listen,
                         const std::string& cert_file, const std::string& key_file,
                         pod_admission_env env);
    ~pod_admission_server();
    void start();
    void stop();
    std::string url() const;
    std::uint64_t reviews() const; ///< reviews answered (for tests and logs)

  private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

} // namespace hpaplus::controller
