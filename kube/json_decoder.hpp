// kube/json_decoder.hpp — typed reads from RapidJSON values with field paths in every error.
// The decoder keeps the first error and turns later reads into no-ops, so decoding code reads
// straight through and checks ok() once (no exceptions on bad input).
#pragma once

#include "core/kubernetes.hpp"
#include "core/label_selector.hpp"
#include "core/quantity.hpp"
#include "core/time.hpp"

#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace hpaplus::kube {

/// A decoding failure: the field (`hpa.spec.metrics[0].type`) and what is wrong with it.
struct json_error {
    std::string path;
    std::string message;
    std::string to_string() const { return path.empty() ? message : path + ": " + message; }
};

/// A value in a document and the path that led to it; `value` is null when the field is absent.
struct json_node {
    const rapidjson::Value* value = nullptr;
    std::string path;

    bool present() const { return value != nullptr && !value->IsNull(); }
    json_node operator[](std::string_view key) const;
    json_node at(std::size_t index) const;
};

/// The identity of an object (metadata), the same for every kind. The namespace is "" when the
/// object has none (cluster-scoped, or a file that leaves it out).
struct object_meta {
    std::string ns;
    std::string name;
    std::string uid;
    std::string resource_version;
    std::int64_t generation = 0; ///< 0 when the kind has none
};

class json_decoder {
  public:
    bool ok() const noexcept { return !error_; }
    const json_error& error() const { return *error_; }
    /// Records a failure (the first one wins).
    void fail(const json_node& at, std::string message);

    /// Checks that a present node is an object; returns false (and fails) otherwise.
    bool object(const json_node& n);
    /// Array size (0 when absent); fails when present and not an array.
    std::size_t array(const json_node& n);
    /// Fails on any member not in `known` (strict decoding of specs we own).
    void known_fields(const json_node& n, std::initializer_list<std::string_view> known);

    std::string string(const json_node& n); ///< required
    std::optional<std::string> opt_string(const json_node& n);
    /// As opt_string, viewing the document's text (valid while the document is).
    std::optional<std::string_view> opt_string_view(const json_node& n);
    std::optional<std::int64_t> opt_int(const json_node& n, std::int64_t min, std::int64_t max);
    std::optional<std::int32_t> opt_int32(const json_node& n, std::int32_t min = INT32_MIN,
                                          std::int32_t max = INT32_MAX);
    std::optional<double> opt_number(const json_node& n);
    std::optional<bool> opt_bool(const json_node& n);
    /// A quantity string (or a bare JSON number, as the API server accepts).
    std::optional<core::quantity> opt_quantity(const json_node& n);
    std::optional<core::time_point> opt_time(const json_node& n);
    /// A Go duration string (`30s`).
    std::optional<std::chrono::nanoseconds> opt_duration(const json_node& n);
    /// A string → string map (labels, metricLabels).
    core::label_map string_map(const json_node& n);
    /// A resource name → quantity map (requests, limits, usage).
    core::resource_list resources(const json_node& n);
    /// metav1.LabelSelector.
    std::optional<core::label_selector_spec> selector(const json_node& n);
    /// The `metadata` every kind has, of the object `n` (what is absent stays empty).
    object_meta meta(const json_node& n);

  private:
    std::optional<json_error> error_;
};

/// Parses JSON text; the error names the offset and RapidJSON's reason.
std::optional<json_error> parse_json(rapidjson::Document& doc, std::string_view text,
                                     std::string_view what);

} // namespace hpaplus::kube
