// sim/apiserver/table.cpp — Table rows for built-in kinds and custom resources.
#include "sim/apiserver/table.hpp"

#include "sim/apiserver/hpa_versions.hpp"

#include <algorithm>
#include <charconv>
#include <functional>

namespace hpaplus::sim {
namespace {

struct column {
    const char* name;
    const char* type;
    int priority;
    std::function<json(const json& obj, json_alloc& a)> cell;
};

json str(const std::string& s, json_alloc& a) {
    return json(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

std::string age_of(const json& obj, core::time_point now) {
    const auto created = core::parse_rfc3339(string_at(obj, "metadata.creationTimestamp"));
    if (!created) return "<unknown>";
    return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *created));
}

std::vector<column> builtin_columns(const resource_type& t, core::time_point now) {
    auto name = column{"Name", "string", 0, [](const json& o, json_alloc& a) {
                           return str(string_at(o, "metadata.name"), a);
                       }};
    auto age = column{"Age", "string", 0,
                      [now](const json& o, json_alloc& a) { return str(age_of(o, now), a); }};
    if (t.plural == "pods" && t.group.empty()) {
        return {name,
                {"Ready", "string", 0,
                 [](const json& o, json_alloc& a) {
                     const json* spec = find_path(o, "spec.containers");
                     const json* statuses = find_path(o, "status.containerStatuses");
                     std::int64_t ready = 0;
                     if (statuses && statuses->IsArray())
                         for (const auto& s : statuses->GetArray())
                             if (const json* r = find_path(s, "ready");
                                 r && r->IsBool() && r->GetBool())
                                 ++ready;
                     const auto total = spec && spec->IsArray() ? spec->Size() : 0;
                     return str(std::to_string(ready) + "/" + std::to_string(total), a);
                 }},
                {"Status", "string", 0,
                 [](const json& o, json_alloc& a) {
                     if (find_path(o, "metadata.deletionTimestamp")) return str("Terminating", a);
                     const std::string phase = string_at(o, "status.phase");
                     return str(phase.empty() ? "Pending" : phase, a);
                 }},
                {"Restarts", "integer", 0,
                 [](const json& o, json_alloc&) {
                     std::int64_t restarts = 0;
                     if (const json* s = find_path(o, "status.containerStatuses");
                         s && s->IsArray())
                         for (const auto& c : s->GetArray())
                             restarts += int_at(c, "restartCount");
                     return json(restarts);
                 }},
                age,
                {"IP", "string", 1,
                 [](const json& o, json_alloc& a) {
                     const std::string ip = string_at(o, "status.podIP");
                     return ip.empty() ? json(rapidjson::kNullType) : str(ip, a);
                 }},
                {"Node", "string", 1, [](const json& o, json_alloc& a) {
                     const std::string node = string_at(o, "spec.nodeName");
                     return node.empty() ? json(rapidjson::kNullType) : str(node, a);
                 }}};
    }
    if (t.plural == "deployments") {
        return {
            name,
            {"Ready", "string", 0,
             [](const json& o, json_alloc& a) {
                 return str(std::to_string(int_at(o, "status.readyReplicas")) + "/" +
                                std::to_string(int_at(o, "spec.replicas")),
                            a);
             }},
            {"Up-to-date", "integer", 0,
             [](const json& o, json_alloc&) { return json(int_at(o, "status.updatedReplicas")); }},
            {"Available", "integer", 0,
             [](const json& o, json_alloc&) {
                 return json(int_at(o, "status.availableReplicas"));
             }},
            age};
    }
    if (t.group.empty() && t.plural == "services") { // upstream's printService
        auto text = [](const char* path) {
            return [path](const json& o, json_alloc& a) {
                const std::string v = string_at(o, path);
                return str(v.empty() ? "<none>" : v, a);
            };
        };
        return {name,
                {"Type", "string", 0, text("spec.type")},
                {"Cluster-IP", "string", 0, text("spec.clusterIP")},
                {"External-IP", "string", 0, text("spec.externalName")},
                {"Port(s)", "string", 0,
                 [](const json& o, json_alloc& a) {
                     std::string ports;
                     if (const json* list = find_path(o, "spec.ports"); list && list->IsArray())
                         for (const auto& p : list->GetArray())
                             ports += (ports.empty() ? "" : ",") +
                                      std::to_string(int_at(p, "port")) + "/" +
                                      string_at(p, "protocol");
                     return str(ports.empty() ? "<none>" : ports, a);
                 }},
                age};
    }
    if (t.group == "apps" && t.plural == "replicasets") {
        return {
            name,
            {"Desired", "integer", 0,
             [](const json& o, json_alloc&) { return json(int_at(o, "spec.replicas")); }},
            {"Current", "integer", 0,
             [](const json& o, json_alloc&) { return json(int_at(o, "status.replicas")); }},
            {"Ready", "integer", 0,
             [](const json& o, json_alloc&) { return json(int_at(o, "status.readyReplicas")); }},
            age};
    }
    if (t.group == "apps" && t.plural == "statefulsets") {
        return {name,
                {"Ready", "string", 0,
                 [](const json& o, json_alloc& a) {
                     return str(std::to_string(int_at(o, "status.readyReplicas")) + "/" +
                                    std::to_string(int_at(o, "spec.replicas")),
                                a);
                 }},
                age};
    }
    if (t.plural == "nodes" && t.group.empty()) { // upstream's printNode
        return {name,
                {"Status", "string", 0,
                 [](const json& o, json_alloc& a) {
                     std::string ready = "Unknown";
                     if (const json* cs = find_path(o, "status.conditions"); cs && cs->IsArray())
                         for (const auto& c : cs->GetArray())
                             if (string_at(c, "type") == "Ready")
                                 ready = string_at(c, "status") == "True" ? "Ready" : "NotReady";
                     return str(ready, a);
                 }},
                {"Roles", "string", 0,
                 [](const json& o, json_alloc& a) {
                     std::string roles;
                     const std::string prefix = "node-role.kubernetes.io/";
                     if (const json* ls = find_path(o, "metadata.labels"); ls && ls->IsObject())
                         for (const auto& m : ls->GetObject()) {
                             const std::string key = m.name.GetString();
                             if (key.rfind(prefix, 0) == 0)
                                 roles += (roles.empty() ? "" : ",") + key.substr(prefix.size());
                         }
                     return str(roles.empty() ? "<none>" : roles, a);
                 }},
                age,
                {"Version", "string", 0, [](const json& o, json_alloc& a) {
                     return str(string_at(o, "status.nodeInfo.kubeletVersion"), a);
                 }}};
    }
    if (t.plural == "namespaces") {
        return {name,
                {"Status", "string", 0,
                 [](const json& o, json_alloc& a) {
                     const std::string phase = string_at(o, "status.phase");
                     return str(phase.empty() ? "Active" : phase, a);
                 }},
                age};
    }
    if (t.plural == "events" && t.group.empty()) {
        return {{"Last Seen", "string", 0,
                 [now](const json& o, json_alloc& a) {
                     std::string ts = string_at(o, "lastTimestamp");
                     if (ts.empty()) ts = string_at(o, "eventTime");
                     const auto t0 = core::parse_rfc3339(ts);
                     if (!t0) return str("<unknown>", a);
                     return str(human_duration(
                                    std::chrono::duration_cast<std::chrono::seconds>(now - *t0)),
                                a);
                 }},
                {"Type", "string", 0,
                 [](const json& o, json_alloc& a) { return str(string_at(o, "type"), a); }},
                {"Reason", "string", 0,
                 [](const json& o, json_alloc& a) { return str(string_at(o, "reason"), a); }},
                {"Object", "string", 0,
                 [](const json& o, json_alloc& a) {
                     return str(ascii_lower(string_at(o, "involvedObject.kind")) + "/" +
                                    string_at(o, "involvedObject.name"),
                                a);
                 }},
                {"Message", "string", 0,
                 [](const json& o, json_alloc& a) { return str(string_at(o, "message"), a); }}};
    }
    if (t.plural == "customresourcedefinitions") {
        return {name, {"Created At", "date", 0, [](const json& o, json_alloc& a) {
                           return str(string_at(o, "metadata.creationTimestamp"), a);
                       }}};
    }
    if (is_hpa(t)) { // upstream's printHorizontalPodAutoscaler
        return {
            name,
            {"Reference", "string", 0,
             [](const json& o, json_alloc& a) {
                 return str(string_at(o, "spec.scaleTargetRef.kind") + "/" +
                                string_at(o, "spec.scaleTargetRef.name"),
                            a);
             }},
            {"Targets", "string", 0,
             [](const json& o, json_alloc& a) { return str(hpa_targets(o), a); }},
            {"MinPods", "string", 0,
             [](const json& o, json_alloc& a) {
                 const json* min = find_path(o, "spec.minReplicas");
                 return str(min && min->IsInt64() ? std::to_string(min->GetInt64()) : "<unset>", a);
             }},
            {"MaxPods", "integer", 0,
             [](const json& o, json_alloc&) { return json(int_at(o, "spec.maxReplicas")); }},
            {"Replicas", "integer", 0,
             [](const json& o, json_alloc&) { return json(int_at(o, "status.currentReplicas")); }},
            age};
    }
    return {name, age};
}

// Whether `v` equals the JSONPath literal `literal` ("x", 'x', a number, true or false).
bool equals_literal(const json* v, std::string_view literal) {
    if (!v || literal.empty()) return false;
    if (literal.size() >= 2 && (literal.front() == '"' || literal.front() == '\'') &&
        literal.back() == literal.front())
        return v->IsString() && std::string_view(v->GetString(), v->GetStringLength()) ==
                                    literal.substr(1, literal.size() - 2);
    if (literal == "true" || literal == "false")
        return v->IsBool() && v->GetBool() == (literal == "true");
    double number = 0;
    const auto [end, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), number);
    return ec == std::errc() && end == literal.data() + literal.size() && v->IsNumber() &&
           v->GetDouble() == number;
}

// The first value a CRD printer column's JSONPath finds, as kube-apiserver's table convertor
// prints the first of client-go's jsonpath results (missing keys allowed): `.field`, `[N]` (from
// the end when negative), `[*]`, and the filter `[?(@.path==LITERAL)]` or `!=`. Anything else
// finds nothing. Linear in the path; each array is walked at most once per step.
const json* first_match(const json& v, std::string_view path) {
    if (path.empty()) return &v;
    if (path.front() == '.') {
        path.remove_prefix(1);
        const auto end = std::min(path.find_first_of(".["), path.size());
        if (!v.IsObject()) return nullptr;
        const std::string_view name = path.substr(0, end);
        const auto it =
            v.FindMember(json(name.data(), static_cast<rapidjson::SizeType>(name.size())));
        return it == v.MemberEnd() ? nullptr : first_match(it->value, path.substr(end));
    }
    if (path.front() != '[' || !v.IsArray()) return nullptr;
    const bool filter = path.starts_with("[?(");
    const auto close = filter ? path.find(")]") : path.find(']');
    if (close == std::string_view::npos) return nullptr;
    const std::string_view inner = path.substr(1, close - 1);
    const std::string_view rest = path.substr(close + (filter ? 2 : 1));
    const auto items = v.GetArray();
    if (inner == "*") {
        for (const auto& item : items)
            if (const json* found = first_match(item, rest)) return found;
        return nullptr;
    }
    if (filter) {
        const std::string_view test = inner.substr(2); // after "?("
        const auto op = test.find_first_of("=!");
        if (!test.starts_with("@") || op == std::string_view::npos || op + 1 >= test.size() ||
            test[op + 1] != '=')
            return nullptr;
        const bool equal = test[op] == '=';
        std::string_view field = test.substr(1, op - 1);
        while (!field.empty() && field.back() == ' ')
            field.remove_suffix(1);
        std::string_view literal = test.substr(op + 2);
        while (!literal.empty() && literal.front() == ' ')
            literal.remove_prefix(1);
        for (const auto& item : items)
            if (equals_literal(first_match(item, field), literal) == equal)
                if (const json* found = first_match(item, rest)) return found;
        return nullptr;
    }
    long long index = 0;
    const auto [end, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), index);
    if (ec != std::errc() || end != inner.data() + inner.size()) return nullptr;
    const auto size = static_cast<long long>(items.Size());
    if (index < 0) index += size;
    if (index < 0 || index >= size) return nullptr;
    return first_match(items[static_cast<rapidjson::SizeType>(index)], rest);
}

