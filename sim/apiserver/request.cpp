// sim/apiserver/request.cpp — request paths, selectors and answers.
#include "sim/apiserver/request.hpp"

namespace hpaplus::sim {

using net::http_response;

http_response error_response(const api_error& e) {
    http_response r{e.code, json_type, status_json(e), {}};
    if (e.retry_after_seconds)
        r.headers.emplace_back("Retry-After", std::to_string(*e.retry_after_seconds));
    return r;
}

http_response ok(std::string body, int status) {
    return {status, json_type, std::move(body), {}};
}

bool query_flag(const net::http_request& r, std::string_view name) {
    const auto v = r.query_param(name);
    return v &&
           (*v == "1" || *v == "t" || *v == "T" || *v == "TRUE" || *v == "true" || *v == "True");
}

std::vector<std::string> split(std::string_view path) {
    std::vector<std::string> parts;
    while (!path.empty()) {
        if (path.front() == '/') {
            path.remove_prefix(1);
            continue;
        }
        const auto slash = path.find('/');
        parts.emplace_back(path.substr(0, slash));
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash);
    }
    return parts;
}

std::optional<target> parse_resource_path(const std::vector<std::string>& parts, std::size_t start,
                                          std::string group, std::string version) {
    target t{std::move(group), std::move(version), {}, {}, {}, {}};
    std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(start), parts.end());
    if (rest.empty()) return std::nullopt;
    if (rest[0] == "namespaces" && rest.size() >= 3 && rest[2] != "status" &&
        rest[2] != "finalize") {
        t.ns = rest[1];
        rest.erase(rest.begin(), rest.begin() + 2);
    }
    if (rest.size() > 3) return std::nullopt;
    t.plural = rest[0];
    if (rest.size() > 1) t.name = rest[1];
    if (rest.size() > 2) t.sub = rest[2];
    return t;
}

std::optional<target> resource_target(const std::vector<std::string>& parts) {
    if (parts.size() >= 3 && parts[0] == "api" && parts[1] == "v1")
        return parse_resource_path(parts, 2, "", "v1");
    if (parts.size() >= 4 && parts[0] == "apis")
        return parse_resource_path(parts, 3, parts[1], parts[2]);
    return std::nullopt;
}

std::optional<api_error> rewrite_watch_path(net::http_request& r) {
    std::vector<std::string> parts = split(r.path);
    const std::size_t at = parts.size() >= 3 && parts[0] == "api" ? 2
                           : parts.size() >= 4 && parts[0] == "apis" ? 3
                                                                     : 0;
    if (at == 0 || parts.size() <= at + 1 || parts[at] != "watch") return std::nullopt;
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(at));
    const auto t = resource_target(parts);
    if (!t || !t->sub.empty()) return std::nullopt; // no subresource is watched: a 404 as it is
    if (!t->name.empty()) {
        // Upstream: a fieldSelector of the request's own stays, but may not name another object.
        const auto given = r.query_param("fieldSelector");
        if (!given || given->empty()) {
            r.query.emplace_back("fieldSelector", "metadata.name=" + t->name);
        } else if (const auto fields = parse_field_selector(*given)) {
            for (const auto& f : *fields)
                if (f.equals && (f.path == "metadata.name" || f.path == ".metadata.name") &&
                    f.value != t->name)
                    return bad_request("fieldSelector metadata.name=" + f.value +
                                       " does not match requested name " + t->name);
        }
        parts.pop_back();
    }
    std::erase_if(r.query, [](const auto& q) { return q.first == "watch"; });
    r.query.emplace_back("watch", "true");
    r.path.clear();
    for (const auto& p : parts)
        r.path.append("/").append(p);
    return std::nullopt;
}

std::optional<std::vector<field_requirement>> parse_field_selector(std::string_view s) {
    std::vector<field_requirement> out;
    while (!s.empty()) {
        const auto comma = s.find(',');
        std::string_view term = s.substr(0, comma);
        field_requirement r;
        auto at = term.find("!=");
        std::size_t skip = 2;
        if (at != std::string_view::npos) {
            r.equals = false;
        } else if ((at = term.find("==")) == std::string_view::npos) {
            at = term.find('=');
            skip = 1;
        }
        if (at == std::string_view::npos || at == 0) return std::nullopt;
        r.path = std::string(term.substr(0, at));
        r.value = std::string(term.substr(at + skip));
        out.push_back(std::move(r));
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
    }
    return out;
}

namespace {

std::string field_text(const json& obj, const std::string& path) {
    const json* v = find_path(obj, path);
    if (!v) return "";
    if (v->IsString()) return v->GetString();
    if (v->IsBool()) return v->GetBool() ? "true" : "false";
    if (v->IsInt64()) return std::to_string(v->GetInt64());
    return to_string(*v);
}

} // namespace

bool filter::matches(const stored_object& o) const {
    if (!ns.empty() && o.namespace_ != ns) return false;
    if (!labels.matches(o.labels)) return false;
    for (const auto& f : fields)
        if ((field_text(o.doc, f.path) == f.value) != f.equals) return false;
    return true;
}

} // namespace hpaplus::sim
