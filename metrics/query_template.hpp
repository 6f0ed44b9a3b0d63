// metrics/query_template.hpp — `{{placeholder}}` templates for backend queries, URLs and bodies,
// and the PromQL forms of Kubernetes selectors and pod lists. Pure text work.
#pragma once

#include "core/label_selector.hpp"
#include "core/outcome.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpaplus::metrics {

/// How a substituted value is written into the surrounding text.
enum class value_encoding {
    raw,      ///< as is (a query in a language HPAPlus does not know)
    percent,  ///< URL-encoded (a URL template)
    json,     ///< escaped for a JSON string (a JSON body template)
    promql,   ///< escaped for a PromQL string literal, "..." (`\` and `"`)
    influxql, ///< escaped for an InfluxQL string literal, '...' (`\` and `'`)
};

/// Placeholder name → value.
using template_values = std::vector<std::pair<std::string_view, std::string>>;

/// The placeholders a metric query may use, in the order the docs list them.
const std::vector<std::string_view>& query_placeholders();

/// Replaces every `{{name}}` (spaces inside the braces allowed) with its value. An unknown name
/// or an unterminated `{{` is an error naming it.
core::outcome<std::string> expand(std::string_view text, const template_values& values,
                                  value_encoding encoding = value_encoding::raw);

/// A metric query: like expand(), escaping every value for `language` (promql, influxql or raw)
/// except `{{selector}}` and `{{window}}`, which are query text already (label matchers, a
/// duration). A namespace, name or label value can then never end a string literal early.
core::outcome<std::string> expand_query(std::string_view text, const template_values& values,
                                        value_encoding language);

/// Checks that `text` uses only `known` placeholders (for start-up validation).
core::outcome<void> check_placeholders(std::string_view text,
                                       const std::vector<std::string_view>& known);

/// A selector as PromQL label matchers without braces: `app="web",tier=~"a|b"`. Label keys are
/// turned into Prometheus names (`app.kubernetes.io/name` → `app_kubernetes_io_name`).
/// Gt/Lt requirements cannot be expressed and are an error.
core::outcome<std::string> promql_matchers(const core::label_selector& selector);

/// `a|b\.c` — an alternation matching exactly these names (regex metacharacters escaped).
std::string regex_alternation(const std::vector<std::string_view>& names);

/// Escapes `"` and `\` (and control characters) for a JSON or PromQL string.
std::string escape_string(std::string_view s);

/// Escapes `'` and `\` (and control characters) for an InfluxQL single-quoted string.
std::string escape_influxql(std::string_view s);

} // namespace hpaplus::metrics
