// kube/yaml_json.cpp — YAML to JSON with yaml-cpp and RapidJSON.
#include "kube/yaml_json.hpp"

#include "kube/encode.hpp"

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

// Anchors and aliases can make a short file expand exponentially ("billion laughs"), and
// nesting recurses here: both are bounded, and past a bound the document is an error.
constexpr std::size_t max_depth = 512;
constexpr std::size_t max_values = 1'000'000;

struct converter {
    allocator& a;
    std::size_t values_left;
    std::string error;

    Value convert(const YAML::Node& n, std::size_t depth) {
        if (!error.empty()) return Value(rapidjson::kNullType);
        if (depth > max_depth) {
            error = "nesting deeper than " + std::to_string(max_depth) + " levels";
            return Value(rapidjson::kNullType);
        }
        if (values_left-- == 0) {
            error =
                "more than " + std::to_string(max_values) + " values (aliases expand to copies)";
            return Value(rapidjson::kNullType);
        }
        switch (n.Type()) {
        case YAML::NodeType::Null:
        case YAML::NodeType::Undefined:
            return Value(rapidjson::kNullType);
        case YAML::NodeType::Scalar: {
            const std::string& s = n.Scalar();
            // yaml-cpp tags quoted (and block) scalars "!", plain ones "?".
            if (n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str")
                return Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
            auto v = plain_scalar(s, a);
            if (!v) {
                error = "the number " + s.substr(0, 40) + " is out of range";
                return Value(rapidjson::kNullType);
            }
            return std::move(*v);
        }
        case YAML::NodeType::Sequence: {
            Value out(rapidjson::kArrayType);
            for (const auto& item : n)
                out.PushBack(convert(item, depth + 1), a);
            return out;
        }
        case YAML::NodeType::Map: {
            Value out(rapidjson::kObjectType);
            for (const auto& kv : n) {
                const std::string key = kv.first.Scalar();
                out.AddMember(Value(key.c_str(), static_cast<rapidjson::SizeType>(key.size()), a),
                              convert(kv.second, depth + 1), a);
            }
            return out;
        }
        }
        return Value(rapidjson::kNullType);
    }
};

// Where each document starts, and nothing else.
struct document_starts final : YAML::EventHandler {
    std::vector<std::size_t> starts;
    void OnDocumentStart(const YAML::Mark& m) override {
        starts.push_back(static_cast<std::size_t>(m.pos));
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

// yaml-cpp 0.7 (Debian's) never ends LoadAll on some malformed input — a stray top-level `,` is
// enough: it returns the same empty document again and again without consuming anything, and
// memory grows until the process dies. A first pass over the events stops at a document that
// starts where the one before it did, which is that loop (found by fuzz/yaml_json).
std::string stuck_at(const std::string& yaml) {
    std::istringstream in(yaml);
    YAML::Parser parser(in);
    document_starts events;
    while (parser.HandleNextDocument(events)) {
        const auto n = events.starts.size();
        if (n >= 2 && events.starts[n - 1] == events.starts[n - 2])
            return "cannot parse the YAML at offset " + std::to_string(events.starts.back()) +
                   " (the parser makes no progress there)";
        if (n > max_values) return "more than " + std::to_string(max_values) + " documents";
    }
    return {};
}

} // namespace

core::outcome<std::vector<std::string>> yaml_documents_to_json(const std::string& yaml) {
    std::vector<YAML::Node> docs;
    try {
        if (auto stuck = stuck_at(yaml); !stuck.empty()) return core::error_message(stuck);
        docs = YAML::LoadAll(yaml);
    } catch (const YAML::Exception& e) {
        return core::error_message("line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    std::vector<std::string> out;
    for (const auto& node : docs) {
        if (node.IsNull()) continue;
        rapidjson::Document doc;
        converter c{doc.GetAllocator(), max_values, {}};
        static_cast<Value&>(doc) = c.convert(node, 0);
        if (!c.error.empty())
            return core::error_message("document " + std::to_string(out.size() + 1) + ": " +
                                       c.error);
        out.push_back(to_json_text(doc));
    }
    return out;
}

} // namespace hpaplus::kube
