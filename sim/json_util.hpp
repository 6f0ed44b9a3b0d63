// sim/json_util.hpp — JSON tools the simulated API server needs: dotted paths, RFC 7386 merge
// patches, RFC 6902 JSON patches, text round trips, and label selectors in their JSON form.
#pragma once

#include "core/label_selector.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::sim {

using json = rapidjson::Value;
using json_doc = rapidjson::Document;
using json_alloc = rapidjson::Document::AllocatorType;

/// The value at a dotted path (`.spec.replicas` or `spec.replicas`), or nullptr.
const json* find_path(const json& root, std::string_view path);
/// The member `key` of an object (dots and all: not a path), or nullptr when `object` is null, no
/// object, or has no such member.
const json* member_of(const json* object, std::string_view key);
/// Sets the value at a dotted path, creating objects on the way (fails when a step is not an
/// object).
bool set_path(json& root, std::string_view path, json value, json_alloc& a);
/// Removes the member at a dotted path (no-op when absent).
void erase_path(json& root, std::string_view path);

/// A string member or "".
std::string string_at(const json& root, std::string_view path);
/// The same, viewed in the document (valid while the document is unchanged): for the paths read
/// of every pod on every list, without a copy.
std::string_view text_at(const json& root, std::string_view path);
/// The string members of the object at `path` (others are passed over) as labels; empty when it
/// is no object. Of repeated keys the first counts.
core::label_map labels_at(const json& root, std::string_view path);
/// The string members of `object` as labels (none when it is not an object).
core::label_map labels_of(const json& object);
/// The strings of the array at a dotted path (other values passed over); empty when absent.
std::vector<std::string> strings_at(const json& root, std::string_view path);
/// An integer member, or `fallback`.
std::int64_t int_at(const json& root, std::string_view path, std::int64_t fallback = 0);

/// RFC 7386: null deletes, objects merge recursively, everything else (lists too) replaces.
void merge_patch(json& target, const json& patch, json_alloc& a);

/// RFC 6902 on `target`; returns an error text, or nullopt on success (target unchanged on error).
std::optional<std::string> json_patch(json_doc& target, const json& operations);

/// `s` with A-Z lowered (kinds to singulars, resource names): ASCII only, as upstream's
/// strings.ToLower on the names it allows.
std::string ascii_lower(std::string s);

/// Serializes compactly.
std::string to_string(const json& v);

/// A deep copy of `v` into a fresh document.
json_doc clone(const json& v);

/// Structural equality (object member order does not matter).
bool equal(const json& a, const json& b);

/// A metav1.LabelSelector (matchLabels, matchExpressions); absent or null selects everything.
/// The error says what is malformed.
core::outcome<core::label_selector> label_selector_of(const json* selector);

} // namespace hpaplus::sim
