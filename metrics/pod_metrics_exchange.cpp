// metrics/pod_metrics_exchange.cpp — see the header.
#include "metrics/pod_metrics_exchange.hpp"

namespace hpaplus::metrics {

using clock = std::chrono::steady_clock;

pod_metrics_exchange::claim pod_metrics_exchange::join(std::string_view ns, clock::time_point now,
                                                       std::uint64_t after_read,
                                                       on_finished on_done) {
    const std::lock_guard lock(mutex_);
    auto it = entries_.find(ns);
    if (it == entries_.end()) it = entries_.emplace(std::string(ns), entry{}).first;
    entry& e = it->second;
    if (e.in_flight > after_read && now - e.in_flight_started < window_) {
        waiting_[e.in_flight].push_back(std::move(on_done));
        return {nullptr, true, e.in_flight, e.in_flight_started};
    }
    if (e.finished && e.finished->number > after_read && now - e.finished->started < window_)
        return {e.finished, false, e.finished->number, e.finished->started};
    e.in_flight = ++numbers_;
    e.in_flight_started = now;
    by_start_.emplace_back(it->first, now);
    return {nullptr, false, e.in_flight, now};
}

bool pod_metrics_exchange::expired(const entry& e, clock::time_point now) const {
    return e.in_flight == 0 && (!e.finished || now - e.finished->started >= window_);
}

void pod_metrics_exchange::publish(const std::string& ns,
                                   std::shared_ptr<const finished_read> read) {
    std::vector<on_finished> waiting;
    std::shared_ptr<const finished_read> replaced[3]; // freed outside the lock
    {
        const std::lock_guard lock(mutex_);
        if (const auto w = waiting_.find(read->number); w != waiting_.end()) {
            waiting = std::move(w->second);
            waiting_.erase(w);
        }
        entry& e = entries_[ns];
        if (e.in_flight == read->number) e.in_flight = 0;
        // Lanes finish reads out of order: the one started last is the one to offer.
        if (!e.finished || e.finished->started <= read->started)
            replaced[0] = std::exchange(e.finished, read);
        // A publish follows one new read; dropping up to two expired namespaces keeps up without
        // a sweep that frees thousands of pods at once (shared_pod_metrics says why that matters).
        const auto now = clock::now();
        for (int n = 1; n < 3 && !by_start_.empty();) {
            const auto& [name, started] = by_start_.front();
            if (now - started < window_) break; // so are those after it
            if (const auto it = entries_.find(name);
                it != entries_.end() && expired(it->second, now)) {
                replaced[n++] = std::move(it->second.finished);
                entries_.erase(it);
            }
            by_start_.pop_front();
        }
    }
    for (auto& f : waiting)
        f(read);
}

std::size_t pod_metrics_exchange::namespaces_held() const {
    const std::lock_guard lock(mutex_);
    return entries_.size();
}

} // namespace hpaplus::metrics
