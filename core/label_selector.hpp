// core/label_selector.hpp — Kubernetes label selectors: the string form (`app=web,tier in (a,b)`)
// and the struct form (matchLabels + matchExpressions), with matching against a label set.
#pragma once

#include "core/outcome.hpp"
#include <boost/system/result.hpp>

#include <array>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpaplus::core {

class label_interner;

/// Labels of one object: key → value in key order, kept in one immutable buffer (length-prefixed
/// keys and values) that copies share, because the controller holds a set for every cached pod and
/// PodMetrics — the pods of one ReplicaSet all alike — and reads them far more often than it
/// changes them. Copying a set costs a reference count; reads give views, which live as long as
/// the set is not changed. Changing a set copies its buffer: build large sets with from_pairs.
class label_map {
  public:
    using value_type = std::pair<std::string_view, std::string_view>;

    class iterator {
      public:
        using value_type = label_map::value_type;
        using difference_type = std::ptrdiff_t;
        using iterator_category = std::forward_iterator_tag;
        struct arrow {
            value_type entry;
            const value_type* operator->() const { return &entry; }
        };
        iterator() = default;
        explicit iterator(const char* at) : at_(at) {}
        value_type operator*() const;
        arrow operator->() const { return {**this}; }
        iterator& operator++();
        iterator operator++(int) {
            iterator before = *this;
            ++*this;
            return before;
        }
        friend bool operator==(iterator, iterator) = default;

      private:
        friend class label_map;
        const char* at_ = nullptr;
    };
    using const_iterator = iterator;

    label_map() = default;
    /// Of equal keys the first is kept, as with std::map.
    label_map(std::initializer_list<value_type> labels);

    /// Builds a set from pairs in any order in O(n log n), sorting `labels` in place; of equal
    /// keys the first is kept, and `duplicates` (when given) says whether there were any. When the
    /// set equals `like` (when given), it shares like's buffer instead of allocating its own.
    static label_map from_views(std::span<value_type> labels, bool* duplicates = nullptr,
                                const label_map* like = nullptr);
    template <class Pairs>
    static label_map from_pairs(const Pairs& labels, bool* duplicates = nullptr,
                                const label_map* like = nullptr) {
        // The usual few labels are viewed from the stack: a set is built for every decoded pod.
        constexpr std::size_t on_stack = 16;
        if (labels.size() <= on_stack) {
            std::array<value_type, on_stack> views;
            std::size_t n = 0;
            for (const auto& [key, value] : labels)
                views[n++] = {key, value};
            return from_views(std::span(views.data(), n), duplicates, like);
        }
        std::vector<value_type> views;
        views.reserve(labels.size());
        for (const auto& [key, value] : labels)
            views.emplace_back(key, value);
        return from_views(views, duplicates, like);
    }

    iterator begin() const { return iterator(data_.get()); }
    iterator end() const { return iterator(data_.get() + size_); }
    bool empty() const noexcept { return size_ == 0; }
    std::size_t size() const;

    iterator find(std::string_view key) const;
    bool contains(std::string_view key) const { return find(key) != end(); }
    /// The value of `key`; throws std::out_of_range when there is none.
    std::string_view at(std::string_view key) const;

    /// Adds the label unless its key is there (std::map's emplace); true when added.
    bool emplace(std::string_view key, std::string_view value);
    /// Adds the label or replaces the value of its key.
    void insert_or_assign(std::string_view key, std::string_view value);
    /// Removes the label of `key`; true when there was one.
    bool erase(std::string_view key);

    /// Whether the two share one buffer (from_views' `like`, label_interner).
    bool shares_with(const label_map& other) const noexcept {
        return data_ != nullptr && data_ == other.data_;
    }

    friend bool operator==(const label_map& a, const label_map& b) noexcept {
        return a.bytes() == b.bytes();
    }

  private:
    friend class label_interner;
    iterator lower_bound(std::string_view key) const; ///< the first entry not before `key`
    std::string_view bytes() const noexcept { return {data_.get(), size_}; }
    void assign(std::string_view bytes); ///< a new buffer holding `bytes`
    std::shared_ptr<const char[]> data_; ///< null when empty
    std::size_t size_ = 0;
};

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
