// sim/apiserver/openapi.cpp — builds the OpenAPI v2 document and encodes it as gnostic's protobuf
// message. Field numbers follow gnostic's openapiv2/OpenAPIv2.proto; the CRD conversion follows
// apiextensions-apiserver's ToStructuralOpenAPIV2 and its v2 builder (apiVersion, kind and
// metadata added to every kind; a root that preserves unknown fields published as a bare object).
#include "sim/apiserver/openapi.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

namespace hpaplus::sim {
namespace {

/// Deeper schemas are published untyped: kubectl accepts anything there, and nothing recurses
/// without bound on a hostile CRD.
constexpr int max_schema_depth = 100;

constexpr const char* object_meta_ref =
    "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
constexpr const char* list_meta_ref = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
constexpr const char* api_version_description =
    "APIVersion defines the versioned schema of this representation of an object. Servers should "
    "convert recognized schemas to the latest internal value, and may reject unrecognized values. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#resources";
constexpr const char* kind_description =
    "Kind is a string value representing the REST resource this object represents. Servers may "
    "infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#types-kinds";

// --- protobuf writing ------------------------------------------------------------------------

enum wire : std::uint32_t { varint = 0, fixed64 = 1, length_delimited = 2 };

void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

void put_tag(std::string& out, std::uint32_t field, wire w) {
    put_varint(out, (static_cast<std::uint64_t>(field) << 3) | w);
}

void put_bytes(std::string& out, std::uint32_t field, std::string_view bytes) {
    put_tag(out, field, length_delimited);
    put_varint(out, bytes.size());
    out.append(bytes);
}

void put_int64(std::string& out, std::uint32_t field, std::int64_t v) {
    put_tag(out, field, varint);
    put_varint(out, static_cast<std::uint64_t>(v));
}

void put_bool(std::string& out, std::uint32_t field, bool v) {
    if (!v) return; // proto3 leaves out zero values, as Go's encoder does
    put_tag(out, field, varint);
    put_varint(out, 1);
}

void put_double(std::string& out, std::uint32_t field, double v) {
    put_tag(out, field, fixed64);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

std::string text_of(const json& v) {
    return v.IsString() ? v.GetString() : to_string(v);
}

/// gnostic's `Any`: the value as YAML text (JSON is YAML), which is what kube-openapi reads.
std::string any_message(const json& v) {
    std::string out;
    put_bytes(out, 2, to_string(v));
    return out;
}

std::string named(std::string_view name, std::string_view value_message) {
    std::string out;
    put_bytes(out, 1, name);
    put_bytes(out, 2, value_message);
    return out;
}

std::string schema_message(const json& s, int depth);

std::string schema_list(const json& items, int depth) { // ItemsItem / allOf: repeated Schema
    std::string out;
    if (items.IsObject()) {
        put_bytes(out, 1, schema_message(items, depth));
    } else if (items.IsArray()) {
        for (const auto& i : items.GetArray())
            put_bytes(out, 1, schema_message(i, depth));
    }
    return out;
}

std::string schema_message(const json& s, int depth) {
    std::string out;
    if (!s.IsObject() || depth > max_schema_depth) return out;
    auto integer = [](const json& v) {
        return v.IsInt64() ? v.GetInt64()
                           : (v.IsNumber() ? static_cast<std::int64_t>(v.GetDouble()) : 0);
    };
    for (const auto& m : s.GetObject()) {
        const std::string_view key(m.name.GetString(), m.name.GetStringLength());
        const json& v = m.value;
        if (key == "$ref")
            put_bytes(out, 1, text_of(v));
        else if (key == "format")
            put_bytes(out, 2, text_of(v));
        else if (key == "title")
            put_bytes(out, 3, text_of(v));
        else if (key == "description")
            put_bytes(out, 4, text_of(v));
        else if (key == "default")
            put_bytes(out, 5, any_message(v));
        else if (key == "multipleOf" && v.IsNumber())
            put_double(out, 6, v.GetDouble());
        else if (key == "maximum" && v.IsNumber())
            put_double(out, 7, v.GetDouble());
        else if (key == "exclusiveMaximum" && v.IsBool())
            put_bool(out, 8, v.GetBool());
        else if (key == "minimum" && v.IsNumber())
            put_double(out, 9, v.GetDouble());
        else if (key == "exclusiveMinimum" && v.IsBool())
            put_bool(out, 10, v.GetBool());
        else if (key == "maxLength")
            put_int64(out, 11, integer(v));
        else if (key == "minLength")
            put_int64(out, 12, integer(v));
        else if (key == "pattern")
            put_bytes(out, 13, text_of(v));
        else if (key == "maxItems")
            put_int64(out, 14, integer(v));
        else if (key == "minItems")
            put_int64(out, 15, integer(v));
        else if (key == "uniqueItems" && v.IsBool())
            put_bool(out, 16, v.GetBool());
        else if (key == "maxProperties")
            put_int64(out, 17, integer(v));
        else if (key == "minProperties")
            put_int64(out, 18, integer(v));
        else if (key == "required" && v.IsArray()) {
            for (const auto& r : v.GetArray())
                put_bytes(out, 19, text_of(r));
        } else if (key == "enum" && v.IsArray()) {
            for (const auto& e : v.GetArray())
                put_bytes(out, 20, any_message(e));
        } else if (key ==
                   "additionalProperties") { // AdditionalPropertiesItem: schema=1 | boolean=2
            std::string item;
            if (v.IsBool()) {
                put_tag(item, 2, varint);
                put_varint(item, v.GetBool() ? 1 : 0);
            } else {
                put_bytes(item, 1, schema_message(v, depth + 1));
            }
            put_bytes(out, 21, item);
        } else if (key == "type") { // TypeItem: repeated string value = 1
            std::string item;
            if (v.IsArray()) {
                for (const auto& t : v.GetArray())
                    put_bytes(item, 1, text_of(t));
            } else {
                put_bytes(item, 1, text_of(v));
            }
            put_bytes(out, 22, item);
        } else if (key == "items") {
            put_bytes(out, 23, schema_list(v, depth + 1));
        } else if (key == "allOf" && v.IsArray()) {
            for (const auto& a : v.GetArray())
                put_bytes(out, 24, schema_message(a, depth + 1));
        } else if (key == "properties" && v.IsObject()) { // Properties: repeated NamedSchema = 1
            std::string props;
            for (const auto& p : v.GetObject())
                put_bytes(props, 1, named(p.name.GetString(), schema_message(p.value, depth + 1)));
            put_bytes(out, 25, props);
        } else if (key == "discriminator")
            put_bytes(out, 26, text_of(v));
        else if (key == "readOnly" && v.IsBool())
            put_bool(out, 27, v.GetBool());
        else if (key == "example")
            put_bytes(out, 30, any_message(v));
        else if (key.substr(0, 2) == "x-")
            put_bytes(out, 31, named(key, any_message(v)));
    }
    return out;
}

// --- the CRD schema in v2 ----------------------------------------------------------------------

bool is_true(const json& s, const char* key) {
    const auto it = s.FindMember(key);
    return it != s.MemberEnd() && it->value.IsBool() && it->value.GetBool();
}

json convert(const json& in, json_alloc& a, int depth) {
    json out(rapidjson::kObjectType);
    if (!in.IsObject() || depth > max_schema_depth) return out;
    const bool nullable = is_true(in, "nullable");
    const bool preserve = is_true(in, "x-kubernetes-preserve-unknown-fields");
    for (const auto& m : in.GetObject()) {
        const std::string_view key = m.name.GetString();
        if (key == "allOf" || key == "oneOf" || key == "anyOf" || key == "not" || key == "nullable")
            continue;
        if ((nullable || preserve) && (key == "items" || key == "properties")) continue;
        if (nullable && key == "type") continue;
        json value;
        if (key == "properties" && m.value.IsObject()) {
            value.SetObject();
            for (const auto& p : m.value.GetObject())
                value.AddMember(json(p.name, a), convert(p.value, a, depth + 1), a);
        } else if ((key == "items" || key == "additionalProperties") && m.value.IsObject()) {
            value = convert(m.value, a, depth + 1);
        } else {
            value.CopyFrom(m.value, a);
        }
        out.AddMember(json(m.name, a), value, a);
    }
    // kubectl cannot read an array without items, nor an object that keeps unknown fields.
    const auto type = out.FindMember("type");
    if (type != out.MemberEnd() && type->value.IsString()) {
        const std::string_view t = type->value.GetString();
        if ((t == "array" && !out.HasMember("items")) || (t == "object" && preserve))
            out.RemoveMember(type);
    }
    // A nullable property is not required in v2 (null is not a value there).
    if (auto req = out.FindMember("required"); req != out.MemberEnd() && req->value.IsArray()) {
        const json* props = nullptr;
        if (const auto p = in.FindMember("properties"); p != in.MemberEnd() && p->value.IsObject())
            props = &p->value;
        const auto ap = in.FindMember("additionalProperties");
        const bool nullable_values =
            ap != in.MemberEnd() && ap->value.IsObject() && is_true(ap->value, "nullable");
        json kept(rapidjson::kArrayType);
        for (const auto& r : req->value.GetArray()) {
            if (nullable_values || !r.IsString()) continue;
            const auto p = props ? props->FindMember(r.GetString()) : json::ConstMemberIterator();
            if (props && p != props->MemberEnd() && p->value.IsObject() &&
                is_true(p->value, "nullable"))
                continue;
            kept.PushBack(json(r, a), a);
        }
        if (kept.Empty())
            out.RemoveMember(req);
        else
            req->value = std::move(kept);
    }
    return out;
}

json gvk_extension(std::string_view group, std::string_view version, std::string_view kind,
                   json_alloc& a) {
    json gvk(rapidjson::kObjectType);
    gvk.AddMember("group", json(group.data(), static_cast<rapidjson::SizeType>(group.size()), a),
                  a);
    gvk.AddMember("kind", json(kind.data(), static_cast<rapidjson::SizeType>(kind.size()), a), a);
    gvk.AddMember("version",
                  json(version.data(), static_cast<rapidjson::SizeType>(version.size()), a), a);
    json list(rapidjson::kArrayType);
    list.PushBack(gvk, a);
    return list;
}

json string_property(const char* description, json_alloc& a) {
    json p(rapidjson::kObjectType);
    p.AddMember("description", json(description, a), a);
    p.AddMember("type", "string", a);
    return p;
}

json ref(const std::string& target, json_alloc& a) {
    json r(rapidjson::kObjectType);
    r.AddMember("$ref", json(target.c_str(), a), a);
    return r;
}

/// Adds apiVersion, kind and metadata to a kind's properties (replacing what the schema said).
void add_type_meta(json& schema, const char* metadata_ref, json_alloc& a) {
    if (!schema.HasMember("properties"))
        schema.AddMember("properties", json(rapidjson::kObjectType), a);
    json& props = schema["properties"];
    for (const char* name : {"apiVersion", "kind", "metadata"})
        props.RemoveMember(name);
    props.AddMember("apiVersion", string_property(api_version_description, a), a);
    props.AddMember("kind", string_property(kind_description, a), a);
    props.AddMember("metadata", ref(metadata_ref, a), a);
    schema.RemoveMember("type");
    schema.AddMember("type", "object", a);
}

/// The `<Kind>List` definition next to a kind's.
json list_definition(const std::string& item_name, std::string_view group, std::string_view version,
                     std::string_view list_kind, json_alloc& a) {
    json d(rapidjson::kObjectType);
    d.AddMember("type", "object", a);
    json required(rapidjson::kArrayType);
    required.PushBack("items", a);
    d.AddMember("required", required, a);
    json items(rapidjson::kObjectType);
    items.AddMember("type", "array", a);
    items.AddMember("items", ref("#/definitions/" + item_name, a), a);
    json props(rapidjson::kObjectType);
    props.AddMember("items", items, a);
    d.AddMember("properties", props, a);
    add_type_meta(d, list_meta_ref, a);
    d.AddMember("x-kubernetes-group-version-kind", gvk_extension(group, version, list_kind, a), a);
    return d;
}

/// The built-in definitions, expanded once: each kind with apiVersion, kind, metadata and its
/// group-version-kind, a `…List` beside it.
struct builtin_set {
    json_doc definitions{rapidjson::kObjectType};
    std::map<std::string, std::string, std::less<>> kind_names; ///< "group/version/kind" → name
};

const builtin_set& builtin() {
    static const builtin_set set = [] {
        builtin_set out;
        auto& a = out.definitions.GetAllocator();
        json_doc base;
        const auto text = builtin_openapi_definitions();
        base.Parse(text.data(), text.size());
        for (auto& m : base["definitions"].GetObject())
            out.definitions.AddMember(json(m.name, a), json(m.value, a), a);
        for (const auto& k : base["kinds"].GetArray()) {
            const std::string name = k["name"].GetString();
            const std::string_view group = k["group"].GetString(),
                                   version = k["version"].GetString(), kind = k["kind"].GetString();
            json d(rapidjson::kObjectType);
            d.AddMember("type", "object", a);
            if (k.HasMember("required")) d.AddMember("required", json(k["required"], a), a);
            d.AddMember("properties", json(k["properties"], a), a);
            add_type_meta(d, object_meta_ref, a);
            d.AddMember("x-kubernetes-group-version-kind", gvk_extension(group, version, kind, a),
                        a);
            out.definitions.AddMember(json(name.c_str(), a), d, a);
            out.kind_names.emplace(
                std::string(group) + "/" + std::string(version) + "/" + std::string(kind), name);
            if (!k.HasMember("list"))
                out.definitions.AddMember(
                    json((name + "List").c_str(), a),
                    list_definition(name, group, version, std::string(kind) + "List", a), a);
        }
        return out;
    }();
    return set;
}

std::string etag_of(std::string_view body) { // FNV-1a, 64 bits: stable for equal bodies
    std::uint64_t h = 14695981039346656037ull;
    for (const char c : body) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    char hex[19];
    std::snprintf(hex, sizeof hex, "%016llX", static_cast<unsigned long long>(h));
    return "\"" + std::string(hex) + "\"";
}

} // namespace

std::string openapi_definition_name(std::string_view group, std::string_view version,
                                    std::string_view kind) {
    std::string reversed;
    while (!group.empty()) {
        const auto dot = group.rfind('.');
        const std::string_view part = dot == std::string_view::npos ? group : group.substr(dot + 1);
        if (!reversed.empty()) reversed += '.';
        reversed += part;
        group = dot == std::string_view::npos ? std::string_view() : group.substr(0, dot);
    }
    return reversed + "." + std::string(version) + "." + std::string(kind);
}

json openapi_v2_schema(const json& v3, json_alloc& a) {
    return convert(v3, a, 0);
}

const json* builtin_kind_schema(std::string_view group, std::string_view version,
                                std::string_view kind) {
    const auto& set = builtin();
    const auto it = set.kind_names.find(std::string(group) + "/" + std::string(version) + "/" +
                                        std::string(kind));
    if (it == set.kind_names.end()) return nullptr;
    const auto d = set.definitions.FindMember(it->second.c_str());
    return d == set.definitions.MemberEnd() ? nullptr : &d->value;
}

const json* resolve_builtin_ref(const json* schema) {
    for (int hops = 0; schema && schema->IsObject() && hops < 8; ++hops) {
        const auto ref = schema->FindMember("$ref");
        if (ref == schema->MemberEnd() || !ref->value.IsString()) return schema;
        const std::string_view target = ref->value.GetString();
        const auto name = target.substr(target.rfind('/') + 1);
        const auto& defs = builtin().definitions;
        const auto d = defs.FindMember(json(rapidjson::StringRef(name.data(), name.size())));
        schema = d == defs.MemberEnd() ? nullptr : &d->value;
    }
    return schema;
}

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

/// Calls `f(item)` for each trimmed, non-empty comma-separated item.
template <class F> void for_each_item(std::string_view list, F f) {
    while (!list.empty()) {
        const auto comma = list.find(',');
        if (const auto item = trim(list.substr(0, comma)); !item.empty()) f(item);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
}

} // namespace

openapi_format negotiate_openapi_v2(std::string_view accept) {
    struct clause {
        std::string_view type, subtype;
        double q = 1;
    };
    std::vector<clause> clauses;
    for_each_item(accept.empty() ? std::string_view("*/*") : accept, [&](std::string_view item) {
        const auto semicolon = item.find(';');
        const auto media = trim(item.substr(0, semicolon));
        const auto slash = media.find('/');
        if (slash == std::string_view::npos) return;
        clause c{trim(media.substr(0, slash)), trim(media.substr(slash + 1))};
        for (auto params = semicolon == std::string_view::npos ? std::string_view()
                                                               : item.substr(semicolon + 1);
             !params.empty();) {
            const auto next = params.find(';');
            const auto param = trim(params.substr(0, next));
            if (param.substr(0, 2) == "q=")
                c.q = std::strtod(std::string(param.substr(2)).c_str(), nullptr);
            if (next == std::string_view::npos) break;
            params.remove_prefix(next + 1);
        }
        if (c.q > 0) clauses.push_back(c);
    });
    auto specificity = [](const clause& c) { return (c.type != "*") + (c.subtype != "*"); };
    std::stable_sort(clauses.begin(), clauses.end(), [&](const clause& a, const clause& b) {
        return a.q != b.q ? a.q > b.q : specificity(a) > specificity(b);
    });
    static constexpr std::pair<std::string_view, openapi_format> offered[] = {
        {"json", openapi_format::json},
        {"com.github.proto-openapi.spec.v2@v1.0+protobuf", openapi_format::protobuf},
        {"com.github.proto-openapi.spec.v2.v1.0+protobuf", openapi_format::protobuf}};
    for (const auto& c : clauses) {
        if (c.type != "application" && c.type != "*") continue;
        for (const auto& [subtype, format] : offered)
            if (c.subtype == subtype || c.subtype == "*") return format;
    }
    return openapi_format::none;
}

bool etag_matches(std::string_view if_none_match, std::string_view etag) {
    bool found = false;
    for_each_item(if_none_match, [&](std::string_view tag) {
        if (tag.substr(0, 2) == "W/") tag.remove_prefix(2);
        found = found || tag == "*" || tag == etag;
    });
    return found;
}

std::string openapi_v2_protobuf(const json& document) {
    std::string out;
    if (!document.IsObject()) return out;
    const auto swagger = document.FindMember("swagger");
    if (swagger != document.MemberEnd()) put_bytes(out, 1, text_of(swagger->value));
    if (const auto info = document.FindMember("info");
        info != document.MemberEnd() && info->value.IsObject()) {
        std::string i;
        if (const auto t = info->value.FindMember("title"); t != info->value.MemberEnd())
            put_bytes(i, 1, text_of(t->value));
        if (const auto v = info->value.FindMember("version"); v != info->value.MemberEnd())
            put_bytes(i, 2, text_of(v->value));
        put_bytes(out, 2, i);
    }
    put_bytes(out, 8, ""); // paths: the sim publishes none (kubectl reads only definitions)
    if (const auto defs = document.FindMember("definitions");
        defs != document.MemberEnd() && defs->value.IsObject()) {
        std::string d;
        for (const auto& m : defs->value.GetObject())
            put_bytes(d, 1, named(m.name.GetString(), schema_message(m.value, 0)));
        put_bytes(out, 9, d);
    }
    // security: [{BearerToken: []}]; securityDefinitions: BearerToken as an API key header.
    std::string requirement;
    put_bytes(requirement, 1, named("BearerToken", ""));
    put_bytes(out, 12, requirement);
    std::string api_key;
    put_bytes(api_key, 1, "apiKey");
    put_bytes(api_key, 2, "authorization");
    put_bytes(api_key, 3, "header");
    put_bytes(api_key, 4, "Bearer Token authentication");
    std::string item;
    put_bytes(item, 2, api_key);
    std::string definitions;
    put_bytes(definitions, 1, named("BearerToken", item));
    put_bytes(out, 13, definitions);
    return out;
}

openapi_v2_document build_openapi_v2(const std::vector<const resource_type*>& types) {
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    std::map<std::string, json> definitions; // sorted by name, as the real server's JSON is
    for (const auto& m : builtin().definitions.GetObject())
        definitions.emplace(m.name.GetString(), json(m.value, a));
    for (const resource_type* t : types) {
        if (!t->custom) continue;
        const std::string name = openapi_definition_name(t->group, t->version, t->kind);
        json d;
        if (!t->schema || !t->schema->IsObject() ||
            is_true(*t->schema, "x-kubernetes-preserve-unknown-fields")) {
            // kubectl would forbid every field beyond the ones listed: publish a bare object.
            d.SetObject();
            d.AddMember("type", "object", a);
        } else {
            d = openapi_v2_schema(*t->schema, a);
            add_type_meta(d, object_meta_ref, a); // also sets type: object
        }
        d.RemoveMember("x-kubernetes-group-version-kind");
        d.AddMember("x-kubernetes-group-version-kind",
                    gvk_extension(t->group, t->version, t->kind, a), a);
        definitions.insert_or_assign(name, std::move(d));
        definitions.insert_or_assign(openapi_definition_name(t->group, t->version, t->list_kind),
                                     list_definition(name, t->group, t->version, t->list_kind, a));
    }
    doc.AddMember("swagger", "2.0", a);
    json info(rapidjson::kObjectType);
    info.AddMember("title", "Kubernetes", a);
    info.AddMember("version", "v1.33.0", a);
    doc.AddMember("info", info, a);
    doc.AddMember("paths", json(rapidjson::kObjectType), a);
    json defs(rapidjson::kObjectType);
    for (auto& [name, d] : definitions)
        defs.AddMember(json(name.c_str(), a), d, a);
    doc.AddMember("definitions", defs, a);
    json bearer(rapidjson::kObjectType);
    bearer.AddMember("description", "Bearer Token authentication", a);
    bearer.AddMember("in", "header", a);
    bearer.AddMember("name", "authorization", a);
    bearer.AddMember("type", "apiKey", a);
    json security_definitions(rapidjson::kObjectType);
    security_definitions.AddMember("BearerToken", bearer, a);
    doc.AddMember("securityDefinitions", security_definitions, a);
    json requirement(rapidjson::kObjectType);
    requirement.AddMember("BearerToken", json(rapidjson::kArrayType), a);
    json security(rapidjson::kArrayType);
    security.PushBack(requirement, a);
    doc.AddMember("security", security, a);

    openapi_v2_document out;
    out.json.body = to_string(doc);
    out.json.etag = etag_of(out.json.body);
    out.protobuf.body = openapi_v2_protobuf(doc);
    out.protobuf.etag = etag_of(out.protobuf.body);
    return out;
}

} // namespace hpaplus::sim
