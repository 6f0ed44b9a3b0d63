// metrics/shared_pod_metrics.cpp — one PodMetricsList per namespace and window, shared.
#include "metrics/shared_pod_metrics.hpp"

#include "core/label_selector.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unordered_map>

namespace hpaplus::metrics {
namespace asio = boost::asio;
using clock = std::chrono::steady_clock;

namespace {

// One namespace's read on this lane: in flight (here, or on another lane) until `result` is set,
// when `done` is cancelled to wake the objects waiting for it.
struct namespace_read {
    namespace_read(const asio::any_io_executor& ex, clock::time_point deadline)
        : done(ex, deadline) {}
    std::shared_ptr<const finished_read> result;
    asio::steady_timer done;
    clock::time_point started;
    std::uint64_t number = 0; ///< pod_metrics_answer::shared_read
};

// How long objects wait for a read in flight on another lane before they give up on it: far
// beyond any request's timeout, so only a lane that stopped in the middle of a read is given up.
constexpr std::chrono::seconds other_lane_patience(60);

} // namespace

struct shared_pod_metrics::impl {
    asio::any_io_executor executor;
    kube::api_client& cluster;
    std::chrono::milliseconds window;
    std::shared_ptr<pod_metrics_exchange> exchange; ///< the other lanes' reads (null: one lane)
    std::unordered_map<std::string, std::shared_ptr<namespace_read>> reads; ///< by namespace
    /// Every read by when it started, oldest first, for `expire`.
    std::deque<std::pair<std::string, std::weak_ptr<namespace_read>>> by_start;
    std::uint64_t lists = 0;
    std::uint64_t reads_started = 0;
    /// Where this lane's lists are decoded (shared: a list released later finds it, or not).
    std::shared_ptr<pod_metrics_pool> pool = std::make_shared<pod_metrics_pool>();

    impl(asio::any_io_executor ex, kube::api_client& c, std::chrono::milliseconds w,
         std::shared_ptr<pod_metrics_exchange> x)
        : executor(ex), cluster(c), window(w), exchange(std::move(x)) {}

    // A finished read older than the window holds memory for nothing. A few are dropped per call:
    // dropping every expired namespace at once, the decoded metrics of thousands of pods, held the
    // thread for tens of milliseconds and made every timer due meanwhile late. A call starts at
    // most one read, so two drops per call keep up.
    void expire(clock::time_point now) {
        for (int dropped = 0; dropped < 2 && !by_start.empty();) {
            const auto& [ns, weak] = by_start.front();
            if (const auto read = weak.lock()) {
                if (!read->result || now - read->started < window) return; // so are those after
                if (const auto it = reads.find(ns); it != reads.end() && it->second == read) {
                    reads.erase(it);
                    ++dropped;
                }
            }
            by_start.pop_front();
        }
    }
};

namespace {

// Indexes a finished read by pod name and hands it to the objects waiting and the other lanes.
void finish(shared_pod_metrics::impl& self, namespace_read& read, const std::string& ns,
            pod_metrics_answer answer) {
    auto result = std::make_shared<finished_read>();
    result->answer = std::make_shared<const pod_metrics_answer>(std::move(answer));
    result->started = read.started;
    result->number = read.number;
    const auto& items = result->answer->items;
    result->by_name.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i)
        result->by_name.emplace_back(items[i]->name, i);
    std::sort(result->by_name.begin(), result->by_name.end()); // a repeated name: its first first
    read.result = result;
    read.done.cancel();
    if (self.exchange) self.exchange->publish(ns, std::move(result));
}

asio::awaitable<void> list_namespace(std::shared_ptr<shared_pod_metrics::impl> self,
                                     std::shared_ptr<namespace_read> read, std::string ns) {
    ++self->lists;
    const std::string every_pod;
    auto answer = co_await list_pod_metrics(self->cluster, ns, every_pod, *self->pool);
    finish(*self, *read, ns, std::move(answer));
}

// Starts this lane's read of `ns` into `read`.
void start_list(const std::shared_ptr<shared_pod_metrics::impl>& self,
                const std::shared_ptr<namespace_read>& read, const std::string& ns) {
    // A read that threw (a bug) must still answer: its waiters, here and on other lanes, and
    // every later reader of the namespace until the slot is replaced, would wait for it.
    asio::co_spawn(self->executor, list_namespace(self, read, ns),
                   [self, read, ns](const std::exception_ptr& e) {
                       if (!e || read->result) return;
                       pod_metrics_answer failed;
                       failed.error = "internal error while reading the pods' metrics";
                       finish(*self, *read, ns, std::move(failed));
                   });
}

// A new read of `ns` for an object that had `after_read`: this lane's own, or (with an exchange)
// one another lane finished or is making within the window.
std::shared_ptr<namespace_read> new_read(const std::shared_ptr<shared_pod_metrics::impl>& self,
                                         const std::string& ns, clock::time_point now,
                                         std::uint64_t after_read) {
    if (!self->exchange) {
        auto read = std::make_shared<namespace_read>(self->executor, clock::time_point::max());
        read->started = now;
        read->number = ++self->reads_started;
        start_list(self, read, ns);
        return read;
    }
    auto read = std::make_shared<namespace_read>(self->executor, now + other_lane_patience);
    // Called on the thread of the lane that finished the read: the answer is posted to ours.
    auto on_done = [executor = self->executor, weak = std::weak_ptr<namespace_read>(read)](
                       std::shared_ptr<const finished_read> result) {
        asio::post(executor, [weak, result = std::move(result)]() mutable {
            const auto waiting = weak.lock();
            if (!waiting || waiting->result) return;
            waiting->result = std::move(result);
            waiting->done.cancel();
        });
    };
    auto claim = self->exchange->join(ns, now, after_read, std::move(on_done));
    read->started = claim.started;
    read->number = claim.number;
    if (claim.finished) {
        read->result = std::move(claim.finished);
    } else if (!claim.waiting) {
        read->done.expires_at(clock::time_point::max());
        start_list(self, read, ns);
    }
    return read;
}

} // namespace

