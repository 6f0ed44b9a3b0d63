// core/kubernetes.cpp — condition list maintenance (upstream setConditionInList /
// removeCondition) and resource lookup.
#include "core/kubernetes.hpp"

#include <algorithm>

namespace hpaplus::core {

void set_condition(std::vector<condition>& conditions, std::string_view type,
                   condition_status status, std::string_view reason, std::string_view message,
                   time_point now) {
    auto it = std::find_if(conditions.begin(), conditions.end(),
                           [&](const condition& c) { return c.type == type; });
    if (it == conditions.end()) {
        // A new condition has no previous status, so it always transitions now. Its strings are
        // copied before the vector may move (the text could be another condition's).
        conditions.push_back(
            condition{std::string(type), status, std::string(reason), std::string(message), now});
        return;
    }
    if (it->status != status) it->last_transition_time = now;
    it->status = status;
    it->reason.assign(reason);
    it->message.assign(message);
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
