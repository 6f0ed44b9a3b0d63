// kube/encode.cpp — JSON text, conditions and selectors as the API server serializes them.
#include "kube/encode.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>

namespace hpaplus::kube {
namespace {

using rapidjson::Value;

const char* status_word(core::condition_status s) {
    switch (s) {
    case core::condition_status::true_:
        return "True";
    case core::condition_status::false_:
        return "False";
    case core::condition_status::unknown:
        return "Unknown";
    }
    return "Unknown";
}

/// A rapidjson SAX handler that hashes what it is given (a tag for each event and its bytes):
/// Value::Accept walks a value into it as it would into a Writer.
class digest_handler {
  public:
    std::uint64_t digest() const { return h_; }
    bool Null() { return tag('n'); }
    bool Bool(bool b) { return tag(b ? 't' : 'f'); }
    bool Int(int i) { return number('i', i); }
    bool Uint(unsigned u) { return number('u', u); }
    bool Int64(std::int64_t i) { return number('I', i); }
    bool Uint64(std::uint64_t u) { return number('U', u); }
    bool Double(double d) { return number('d', d); }
    bool RawNumber(const char* s, rapidjson::SizeType n, bool) { return text('r', s, n); }
    bool String(const char* s, rapidjson::SizeType n, bool) { return text('s', s, n); }
    bool Key(const char* s, rapidjson::SizeType n, bool) { return text('k', s, n); }
    bool StartObject() { return tag('{'); }
    bool EndObject(rapidjson::SizeType) { return tag('}'); }
    bool StartArray() { return tag('['); }
    bool EndArray(rapidjson::SizeType) { return tag(']'); }

  private:
    // Eight bytes a step (a status's strings are most of it): each step is a bijection of the
    // state for a given word and tells different words apart, so texts that differ in one word
    // always differ in their digest.
    void mix(const void* bytes, std::size_t n) {
        const auto* p = static_cast<const unsigned char*>(bytes);
        for (; n >= 8; p += 8, n -= 8) {
            std::uint64_t word;
            std::memcpy(&word, p, 8);
            step(word);
        }
        if (n > 0) {
            std::uint64_t word = 0;
            std::memcpy(&word, p, n);
            step(word ^ (std::uint64_t{n} << 59)); // the tail's length: "a\0" is not "a"
        }
    }
    void step(std::uint64_t word) {
        h_ ^= word;
        h_ *= 1099511628211ull;
        h_ ^= h_ >> 29;
    }
    bool tag(char t) {
        mix(&t, 1);
        return true;
    }
    template <class N> bool number(char t, N n) {
        tag(t);
        mix(&n, sizeof n);
        return true;
    }
    // The length first, so that adjacent strings cannot trade bytes.
    bool text(char t, const char* s, rapidjson::SizeType n) {
        number(t, n);
        mix(s, n);
        return true;
    }
    std::uint64_t h_ = 14695981039346656037ull;
};

} // namespace

std::uint64_t json_digest(const rapidjson::Value& v) {
    digest_handler h;
    v.Accept(h);
    return h.digest();
}

Value json_string(std::string_view s, json_allocator& a) {
    return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

Value encode_selector(const core::label_selector_spec& s, json_allocator& a) {
    Value v(rapidjson::kObjectType);
    if (!s.match_labels.empty()) {
        Value labels(rapidjson::kObjectType);
        for (const auto& [k, val] : s.match_labels)
            labels.AddMember(json_string(k, a), json_string(val, a), a);
        v.AddMember("matchLabels", labels, a);
    }
    if (!s.match_expressions.empty()) {
        Value exprs(rapidjson::kArrayType);
        for (const auto& e : s.match_expressions) {
            Value ev(rapidjson::kObjectType);
            ev.AddMember("key", json_string(e.key, a), a);
            ev.AddMember("operator", json_string(e.op, a), a);
            if (!e.values.empty()) {
                Value values(rapidjson::kArrayType);
                for (const auto& val : e.values)
                    values.PushBack(json_string(val, a), a);
                ev.AddMember("values", values, a);
            }
            exprs.PushBack(ev, a);
        }
        v.AddMember("matchExpressions", exprs, a);
    }
    return v;
}

Value encode_conditions(const std::vector<core::condition>& conditions, json_allocator& a) {
    Value list(rapidjson::kArrayType);
    for (const auto& c : conditions) {
        Value v(rapidjson::kObjectType);
        v.AddMember("type", json_string(c.type, a), a);
        v.AddMember("status", Value(status_word(c.status), a), a);
        if (c.last_transition_time)
            v.AddMember("lastTransitionTime",
                        json_string(core::rfc3339(*c.last_transition_time).view(), a), a);
        v.AddMember("reason", json_string(c.reason, a), a);
        v.AddMember("message", json_string(c.message, a), a);
        list.PushBack(v, a);
    }
    return list;
}

std::string to_json_text(const rapidjson::Value& v, std::string& scratch) {
    // Written into the caller's buffer, then copied out at its exact size: texts are often kept
    // (in caches, in objects' memory), and a reserved string would keep its spare capacity with
    // them. A buffer grown past 64 KiB by a large text is given back.
    scratch.clear();
    string_output out{scratch};
    rapidjson::Writer<string_output> writer(out);
    v.Accept(writer);
    std::string text = scratch;
    if (scratch.capacity() > 64 * 1024) std::string().swap(scratch);
    return text;
}

std::string to_json_text(const rapidjson::Value& v) {
    std::string scratch;
    return to_json_text(v, scratch);
}

} // namespace hpaplus::kube
