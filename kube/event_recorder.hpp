// kube/event_recorder.hpp — core/v1 Events about autoscalers, aggregated as client-go's
// recorder does: the same reason and message about the same object within a window bump one
// Event's count instead of creating another; and, past a burst, filtered as client-go's spam
// filter does, so a flapping backend cannot flood the Events API.
#pragma once

#include "core/kubernetes.hpp"
#include "core/time.hpp"
#include "kube/api_client.hpp"
#include "kube/resources.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace hpaplus::kube {

struct involved_object {
    std::string namespace_;
    std::string name;
    std::string uid;
    std::string kind;
    std::string api_version;
    /// Who reports, when not the recorder's own source (component `hpaplus`, this host): native
    /// HorizontalPodAutoscalers' Events come from `horizontal-pod-autoscaler` with no host, as
    /// kube-controller-manager's do, so `describe hpa` and event-based alerts see no difference.
    std::optional<event_source> source;
};

/// A token bucket per key (an object and a reason): `burst` Events at once, then one more per
/// `refill` (client-go: 25, then one every 5 minutes). Pure; time comes from the caller.
class event_spam_filter {
  public:
    explicit event_spam_filter(int burst = 25,
                               std::chrono::seconds refill = std::chrono::minutes(5));

    /// Takes a token for `key` at `now`: false when its bucket is empty (the Event is dropped).
    bool allow(const std::string& key, core::time_point now);
    std::size_t keys() const { return buckets_.size(); }

  private:
    struct bucket {
        double tokens = 0;
        core::time_point last{};
    };
    double refilled(const bucket& b, core::time_point now) const;

    int burst_;
    std::chrono::seconds refill_;
    std::map<std::string, bucket, std::less<>> buckets_;
};

class event_recorder {
  public:
    event_recorder(kube::api_client& client, std::string host, std::chrono::seconds window);

    /// Creates the Event or bumps the count of the one recorded in the window. A failure is
    /// logged and dropped: an Event is never worth failing a reconcile over.
    /// Runs on: the client's executor. Cancellation: none (bounded by the request timeout).
    /// `priority`: report (an object that decided) or backlog (one that cannot act).
    boost::asio::awaitable<void> record(const involved_object& object, const core::event& e,
                                        core::time_point now,
                                        request_class priority = request_class::report);

    std::uint64_t created() const { return created_; }
    std::uint64_t aggregated() const { return aggregated_; }
    std::uint64_t filtered() const { return filtered_; } ///< dropped by the spam filter

  private:
    struct recorded {
        std::string event_name;
        std::int32_t count = 0;
        core::time_point last{};
    };
    void forget_older_than(core::time_point cutoff);

    kube::api_client& client_;
    std::string host_;
    std::chrono::seconds window_;
    std::map<std::string, recorded, std::less<>> recent_; ///< ns/name/type/reason/message
    event_spam_filter spam_;
    std::uint64_t created_ = 0;
    std::uint64_t filtered_ = 0;
    std::uint64_t aggregated_ = 0;
};

} // namespace hpaplus::kube
