// sim/apiserver/protobuf_encode.cpp — the protobuf encoder: an answer's JSON written as the real
// server writes it for a client that asks for protobuf first ("k8s\0" + runtime.Unknown), walking
// the tables of protobuf_schema. What the tables do not describe entirely is left to JSON.
#include "sim/apiserver/protobuf.hpp"

#include "sim/apiserver/protobuf_schema.hpp"

#include "core/time.hpp"
#include "net/base64.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

namespace hpaplus::sim {
namespace {

using protobuf::field;
using protobuf::kind;
using protobuf::message;

void put_varint(std::string& out, std::uint64_t v) {
    do {
        auto b = static_cast<char>(v & 0x7f);
        v >>= 7;
        if (v) b = static_cast<char>(b | 0x80);
        out.push_back(b);
    } while (v);
}

void put_tag(std::string& out, int number, unsigned wire) {
    put_varint(out, (static_cast<std::uint64_t>(number) << 3) | wire);
}

void put_bytes(std::string& out, int number, std::string_view bytes) {
    put_tag(out, number, 2);
    put_varint(out, bytes.size());
    out.append(bytes);
}

void put_number(std::string& out, int number, std::int64_t v) {
    put_tag(out, number, 0);
    put_varint(out, static_cast<std::uint64_t>(v)); // negative: ten bytes, as Go writes them
}

std::string_view text(const json& v) {
    return {v.GetString(), v.GetStringLength()};
}

// Whether `name` is a field of `schema` or of a message inlined in it.
bool covers(const message& schema, std::string_view name) {
    for (const field& f : schema.fields) {
        if (f.type == kind::inline_message ? covers(*f.sub, name) : name == f.name) return true;
    }
    return false;
}

// Which members of an object encode() checks against the schema: all, all but apiVersion and
// kind (a top-level object or a list's item: the envelope carries them), or none (an inlined
// message reads its own among the parent's).
enum class members { all, typed, unchecked };

bool encode(const json& object, const message& schema, std::string& out, members check);

// A Time or MicroTime: {seconds = 1, nanos = 2}.
bool encode_time(const json& v, std::string& out) {
    if (!v.IsString()) return false;
    const auto t = core::parse_rfc3339(text(v));
    if (!t) return false;
    const auto since = t->time_since_epoch();
    const auto seconds = std::chrono::floor<std::chrono::seconds>(since);
    const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(since - seconds);
    if (seconds.count()) put_number(out, 1, seconds.count());
    if (nanos.count()) put_number(out, 2, nanos.count());
    return true;
}

// One map entry {key = 1, value = 2}, its value as the map's kind writes it.
bool encode_entry(const std::string& key, const json& v, kind type, std::string& out) {
    if (!v.IsString()) return false;
    put_bytes(out, 1, key);
    if (type == kind::quantity_map) {
        std::string quantity;
        put_bytes(quantity, 1, text(v));
        put_bytes(out, 2, quantity);
    } else if (type == kind::bytes_map) {
        const auto raw = net::base64_decode(text(v));
        if (!raw) return false;
        put_bytes(out, 2, *raw);
    } else {
        put_bytes(out, 2, text(v));
    }
    return true;
}

// One value of field `f` (an element, for a repeated field).
bool encode_value(const field& f, const json& v, std::string& out) {
    std::string inner;
    switch (f.type) {
    case kind::string:
        if (!v.IsString()) return false;
        put_bytes(out, f.number, text(v));
        return true;
    case kind::int32:
    case kind::int64:
        if (!v.IsInt64()) return false;
        put_number(out, f.number, v.GetInt64());
        return true;
    case kind::boolean:
        if (!v.IsBool()) return false;
        put_number(out, f.number, v.GetBool() ? 1 : 0);
        return true;
    case kind::time:
    case kind::micro_time:
        if (!encode_time(v, inner)) return false;
        put_bytes(out, f.number, inner);
        return true;
    case kind::quantity:
        if (!v.IsString()) return false;
        put_bytes(inner, 1, text(v));
        put_bytes(out, f.number, inner);
        return true;
    case kind::int_or_string:
        if (v.IsInt64()) {
            put_number(inner, 1, 0);
            put_number(inner, 2, v.GetInt64());
        } else if (v.IsString()) {
            put_number(inner, 1, 1);
            put_bytes(inner, 3, text(v));
        } else {
            return false;
        }
        put_bytes(out, f.number, inner);
        return true;
    case kind::string_map:
    case kind::quantity_map:
    case kind::bytes_map: {
        if (!v.IsObject()) return false;
        std::vector<std::pair<std::string, const json*>> entries;
        for (const auto& m : v.GetObject())
            entries.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()),
                                 &m.value);
        std::sort(entries.begin(), entries.end()); // Go writes a map's keys in order
        for (const auto& [key, value] : entries) {
            std::string entry;
            if (!encode_entry(key, *value, f.type, entry)) return false;
            put_bytes(out, f.number, entry);
        }
        return true;
    }
    case kind::message:
    case kind::ignored:
    case kind::status:
        if (!f.sub || !v.IsObject()) return false;
        if (f.sub->fields.size() == 1 && f.sub->fields[0].type == kind::raw_json)
            put_bytes(inner, 1, to_string(v)); // metav1.FieldsV1: the JSON text itself
        else if (!encode(v, *f.sub, inner, members::all))
            return false;
        put_bytes(out, f.number, inner);
        return true;
    case kind::inline_message:
    case kind::raw_json:
        return false; // encode() handles them
    }
    return false;
}

