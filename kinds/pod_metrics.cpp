// kinds/pod_metrics.cpp — the PodMetrics decoders: one document, and the one-pass list (see the
// header).
#include "kinds/pod_metrics.hpp"

#include "core/duration.hpp"
#include "core/time.hpp"

#include <rapidjson/reader.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpaplus::kinds {

core::pod_metrics decode_pod_metrics(kube::json_decoder& d, const kube::json_node& n) {
    core::pod_metrics m;
    if (!d.object(n)) {
        d.fail(n, "expected a PodMetrics object");
        return m;
    }
    m.name = d.string(n["metadata"]["name"]);
    m.namespace_ = d.opt_string(n["metadata"]["namespace"]).value_or("default");
    m.labels = d.string_map(n["metadata"]["labels"]);
    m.timestamp = d.opt_time(n["timestamp"]).value_or(core::time_point{});
    m.window = d.opt_duration(n["window"]).value_or(std::chrono::nanoseconds{0});
    const kube::json_node containers = n["containers"];
    for (std::size_t i = 0, size = d.array(containers); i < size; ++i) {
        const kube::json_node c = containers.at(i);
        auto& container = m.containers.emplace_back();
        container.name = d.string(c["name"]);
        auto usage = d.resources(c["usage"]);
        container.usage.assign(std::make_move_iterator(usage.begin()),
                               std::make_move_iterator(usage.end()));
    }
    return m;
}

namespace {

constexpr std::size_t list_max_depth = 512;                    // as net::parse_json
constexpr std::size_t list_max_bytes = std::size_t{64} << 20;  // as net::parse_json
constexpr std::size_t list_reuse_bytes = std::size_t{4} << 20; // a larger copy is given back

// Where the reader is: the objects and arrays this decoder reads, innermost last.
enum class place : std::uint8_t {
    list,
    items,
    item,
    metadata,
    labels,
    containers,
    container,
    usage
};

// The key whose value comes next; `other` is a key this decoder does not read (its value, of any
// shape, is passed over).
enum class field : std::uint8_t {
    none,
    other,
    items,
    metadata,
    timestamp,
    window,
    containers,
    name,
    namespace_,
    labels,
    usage,
};

std::string_view trim_blanks(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\n\r");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\n\r") - first + 1);
}

class handler {
  public:
    /// Decodes into `items`, reusing the pods it holds (each reset in place as a new one starts);
    /// `used()` of them are this list's.
    explicit handler(std::vector<core::pod_metrics>& items) : items(items) {}
    std::size_t used() const { return used_; }

    bool Null() { return scalar(); }
    bool Bool(bool) { return scalar(); }
    bool Int(int) { return scalar(); }
    bool Uint(unsigned) { return scalar(); }
    bool Int64(std::int64_t) { return scalar(); }
    bool Uint64(std::uint64_t) { return scalar(); }
    bool Double(double) { return scalar(); }
    bool RawNumber(const char*, rapidjson::SizeType, bool) { return scalar(); }
    bool String(const char* s, rapidjson::SizeType n, bool) { return text({s, n}); }
    bool StartObject() { return open(true); }
    bool StartArray() { return open(false); }
    bool EndObject(rapidjson::SizeType) { return close(); }
    bool EndArray(rapidjson::SizeType) { return close(); }

    bool Key(const char* s, rapidjson::SizeType n, bool) {
        if (skipping_ > 0) return true;
        const std::string_view k(s, n);
        switch (places_.back()) {
        case place::list:
            return take(k == "items" ? field::items : field::other, list_seen_);
        case place::item:
            return take(k == "metadata"     ? field::metadata
                        : k == "timestamp"  ? field::timestamp
                        : k == "window"     ? field::window
                        : k == "containers" ? field::containers
                                            : field::other,
                        item_seen_);
        case place::metadata:
            return take(k == "name"        ? field::name
                        : k == "namespace" ? field::namespace_
                        : k == "labels"    ? field::labels
                                           : field::other,
                        metadata_seen_);
        case place::container:
            return take(k == "name"    ? field::name
                        : k == "usage" ? field::usage
                                       : field::other,
                        container_seen_);
        case place::labels:
        case place::usage:
            key_ = k;
            return true;
        default:
            return false;
        }
    }

