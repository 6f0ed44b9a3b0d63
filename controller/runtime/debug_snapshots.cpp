// controller/runtime/debug_snapshots.cpp — requests for a pass's input, and their answers.
#include "controller/runtime/debug_snapshots.hpp"

#include <algorithm>

namespace hpaplus::controller {

std::uint64_t debug_snapshots::ask(std::string kind, std::string ns, std::string name) {
    const std::lock_guard lock(mutex_);
    if (requests_.size() >= max_waiting) return 0;
    const std::uint64_t ticket = next_ticket_++;
    requests_.push_back({ticket, std::move(kind), std::move(ns), std::move(name), std::nullopt});
    waiting_.store(requests_.size(), std::memory_order_release);
    return ticket;
}

std::optional<std::string> debug_snapshots::take(std::uint64_t ticket) {
    const std::lock_guard lock(mutex_);
    const auto it = std::find_if(requests_.begin(), requests_.end(),
                                 [&](const request& r) { return r.ticket == ticket; });
    if (it == requests_.end() || !it->answer) return std::nullopt;
    std::optional<std::string> answer = std::move(it->answer);
    requests_.erase(it);
    waiting_.store(requests_.size(), std::memory_order_release);
    return answer;
}

void debug_snapshots::cancel(std::uint64_t ticket) {
    const std::lock_guard lock(mutex_);
    std::erase_if(requests_, [&](const request& r) { return r.ticket == ticket; });
    waiting_.store(requests_.size(), std::memory_order_release);
}

bool debug_snapshots::wanted(std::string_view kind, std::string_view ns,
                             std::string_view name) const {
    if (waiting_.load(std::memory_order_acquire) == 0) return false;
    const std::lock_guard lock(mutex_);
    return std::any_of(requests_.begin(), requests_.end(),
                       [&](const request& r) { return r.matches(kind, ns, name); });
}

void debug_snapshots::answer(std::string_view kind, std::string_view ns, std::string_view name,
                             const std::string& document) {
    const std::lock_guard lock(mutex_);
    for (auto& r : requests_)
        if (r.matches(kind, ns, name)) r.answer = document;
}

} // namespace hpaplus::controller
