// kube/yaml_json.cpp — YAML to JSON with yaml-cpp and RapidJSON.
#include "kube/yaml_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <regex>

namespace hpaplus::kube {
namespace {

using rapidjson::Value;
using allocator = rapidjson::Document::AllocatorType;

// YAML 1.2 core schema, the part Kubernetes manifests use.
Value plain_scalar(const std::string& s, allocator& a) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")
        return Value(rapidjson::kNullType);
    if (s == "true" || s == "True" || s == "TRUE") return Value(true);
    if (s == "false" || s == "False" || s == "FALSE") return Value(false);
    static const std::regex integer(R"([-+]?[0-9]+)");
    static const std::regex number(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
    if (std::regex_match(s, integer)) {
        long long v = 0;
        const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
        const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
        if (ec == std::errc{} && end == s.data() + s.size()) return Value(static_cast<int64_t>(v));
    }
    if (std::regex_match(s, number)) return Value(std::stod(s));
    return Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

Value convert(const YAML::Node& n, allocator& a) {
    switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
        return Value(rapidjson::kNullType);
    case YAML::NodeType::Scalar: {
        const std::string& s = n.Scalar();
        // yaml-cpp tags quoted (and block) scalars "!", plain ones "?".
        if (n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str")
            return Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
        return plain_scalar(s, a);
    }
    case YAML::NodeType::Sequence: {
        Value out(rapidjson::kArrayType);
        for (const auto& item : n)
            out.PushBack(convert(item, a), a);
        return out;
    }
    case YAML::NodeType::Map: {
        Value out(rapidjson::kObjectType);
        for (const auto& kv : n) {
            const std::string key = kv.first.Scalar();
            out.AddMember(Value(key.c_str(), static_cast<rapidjson::SizeType>(key.size()), a),
                          convert(kv.second, a), a);
        }
        return out;
    }
    }
    return Value(rapidjson::kNullType);
}

} // namespace

core::outcome<std::vector<std::string>> yaml_documents_to_json(const std::string& yaml) {
    std::vector<YAML::Node> docs;
    try {
        docs = YAML::LoadAll(yaml);
    } catch (const YAML::Exception& e) {
        return core::error_message("line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    std::vector<std::string> out;
    for (const auto& node : docs) {
        if (node.IsNull()) continue;
        rapidjson::Document doc;
        static_cast<Value&>(doc) = convert(node, doc.GetAllocator());
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        doc.Accept(writer);
        out.emplace_back(buffer.GetString(), buffer.GetSize());
    }
    return out;
}

} // namespace hpaplus::kube
