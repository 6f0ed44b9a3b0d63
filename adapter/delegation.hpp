// adapter/delegation.hpp — what `hpaplus adapter` asks the API server, as an aggregated
// API server delegates to it (k8s.io/apiserver's delegating authenticator and authorizer): who a
// bearer token belongs to (TokenReview), whether a user may make a request
// (SubjectAccessReview), and the request-header settings kube-apiserver publishes in
// kube-system/extension-apiserver-authentication. Answers are cached for a short while (10 s, as
// upstream's defaults), so a busy HPA costs the API server one review per 10 s, not one per read.
#pragma once

#include "adapter/auth.hpp"
#include "core/outcome.hpp"
#include "kube/config.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace hpaplus::adapter {

struct delegation_options {
    std::chrono::milliseconds token_ttl{10000}; ///< how long a TokenReview's answer is reused
    std::chrono::milliseconds allow_ttl{10000}; ///< ... an allowing SubjectAccessReview's
    std::chrono::milliseconds deny_ttl{10000};  ///< ... a denying one's
    std::size_t max_cached = 10000;             ///< answers of each kind kept at most
};

class adapter_delegation {
  public:
    /// Throws std::runtime_error when the cluster's TLS material is unusable (a start-up error).
    adapter_delegation(boost::asio::any_io_executor executor, kube::cluster_config cluster,
                       delegation_options options = {});
    ~adapter_delegation();
    adapter_delegation(const adapter_delegation&) = delete;
    adapter_delegation& operator=(const adapter_delegation&) = delete;

    /// The token's user; an error when the API server does not know the token, or cannot be
    /// asked (both are 401 to the caller).
    /// Runs on: the executor. Cancellation: none; bounded by the client's timeout.
    boost::asio::awaitable<core::outcome<user_info>> review_token(std::string token);

    /// Whether `user` may make the request; an error when the API server cannot be asked (500).
    boost::asio::awaitable<core::outcome<authorization_decision>>
    authorize(const user_info& user, const request_attributes& attributes);

    /// kube-system/extension-apiserver-authentication's settings; the error says what failed and
    /// which permission is missing when it is a 403.
    boost::asio::awaitable<core::outcome<authentication_settings>> read_authentication_settings();

    /// Reviews sent to the API server (cache misses), for tests and metrics.
    std::uint64_t reviews_sent() const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace hpaplus::adapter
