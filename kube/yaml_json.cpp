// kube/yaml_json.cpp — YAML to JSON: yaml-cpp's parser events build RapidJSON values directly;
// input that is JSON goes to RapidJSON alone.
#include "kube/yaml_json.hpp"

#include "kube/encode.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <optional>
#include <sstream>

namespace hpaplus::kube {
namespace {

using rapidjson::Value;
using allocator = rapidjson::Document::AllocatorType;

bool digits(std::string_view s, std::size_t& i) {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9')
        ++i;
    return i > start;
}

// [-+]?[0-9]+
bool is_integer(std::string_view s) {
    std::size_t i = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    return digits(s, i) && i == s.size();
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_float(std::string_view s) {
    std::size_t i = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    const bool whole = digits(s, i);
    bool fraction = false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        fraction = digits(s, i);
    }
    if (!whole && !fraction) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
        if (!digits(s, i)) return false;
    }
    return i == s.size();
}

// YAML 1.2 core schema, the part Kubernetes manifests use. nullopt: a number out of a double's
// range.
std::optional<Value> plain_scalar(const std::string& s, allocator& a) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")
        return Value(rapidjson::kNullType);
    if (s == "true" || s == "True" || s == "TRUE") return Value(true);
    if (s == "false" || s == "False" || s == "FALSE") return Value(false);
    if (is_integer(s)) {
        long long v = 0;
        const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
        const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
        if (ec == std::errc{} && end == s.data() + s.size()) return Value(static_cast<int64_t>(v));
    }
    if (is_float(s)) {
        double v = 0;
        const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
        const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
        if (ec == std::errc::result_out_of_range) {
            // 1e-400 underflows to 0, as JSON decoders read it; 2e2202 is no number at all.
            const auto e = s.find_first_of("eE");
            if (e != std::string::npos && e + 1 < s.size() && s[e + 1] == '-')
                return Value(s[0] == '-' ? -0.0 : 0.0);
            return std::nullopt;
        }
        if (ec == std::errc{} && end == s.data() + s.size()) return Value(v);
    }
    return Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// Anchors and aliases can make a short file expand exponentially ("billion laughs"), and a long
// file can hold millions of values: both are bounded over the whole file, and past a bound the
// file is an error — raised from inside the parse, so nothing past the bound is ever built.
constexpr std::size_t max_depth = 512;
constexpr std::size_t max_values = 1'000'000;

struct refusal {
    std::string reason;
};

refusal too_many() {
    return {"more than " + std::to_string(max_values) + " values (aliases count as copies)"};
}

// Builds each document's JSON straight from the parser's events, one value at a time: no
// yaml-cpp node tree (LoadAll spends about a kilobyte per value) and no recursion.
class json_builder final : public YAML::EventHandler {
  public:
    std::vector<std::string> documents;

    void OnDocumentStart(const YAML::Mark& m) override {
        // yaml-cpp 0.7 (Debian's) never ends on some malformed input — a stray top-level `,` is
        // enough: it returns the same empty document again and again without consuming anything,
        // and memory grows until the process dies. A document that starts where the one before
        // it did is that loop (found by fuzz/yaml_json).
        const auto at = static_cast<std::size_t>(m.pos);
        if (started_ && at == last_start_)
            throw refusal{"cannot parse the YAML at offset " + std::to_string(at) +
                          " (the parser makes no progress there)"};
        started_ = true;
        last_start_ = at;
        anchors_.clear();
        doc_.SetNull();
        doc_.GetAllocator().Clear();
    }
    void OnDocumentEnd() override {
        if (!doc_.IsNull()) documents.push_back(to_json_text(doc_));
    }
    void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override {
        count(1);
        if (expecting_key()) {
            // a null key (`? ` or `~:`) is an empty one, as yaml-cpp's node tree gives it
            open_.back().key = std::string();
            return;
        }
        remember(anchor, Value(rapidjson::kNullType), 1);
        place(Value(rapidjson::kNullType));
    }
    void OnAlias(const YAML::Mark&, YAML::anchor_t anchor) override {
        if (anchor >= anchors_.size() || !anchors_[anchor].complete)
            throw refusal{"an alias to an anchor that is not complete"};
        const anchored& a = anchors_[anchor];
        if (expecting_key()) {
            if (!a.text) throw refusal{"a map key that is not a scalar"};
            count(1);
            open_.back().key = *a.text;
            return;
        }
        count(a.values);
        place(Value(a.value, alloc()));
    }
    void OnScalar(const YAML::Mark&, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& text) override {
        if (expecting_key()) {
            count(1);
            open_.back().key = text;
            remember(anchor, string(text), 1, text);
            return;
        }
        // yaml-cpp tags quoted (and block) scalars "!", plain ones "?".
        std::optional<Value> v;
        if (tag == "!" || tag == "tag:yaml.org,2002:str") {
            v = string(text);
        } else if (v = plain_scalar(text, alloc()); !v) {
            throw refusal{"the number " + text.substr(0, 40) + " is out of range"};
        }
        count(1);
        remember(anchor, *v, 1, text);
        place(std::move(*v));
    }
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(Value(rapidjson::kArrayType), anchor, false);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(Value(rapidjson::kObjectType), anchor, true);
    }
    void OnMapEnd() override { close(); }