// A CRD printer column: the JSON value at the path, if it has the declared type.
json custom_cell(const json& obj, const printer_column& c, core::time_point now, json_alloc& a) {
    const json* v = first_match(obj, c.json_path);
    if (!v) return json(rapidjson::kNullType);
    if (c.type == "date") {
        if (!v->IsString()) return json(rapidjson::kNullType);
        const auto t0 = core::parse_rfc3339(v->GetString());
        if (!t0) return json(rapidjson::kNullType);
        return str(human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t0)), a);
    }
    if (c.type == "integer") return v->IsInt64() ? json(v->GetInt64()) : json(rapidjson::kNullType);
    if (c.type == "number")
        return v->IsNumber() ? json(v->GetDouble()) : json(rapidjson::kNullType);
    if (c.type == "boolean") return v->IsBool() ? json(v->GetBool()) : json(rapidjson::kNullType);
    if (v->IsString()) return json(*v, a);
    return str(to_string(*v), a); // arrays and objects print as JSON, like the real server
}

} // namespace

std::string human_duration(std::chrono::seconds d) {
    const long long seconds = d.count();
    if (seconds < -1) return "<invalid>";
    if (seconds < 0) return "0s";
    if (seconds < 120) return std::to_string(seconds) + "s";
    const long long minutes = seconds / 60;
    if (minutes < 10) {
        const long long s = seconds % 60;
        return s == 0 ? std::to_string(minutes) + "m"
                      : std::to_string(minutes) + "m" + std::to_string(s) + "s";
    }
    if (minutes < 180) return std::to_string(minutes) + "m";
    const long long hours = seconds / 3600;
    if (hours < 8) {
        const long long m = minutes % 60;
        return m == 0 ? std::to_string(hours) + "h"
                      : std::to_string(hours) + "h" + std::to_string(m) + "m";
    }
    if (hours < 48) return std::to_string(hours) + "h";
    if (hours < 24 * 8) {
        const long long h = hours % 24;
        return h == 0 ? std::to_string(hours / 24) + "d"
                      : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
    }
    if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
    if (hours < 24 * 365 * 8) {
        const long long dy = (hours / 24) % 365;
        return dy == 0 ? std::to_string(hours / 24 / 365) + "y"
                       : std::to_string(hours / 24 / 365) + "y" + std::to_string(dy) + "d";
    }
    return std::to_string(hours / 24 / 365) + "y";
}

