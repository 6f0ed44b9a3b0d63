// kube/encode.hpp — JSON text, and the parts every kind shares (conditions, label selectors) in
// their wire form.
#pragma once

#include "core/kubernetes.hpp"
#include "core/label_selector.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hpaplus::kube {

using json_allocator = rapidjson::Document::AllocatorType;

/// A rapidjson output stream appending to a std::string (for a rapidjson::Writer).
struct string_output {
    using Ch = char;
    std::string& text;
    void Put(char c) { text.push_back(c); }
    void Flush() {}
};

/// Compact JSON text of a value.
std::string to_json_text(const rapidjson::Value& v);
/// The same, written in `scratch` first (a buffer the caller reuses), then copied out at its exact
/// size.
std::string to_json_text(const rapidjson::Value& v, std::string& scratch);

/// A 64-bit digest of a value, taken without writing its text: two values that write the same
/// text have the same digest (members in their order, strings by their bytes, numbers by their
/// type and value), so a digest kept from an earlier value tells whether the text changed.
std::uint64_t json_digest(const rapidjson::Value& v);

/// A string value copied into the document.
rapidjson::Value json_string(std::string_view s, json_allocator& a);

/// autoscaling/v2 HorizontalPodAutoscalerCondition list.
rapidjson::Value encode_conditions(const std::vector<core::condition>& conditions,
                                   json_allocator& a);

/// metav1.LabelSelector.
rapidjson::Value encode_selector(const core::label_selector_spec& s, json_allocator& a);

} // namespace hpaplus::kube