  private:
    struct collection {
        Value value;
        YAML::anchor_t anchor;
        bool is_map;
        std::optional<std::string> key; ///< a map's key waiting for its value
        std::size_t values_before;      ///< the count when it opened (an anchor's size)
    };
    struct anchored {
        Value value;
        std::size_t values = 0;
        bool complete = false;
        std::optional<std::string> text; ///< a scalar's text (an alias can be a map key)
    };

    bool expecting_key() const {
        return !open_.empty() && open_.back().is_map && !open_.back().key;
    }

    allocator& alloc() { return doc_.GetAllocator(); }
    Value string(const std::string& s) {
        return Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), alloc());
    }
    void count(std::size_t n) {
        values_ += n;
        if (values_ > max_values) throw too_many();
    }
    // An anchored value is kept as a copy for its aliases; the copy counts too, so nested anchors
    // cannot make the copying itself unbounded.
    void remember(YAML::anchor_t anchor, const Value& v, std::size_t values,
                  std::optional<std::string> text = std::nullopt) {
        if (anchor == 0) return;
        if (values > 1) count(values);
        if (anchors_.size() <= anchor) anchors_.resize(anchor + 1);
        anchors_[anchor] = {Value(v, alloc()), values, true, std::move(text)};
    }
    void open(Value v, YAML::anchor_t anchor, bool is_map) {
        if (expecting_key()) throw refusal{"a map key that is not a scalar"};
        if (open_.size() >= max_depth)
            throw refusal{"nesting deeper than " + std::to_string(max_depth) + " levels"};
        count(1);
        open_.push_back({std::move(v), anchor, is_map, std::nullopt, values_});
    }
    void close() {
        collection done = std::move(open_.back());
        open_.pop_back();
        remember(done.anchor, done.value, values_ - done.values_before + 1);
        place(std::move(done.value));
    }
    void place(Value v) {
        if (open_.empty()) {
            static_cast<Value&>(doc_) = std::move(v);
            return;
        }
        collection& parent = open_.back();
        if (parent.is_map) {
            parent.value.AddMember(string(*parent.key), v, alloc());
            parent.key.reset();
        } else {
            parent.value.PushBack(v, alloc());
        }
    }

    rapidjson::Document doc_;
    std::vector<collection> open_;
    std::vector<anchored> anchors_; ///< by yaml-cpp's anchor number (1, 2, …) in this document
    std::size_t values_ = 0;        ///< over the whole file, aliases counted at their size
    std::size_t last_start_ = 0;
    bool started_ = false;
};

// Input that is JSON (what `kubectl get -o json` writes) goes to RapidJSON directly: yaml-cpp's
// scanner keeps a few hundred bytes per item of a flow collection until the document ends.
// nullopt: not JSON (a YAML flow document such as `{a: 1}`), for the YAML path.
std::optional<std::string> as_json(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || (text[first] != '{' && text[first] != '[')) return {};
    rapidjson::Document doc;
    if (!net::parse_json(doc, text, {max_depth, text.size()}).empty()) return {};
    // Values, counted as the YAML path counts them (keys too), without recursion.
    std::size_t values = 0;
    std::vector<const Value*> todo{&doc};
    while (!todo.empty()) {
        const Value* v = todo.back();
        todo.pop_back();
        if (++values > max_values) throw too_many();
        if (v->IsArray()) {
            for (const auto& item : v->GetArray())
                todo.push_back(&item);
        } else if (v->IsObject()) {
            values += v->MemberCount();
            for (const auto& m : v->GetObject())
                todo.push_back(&m.value);
        }
    }
    return to_json_text(doc);
}

} // namespace

core::outcome<std::vector<std::string>> yaml_documents_to_json(const std::string& yaml) {
    try {
        if (auto json = as_json(yaml)) return std::vector<std::string>{std::move(*json)};
        std::istringstream in(yaml);
        YAML::Parser parser(in);
        json_builder builder;
        while (parser.HandleNextDocument(builder)) {
        }
        return std::move(builder.documents);
    } catch (const refusal& r) {
        return core::error_message(r.reason);
    } catch (const YAML::Exception& e) {
        return core::error_message("line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
}

} // namespace hpaplus::kube