// The fields of `schema` that `object` has, in field order; false when `object` has a member the
// schema does not describe.
bool encode(const json& object, const message& schema, std::string& out, members check) {
    if (!object.IsObject()) return false;
    for (const auto& m : object.GetObject()) {
        if (check == members::unchecked) break;
        const std::string_view name(m.name.GetString(), m.name.GetStringLength());
        if (check == members::typed && (name == "apiVersion" || name == "kind")) continue;
        if (m.value.IsNull()) continue;
        if (!covers(schema, name)) return false;
    }
    std::vector<const field*> fields;
    for (const field& f : schema.fields)
        fields.push_back(&f);
    std::sort(fields.begin(), fields.end(),
              [](const field* x, const field* y) { return x->number < y->number; });
    for (const field* f : fields) {
        if (f->type == kind::inline_message) {
            std::string inner;
            if (!encode(object, *f->sub, inner, members::unchecked)) return false;
            if (!inner.empty()) put_bytes(out, f->number, inner);
            continue;
        }
        const auto it = object.FindMember(f->name);
        if (it == object.MemberEnd()) continue;
        if (it->value.IsNull()) {
            // A zero metav1.Time is null in JSON and an empty message on the wire.
            if (f->type == kind::time) put_bytes(out, f->number, "");
            continue;
        }
        if (f->repeated) {
            if (!it->value.IsArray()) return false;
            for (const auto& item : it->value.GetArray())
                if (!encode_value(*f, item, out)) return false;
        } else if (!encode_value(*f, it->value, out)) {
            return false;
        }
    }
    return true;
}

} // namespace

std::optional<std::string> json_to_protobuf(std::string_view json_text) {
    json_doc doc;
    doc.Parse(json_text.data(), json_text.size());
    if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
    const json* api_version = member_of(&doc, "apiVersion");
    const json* kind_name = member_of(&doc, "kind");
    if (!api_version || !api_version->IsString() || !kind_name || !kind_name->IsString())
        return std::nullopt;
    const std::string_view k = text(*kind_name);
    std::string raw;
    if (const message* schema = protobuf::schema_of(text(*api_version), k)) {
        if (!encode(doc, *schema, raw, members::typed)) return std::nullopt;
    } else if (k.size() > 4 && k.ends_with("List")) { // {metadata = 1, items = 2}
        const message* item = protobuf::schema_of(text(*api_version), k.substr(0, k.size() - 4));
        const json* items = member_of(&doc, "items");
        if (!item || !items || !items->IsArray()) return std::nullopt;
        if (const json* meta = member_of(&doc, "metadata"); meta && meta->IsObject()) {
            std::string inner;
            if (!encode(*meta, protobuf::list_meta, inner, members::all)) return std::nullopt;
            put_bytes(raw, 1, inner);
        }
        for (const auto& i : items->GetArray()) {
            std::string inner;
            if (!encode(i, *item, inner, members::typed)) return std::nullopt;
            put_bytes(raw, 2, inner);
        }
    } else {
        return std::nullopt;
    }
    std::string type_meta;
    put_bytes(type_meta, 1, text(*api_version));
    put_bytes(type_meta, 2, k);
    std::string unknown;
    put_bytes(unknown, 1, type_meta);
    put_bytes(unknown, 2, raw);
    put_bytes(unknown, 3, ""); // contentEncoding and contentType, empty as the real server's
    put_bytes(unknown, 4, "");
    return std::string("k8s\0", 4) + unknown;
}

} // namespace hpaplus::sim