std::string table_json(const resource_type& t, const std::vector<object_ptr>& objects,
                       std::uint64_t rv, core::time_point now, const std::string& continue_token) {
    json_doc doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("kind", "Table", a);
    doc.AddMember("apiVersion", "meta.k8s.io/v1", a);
    json meta(rapidjson::kObjectType);
    meta.AddMember("resourceVersion", str(std::to_string(rv), a), a);
    // A paged list as a table: kubectl follows `continue` from the Table's own metadata.
    if (!continue_token.empty()) meta.AddMember("continue", str(continue_token, a), a);
    doc.AddMember("metadata", meta, a);

    json defs(rapidjson::kArrayType);
    auto add_def = [&](const std::string& name, const std::string& type, const std::string& format,
                       int priority, const std::string& description) {
        json d(rapidjson::kObjectType);
        d.AddMember("name", str(name, a), a);
        d.AddMember("type", str(type, a), a);
        d.AddMember("format", str(format, a), a);
        d.AddMember("description", str(description, a), a);
        d.AddMember("priority", priority, a);
        defs.PushBack(d, a);
    };
    const bool custom_columns = t.custom;
    std::vector<column> columns;
    if (custom_columns) {
        add_def("Name", "string", "name", 0, "Name must be unique within a namespace.");
        if (t.columns.empty()) add_def("Age", "date", "", 0, "CreationTimestamp of the object");
        for (const auto& c : t.columns)
            add_def(c.name, c.type == "date" ? "date" : c.type, c.format, c.priority,
                    c.description);
    } else {
        columns = builtin_columns(t, now);
        for (const auto& c : columns)
            add_def(c.name, c.type, std::string(c.name) == "Name" ? "name" : "", c.priority, "");
    }
    doc.AddMember("columnDefinitions", defs, a);

    json rows(rapidjson::kArrayType);
    for (const auto& o : objects) {
        json cells(rapidjson::kArrayType);
        if (custom_columns) {
            cells.PushBack(str(o->name, a), a);
            if (t.columns.empty()) cells.PushBack(str(age_of(o->doc, now), a), a);
            for (const auto& c : t.columns)
                cells.PushBack(custom_cell(o->doc, c, now, a), a);
        } else {
            for (const auto& c : columns)
                cells.PushBack(c.cell(o->doc, a), a);
        }
        json row(rapidjson::kObjectType);
        row.AddMember("cells", cells, a);
        json partial(rapidjson::kObjectType);
        partial.AddMember("kind", "PartialObjectMetadata", a);
        partial.AddMember("apiVersion", "meta.k8s.io/v1", a);
        partial.AddMember("metadata", json(*find_path(o->doc, "metadata"), a), a);
        row.AddMember("object", partial, a);
        rows.PushBack(row, a);
    }
    doc.AddMember("rows", rows, a);
    return to_string(doc);
}

} // namespace hpaplus::sim
