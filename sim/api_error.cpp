// sim/api_error.cpp — Status objects (apimachinery/pkg/api/errors wording).
#include "sim/api_error.hpp"

#include "sim/json_util.hpp"

namespace hpaplus::sim {

std::string go_quoted(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                static constexpr char hex[] = "0123456789abcdef";
                out += "\\x";
                out += hex[(static_cast<unsigned char>(c) >> 4) & 0xF];
                out += hex[static_cast<unsigned char>(c) & 0xF];
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

namespace {

api_error with_details(int code, std::string reason, std::string message, const resource_type& t,
                       const std::string& name) {
    api_error e{code, std::move(reason), std::move(message), name, t.group, t.plural,
                {},   std::nullopt};
    return e;
}

} // namespace

json_doc status_document(const char* status) {
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("kind", "Status", a);
    doc.AddMember("apiVersion", "v1", a);
    doc.AddMember("metadata", json(rapidjson::kObjectType), a);
    doc.AddMember("status", rapidjson::StringRef(status), a);
    return doc;
}

std::string status_json(const api_error& e) {
    json_doc doc = status_document("Failure");
    auto& a = doc.GetAllocator();
    doc.AddMember("message", json(e.message.c_str(), a), a);
    doc.AddMember("reason", json(e.reason.c_str(), a), a);
    json details(rapidjson::kObjectType);
    if (!e.name.empty()) details.AddMember("name", json(e.name.c_str(), a), a);
    if (!e.group.empty()) details.AddMember("group", json(e.group.c_str(), a), a);
    if (!e.kind.empty()) details.AddMember("kind", json(e.kind.c_str(), a), a);
    if (!e.causes.empty()) {
        json causes(rapidjson::kArrayType);
        for (const auto& cause : e.causes) {
            json c(rapidjson::kObjectType);
            c.AddMember("reason", json(cause.reason.c_str(), a), a);
            c.AddMember("message", json(cause.message.c_str(), a), a);
            if (!cause.field.empty()) c.AddMember("field", json(cause.field.c_str(), a), a);
            causes.PushBack(c, a);
        }
        details.AddMember("causes", causes, a);
    }
    if (e.retry_after_seconds) details.AddMember("retryAfterSeconds", *e.retry_after_seconds, a);
    if (details.MemberCount() > 0) doc.AddMember("details", details, a);
    doc.AddMember("code", e.code, a);
    return to_string(doc);
}

api_error not_found(const resource_type& t, const std::string& name) {
    return with_details(404, "NotFound",
                        t.qualified_plural() + " " + go_quoted(name) + " not found", t, name);
}

api_error already_exists(const resource_type& t, const std::string& name) {
    return with_details(409, "AlreadyExists",
                        t.qualified_plural() + " " + go_quoted(name) + " already exists", t, name);
}

api_error conflict(const resource_type& t, const std::string& name) {
    return with_details(409, "Conflict",
                        "Operation cannot be fulfilled on " + t.qualified_plural() + " " +
                            go_quoted(name) +
                            ": the object has been modified; please apply your changes to the "
                            "latest version and try again",
                        t, name);
}

api_error invalid(const resource_type& t, const std::string& name,
                  std::vector<std::pair<std::string, std::string>> causes) {
    // errors.NewInvalid: the kind qualified by its group (`Deployment.apps`), one error as it is,
    // more as an aggregate in brackets.
    std::string message = (t.group.empty() ? t.kind : t.kind + "." + t.group) + " " +
                          go_quoted(name) + " is invalid: ";
    if (causes.size() > 1) message += "[";
    for (std::size_t i = 0; i < causes.size(); ++i)
        message += (i ? ", " : "") + causes[i].first + ": " + causes[i].second;
    if (causes.size() > 1) message += "]";
    api_error e = with_details(422, "Invalid", std::move(message), t, name);
    e.kind = t.kind; // Invalid carries the Kind, not the plural
    for (auto& [field, text] : causes)
        e.causes.push_back({"FieldValueInvalid", std::move(text), std::move(field)});
    return e;
}

api_error too_large_resource_version(std::uint64_t requested, std::uint64_t current) {
    api_error e{504,
                "Timeout",
                "Timeout: Too large resource version: " + std::to_string(requested) +
                    ", current: " + std::to_string(current),
                {},
                {},
                {},
                {{"ResourceVersionTooLarge", "Too large resource version", ""}},
                1};
    return e;
}

api_error bad_request(std::string message) {
    return {400, "BadRequest", std::move(message), {}, {}, {}, {}, std::nullopt};
}

api_error expired(std::string message) {
    return {410, "Expired", std::move(message), {}, {}, {}, {}, std::nullopt};
}

api_error method_not_supported(const resource_type& t, const std::string& verb) {
    return with_details(
        405, "MethodNotAllowed",
        verb + " is not supported on resources of kind " + go_quoted(t.qualified_plural()), t, "");
}

api_error unsupported_media_type(std::string message) {
    return {415, "UnsupportedMediaType", std::move(message), {}, {}, {}, {}, std::nullopt};
}

api_error too_many_requests(int retry_after_seconds) {
    return {429,
            "TooManyRequests",
            "the server has received too many requests and has asked us to try again later",
            {},
            {},
            {},
            {},
            retry_after_seconds};
}

api_error internal_error(std::string message) {
    return {500, "InternalError", "Internal error occurred: " + message, {}, {}, {},
            {},  std::nullopt};
}

api_error not_found_path(const std::string&) {
    return {404, "NotFound",  "the server could not find the requested resource", {}, {}, {},
            {},  std::nullopt};
}

} // namespace hpaplus::sim
