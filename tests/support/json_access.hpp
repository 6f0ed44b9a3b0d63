// tests/support/json_access.hpp — reading JSON responses in tests: parse, and a JSON-pointer
// lookup that renders scalars as text ("<missing>" when absent).
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

namespace hpaplus::test {

inline rapidjson::Document parse(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    return d;
}

inline std::string str(const rapidjson::Value& root, const char* pointer) {
    const rapidjson::Value* v = rapidjson::Pointer(pointer).Get(root);
    if (!v) return "<missing>";
    if (v->IsString()) return v->GetString();
    if (v->IsInt64()) return std::to_string(v->GetInt64());
    if (v->IsBool()) return v->GetBool() ? "true" : "false";
    return "<other>";
}

/// A value as compact JSON.
inline std::string json_text(const rapidjson::Value& v) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    v.Accept(writer);
    return {buffer.GetString(), buffer.GetSize()};
}

} // namespace hpaplus::test
