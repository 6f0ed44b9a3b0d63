// sim/apiserver/cel_parts.hpp — what the parts of the CEL implementation share (not for other
// rooms: cel.hpp is the interface): the expression tree, value helpers, strings as code points,
// schema lookups, and the entry points of the parser and the checker. cel.cpp holds the shared
// helpers and compile(); cel_syntax.cpp the lexer and parser; cel_checker.cpp the checker;
// cel_evaluator.cpp the evaluator; cel_cost.cpp the cost bounds.
#pragma once

#include "sim/apiserver/cel.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::sim::cel {

using vk = value::kind;
using node_ptr = std::shared_ptr<const node>;

/// An expression tree. Operators are calls named as cel-go names them (`_&&_`, `_[_]`, `@in`).
struct node {
    enum class op : std::uint8_t { literal, ident, select, has, call, list, map, comprehension };
    op o = op::literal;
    std::size_t at = 0; ///< its offset in the source (errors point at it)
    int depth = 1;
    value literal;
    std::string name;           ///< identifier, field, function or macro
    std::string var;            ///< a comprehension's variable
    std::vector<node_ptr> args; ///< operands; a member call's target is args[0]
    bool member = false;
};

value uinteger(std::uint64_t v);
value real(double v);
value type_value(std::string name);
value list_of(std::vector<value> items);
bool flag(const json* schema, const char* name);
std::string_view schema_type(const json* schema);

// Strings as code points (size, indexOf, charAt and substring count them, as cel-go does).
std::vector<std::size_t> code_point_offsets(std::string_view s);
std::size_t next_boundary(std::string_view s, std::size_t i);
std::size_t code_points(std::string_view s);
void append_utf8(std::string& out, std::uint32_t cp);
/// Go's fmt %g of a double, which cel-go's string(double) prints.
std::string format_double(double d);

/// CEL's reserved words (not identifiers).
const std::set<std::string_view>& reserved_words();
/// cel-go's error text: the position (1-based line and column) and the line with a caret.
std::string located(std::string_view source, std::size_t at, const std::string& message);
/// A list schema's items, a map schema's additionalProperties (null when not an object).
const json* items_of(const json* schema);
const json* additional_of(const json* schema);
/// A property name as a rule spells it, unescaped (`__dash__` is `-`).
std::string unescaped(std::string_view name);

/// The parser (cel_syntax.cpp): the tree, or cel-go's error text.
struct parsed {
    node_ptr root;
    std::string error;
};
parsed parse_expression(std::string_view source);

/// The checker (cel_checker.cpp): what cel-go's type checker refuses, as far as the schema tells
/// types; the result's type as far as it is known.
struct checked {
    std::string error;
    enum class result : std::uint8_t { dyn, boolean, string, other } type = result::dyn;
    bool uses_old_self = false;
};
checked check_expression(std::string_view source, const node& root, const json* self_schema,
                         bool resource_root);

// Binds a comprehension's variable in `scope` for its body and restores what it shadowed.
template <class Map> class binding {
  public:
    binding(Map& scope, const std::string& name, typename Map::mapped_type value)
        : scope_(scope), name_(name) {
        if (const auto it = scope_.find(name_); it != scope_.end()) {
            had_ = true;
            old_ = std::move(it->second);
        }
        scope_[name_] = std::move(value);
    }
    binding(const binding&) = delete;
    binding& operator=(const binding&) = delete;
    ~binding() {
        if (had_)
            scope_[name_] = std::move(old_);
        else
            scope_.erase(name_);
    }

  private:
    Map& scope_;
    std::string name_;
    bool had_ = false;
    typename Map::mapped_type old_{};
};

} // namespace hpaplus::sim::cel