pod_metrics_pool& shared_pod_metrics::pool() {
    return *impl_->pool;
}

shared_pod_metrics::shared_pod_metrics(asio::any_io_executor executor, kube::api_client& cluster,
                                       std::chrono::milliseconds window,
                                       std::shared_ptr<pod_metrics_exchange> exchange)
    : impl_(std::make_shared<impl>(executor, cluster, window, std::move(exchange))) {}

shared_pod_metrics::~shared_pod_metrics() = default;

std::uint64_t shared_pod_metrics::lists_sent() const {
    return impl_->lists;
}

std::size_t shared_pod_metrics::namespaces_held() const {
    return impl_->reads.size();
}

asio::awaitable<pod_metrics_answer>
shared_pod_metrics::read(std::string ns, std::string pod_selector,
                         std::vector<std::string_view> pod_names, std::uint64_t after_read,
                         std::shared_ptr<const core::label_selector> parsed_selector) {
    std::optional<core::label_selector> parsed_here; // for callers that pass none (in the frame)
    if (!parsed_selector)
        if (auto parsed = core::parse_label_selector(pod_selector))
            parsed_here = std::move(*parsed);
    const core::label_selector* selector = parsed_selector ? parsed_selector.get()
                                           : parsed_here   ? &*parsed_here
                                                           : nullptr;
    if (impl_->window.count() <= 0 || !selector) { // unshared; a bad selector: the server says why
        ++impl_->lists;
        const auto self = impl_; // holds the pool while the list is read
        co_return co_await list_pod_metrics(self->cluster, std::move(ns), std::move(pod_selector),
                                            *self->pool);
    }
    const auto now = clock::now();
    impl_->expire(now);
    auto& slot = impl_->reads[ns];
    if (!slot ||
        (slot->result && (now - slot->started >= impl_->window || slot->number <= after_read))) {
        slot = new_read(impl_, ns, now, after_read);
        impl_->by_start.emplace_back(ns, slot);
    }
    const std::shared_ptr<namespace_read> read = slot; // the slot may be replaced meanwhile
    if (!read->result) {
        boost::system::error_code ec;
        co_await read->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    if (!read->result) { // the other lane stopped before its read finished: read afresh next
        if (const auto it = impl_->reads.find(ns); it != impl_->reads.end() && it->second == read)
            impl_->reads.erase(it);
        pod_metrics_answer failed;
        failed.error = "the pods' metrics were being read by a lane that stopped";
        co_return failed;
    }
    const finished_read& result = *read->result;
    pod_metrics_answer out;
    const auto& items = result.answer->items;
    out.list = result.answer->list;
    out.error = result.answer->error;
    out.shared_read = read->number;
    if (pod_names.empty()) {
        for (const auto* m : items)
            if (selector->matches(m->labels)) out.items.push_back(m);
        co_return out;
    }
    // The named pods, in the list's order, each still checked against the selector as the server
    // would have filtered: what a read with the selector would have returned, less the pods the
    // object does not know (which its decision ignores).
    std::vector<std::size_t> found;
    found.reserve(pod_names.size());
    const auto& by_name = result.by_name;
    for (const auto name : pod_names) {
        const auto it =
            std::lower_bound(by_name.begin(), by_name.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
        if (it != by_name.end() && it->first == name) found.push_back(it->second);
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end()); // a pod named twice: once
    out.items.reserve(found.size());
    for (const std::size_t i : found)
        if (selector->matches(items[i]->labels)) out.items.push_back(items[i]);
    co_return out;
}

} // namespace hpaplus::metrics
