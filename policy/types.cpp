// policy/types.cpp — small helpers on the policy vocabulary.
#include "policy/types.hpp"

#include <algorithm>

namespace hpaplus::policy {

const quantity* find_resource(std::span<const resource_entry> list, std::string_view name) {
    const auto it =
        std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.first == name; });
    return it == list.end() ? nullptr : &it->second;
}

} // namespace hpaplus::policy
