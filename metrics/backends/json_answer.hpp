// metrics/backends/json_answer.hpp — reading a JSON answer, for the backend types: the body with
// the JSON door's limits, values as numbers or numeric strings, timestamps, and a value added to
// an answer only when an autoscaler can use it.
#pragma once

#include "core/time.hpp"
#include "metrics/backend_answer.hpp"

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>

namespace hpaplus::metrics::json_answer {

/// An answer that is `kind` for `error`.
backend_answer failed(answer_kind kind, std::string error);
/// "" or what is wrong with the body as JSON: too large, too deep, or not JSON at all.
std::string parse(rapidjson::Document& doc, std::string_view body);
/// The value at an RFC 6901 pointer ("" = the root), or null.
const rapidjson::Value* at(const rapidjson::Value& root, const std::string& pointer);
/// A string's text; "" for null or nothing; "(not a string)" otherwise.
std::string text_of(const rapidjson::Value* v);
/// The text at `pointer` of a JSON body, or "" (not JSON, nothing there).
std::string text_at(std::string_view body, const std::string& pointer);
/// A number, or a numeric string (Prometheus sends "1.5", "NaN", "+Inf").
std::optional<double> number(const rapidjson::Value* v);
/// RFC 3339 text or Unix seconds.
std::optional<core::time_point> timestamp(const rapidjson::Value* v);
/// Adds one value times `scale` to `a`; false (and `a` a bad answer) for what no autoscaler can
/// use: not a number, NaN, infinite, or infinite once scaled.
bool add(backend_answer& a, std::string pod, std::optional<double> v,
         std::optional<core::time_point> at, double scale);

} // namespace hpaplus::metrics::json_answer
