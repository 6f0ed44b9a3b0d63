// tests/support/json_access.hpp — reading JSON responses in tests: parse, and a JSON-pointer
// lookup that renders scalars as text ("<missing>" when absent).
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

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

} // namespace hpaplus::test