  private:
    // A key this decoder reads may come once per object: with two, the DOM decoder reads the
    // first, and this one would have to know it did.
    bool take(field f, unsigned& seen) {
        field_ = f;
        if (f == field::other) return true;
        const unsigned bit = 1u << static_cast<unsigned>(f);
        if (seen & bit) return false;
        seen |= bit;
        return true;
    }

    core::pod_metrics& pod() { return items[used_ - 1]; }

    // The next pod: one held from an earlier list, emptied with its strings' storage kept, or a
    // new one.
    void next_pod() {
        if (used_ == items.size()) {
            items.emplace_back();
        } else {
            core::pod_metrics& p = items[used_];
            p.name.clear();
            p.namespace_.clear();
            p.labels = {};
            p.timestamp = {};
            p.window = {};
            p.containers.clear();
        }
        ++used_;
    }
    core::pod_metrics::container_usage& container() { return pod().containers.back(); }

    // Sorted, so that a container with many resources costs n log n, not n²; the usual two or
    // three are compared pairwise, without an allocation.
    static bool repeats_a_name(const core::usage_list& usage) {
        if (usage.size() <= 8) {
            for (std::size_t i = 0; i < usage.size(); ++i)
                for (std::size_t j = i + 1; j < usage.size(); ++j)
                    if (usage[i].first == usage[j].first) return true;
            return false;
        }
        std::vector<std::string_view> names;
        names.reserve(usage.size());
        for (const auto& [name, value] : usage)
            names.push_back(name);
        std::sort(names.begin(), names.end());
        return std::adjacent_find(names.begin(), names.end()) != names.end();
    }

    // null, true, false or a number: only the value of a key it does not read.
    bool scalar() {
        if (skipping_ > 0) return true;
        if (places_.empty()) return false;
        const place p = places_.back();
        return (p == place::list || p == place::item || p == place::metadata ||
                p == place::container) &&
               field_ == field::other;
    }

    bool text(std::string_view s) {
        if (skipping_ > 0) return true;
        if (places_.empty()) return false;
        switch (places_.back()) {
        case place::item:
            if (field_ == field::timestamp) {
                const auto t = core::parse_rfc3339(s);
                if (!t) return false;
                pod().timestamp = *t;
                return true;
            }
            if (field_ == field::window) {
                const auto d = core::parse_go_duration(s);
                if (!d) return false;
                pod().window = *d;
                return true;
            }
            return field_ == field::other;
        case place::metadata:
            if (field_ == field::name) {
                pod().name.assign(s);
                return true;
            }
            if (field_ == field::namespace_) {
                pod().namespace_.assign(s);
                return true;
            }
            return field_ == field::other;
        case place::labels:
            if (labels_read_ == labels_.size()) labels_.emplace_back();
            labels_[labels_read_++] = {key_, s};
            return true;
        case place::container:
            if (field_ == field::name) {
                container().name.assign(s);
                return true;
            }
            return field_ == field::other;
        case place::usage: {
            const auto q = core::quantity::parse(trim_blanks(s));
            if (!q) return false;
            auto& usage = container().usage;
            usage.emplace_back(key_, *q); // a repeated name: see close()
            return true;
        }
        case place::list:
            return field_ == field::other;
        default: // an element of items or containers must be an object
            return false;
        }
    }

    bool open(bool object) {
        if (++depth_ > list_max_depth) return false;
        if (skipping_ > 0) {
            ++skipping_;
            return true;
        }
        if (places_.empty()) return object && enter(place::list);
        switch (places_.back()) {
        case place::list:
            if (field_ == field::items && !object) return enter(place::items);
            break;
        case place::items:
            if (!object) return false;
            next_pod();
            item_seen_ = metadata_seen_ = 0;
            return enter(place::item);
        case place::item:
            if (field_ == field::metadata && object) return enter(place::metadata);
            if (field_ == field::containers && !object) return enter(place::containers);
            break;
        case place::metadata:
            if (field_ == field::labels && object) return enter(place::labels);
            break;
        case place::containers:
            if (!object) return false;
            pod().containers.emplace_back();
            container_seen_ = 0;
            return enter(place::container);
        case place::container:
            if (field_ == field::usage && object) return enter(place::usage);
            break;
        default: // a label's or a quantity's value must be a string
            return false;
        }
        // The value of a key it does not read is passed over whole; a key it reads with a value of
        // another type is not its shape.
        if (field_ != field::other) return false;
        skipping_ = 1;
        return true;
    }

