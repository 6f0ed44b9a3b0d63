// core/kubernetes.cpp — condition list maintenance (upstream setConditionInList /
// removeCondition) and resource lookup.
#include "core/kubernetes.hpp"

#include <algorithm>

namespace hpaplus::core {

void set_condition(std::vector<condition>& conditions, std::string_view type,
                   condition_status status, std::string_view reason, std::string_view head,
                   std::string_view tail, time_point now) {
    auto it = std::find_if(conditions.begin(), conditions.end(),
                           [&](const condition& c) { return c.type == type; });
    if (it == conditions.end()) {
        // A new condition has no previous status, so it always transitions now. Its strings are
        // copied before the vector may move (the text could be another condition's).
        condition added{std::string(type), status, std::string(reason), {}, now};
        added.message.reserve(head.size() + tail.size());
        added.message.append(head).append(tail);
        conditions.push_back(std::move(added));
        return;
    }
    if (it->status != status) it->last_transition_time = now;
    it->status = status;
    it->reason.assign(reason);
    // Both pieces may be this message's own text: join them aside when they overlap it.
    const auto inside = [&](std::string_view piece) {
        return !piece.empty() && piece.data() >= it->message.data() &&
               piece.data() < it->message.data() + it->message.size();
    };
    if (inside(head) || inside(tail)) {
        it->message = std::string(head).append(tail);
    } else {
        it->message.assign(head);
        it->message.append(tail);
    }
}

void set_condition(std::vector<condition>& conditions, std::string_view type,
                   condition_status status, std::string_view reason, std::string_view message,
                   time_point now) {
    set_condition(conditions, type, status, reason, message, {}, now);
}

void remove_condition(std::vector<condition>& conditions, std::string_view type) {
    std::erase_if(conditions, [&](const condition& c) { return c.type == type; });
}

const condition* find_condition(const std::vector<condition>& conditions, std::string_view type) {
    const auto it = std::find_if(conditions.begin(), conditions.end(),
                                 [&](const condition& c) { return c.type == type; });
    return it == conditions.end() ? nullptr : &*it;
}

const quantity* find_resource(std::span<const resource_entry> list, std::string_view name) {
    const auto it =
        std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.first == name; });
    return it == list.end() ? nullptr : &it->second;
}

} // namespace hpaplus::core
