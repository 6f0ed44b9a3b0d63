// kinds/owned_object.hpp — the body of a new object of ours that another of ours owns (deleted
// with it): a VPAPlusCheckpoint of a VPAPlus, an HPAPlusCheckpoint of an HPAPlus.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpaplus::kinds {

/// The object that owns another: an object of ours, by kind, name and uid.
struct owner_of {
    std::string_view kind;
    std::string_view name;
    std::string_view uid;
};

/// `{apiVersion, kind, metadata: {name, ownerReferences: [owner]}, spec: {fields…}}` with our
/// group/version; the spec's fields are strings.
std::string owned_object(std::string_view kind, std::string_view name, const owner_of& owner,
                         const std::vector<std::pair<std::string_view, std::string_view>>& spec);

} // namespace hpaplus::kinds