    bool enter(place p) {
        places_.push_back(p);
        field_ = field::none;
        return true;
    }

    bool close() {
        --depth_;
        if (skipping_ > 0) {
            --skipping_;
            return true;
        }
        const place p = places_.back();
        places_.pop_back();
        field_ = field::none;
        const auto has = [](unsigned seen, field f) {
            return (seen & (1u << static_cast<unsigned>(f))) != 0;
        };
        if (p == place::item) {
            // The name is required; a missing namespace is "default", as the DOM decoder has it.
            if (!has(item_seen_, field::metadata) || !has(metadata_seen_, field::name))
                return false;
            if (!has(metadata_seen_, field::namespace_)) pod().namespace_ = "default";
        }
        if (p == place::container && !has(container_seen_, field::name)) return false;
        if (p == place::usage && repeats_a_name(container().usage)) return false;
        if (p == place::labels) {
            // The pods of one ReplicaSet come one after another, with the same labels: such a
            // pod shares the one before's set instead of allocating its own.
            bool duplicates = false;
            const core::label_map* before = used_ > 1 ? &items[used_ - 2].labels : nullptr;
            pod().labels = core::label_map::from_pairs(std::span(labels_.data(), labels_read_),
                                                       &duplicates, before);
            labels_read_ = 0;
            return !duplicates;
        }
        return true;
    }

    std::vector<core::pod_metrics>& items;
    std::size_t used_ = 0;
    std::vector<place> places_;
    field field_ = field::none;
    /// The label's or resource's name whose value comes next (in the text, parsed in place).
    std::string_view key_;
    /// The labels of the pod being read: the first labels_read_, viewed in the text (parsed in
    /// place, it lives until the pod's label set is built from them).
    std::vector<std::pair<std::string_view, std::string_view>> labels_;
    std::size_t labels_read_ = 0;
    std::size_t depth_ = 0;
    std::size_t skipping_ = 0; ///< > 0: inside a value passed over, this deep
    unsigned list_seen_ = 0, item_seen_ = 0, metadata_seen_ = 0, container_seen_ = 0;
};

} // namespace

bool decode_pod_metrics_list(const std::string& json, std::vector<core::pod_metrics>& items,
                             pod_metrics_scratch& reuse) {
    // The reader takes the text as NUL-terminated (rapidjson's fastest stream): a NUL inside it
    // would end it early, so such a text goes to the DOM decoder, which reports it.
    if (json.size() > list_max_bytes || json.find('\0') != std::string::npos) return false;
    handler h(items);
    // A pod is ~300 bytes held inline, so growing the vector one doubling at a time moves every
    // pod read so far, again and again. Lists from one metrics server have much the same text per
    // pod: reserve what the last list decoded with `reuse` says this one holds (capped, so a
    // hostile text cannot make it reserve much; a wrong guess only costs what growing would).
    std::size_t& bytes_per_item = reuse.bytes_per_item;
    constexpr std::size_t reserve_cap = 4096;
    if (bytes_per_item > 0) {
        const std::size_t guess = json.size() / bytes_per_item;
        items.reserve(std::min(guess + guess / 16 + 1, reserve_cap));
    }
    // Parsed in place in a copy `reuse` keeps: rapidjson then hands each string over where it
    // lies instead of copying it, character by character, to its own stack first (the caller's
    // text stays whole for the DOM decoder when this one gives up).
    std::string& scratch = reuse.text;
    scratch.assign(json);
    rapidjson::InsituStringStream in(scratch.data());
    rapidjson::Reader reader;
    const bool parsed =
        !reader.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseInsituFlag>(in, h)
             .IsError();
    if (scratch.capacity() > list_reuse_bytes) std::string().swap(scratch);
    if (!parsed) return false;
    if (h.used() > 0) bytes_per_item = std::max<std::size_t>(json.size() / h.used(), 1);
    items.resize(h.used());
    return true;
}

bool decode_pod_metrics_list(const std::string& json, std::vector<core::pod_metrics>& items) {
    pod_metrics_scratch scratch;
    return decode_pod_metrics_list(json, items, scratch);
}

std::optional<std::vector<core::pod_metrics>> decode_pod_metrics_list(const std::string& json) {
    std::vector<core::pod_metrics> items;
    if (!decode_pod_metrics_list(json, items)) return std::nullopt;
    return items;
}

} // namespace hpaplus::kinds
