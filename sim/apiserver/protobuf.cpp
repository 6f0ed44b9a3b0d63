// sim/apiserver/protobuf.cpp — the protobuf decoder: a request body ("k8s\0" + runtime.Unknown)
// read into the JSON the rest of the server works on, walking the tables of protobuf_schema.
#include "sim/apiserver/protobuf.hpp"

#include "sim/apiserver/protobuf_schema.hpp"

#include "core/time.hpp"
#include "net/json_parse.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

namespace hpaplus::sim {
namespace {

using protobuf::field;
using protobuf::kind;
using protobuf::message;

// --- wire reading --------------------------------------------------------------------------

struct reader {
    std::string_view data;
    std::size_t pos = 0;
    bool failed = false;

    bool done() const { return pos >= data.size() || failed; }
    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= data.size()) {
                failed = true;
                return 0;
            }
            const auto b = static_cast<std::uint8_t>(data[pos++]);
            v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        failed = true;
        return 0;
    }
    std::string_view bytes() {
        const std::uint64_t n = varint();
        if (failed || n > data.size() - pos) {
            failed = true;
            return {};
        }
        std::string_view out = data.substr(pos, n);
        pos += n;
        return out;
    }
    /// Whether `tag` has wire type `wire`; a field of the wrong type fails the read (Go's "wrong
    /// wireType"), never read as another type.
    bool expect(std::uint64_t tag, unsigned wire) {
        if ((tag & 7) != wire) failed = true;
        return !failed;
    }
    void skip(unsigned wire) {
        switch (wire) {
        case 0:
            varint();
            break;
        case 1:
            pos += 8;
            break;
        case 2:
            bytes();
            break;
        case 5:
            pos += 4;
            break;
        default:
            failed = true;
        }
        if (pos > data.size()) failed = true;
    }
};

// Where a decode stands and why it failed.
struct decoding {
    bool status_write = false; ///< the request writes the status subresource
    std::string refused;       ///< a field the decoder cannot keep, named for the 415
};

bool decode(std::string_view data, const message& schema, json& out, json_alloc& a, decoding& d,
            const std::string& path);

