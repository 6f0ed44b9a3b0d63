// core/label_selector.hpp — Kubernetes label selectors: the string form (`app=web,tier in (a,b)`)
// and the struct form (matchLabels + matchExpressions), with matching against a label set.
#pragma once

#include "core/outcome.hpp"
#include <boost/system/result.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::core {

/// Labels of one object.
using label_map = std::map<std::string, std::string, std::less<>>;

enum class selector_op {
    equals,
    not_equals,
    in,
    not_in,
    exists,
    does_not_exist,
    greater_than,
    less_than
};

/// One ANDed term of a selector.
struct label_requirement {
    std::string key;
    selector_op op = selector_op::exists;
    std::vector<std::string> values;

    bool matches(const label_map& labels) const;
    friend bool operator==(const label_requirement&, const label_requirement&) = default;
};

/// A parsed selector; an empty one selects everything.
struct label_selector {
    std::vector<label_requirement> requirements;

    bool matches(const label_map& labels) const;
    bool empty() const noexcept { return requirements.empty(); }
    friend bool operator==(const label_selector&, const label_selector&) = default;
};

/// The struct form of a selector, as it appears in specs (metav1.LabelSelector).
struct label_selector_spec {
    struct expression {
        std::string key;
        std::string op; // In, NotIn, Exists, DoesNotExist
        std::vector<std::string> values;
        friend bool operator==(const expression&, const expression&) = default;
    };
    label_map match_labels;
    std::vector<expression> match_expressions;
    friend bool operator==(const label_selector_spec&, const label_selector_spec&) = default;
};

/// Parses the string form (`labels.Parse`); the error says what is wrong and where.
outcome<label_selector> parse_label_selector(std::string_view text);

/// Converts the struct form (`metav1.LabelSelectorAsSelector`).
outcome<label_selector> to_label_selector(const label_selector_spec& spec);

/// The string form (`labels.Selector.String()`): requirements in key order, values sorted, e.g.
/// `app=web,tier in (a,b)`. Parsing it gives the same selector back.
std::string to_string(const label_selector& selector);

/// Checks a label key (optional DNS-subdomain prefix, `/`, a name of at most 63 characters).
bool is_valid_label_key(std::string_view key);
/// Checks a label value (empty, or at most 63 alphanumerics, `-`, `_`, `.` starting and ending
/// alphanumeric).
bool is_valid_label_value(std::string_view value);

} // namespace hpaplus::core
