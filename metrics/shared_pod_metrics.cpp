// metrics/shared_pod_metrics.cpp — one PodMetricsList per namespace and window, shared.
#include "metrics/shared_pod_metrics.hpp"

#include "core/label_selector.hpp"

#include <algorithm>
#include <deque>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unordered_map>

namespace hpaplus::metrics {
namespace asio = boost::asio;
using clock = std::chrono::steady_clock;

namespace {

// One namespace's read: in flight until `answer` is set, when `done` is cancelled to wake the
// objects waiting for it.
struct namespace_read {
    namespace_read(const asio::any_io_executor& ex, std::uint64_t n)
        : done(ex, clock::time_point::max()), started(clock::now()), number(n) {}
    std::shared_ptr<const pod_metrics_answer> answer;
    /// (pod name, index in answer->items), sorted: an object finds its few pods by binary search
    /// instead of matching its selector against every pod of the namespace. One allocation per
    /// list, where a hash map took one per pod.
    std::vector<std::pair<std::string_view, std::size_t>> by_name;
    asio::steady_timer done;
    clock::time_point started;
    std::uint64_t number; ///< pod_metrics_answer::shared_read
};

} // namespace

struct shared_pod_metrics::impl {
    asio::any_io_executor executor;
    kube::api_client& cluster;
    std::chrono::milliseconds window;
    std::unordered_map<std::string, std::shared_ptr<namespace_read>> reads; ///< by namespace
    /// Every read by when it started, oldest first, for `expire`.
    std::deque<std::pair<std::string, std::weak_ptr<namespace_read>>> by_start;
    std::uint64_t lists = 0;
    std::uint64_t reads_started = 0;

    impl(asio::any_io_executor ex, kube::api_client& c, std::chrono::milliseconds w)
        : executor(ex), cluster(c), window(w) {}

    // A finished read older than the window holds memory for nothing. A few are dropped per call:
    // dropping every expired namespace at once, the decoded metrics of thousands of pods, held the
    // thread for tens of milliseconds and made every timer due meanwhile late. A call starts at
    // most one read, so two drops per call keep up.
    void expire(clock::time_point now) {
        for (int dropped = 0; dropped < 2 && !by_start.empty();) {
            const auto& [ns, weak] = by_start.front();
            if (const auto read = weak.lock()) {
                if (!read->answer || now - read->started < window) return; // so are those after
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

asio::awaitable<void> list_namespace(std::shared_ptr<shared_pod_metrics::impl> self,
                                     std::shared_ptr<namespace_read> read, std::string ns) {
    ++self->lists;
    const std::string every_pod;
    auto answer = co_await list_pod_metrics(self->cluster, std::move(ns), every_pod);
    read->answer = std::make_shared<const pod_metrics_answer>(std::move(answer));
    const auto& items = read->answer->items;
    read->by_name.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i)
        read->by_name.emplace_back(items[i]->name, i);
    std::sort(read->by_name.begin(), read->by_name.end()); // a repeated name: its first pod first
    read->done.cancel();
}

} // namespace

shared_pod_metrics::shared_pod_metrics(asio::any_io_executor executor, kube::api_client& cluster,
                                       std::chrono::milliseconds window)
    : impl_(std::make_shared<impl>(executor, cluster, window)) {}

shared_pod_metrics::~shared_pod_metrics() = default;

std::uint64_t shared_pod_metrics::lists_sent() const {
    return impl_->lists;
}

std::size_t shared_pod_metrics::namespaces_held() const {
    return impl_->reads.size();
}

asio::awaitable<pod_metrics_answer>
shared_pod_metrics::read(std::string ns, std::string pod_selector,
                         std::vector<std::string_view> pod_names, std::uint64_t after_read) {
    auto selector = core::parse_label_selector(pod_selector);
    if (impl_->window.count() <= 0 || !selector) { // unshared; a bad selector: the server says why
        ++impl_->lists;
        co_return co_await list_pod_metrics(impl_->cluster, std::move(ns), std::move(pod_selector));
    }
    const auto now = clock::now();
    impl_->expire(now);
    auto& slot = impl_->reads[ns];
    if (!slot ||
        (slot->answer && (now - slot->started >= impl_->window || slot->number <= after_read))) {
        slot = std::make_shared<namespace_read>(impl_->executor, ++impl_->reads_started);
        impl_->by_start.emplace_back(ns, slot);
        // A read that threw (a bug) must still answer: its waiters, and every later reader of the
        // namespace until the slot is replaced, would otherwise wait forever.
        asio::co_spawn(impl_->executor, list_namespace(impl_, slot, ns),
                       [read = slot](const std::exception_ptr& e) {
                           if (!e || read->answer) return;
                           pod_metrics_answer failed;
                           failed.error = "internal error while reading the pods' metrics";
                           read->answer = std::make_shared<const pod_metrics_answer>(failed);
                           read->done.cancel();
                       });
    }
    const std::shared_ptr<namespace_read> read = slot; // the slot may be replaced meanwhile
    if (!read->answer) {
        boost::system::error_code ec;
        co_await read->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    pod_metrics_answer out;
    const auto& items = read->answer->items;
    out.list = read->answer->list;
    out.error = read->answer->error;
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
    const auto& by_name = read->by_name;
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