// A JSON string of `s` (an empty view may have no data pointer, which rapidjson must not copy).
json text_value(std::string_view s, json_alloc& a) {
    if (s.empty()) return json("", a);
    return json(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// The seconds our time_point of nanoseconds holds (years 1678 to 2262; Go's Time goes on to 9999,
// no object of ours needs it): beyond them the body is refused as malformed, never overflowed.
bool valid_seconds(std::int64_t seconds) {
    constexpr std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 1000000000 - 1;
    return seconds >= -limit && seconds <= limit;
}

// map<string, V> entries are messages {1: key, 2: value}.
bool decode_map_entry(std::string_view data, kind type, json& out, json_alloc& a) {
    reader r{data};
    std::string key;
    json value;
    while (!r.done()) {
        const std::uint64_t tag = r.varint();
        const auto number = tag >> 3;
        if ((number == 1 || number == 2) && !r.expect(tag, 2)) return false;
        if (number == 1)
            key = std::string(r.bytes());
        else if (number == 2 && type == kind::quantity_map) {
            reader q{r.bytes()};
            while (!q.done()) {
                const std::uint64_t t = q.varint();
                if ((t >> 3) == 1 && q.expect(t, 2)) {
                    auto s = q.bytes();
                    value = text_value(s, a);
                } else {
                    q.skip(t & 7);
                }
            }
            if (q.failed) return false;
        } else if (number == 2 && type == kind::bytes_map) {
            static const char b64[] =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            const auto raw = r.bytes();
            std::string enc;
            for (std::size_t i = 0; i < raw.size(); i += 3) {
                const unsigned n =
                    (static_cast<unsigned char>(raw[i]) << 16) |
                    (i + 1 < raw.size() ? static_cast<unsigned char>(raw[i + 1]) << 8 : 0) |
                    (i + 2 < raw.size() ? static_cast<unsigned char>(raw[i + 2]) : 0);
                enc += b64[(n >> 18) & 63];
                enc += b64[(n >> 12) & 63];
                enc += i + 1 < raw.size() ? b64[(n >> 6) & 63] : '=';
                enc += i + 2 < raw.size() ? b64[n & 63] : '=';
            }
            value = json(enc.c_str(), static_cast<rapidjson::SizeType>(enc.size()), a);
        } else if (number == 2) {
            auto s = r.bytes();
            value = text_value(s, a);
        } else {
            r.skip(tag & 7);
        }
    }
    if (r.failed) return false;
    if (value.IsNull()) value = json("", a);
    if (!out.IsObject()) out.SetObject();
    const json name(key.c_str(), static_cast<rapidjson::SizeType>(key.size()), a);
    if (const auto it = out.FindMember(name); it != out.MemberEnd())
        it->value = value; // a key sent twice: the last one, as Go's map keeps it
    else
        out.AddMember(json(name, a), value, a);
    return true;
}

// A RawExtension or FieldsV1 {raw = 1}: JSON text, read with the JSON door's limits.
bool decode_raw_json(std::string_view data, json& value, json_alloc& a) {
    reader r{data};
    std::string_view raw;
    while (!r.done()) {
        const std::uint64_t tag = r.varint();
        if ((tag >> 3) == 1 && r.expect(tag, 2))
            raw = r.bytes();
        else
            r.skip(tag & 7);
    }
    if (r.failed) return false;
    if (raw.empty()) {
        value.SetNull();
        return true;
    }
    json_doc parsed;
    if (!net::parse_json(parsed, raw).empty()) return false;
    value.CopyFrom(parsed, a);
    return true;
}

bool decode_value(reader& r, unsigned wire, const field& f, json& value, json_alloc& a, decoding& d,
                  const std::string& path) {
    switch (f.type) {
    case kind::string: {
        auto s = r.bytes();
        value = text_value(s, a);
        return !r.failed;
    }
    case kind::int32:
        value = json(static_cast<std::int32_t>(r.varint()));
        return !r.failed;
    case kind::int64:
        value = json(static_cast<std::int64_t>(r.varint()));
        return !r.failed;
    case kind::boolean:
        value = json(r.varint() != 0);
        return !r.failed;
    case kind::message:
        if (f.sub->fields.size() == 1 && f.sub->fields[0].type == kind::raw_json)
            return decode_raw_json(r.bytes(), value, a) && !r.failed;
        value.SetObject();
        return decode(r.bytes(), *f.sub, value, a, d, path) && !r.failed;
    case kind::inline_message:
    case kind::ignored:
    case kind::status:
    case kind::raw_json:
        return false; // decode() handles them (raw_json only lies under ignored managedFields)
    case kind::time: {
        reader t{r.bytes()};
        std::int64_t seconds = 0;
        while (!t.done()) {
            const std::uint64_t tag = t.varint();
            if ((tag >> 3) == 1 && t.expect(tag, 0))
                seconds = static_cast<std::int64_t>(t.varint());
            else
                t.skip(tag & 7);
        }
        if (seconds == 0) { // the zero Time is null in JSON
            value.SetNull();
            return !t.failed;
        }
        if (!valid_seconds(seconds)) return false;
        const std::string text =
            core::format_rfc3339(core::time_point{std::chrono::seconds(seconds)});
        value = json(text.c_str(), a);
        return !t.failed;
    }
    case kind::micro_time: { // {seconds = 1, nanos = 2}, written with microseconds
        reader t{r.bytes()};
        std::int64_t seconds = 0, nanos = 0;
        while (!t.done()) {
            const std::uint64_t tag = t.varint();
            if ((tag >> 3) == 1 && t.expect(tag, 0))
                seconds = static_cast<std::int64_t>(t.varint());
            else if ((tag >> 3) == 2 && t.expect(tag, 0))
                nanos = static_cast<std::int32_t>(t.varint());
            else
                t.skip(tag & 7);
        }
        if (!valid_seconds(seconds) || nanos < 0 || nanos > 999999999) return false;
        nanos -= nanos % 1000; // what a MicroTime holds
        if (seconds == 0 && nanos == 0) {
            value.SetNull();
            return !t.failed;
        }
        const std::string text = core::format_micro_time(
            core::time_point{std::chrono::seconds(seconds) + std::chrono::nanoseconds(nanos)});
        value = json(text.c_str(), a);
        return !t.failed;
    }
    case kind::quantity: {
        reader q{r.bytes()};
        while (!q.done()) {
            const std::uint64_t tag = q.varint();
            if ((tag >> 3) == 1 && q.expect(tag, 2)) {
                auto s = q.bytes();
                value = text_value(s, a);
            } else {
                q.skip(tag & 7);
            }
        }
        return !q.failed;
    }
    case kind::int_or_string: {
        reader q{r.bytes()};
        std::int64_t type = 0, int_val = 0;
        std::string str_val;
        while (!q.done()) {
            const std::uint64_t tag = q.varint();
            if ((tag >> 3) == 1 && q.expect(tag, 0))
                type = static_cast<std::int64_t>(q.varint());
            else if ((tag >> 3) == 2 && q.expect(tag, 0))
                int_val = static_cast<std::int32_t>(q.varint());
            else if ((tag >> 3) == 3 && q.expect(tag, 2))
                str_val = std::string(q.bytes());
            else
                q.skip(tag & 7);
        }
        value = type == 1 ? json(str_val.c_str(), a) : json(int_val);
        return !q.failed;
    }
    case kind::string_map:
    case kind::quantity_map:
    case kind::bytes_map:
        (void)wire;
        return decode_map_entry(r.bytes(), f.type, value, a) && !r.failed;
    }
    return false;
}

// A field a message does not list: skipped when it carries a zero value (Go's encoder writes
// every non-pointer field, and a zero is what JSON's omitempty leaves out), refused otherwise.
bool skip_unknown(reader& r, unsigned wire, int number, decoding& d, const std::string& path) {
    bool zero = false;
    if (wire == 0)
        zero = r.varint() == 0;
    else if (wire == 2)
        zero = r.bytes().empty();
    else
        r.skip(wire);
    if (r.failed || zero) return !r.failed;
    d.refused = "field " + std::to_string(number) + " of " + (path.empty() ? "the object" : path) +
                " is not decoded by the simulated cluster";
    return false;
}

bool decode(std::string_view data, const message& schema, json& out, json_alloc& a, decoding& d,
            const std::string& path) {
    reader r{data};
    while (!r.done()) {
        const std::uint64_t tag = r.varint();
        const int number = static_cast<int>(tag >> 3);
        const unsigned wire = static_cast<unsigned>(tag & 7);
        const field* f = nullptr;
        for (const auto& candidate : schema.fields)
            if (candidate.number == number) f = &candidate;
        if (!f) {
            if (!skip_unknown(r, wire, number, d, path)) return false;
            continue;
        }
        // A field sent with another wire type than its kind's is malformed (Go's "wrong
        // wireType"), not read as something else.
        const bool scalar =
            f->type == kind::int32 || f->type == kind::int64 || f->type == kind::boolean;
        if (wire != (scalar ? 0u : 2u)) return false;
        const std::string at = f->name[0] ? (path.empty() ? "" : path + ".") + f->name : path;
        if (f->type == kind::ignored) {
            r.skip(wire);
            continue;
        }
        if (f->type == kind::status) {
            const auto body = r.bytes();
            if (d.status_write && !body.empty()) {
                d.refused = "a status written as protobuf is not decoded by the simulated cluster";
                return false;
            }
            continue;
        }
        if (f->type == kind::inline_message) {
            if (!decode(r.bytes(), *f->sub, out, a, d, path) || r.failed) return false;
            continue;
        }
        const json name(rapidjson::StringRef(f->name));
        auto it = out.FindMember(name);
        const bool is_map = f->type == kind::string_map || f->type == kind::quantity_map ||
                            f->type == kind::bytes_map;
        if (is_map) {
            if (it == out.MemberEnd()) {
                out.AddMember(json(rapidjson::StringRef(f->name)), json(rapidjson::kObjectType), a);
                it = out.FindMember(name);
            }
            if (!decode_value(r, wire, *f, it->value, a, d, at)) return false;
            continue;
        }
        json value;
        if (!decode_value(r, wire, *f, value, a, d, at)) return false;
        const bool zero = (value.IsString() && value.GetStringLength() == 0) ||
                          (value.IsInt64() && value.GetInt64() == 0) ||
                          (value.IsBool() && !value.GetBool());
        // Only a zero Time is null in JSON; a nil *MicroTime or an empty RawExtension is absent.
        if (value.IsNull() && f->type != kind::time) continue;
        if (zero && !f->repeated && !f->pointer) continue;           // omitempty
        if (f->repeated) {
            if (it == out.MemberEnd()) {
                out.AddMember(json(rapidjson::StringRef(f->name)), json(rapidjson::kArrayType), a);
                it = out.FindMember(name);
            }
            it->value.PushBack(value, a);
        } else if (it != out.MemberEnd()) {
            it->value = std::move(value);
        } else {
            out.AddMember(json(rapidjson::StringRef(f->name)), value, a);
        }
    }
    return !r.failed;
}

} // namespace

core::outcome<std::string> protobuf_to_json(std::string_view body, bool status_write) {
    if (body.size() < 4 || body.substr(0, 4) != std::string_view("k8s\0", 4))
        return core::error_message(
            "the protobuf body does not start with the Kubernetes magic prefix");
    reader envelope{body.substr(4)};
    std::string api_version, kind_name;
    std::string_view raw;
    while (!envelope.done()) {
        const std::uint64_t tag = envelope.varint();
        const auto number = tag >> 3;
        if (number == 1) {
            reader type_meta{envelope.bytes()};
            while (!type_meta.done()) {
                const std::uint64_t t = type_meta.varint();
                if ((t >> 3) == 1)
                    api_version = std::string(type_meta.bytes());
                else if ((t >> 3) == 2)
                    kind_name = std::string(type_meta.bytes());
                else
                    type_meta.skip(t & 7);
            }
        } else if (number == 2) {
            raw = envelope.bytes();
        } else {
            envelope.skip(tag & 7);
        }
    }
    if (envelope.failed) return core::error_message("the protobuf envelope is truncated");
    const message* schema = protobuf::schema_of(api_version, kind_name);
    if (!schema)
        return core::error_message("protobuf is not supported for " + api_version + " " +
                                   kind_name + " by the simulated cluster; send application/json");
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("apiVersion", json(api_version.c_str(), a), a);
    doc.AddMember("kind", json(kind_name.c_str(), a), a);
    decoding d{status_write, {}};
    if (!decode(raw, *schema, doc, a, d, ""))
        return core::error_message(d.refused.empty()
                                       ? "the protobuf body of " + kind_name + " is malformed"
                                       : "the protobuf body of " + kind_name + ": " + d.refused +
                                             "; send application/json");
    return core::success(to_string(doc));
}

} // namespace hpaplus::sim
