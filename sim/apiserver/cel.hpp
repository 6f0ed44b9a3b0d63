// sim/apiserver/cel.hpp — the Common Expression Language as kube-apiserver runs a CRD's
// `x-kubernetes-validations` rules: parsed with depth and size limits, checked against the
// schema `self` has (an undefined field, an undeclared name or an operator on the wrong types is
// a compile error in cel-go's words), and evaluated with cel-go's semantics (errors are values;
// `&&`, `||` and the `all`/`exists` macros absorb them as the spec says) under a cost limit, so a
// hostile rule ends with an error, never a hang. Pure: no I/O.
//
// What it knows: literals (int, uint, double, string and bytes with every escape, raw strings,
// triple quotes, bool, null), lists and maps, the operators, `has`, `all`, `exists`,
// `exists_one`, `map` (2 and 3 arguments), `filter`, `size`, `in`, `contains`, `startsWith`,
// `endsWith`, the conversions (`int`, `uint`, `double`, `string`, `bool`, `bytes`, `dyn`, `type`)
// and of the Kubernetes string library `lowerAscii`, `upperAscii`, `trim`, `join`, `indexOf`,
// `lastIndexOf`, `charAt`, `substring`, `replace`, `split`. Everything else (`matches` —
// RE2 is not at hand, and std::regex is not linear —, timestamps, durations, quantities, URLs,
// IPs) is refused at compile time as "not supported by the simulated cluster".
#pragma once

#include "sim/json_util.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::sim::cel {

/// A CEL value. Objects and arrays of the document being validated are read in place (`doc`,
/// typed by `schema`); lists and maps a rule builds are held in `items`/`entries`.
struct value {
    enum class kind : std::uint8_t {
        null,
        boolean,
        integer,
        uinteger,
        real,
        string,
        bytes,
        list,
        map,
        type,
        error
    };
    kind k = kind::null;
    bool b = false;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double d = 0;
    std::string s; ///< string or bytes, a type's name, an error's message
    std::shared_ptr<const std::vector<value>> items;
    std::shared_ptr<const std::vector<std::pair<value, value>>> entries;
    const json* doc = nullptr;    ///< a list or map read from the document
    const json* schema = nullptr; ///< its schema (null: typed by its JSON)

    static value boolean(bool v);
    static value integer(std::int64_t v);
    static value string(std::string v);
    static value error(std::string message);
    bool is_error() const { return k == kind::error; }
};

/// The value a JSON node has under `schema` (integer → int, number → double, int-or-string →
/// either, no schema → by its JSON).
value value_of(const json& v, const json* schema);

/// A list's or map's size; a list's element and a map's entry at a position.
std::size_t size_of(const value& v);
value element_at(const value& list, std::size_t i);
std::pair<value, value> entry_at(const value& map, std::size_t i);

/// cel-go's name of a value's type: `int`, `list`, `map`…
std::string type_name(const value& v);

struct node;

/// A compiled expression.
struct program {
    std::shared_ptr<const node> root;
    bool uses_old_self = false;
};

/// What a compiled expression must evaluate to.
enum class result_type : std::uint8_t { boolean, string };

struct compiled {
    std::optional<program> ok;
    std::string error; ///< "ERROR: <input>:1:6: undefined field 'x'\n | self.x\n | .....^"
};

/// The limits of a source and of its nesting (cel-go allows 100,000 code points and 250 levels of
/// parser recursion; the sim keeps to 100 levels of nesting and 250 of the expression tree).
inline constexpr std::size_t max_source_bytes = 100'000;
inline constexpr int max_nesting = 100;
inline constexpr int max_tree_depth = 250;

/// Compiles `source` with `self` (and `oldSelf`) typed by `self_schema`. `resource_root`: self is
/// a whole object, of whose metadata a rule sees only name and generateName.
compiled compile(std::string_view source, const json* self_schema, result_type want,
                 bool resource_root = false);

/// kube-apiserver's limit per evaluation of one rule (celconfig.PerCallLimit) and per object
/// (RuntimeCELCostBudget). The sim's costs are one per step, plus a tenth of each string a step
/// reads or writes, plus each element a step builds: not cel-go's exact figures, a bound of the
/// same order.
inline constexpr std::uint64_t per_call_limit = 1'000'000;
inline constexpr std::uint64_t cost_budget = 10'000'000;
inline constexpr std::string_view cost_exceeded = "operation cancelled: actual cost limit exceeded";

struct evaluation {
    value result;
    std::uint64_t cost = 0;
};

/// Evaluates with `self` (and `oldSelf`, when given) bound; an error is a value of kind error
/// with cel-go's message (`no such key: x`, `division by zero`, `no such overload`…).
evaluation evaluate(const program& p, const value& self, const value* old_self = nullptr,
                    std::uint64_t limit = per_call_limit);

/// What makes a rule's cost unbounded as the real server's estimator sees it: each list or map it
/// walks or sizes without `maxItems`/`maxProperties`, each string it compares or searches
/// without `maxLength` (or `enum`), as "`self.x`: list without maxItems". For the manifest test
/// of crds/ (the real server refuses a CRD whose estimated cost passes its limit).
std::vector<std::string> unbounded_inputs(const program& p, const json* self_schema);

/// An upper bound of a rule's cost with every list at its maxItems and every string at its
/// maxLength (std::nullopt when some input is unbounded).
std::optional<std::uint64_t> estimated_cost(const program& p, const json* self_schema);

/// kube-apiserver's limit of one rule's estimated cost (StaticEstimatedCostLimit).
inline constexpr std::uint64_t static_cost_limit = 10'000'000;

} // namespace hpaplus::sim::cel
