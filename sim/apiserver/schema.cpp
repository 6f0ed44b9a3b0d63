// sim/apiserver/schema.cpp — structural schema pruning, defaulting and validation.
#include "sim/apiserver/schema.hpp"

#include <boost/regex.hpp>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace hpaplus::sim {
namespace {

// A schema's `pattern` as the real server matches it (Go's regexp: anywhere in the value, RE2
// syntax, which Perl syntax covers). Each pattern is compiled once per thread; Boost's matcher
// bounds its own work (it throws past its limit), so a hostile value cannot hang the server.
// nullopt: the pattern does not compile, or the match gave up.
std::optional<bool> pattern_matches(const std::string& pattern, std::string_view value) {
    thread_local std::unordered_map<std::string, std::unique_ptr<boost::regex>> compiled;
    auto it = compiled.find(pattern);
    if (it == compiled.end()) {
        if (compiled.size() >= 1000) compiled.clear();
        std::unique_ptr<boost::regex> re;
        try {
            re = std::make_unique<boost::regex>(pattern, boost::regex::perl);
        } catch (const std::exception&) {
        }
        it = compiled.emplace(pattern, std::move(re)).first;
    }
    if (!it->second) return std::nullopt;
    try {
        return boost::regex_search(value.begin(), value.end(), *it->second);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

const json* member(const json& v, const char* name) {
    return member_of(&v, name);
}

bool flag(const json& schema, const char* name) {
    const json* f = member(schema, name);
    return f && f->IsBool() && f->GetBool();
}

std::string text(const json& v) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    v.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize());
}

const char* type_of(const json& v) {
    if (v.IsObject()) return "object";
    if (v.IsArray()) return "array";
    if (v.IsString()) return "string";
    if (v.IsBool()) return "boolean";
    if (v.IsInt64() || v.IsUint64()) return "integer";
    if (v.IsNumber()) return "number";
    return "null";
}

bool has_type(const json& v, const std::string& type) {
    if (type == "number") return v.IsNumber();
    if (type == "integer")
        return v.IsInt64() || v.IsUint64() ||
               (v.IsDouble() &&
                v.GetDouble() == static_cast<double>(static_cast<long long>(v.GetDouble())));
    return type == type_of(v);
}

struct walker {
    json_alloc& a;
    field_errors errors;
    std::vector<std::string>* unknown = nullptr; ///< paths of the unknown fields pruned

    bool blocking = false; ///< an error that keeps CEL rules from running (hasBlockingErr)

    void fail(const std::string& path, std::string message) {
        errors.emplace_back(path, std::move(message));
    }
    // Type, required, enum, maxLength and maxItems errors: the object lacks the shape its
    // validation rules were written for.
    void block(const std::string& path, std::string message) {
        blocking = true;
        fail(path, std::move(message));
    }

    void check_bounds(const json& schema, const json& v, const std::string& path) {
        if (v.IsNumber()) {
            const double x = v.GetDouble();
            if (const json* min = member(schema, "minimum");
                min && min->IsNumber() && x < min->GetDouble())
                fail(path, "Invalid value: " + text(v) + ": " + path +
                               " in body should be greater than or equal to " + text(*min));
            if (const json* max = member(schema, "maximum");
                max && max->IsNumber() && x > max->GetDouble())
                fail(path, "Invalid value: " + text(v) + ": " + path +
                               " in body should be less than or equal to " + text(*max));
        }
        if (v.IsString()) {
            const auto length = v.GetStringLength();
            if (const json* min = member(schema, "minLength");
                min && min->IsUint() && length < min->GetUint())
                fail(path, "Invalid value: " + text(v) + ": " + path +
                               " in body should be at least " + text(*min) + " chars long");
            if (const json* max = member(schema, "maxLength");
                max && max->IsUint() && length > max->GetUint())
                block(path, "Too long: may not be longer than " + text(*max));
            if (const json* pattern = member(schema, "pattern"); pattern && pattern->IsString()) {
                const std::string p(pattern->GetString(), pattern->GetStringLength());
                const auto matched = pattern_matches(p, std::string_view(v.GetString(), length));
                if (!matched)
                    fail(path, "Invalid value: " + text(v) + ": " + path +
                                   " in body could not be matched against '" + p + "'");
                else if (!*matched)
                    fail(path, "Invalid value: " + text(v) + ": " + path +
                                   " in body should match '" + p + "'");
            }
        }
        if (v.IsArray()) {
            const auto size = v.Size();
            if (const json* max = member(schema, "maxItems");
                max && max->IsUint() && size > max->GetUint())
                block(path, "Too many: " + std::to_string(size) + ": must have at most " +
                                text(*max) + " items");
            if (const json* min = member(schema, "minItems");
                min && min->IsUint() && size < min->GetUint())
                fail(path, "Invalid value: " + std::to_string(size) + ": " + path +
                               " in body should have at least " + text(*min) + " items");
        }
        if (const json* values = member(schema, "enum"); values && values->IsArray()) {
            bool found = false;
            std::string supported;
            for (const auto& e : values->GetArray()) {
                found = found || e == v;
                supported += (supported.empty() ? "" : ", ") + text(e);
            }
            if (!found)
                block(path, "Unsupported value: " + text(v) + ": supported values: " + supported);
        }
    }

