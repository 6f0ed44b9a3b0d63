// core/label_selector.cpp — label selector parsing and matching, after apimachinery's labels
// package.
#include "core/label_selector.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace hpaplus::core {
namespace {

bool is_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool is_qualified_name_part(std::string_view s) {
    if (s.empty() || s.size() > 63 || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool is_dns_subdomain(std::string_view s) {
    if (s.empty() || s.size() > 253) return false;
    if (!is_alnum(s.front()) || !is_alnum(s.back())) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    });
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

bool parse_int(std::string_view s, long long& out) {
    const auto* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc() && ptr == end;
}

std::string quoted(std::string_view s) {
    return "\"" + std::string(s) + "\"";
}

outcome<label_requirement> make_requirement(std::string_view key, selector_op op,
                                            std::vector<std::string> values) {
    if (!is_valid_label_key(key)) return error_message("invalid label key " + quoted(key));
    switch (op) {
    case selector_op::in:
    case selector_op::not_in:
        if (values.empty())
            return error_message("for 'in', 'notin' operators, values set can't be empty");
        break;
    case selector_op::equals:
    case selector_op::not_equals:
        if (values.size() != 1)
            return error_message("exact-match compatibility requires one single value");
        break;
    case selector_op::exists:
    case selector_op::does_not_exist:
        if (!values.empty())
            return error_message("values set must be empty for exists and does not exist");
        break;
    case selector_op::greater_than:
    case selector_op::less_than: {
        long long n = 0;
        if (values.size() != 1 || !parse_int(values[0], n))
            return error_message("for 'Gt', 'Lt' operators, the value must be an integer");
        break;
    }
    }
    for (const auto& v : values) {
        if (op != selector_op::greater_than && op != selector_op::less_than &&
            !is_valid_label_value(v))
            return error_message("invalid label value " + quoted(v) + " for key " + quoted(key));
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return label_requirement{std::string(key), op, std::move(values)};
}

// Splits on commas that are not inside parentheses.
outcome<std::vector<std::string_view>> split_terms(std::string_view text) {
    std::vector<std::string_view> terms;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '(') {
            if (++depth > 1) return std::string("nested parentheses in selector");
        } else if (text[i] == ')') {
            if (--depth < 0) return std::string("unbalanced ')' in selector");
        } else if (text[i] == ',' && depth == 0) {
            terms.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    if (depth != 0) return std::string("missing ')' in selector");
    terms.push_back(text.substr(start));
    return terms;
}

// `key in (a, b)` / `key notin (a,b)`; returns false when the term is not of that shape.
bool split_set_term(std::string_view term, std::string_view& key, selector_op& op,
                    std::string_view& list) {
    const auto open = term.find('(');
    if (open == std::string_view::npos || term.back() != ')') return false;
    std::string_view head = trim(term.substr(0, open));
    for (auto [word, kind] : {std::pair{std::string_view("notin"), selector_op::not_in},
                              std::pair{std::string_view("in"), selector_op::in}}) {
        if (head.size() > word.size() && head.substr(head.size() - word.size()) == word) {
            const std::string_view k = head.substr(0, head.size() - word.size());
            if (!k.empty() && (k.back() == ' ' || k.back() == '\t')) {
                key = trim(k);
                op = kind;
                list = term.substr(open + 1, term.size() - open - 2);
                return true;
            }
        }
    }
    return false;
}

outcome<label_requirement> parse_term(std::string_view raw) {
    const std::string_view term = trim(raw);
    if (term.empty()) return error_message("empty requirement in selector");
    if (term.front() == '!') {
        const auto key = trim(term.substr(1));
        return make_requirement(key, selector_op::does_not_exist, {});
    }
    std::string_view key, list;
    selector_op op{};
    if (split_set_term(term, key, op, list)) {
        const auto items = split_terms(list); // `t in()n()` leaves ")n(" here
        if (!items) return items.error();
        std::vector<std::string> values;
        for (auto v : *items)
            values.emplace_back(trim(v));
        if (values.size() == 1 && values[0].empty()) values.clear();
        return make_requirement(key, op, std::move(values));
    }
    for (auto [token, kind] : {std::pair{std::string_view("!="), selector_op::not_equals},
                               std::pair{std::string_view("=="), selector_op::equals},
                               std::pair{std::string_view("="), selector_op::equals},
                               std::pair{std::string_view(">"), selector_op::greater_than},
                               std::pair{std::string_view("<"), selector_op::less_than}}) {
        const auto at = term.find(token);
        if (at != std::string_view::npos) {
            return make_requirement(trim(term.substr(0, at)), kind,
                                    {std::string(trim(term.substr(at + token.size())))});
        }
    }
    if (term.find_first_of(" \t()") != std::string_view::npos)
        return error_message("unable to parse requirement: " + quoted(term));
    return make_requirement(term, selector_op::exists, {});
}

} // namespace

bool is_valid_label_key(std::string_view key) {
    const auto slash = key.find('/');
    if (slash == std::string_view::npos) return is_qualified_name_part(key);
    return is_dns_subdomain(key.substr(0, slash)) && is_qualified_name_part(key.substr(slash + 1));
}

bool is_valid_label_value(std::string_view value) {
    return value.empty() || is_qualified_name_part(value);
}

// label_map: entries are [u32 key length][key][u32 value length][value], in key order.

namespace {

std::uint32_t read_length(const char* at) {
    std::uint32_t n = 0;
    std::memcpy(&n, at, sizeof n);
    return n;
}

// Writes `text` with its length at `at`; returns where the next one goes.
char* put_text(char* at, std::string_view text) {
    if (text.size() > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("a label longer than 4 GiB");
    const auto n = static_cast<std::uint32_t>(text.size());
    std::memcpy(at, &n, sizeof n);
    if (!text.empty()) std::memcpy(at + sizeof n, text.data(), text.size()); // data() may be null
    return at + sizeof n + text.size();
}

constexpr std::size_t entry_overhead = 2 * sizeof(std::uint32_t);

std::string entry(std::string_view key, std::string_view value) {
    std::string out(entry_overhead + key.size() + value.size(), '\0');
    put_text(put_text(out.data(), key), value);
    return out;
}

} // namespace

label_map::value_type label_map::iterator::operator*() const {
    const std::uint32_t key = read_length(at_);
    const char* value = at_ + sizeof key + key;
    return {{at_ + sizeof key, key}, {value + sizeof key, read_length(value)}};
}

label_map::iterator& label_map::iterator::operator++() {
    const auto [key, value] = **this;
    at_ = value.data() + value.size();
    return *this;
}

label_map::label_map(std::initializer_list<value_type> labels) {
    std::vector<value_type> views(labels);
    *this = from_views(views);
}

void label_map::assign(std::string_view bytes) {
    if (bytes.empty()) {
        data_.reset();
    } else {
        auto buffer = std::make_shared_for_overwrite<char[]>(bytes.size());
        std::memcpy(buffer.get(), bytes.data(), bytes.size());
        data_ = std::move(buffer);
    }
    size_ = bytes.size();
}

label_map label_map::from_views(std::span<value_type> labels, bool* duplicates,
                                const label_map* like) {
    const auto by_key = [](const value_type& a, const value_type& b) { return a.first < b.first; };
    // Stable either way (of equal keys the first is kept). Insertion sort for the usual few:
    // std::stable_sort asks for a buffer on the heap on every call.
    if (labels.size() <= 16) {
        for (std::size_t i = 1; i < labels.size(); ++i)
            for (std::size_t j = i; j > 0 && by_key(labels[j], labels[j - 1]); --j)
                std::swap(labels[j], labels[j - 1]);
    } else {
        std::stable_sort(labels.begin(), labels.end(), by_key);
    }
    const auto last =
        std::unique(labels.begin(), labels.end(),
                    [](const value_type& a, const value_type& b) { return a.first == b.first; });
    if (duplicates) *duplicates = last != labels.end();
    labels = labels.first(static_cast<std::size_t>(last - labels.begin()));
    if (like && std::equal(labels.begin(), labels.end(), like->begin(), like->end())) return *like;
    std::size_t bytes = 0;
    for (const auto& [key, value] : labels)
        bytes += entry_overhead + key.size() + value.size();
    label_map out;
    if (bytes == 0) return out;
    auto buffer = std::make_shared_for_overwrite<char[]>(bytes);
    char* at = buffer.get();
    for (const auto& [key, value] : labels)
        at = put_text(put_text(at, key), value);
    out.data_ = std::move(buffer);
    out.size_ = bytes;
    return out;
}

std::size_t label_map::size() const {
    return static_cast<std::size_t>(std::distance(begin(), end()));
}

label_map::iterator label_map::lower_bound(std::string_view key) const {
    auto it = begin();
    while (it != end() && it->first < key)
        ++it;
    return it;
}

label_map::iterator label_map::find(std::string_view key) const {
    const auto it = lower_bound(key);
    return it != end() && it->first == key ? it : end();
}

std::string_view label_map::at(std::string_view key) const {
    const auto it = find(key);
    if (it == end()) throw std::out_of_range("no label \"" + std::string(key) + "\"");
    return it->second;
}

bool label_map::emplace(std::string_view key, std::string_view value) {
    const auto it = lower_bound(key);
    if (it != end() && it->first == key) return false;
    std::string text(bytes());
    text.insert(static_cast<std::size_t>(it.at_ - data_.get()), entry(key, value));
    assign(text);
    return true;
}

void label_map::insert_or_assign(std::string_view key, std::string_view value) {
    const auto it = lower_bound(key);
    const auto at = static_cast<std::size_t>(it.at_ - data_.get());
    std::string text(bytes());
    if (it != end() && it->first == key)
        text.erase(at, entry_overhead + it->first.size() + it->second.size());
    text.insert(at, entry(key, value));
    assign(text);
}

bool label_map::erase(std::string_view key) {
    const auto it = find(key);
    if (it == end()) return false;
    std::string text(bytes());
    text.erase(static_cast<std::size_t>(it.at_ - data_.get()),
               entry_overhead + it->first.size() + it->second.size());
    assign(text);
    return true;
}

bool label_requirement::matches(const label_map& labels) const {
    const auto it = labels.find(key);
    const bool has = it != labels.end();
    switch (op) {
    case selector_op::equals:
    case selector_op::in:
        return has && std::find(values.begin(), values.end(), it->second) != values.end();
    case selector_op::not_equals:
    case selector_op::not_in:
        return !has || std::find(values.begin(), values.end(), it->second) == values.end();
    case selector_op::exists:
        return has;
    case selector_op::does_not_exist:
        return !has;
    case selector_op::greater_than:
    case selector_op::less_than: {
        long long have = 0, want = 0;
        if (!has || !parse_int(it->second, have) || !parse_int(values.at(0), want)) return false;
        return op == selector_op::greater_than ? have > want : have < want;
    }
    }
    return false;
}

bool label_selector::matches(const label_map& labels) const {
    return std::all_of(requirements.begin(), requirements.end(),
                       [&](const label_requirement& r) { return r.matches(labels); });
}

outcome<label_selector> parse_label_selector(std::string_view text) {
    label_selector selector;
    if (trim(text).empty()) return selector;
    auto terms = split_terms(text);
    if (!terms) return terms.error();
    for (auto term : *terms) {
        auto requirement = parse_term(term);
        if (!requirement) return requirement.error();
        selector.requirements.push_back(std::move(*requirement));
    }
    // Stable: requirements on one key keep their order, so the string form parses back the same.
    std::stable_sort(selector.requirements.begin(), selector.requirements.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });
    return selector;
}

outcome<label_selector> to_label_selector(const label_selector_spec& spec) {
    label_selector selector;
    for (const auto& [key, value] : spec.match_labels) {
        auto r = make_requirement(std::string(key), selector_op::equals, {std::string(value)});
        if (!r) return r.error();
        selector.requirements.push_back(std::move(*r));
    }
    for (const auto& e : spec.match_expressions) {
        selector_op op{};
        if (e.op == "In")
            op = selector_op::in;
        else if (e.op == "NotIn")
            op = selector_op::not_in;
        else if (e.op == "Exists")
            op = selector_op::exists;
        else if (e.op == "DoesNotExist")
            op = selector_op::does_not_exist;
        else
            return error_message(quoted(e.op) + " is not a valid label selector operator");
        auto r = make_requirement(e.key, op, e.values);
        if (!r) return r.error();
        selector.requirements.push_back(std::move(*r));
    }
    std::stable_sort(selector.requirements.begin(), selector.requirements.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });
    return selector;
}

std::string to_string(const label_selector& selector) {
    std::string out;
    for (const auto& r : selector.requirements) {
        if (!out.empty()) out += ',';
        std::vector<std::string> values = r.values;
        std::sort(values.begin(), values.end());
        auto joined = [&] {
            // The set holding only "" (from `x in (,)`) is written `(,)`: upstream's `()` would
            // read back as an empty set, which is invalid.
            if (values.size() == 1 && values[0].empty()) return std::string("(,)");
            std::string list = "(";
            for (std::size_t i = 0; i < values.size(); ++i)
                list += (i ? "," : "") + values[i];
            return list + ")";
        };
        const std::string first = values.empty() ? std::string() : values.front();
        switch (r.op) {
        case selector_op::equals:
            out += r.key + "=" + first;
            break;
        case selector_op::not_equals:
            out += r.key + "!=" + first;
            break;
        case selector_op::in:
            out += r.key + " in " + joined();
            break;
        case selector_op::not_in:
            out += r.key + " notin " + joined();
            break;
        case selector_op::exists:
            out += r.key;
            break;
        case selector_op::does_not_exist:
            out += "!" + r.key;
            break;
        case selector_op::greater_than:
            out += r.key + ">" + first;
            break;
        case selector_op::less_than:
            out += r.key + "<" + first;
            break;
        }
    }
    return out;
}

} // namespace hpaplus::core