    void walk(const json& schema, json& v, const std::string& path) {
        if (flag(schema, "x-kubernetes-int-or-string")) {
            if (!v.IsString() && !(v.IsInt64() || v.IsUint64()))
                block(path, "Invalid value: " + text(v) + ": " + path +
                                " in body must be of type integer,string: \"" + type_of(v) + "\"");
            else if (v.IsString())
                check_bounds(schema, v, path); // a string's maxLength and pattern
            return;
        }
        if (v.IsNull() && flag(schema, "nullable")) return; // an array's null item, say
        const json* type = member(schema, "type");
        if (type && type->IsString() && !has_type(v, type->GetString())) {
            block(path, "Invalid value: \"" + std::string(type_of(v)) + "\": " + path +
                            " in body must be of type " + type->GetString() + ": \"" + type_of(v) +
                            "\"");
            return;
        }
        check_bounds(schema, v, path);
        if (v.IsObject()) walk_object(schema, v, path);
        if (v.IsArray()) {
            if (const json* items = member(schema, "items"); items && items->IsObject()) {
                for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
                    walk(*items, v[i], path + "[" + std::to_string(i) + "]");
            }
        }
    }

    /// `root`: metadata, apiVersion and kind belong to the server, whatever the schema says.
    void walk_object(const json& schema, json& v, const std::string& path, bool root = false) {
        const json* properties = member(schema, "properties");
        const json* additional = member(schema, "additionalProperties");
        const bool keep_unknown = flag(schema, "x-kubernetes-preserve-unknown-fields");
        const std::string prefix = path.empty() ? "" : path + ".";
        // Prune what the schema does not know, and nulls where null is not allowed.
        for (auto it = v.MemberBegin(); it != v.MemberEnd();) {
            const std::string_view name = it->name.GetString();
            if (root && (name == "metadata" || name == "apiVersion" || name == "kind")) {
                ++it;
                continue;
            }
            const json* property = properties ? member(*properties, it->name.GetString()) : nullptr;
            const json* item_schema = property                               ? property
                                      : additional && additional->IsObject() ? additional
                                                                             : nullptr;
            const bool known = item_schema || keep_unknown ||
                               (additional && additional->IsBool() && additional->GetBool());
            if (!known && unknown) unknown->push_back(prefix + it->name.GetString());
            if (!known ||
                (it->value.IsNull() && !(item_schema && flag(*item_schema, "nullable")))) {
                it = v.EraseMember(it);
                continue;
            }
            if (item_schema) walk(*item_schema, it->value, prefix + it->name.GetString());
            ++it;
        }
        if (properties && properties->IsObject()) {
            for (const auto& p : properties->GetObject()) {
                const json* fallback = member(p.value, "default");
                if (!fallback || v.HasMember(p.name.GetString())) continue;
                json name(p.name.GetString(), a);
                json value(*fallback, a);
                v.AddMember(name, value, a);
            }
        }
        if (const json* required = member(schema, "required"); required && required->IsArray()) {
            for (const auto& r : required->GetArray())
                if (r.IsString() && !v.HasMember(r.GetString()))
                    block(prefix + r.GetString(), "Required value");
        }
    }
};

} // namespace

field_errors apply_schema(const json& schema, json& object, json_alloc& a,
                          std::vector<std::string>* unknown_fields, bool* blocks_rules) {
    walker w{a, {}, unknown_fields};
    if (!object.IsObject())
        w.fail("", "Invalid value: the object must be a JSON object");
    else
        w.walk_object(schema, object, "", true);
    if (blocks_rules) *blocks_rules = w.blocking || !object.IsObject();
    return w.errors;
}

} // namespace hpaplus::sim
