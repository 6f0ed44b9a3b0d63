// sim/apiserver/table.cpp — Table rows for built-in kinds and custom resources.
#include "sim/apiserver/table.hpp"

#include "sim/apiserver/hpa_versions.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>

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

std::string since(std::string_view rfc3339, core::time_point now) {
    const auto t0 = core::parse_rfc3339(rfc3339);
    if (!t0) return "<unknown>";
    return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t0));
}

std::string age_of(const json& obj, core::time_point now) {
    return since(text_at(obj, "metadata.creationTimestamp"), now);
}

std::string or_none(std::string s) {
    return s.empty() ? "<none>" : s;
}

// A column whose cell is the string at `path`, `fallback` when empty.
column text(const char* name, const char* path, int priority = 0, const char* fallback = "") {
    return {name, "string", priority, [path, fallback](const json& o, json_alloc& a) {
                std::string v = string_at(o, path);
                return str(v.empty() ? fallback : v, a);
            }};
}

column integer(const char* name, const char* path, const char* type = "integer") {
    return {name, type, 0, [path](const json& o, json_alloc&) { return json(int_at(o, path)); }};
}

// The number of members (or items) at `path`, upstream's len().
std::int64_t count_at(const json& o, const char* path) {
    const json* v = find_path(o, path);
    if (v && v->IsObject()) return v->MemberCount();
    if (v && v->IsArray()) return v->Size();
    return 0;
}

// Names and images of a pod template's containers, comma-separated (layoutContainerCells).
std::string container_field(const json& o, const char* containers, const char* field) {
    std::string out;
    if (const json* list = find_path(o, containers); list && list->IsArray())
        for (rapidjson::SizeType i = 0; i < list->Size(); ++i)
            out += (i ? "," : "") + string_at((*list)[i], field);
    return out;
}

// metav1.FormatLabelSelector: the selector's string form, "<none>" when it selects everything.
std::string selector_text(const json& o, const char* path, bool none_when_empty = true) {
    const auto selector = label_selector_of(find_path(o, path));
    if (!selector) return "<error>";
    const std::string text = core::to_string(*selector);
    return text.empty() && none_when_empty ? "<none>" : text;
}

// labels.FormatLabels: `k=v` pairs sorted by key, "<none>" when there are none.
std::string labels_text(const json& o, const char* path) {
    std::vector<std::pair<std::string, std::string>> pairs;
    if (const json* m = find_path(o, path); m && m->IsObject())
        for (const auto& kv : m->GetObject())
            if (kv.value.IsString()) pairs.emplace_back(kv.name.GetString(), kv.value.GetString());
    std::sort(pairs.begin(), pairs.end());
    std::string out;
    for (const auto& [k, v] : pairs)
        out += (out.empty() ? "" : ",") + k + "=" + v;
    return or_none(out);
}

// Containers, Images and (unless `selector` is null) Selector: the priority-1 columns of the
// workload printers.
void add_template_columns(std::vector<column>& columns, const char* selector, bool format = true) {
    columns.push_back({"Containers", "string", 1, [](const json& o, json_alloc& a) {
                           return str(container_field(o, "spec.template.spec.containers", "name"),
                                      a);
                       }});
    columns.push_back({"Images", "string", 1, [](const json& o, json_alloc& a) {
                           return str(container_field(o, "spec.template.spec.containers", "image"),
                                      a);
                       }});
    if (selector)
        columns.push_back(
            {"Selector", "string", 1, [selector, format](const json& o, json_alloc& a) {
                 return str(selector_text(o, selector, format), a);
             }});
}

// printJob's Status: the first of its conditions that holds, in upstream's order.
std::string job_status(const json& o) {
    auto holds = [&](std::string_view type) {
        if (const json* cs = find_path(o, "status.conditions"); cs && cs->IsArray())
            for (const auto& c : cs->GetArray())
                if (text_at(c, "type") == type && text_at(c, "status") == "True") return true;
        return false;
    };
    if (holds("Complete")) return "Complete";
    if (holds("Failed")) return "Failed";
    if (find_path(o, "metadata.deletionTimestamp")) return "Terminating";
    for (const char* type : {"Suspended", "FailureTarget", "SuccessCriteriaMet"})
        if (holds(type)) return type;
    return "Running";
}

// printJob's Completions: succeeded of completions (of one, "of N" running in parallel).
std::string job_completions(const json& o) {
    const std::string done = std::to_string(int_at(o, "status.succeeded"));
    if (find_path(o, "spec.completions"))
        return done + "/" + std::to_string(int_at(o, "spec.completions"));
    const std::int64_t parallelism = int_at(o, "spec.parallelism");
    return parallelism > 1 ? done + "/1 of " + std::to_string(parallelism) : done + "/1";
}

// printJob's Duration: from start to completion, or to now while it runs; empty before it starts.
std::string job_duration(const json& o, core::time_point now) {
    const auto start = core::parse_rfc3339(text_at(o, "status.startTime"));
    if (!start) return "";
    const auto end = core::parse_rfc3339(text_at(o, "status.completionTime"));
    return human_duration(
        std::chrono::duration_cast<std::chrono::seconds>((end ? *end : now) - *start));
}

// printControllerRevision's Controller: `kind.group/name` of its controller, lower case.
std::string controller_of(const json& o) {
    if (const json* refs = find_path(o, "metadata.ownerReferences"); refs && refs->IsArray())
        for (const auto& ref : refs->GetArray()) {
            const json* controller = member_of(&ref, "controller");
            if (!controller || !controller->IsTrue()) continue;
            const std::string api_version = string_at(ref, "apiVersion");
            const auto slash = api_version.find('/');
            std::string kind = string_at(ref, "kind");
            if (slash != std::string::npos) kind += "." + api_version.substr(0, slash);
            return ascii_lower(kind) + "/" + string_at(ref, "name");
        }
    return "<none>";
}

std::string ready_of_desired(const json& o) {
    return std::to_string(int_at(o, "status.readyReplicas")) + "/" +
           std::to_string(int_at(o, "spec.replicas"));
}

// printPod's Status column: the phase or reason, then what the containers say.
std::string pod_status(const json& o) {
    const std::string phase = string_at(o, "status.phase");
    std::string reason = string_at(o, "status.reason");
    if (reason.empty()) reason = phase;
    if (const json* cs = find_path(o, "status.conditions"); cs && cs->IsArray())
        for (const auto& c : cs->GetArray())
            if (text_at(c, "type") == "PodScheduled" && text_at(c, "reason") == "SchedulingGated")
                reason = "SchedulingGated";
    bool has_running = false;
    if (const json* s = find_path(o, "status.containerStatuses"); s && s->IsArray()) {
        for (auto i = s->Size(); i-- > 0;) {
            const json& c = (*s)[i];
            const std::string waiting = string_at(c, "state.waiting.reason");
            const json* terminated = find_path(c, "state.terminated");
            if (!waiting.empty())
                reason = waiting;
            else if (terminated && !string_at(*terminated, "reason").empty())
                reason = string_at(*terminated, "reason");
            else if (terminated)
                reason = int_at(*terminated, "signal") != 0
                             ? "Signal:" + std::to_string(int_at(*terminated, "signal"))
                             : "ExitCode:" + std::to_string(int_at(*terminated, "exitCode"));
            else if (const json* r = find_path(c, "ready");
                     r && r->IsBool() && r->GetBool() && find_path(c, "state.running"))
                has_running = true;
        }
    }
    if (reason == "Completed" && has_running) {
        bool ready = false;
        if (const json* cs = find_path(o, "status.conditions"); cs && cs->IsArray())
            for (const auto& c : cs->GetArray())
                ready |= text_at(c, "type") == "Ready" && text_at(c, "status") == "True";
        reason = ready ? "Running" : "NotReady";
    }
    if (find_path(o, "metadata.deletionTimestamp")) {
        if (string_at(o, "status.reason") == "NodeLost")
            reason = "Unknown";
        else if (phase != "Succeeded" && phase != "Failed")
            reason = "Terminating";
    }
    return reason;
}

std::vector<column> pod_columns(core::time_point now) {
    return {
        {"Ready", "string", 0,
         [](const json& o, json_alloc& a) {
             std::int64_t ready = 0;
             if (const json* s = find_path(o, "status.containerStatuses"); s && s->IsArray())
                 for (const auto& c : s->GetArray())
                     if (const json* r = find_path(c, "ready");
                         r && r->IsBool() && r->GetBool() && find_path(c, "state.running"))
                         ++ready;
             return str(
                 std::to_string(ready) + "/" + std::to_string(count_at(o, "spec.containers")), a);
         }},
        {"Status", "string", 0, [](const json& o, json_alloc& a) { return str(pod_status(o), a); }},
        {"Restarts", "string", 0,
         [now](const json& o, json_alloc& a) {
             // The count, and how long ago the last container ended ("2 (5m ago)").
             std::int64_t restarts = 0;
             std::optional<core::time_point> last;
             if (const json* s = find_path(o, "status.containerStatuses"); s && s->IsArray())
                 for (const auto& c : s->GetArray()) {
                     restarts += int_at(c, "restartCount");
                     if (const auto t =
                             core::parse_rfc3339(text_at(c, "lastState.terminated.finishedAt"));
                         t && (!last || *t > *last))
                         last = *t;
                 }
             std::string cell = std::to_string(restarts);
             if (restarts != 0 && last)
                 cell +=
                     " (" +
                     human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *last)) +
                     " ago)";
             return str(cell, a);
         }},
        {"Age", "string", 0,
         [now](const json& o, json_alloc& a) { return str(age_of(o, now), a); }},
        {"IP", "string", 1,
         [](const json& o, json_alloc& a) {
             std::string ip;
             if (const json* ips = find_path(o, "status.podIPs");
                 ips && ips->IsArray() && !ips->Empty())
                 ip = string_at((*ips)[0], "ip");
             if (ip.empty()) ip = string_at(o, "status.podIP");
             return str(or_none(ip), a);
         }},
        text("Node", "spec.nodeName", 1, "<none>"),
        text("Nominated Node", "status.nominatedNodeName", 1, "<none>"),
        {"Readiness Gates", "string", 1, [](const json& o, json_alloc& a) {
             const json* gates = find_path(o, "spec.readinessGates");
             if (!gates || !gates->IsArray() || gates->Empty()) return str("<none>", a);
             const json* conditions = find_path(o, "status.conditions");
             std::int64_t met = 0;
             for (const auto& g : gates->GetArray()) {
                 if (!conditions || !conditions->IsArray()) break;
                 for (const auto& c : conditions->GetArray())
                     if (text_at(c, "type") == text_at(g, "conditionType")) {
                         met += text_at(c, "status") == "True";
                         break;
                     }
             }
             return str(std::to_string(met) + "/" + std::to_string(gates->Size()), a);
         }}};
}

// getServiceExternalIP: external IPs, the load balancer's ingress, or the external name.
std::string service_external_ip(const json& o) {
    const std::string type = string_at(o, "spec.type");
    std::string external;
    for (const auto& ip : strings_at(o, "spec.externalIPs"))
        external += (external.empty() ? "" : ",") + ip;
    if (type == "ClusterIP" || type == "NodePort" || type.empty()) return or_none(external);
    if (type == "ExternalName") return string_at(o, "spec.externalName");
    if (type != "LoadBalancer") return "<unknown>";
    std::vector<std::string> ingress;
    if (const json* list = find_path(o, "status.loadBalancer.ingress"); list && list->IsArray())
        for (const auto& i : list->GetArray()) {
            std::string v = string_at(i, "ip");
            if (v.empty()) v = string_at(i, "hostname");
            if (!v.empty()) ingress.push_back(std::move(v));
        }
    std::sort(ingress.begin(), ingress.end());
    ingress.erase(std::unique(ingress.begin(), ingress.end()), ingress.end());
    std::string out;
    for (const auto& i : ingress)
        out += (out.empty() ? "" : ",") + i;
    if (!external.empty()) return out.empty() ? external : out + "," + external;
    return out.empty() ? "<pending>" : out;
}

std::string node_address(const json& o, std::string_view type) {
    if (const json* list = find_path(o, "status.addresses"); list && list->IsArray())
        for (const auto& addr : list->GetArray())
            if (text_at(addr, "type") == type) return string_at(addr, "address");
    return "<none>";
}

std::string event_source(const json& o) {
    std::string component = string_at(o, "source.component");
    if (component.empty()) component = string_at(o, "reportingComponent");
    std::string host = string_at(o, "source.host");
    if (host.empty()) host = string_at(o, "reportingInstance");
    return host.empty() ? component : component + ", " + host;
}

std::string trimmed(std::string s) {
    const auto first = s.find_first_not_of(" \t\n\r");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\n\r") - first + 1);
}

std::vector<column> event_columns(core::time_point now) {
    auto first_seen = [now](const json& o) {
        const std::string_view first = text_at(o, "firstTimestamp");
        return since(first.empty() ? text_at(o, "eventTime") : first, now);
    };
    return {{"Last Seen", "string", 0,
             [now, first_seen](const json& o, json_alloc& a) {
                 if (const json* series = find_path(o, "series"); series && series->IsObject())
                     return str(since(text_at(*series, "lastObservedTime"), now), a);
                 const std::string_view last = text_at(o, "lastTimestamp");
                 return str(last.empty() ? first_seen(o) : since(last, now), a);
             }},
            text("Type", "type"),
            text("Reason", "reason"),
            {"Object", "string", 0,
             [](const json& o, json_alloc& a) {
                 std::string target = ascii_lower(string_at(o, "involvedObject.kind"));
                 const std::string name = string_at(o, "involvedObject.name");
                 if (!name.empty()) target += "/" + name;
                 return str(target, a);
             }},
            text("Subobject", "involvedObject.fieldPath", 1),
            {"Source", "string", 1,
             [](const json& o, json_alloc& a) { return str(event_source(o), a); }},
            {"Message", "string", 0,
             [](const json& o, json_alloc& a) { return str(trimmed(string_at(o, "message")), a); }},
            {"First Seen", "string", 1,
             [first_seen](const json& o, json_alloc& a) { return str(first_seen(o), a); }},
            {"Count", "string", 1,
             [](const json& o, json_alloc&) {
                 if (const json* series = find_path(o, "series"); series && series->IsObject())
                     return json(int_at(*series, "count"));
                 const std::int64_t count = int_at(o, "count");
                 return json(count == 0 ? 1 : count); // singletons of events.k8s.io/v1 count one
             }},
            {"Name", "string", 1,
             [](const json& o, json_alloc& a) { return str(string_at(o, "metadata.name"), a); }}};
}

// The kinds with a printer in upstream's pkg/printers/internalversion (kube-apiserver builds every
// table with Wide set: kubectl drops the priority-1 columns unless asked for `-o wide`), and the
// aggregator's APIService printer. Columns after Name; empty when the kind has none.
std::vector<column> printer_columns(const resource_type& t, core::time_point now) {
    const column age{"Age", "string", 0,
                     [now](const json& o, json_alloc& a) { return str(age_of(o, now), a); }};
    const std::string& g = t.group;
    const std::string& r = t.plural;
    if (g.empty() && r == "pods") return pod_columns(now);
    if (g == "apps" && r == "deployments") {
        std::vector<column> c{
            {"Ready", "string", 0,
             [](const json& o, json_alloc& a) { return str(ready_of_desired(o), a); }},
            integer("Up-to-date", "status.updatedReplicas", "string"),
            integer("Available", "status.availableReplicas", "string"),
            age};
        add_template_columns(c, "spec.selector", false);
        return c;
    }
    if (g == "apps" && r == "replicasets") {
        std::vector<column> c{integer("Desired", "spec.replicas"),
                              integer("Current", "status.replicas"),
                              integer("Ready", "status.readyReplicas"), age};
        add_template_columns(c, "spec.selector");
        return c;
    }
    if (g == "apps" && r == "statefulsets") {
        std::vector<column> c{
            {"Ready", "string", 0,
             [](const json& o, json_alloc& a) { return str(ready_of_desired(o), a); }},
            age};
        add_template_columns(c, nullptr);
        return c;
    }
    if (g == "apps" && r == "daemonsets") {
        std::vector<column> c{integer("Desired", "status.desiredNumberScheduled"),
                              integer("Current", "status.currentNumberScheduled"),
                              integer("Ready", "status.numberReady"),
                              integer("Up-to-date", "status.updatedNumberScheduled"),
                              integer("Available", "status.numberAvailable"),
                              {"Node Selector", "string", 0,
                               [](const json& o, json_alloc& a) {
                                   return str(labels_text(o, "spec.template.spec.nodeSelector"), a);
                               }},
                              age};
        add_template_columns(c, "spec.selector");
        return c;
    }
    if (g == "batch" && r == "jobs") {
        std::vector<column> c{
            {"Status", "string", 0,
             [](const json& o, json_alloc& a) { return str(job_status(o), a); }},
            {"Completions", "string", 0,
             [](const json& o, json_alloc& a) { return str(job_completions(o), a); }},
            {"Duration", "string", 0,
             [now](const json& o, json_alloc& a) { return str(job_duration(o, now), a); }},
            age};
        add_template_columns(c, "spec.selector");
        return c;
    }
    if (g == "apps" && r == "controllerrevisions") {
        return {{"Controller", "string", 0,
                 [](const json& o, json_alloc& a) { return str(controller_of(o), a); }},
                integer("Revision", "revision"),
                age};
    }
    if (g == "networking.k8s.io" && r == "networkpolicies") {
        return {{"Pod-Selector", "string", 0,
                 [](const json& o, json_alloc& a) {
                     return str(selector_text(o, "spec.podSelector"), a);
                 }},
                age};
    }
    if (g == "scheduling.k8s.io" && r == "priorityclasses") {
        return {integer("Value", "value"),
                {"Global-Default", "boolean", 0,
                 [](const json& o, json_alloc&) {
                     const json* v = member_of(&o, "globalDefault");
                     return json(v && v->IsTrue());
                 }},
                age,
                text("PreemptionPolicy", "preemptionPolicy")};
    }
    if (g.empty() && r == "services") {
        return {text("Type", "spec.type"),
                {"Cluster-IP", "string", 0,
                 [](const json& o, json_alloc& a) {
                     const auto ips = strings_at(o, "spec.clusterIPs");
                     return str(ips.empty() ? "<none>" : ips.front(), a);
                 }},
                {"External-IP", "string", 0,
                 [](const json& o, json_alloc& a) { return str(service_external_ip(o), a); }},
                {"Port(s)", "string", 0,
                 [](const json& o, json_alloc& a) {
                     std::string ports;
                     if (const json* list = find_path(o, "spec.ports"); list && list->IsArray())
                         for (const auto& p : list->GetArray()) {
                             ports +=
                                 (ports.empty() ? "" : ",") + std::to_string(int_at(p, "port"));
                             if (int_at(p, "nodePort") > 0)
                                 ports += ":" + std::to_string(int_at(p, "nodePort"));
                             ports += "/" + string_at(p, "protocol");
                         }
                     return str(or_none(ports), a);
                 }},
                age,
                {"Selector", "string", 1, [](const json& o, json_alloc& a) {
                     return str(labels_text(o, "spec.selector"), a);
                 }}};
    }
    if (g.empty() && r == "nodes") {
        return {
            {"Status", "string", 0,
             [](const json& o, json_alloc& a) {
                 std::string status = "Unknown";
                 if (const json* cs = find_path(o, "status.conditions"); cs && cs->IsArray())
                     for (const auto& c : cs->GetArray())
                         if (text_at(c, "type") == "Ready")
                             status = text_at(c, "status") == "True" ? "Ready" : "NotReady";
                 if (const json* u = find_path(o, "spec.unschedulable");
                     u && u->IsBool() && u->GetBool())
                     status += ",SchedulingDisabled";
                 return str(status, a);
             }},
            {"Roles", "string", 0,
             [](const json& o, json_alloc& a) {
                 std::vector<std::string> roles;
                 const std::string_view prefix = "node-role.kubernetes.io/";
                 if (const json* ls = find_path(o, "metadata.labels"); ls && ls->IsObject())
                     for (const auto& m : ls->GetObject()) {
                         const std::string_view key(m.name.GetString(), m.name.GetStringLength());
                         if (key.starts_with(prefix) && key.size() > prefix.size())
                             roles.emplace_back(key.substr(prefix.size()));
                         else if (key == "kubernetes.io/role" && m.value.IsString() &&
                                  m.value.GetStringLength() > 0)
                             roles.emplace_back(m.value.GetString());
                     }
                 std::sort(roles.begin(), roles.end());
                 roles.erase(std::unique(roles.begin(), roles.end()), roles.end());
                 std::string out;
                 for (const auto& role : roles)
                     out += (out.empty() ? "" : ",") + role;
                 return str(or_none(out), a);
             }},
            age,
            text("Version", "status.nodeInfo.kubeletVersion"),
            {"Internal-IP", "string", 1,
             [](const json& o, json_alloc& a) { return str(node_address(o, "InternalIP"), a); }},
            {"External-IP", "string", 1,
             [](const json& o, json_alloc& a) { return str(node_address(o, "ExternalIP"), a); }},
            text("OS-Image", "status.nodeInfo.osImage", 1, "<unknown>"),
            text("Kernel-Version", "status.nodeInfo.kernelVersion", 1, "<unknown>"),
            text("Container-Runtime", "status.nodeInfo.containerRuntimeVersion", 1, "<unknown>")};
    }
    if (g.empty() && r == "namespaces") return {text("Status", "status.phase"), age};
    if (g.empty() && (r == "configmaps" || r == "secrets" || r == "serviceaccounts")) {
        std::vector<column> c;
        if (r == "secrets") c.push_back(text("Type", "type"));
        c.push_back({r == "serviceaccounts" ? "Secrets" : "Data", "string", 0,
                     [r](const json& o, json_alloc&) {
                         if (r == "serviceaccounts") return json(count_at(o, "secrets"));
                         return json(count_at(o, "data") + count_at(o, "binaryData"));
                     }});
        c.push_back(age);
        return c;
    }
    if (g.empty() && r == "endpoints") {
        return {{"Endpoints", "string", 0,
                 [](const json& o, json_alloc& a) {
                     // formatEndpoints: up to three host:port pairs, then "+ N more...".
                     std::vector<std::string> list;
                     std::int64_t count = 0;
                     const json* subsets = find_path(o, "subsets");
                     if (!subsets || !subsets->IsArray() || subsets->Empty())
                         return str("<none>", a);
                     for (const auto& ss : subsets->GetArray()) {
                         const json* addresses = find_path(ss, "addresses");
                         const json* ports = find_path(ss, "ports");
                         const auto n = addresses && addresses->IsArray() ? addresses->Size() : 0;
                         const bool no_ports = !ports || !ports->IsArray() || ports->Empty();
                         const auto port_count = no_ports ? 1 : ports->Size();
                         for (rapidjson::SizeType p = 0; p < port_count; ++p) {
                             count += n;
                             for (rapidjson::SizeType i = 0; i < n && list.size() < 3; ++i) {
                                 std::string ip = string_at((*addresses)[i], "ip");
                                 if (!no_ports) {
                                     if (ip.find(':') != std::string::npos) ip = "[" + ip + "]";
                                     ip += ":" + std::to_string(int_at((*ports)[p], "port"));
                                 }
                                 list.push_back(std::move(ip));
                             }
                         }
                     }
                     std::string out;
                     for (const auto& e : list)
                         out += (out.empty() ? "" : ",") + e;
                     if (count > 3) out += " + " + std::to_string(count - 3) + " more...";
                     return str(out, a);
                 }},
                age};
    }
    if (g == "discovery.k8s.io" && r == "endpointslices") {
        auto listed = [](std::vector<std::string> items, std::int64_t count) {
            std::string out;
            for (std::size_t i = 0; i < items.size() && i < 3; ++i)
                out += (i ? "," : "") + items[i];
            if (count > 3) return out + " + " + std::to_string(count - 3) + " more...";
            return out.empty() ? std::string("<unset>") : out;
        };
        return {text("AddressType", "addressType"),
                {"Ports", "string", 0,
                 [listed](const json& o, json_alloc& a) {
                     std::vector<std::string> ports;
                     if (const json* list = find_path(o, "ports"); list && list->IsArray())
                         for (const auto& p : list->GetArray()) {
                             const json* port = find_path(p, "port");
                             ports.push_back(port && port->IsInt64()
                                                 ? std::to_string(port->GetInt64())
                                             : find_path(p, "name") ? string_at(p, "name")
                                                                    : "*");
                         }
                     const auto n = static_cast<std::int64_t>(ports.size());
                     return str(listed(std::move(ports), n), a);
                 }},
                {"Endpoints", "string", 0,
                 [listed](const json& o, json_alloc& a) {
                     std::vector<std::string> addresses;
                     if (const json* list = find_path(o, "endpoints"); list && list->IsArray())
                         for (const auto& e : list->GetArray())
                             for (auto& address : strings_at(e, "addresses"))
                                 addresses.push_back(std::move(address));
                     const auto n = static_cast<std::int64_t>(addresses.size());
                     return str(listed(std::move(addresses), n), a);
                 }},
                age};
    }
    if (g.empty() && r == "resourcequotas") { // printResourceQuota: used/hard per resource
        auto column_of = [](bool limits) {
            return [limits](const json& o, json_alloc& a) {
                std::vector<std::string> names;
                const json* hard = find_path(o, "status.hard");
                if (hard && hard->IsObject())
                    for (const auto& m : hard->GetObject())
                        names.emplace_back(m.name.GetString());
                std::sort(names.begin(), names.end());
                std::string out;
                for (const auto& n : names) {
                    if (n.starts_with("limits.") != limits) continue;
                    const json* used = member_of(find_path(o, "status.used"), n);
                    const json* h = member_of(hard, n);
                    out += (out.empty() ? "" : ", ") + n + ": " +
                           (used && used->IsString() ? used->GetString() : "0") + "/" +
                           (h && h->IsString() ? h->GetString() : "");
                }
                return str(out, a);
            };
        };
        return {{"Request", "string", 0, column_of(false)},
                {"Limit", "string", 0, column_of(true)},
                age};
    }
    if (g == "coordination.k8s.io" && r == "leases")
        return {text("Holder", "spec.holderIdentity"), age};
    if (g == "policy" && r == "poddisruptionbudgets") {
        auto int_or_string = [](const char* path) {
            return [path](const json& o, json_alloc& a) {
                const json* v = find_path(o, path);
                if (!v) return str("N/A", a);
                return str(v->IsString() ? std::string(v->GetString()) : to_string(*v), a);
            };
        };
        return {{"Min Available", "string", 0, int_or_string("spec.minAvailable")},
                {"Max Unavailable", "string", 0, int_or_string("spec.maxUnavailable")},
                integer("Allowed Disruptions", "status.disruptionsAllowed"),
                age};
    }
    if (g == "admissionregistration.k8s.io")
        return {{"Webhooks", "integer", 0,
                 [](const json& o, json_alloc&) { return json(count_at(o, "webhooks")); }},
                age};
    if (g == "rbac.authorization.k8s.io" && (r == "rolebindings" || r == "clusterrolebindings")) {
        auto subjects = [](const char* kind) {
            return [kind](const json& o, json_alloc& a) {
                std::string out;
                if (const json* list = find_path(o, "subjects"); list && list->IsArray())
                    for (const auto& s : list->GetArray()) {
                        if (text_at(s, "kind") != kind) continue;
                        std::string name = string_at(s, "name");
                        if (std::string_view(kind) == "ServiceAccount")
                            name = string_at(s, "namespace") + ":" + name;
                        out += (out.empty() ? "" : ", ") + name;
                    }
                return str(out, a);
            };
        };
        return {{"Role", "string", 0,
                 [](const json& o, json_alloc& a) {
                     return str(string_at(o, "roleRef.kind") + "/" + string_at(o, "roleRef.name"),
                                a);
                 }},
                age,
                {"Users", "string", 1, subjects("User")},
                {"Groups", "string", 1, subjects("Group")},
                {"ServiceAccounts", "string", 1, subjects("ServiceAccount")}};
    }
    if (g == "flowcontrol.apiserver.k8s.io" && r == "flowschemas") {
        return {text("PriorityLevel", "spec.priorityLevelConfiguration.name"),
                integer("MatchingPrecedence", "spec.matchingPrecedence", "string"),
                text("DistinguisherMethod", "spec.distinguisherMethod.type", 0, "<none>"),
                age,
                {"MissingPL", "string", 0, [](const json& o, json_alloc& a) {
                     std::string dangling = "?";
                     if (const json* cs = find_path(o, "status.conditions"); cs && cs->IsArray())
                         for (const auto& c : cs->GetArray())
                             if (text_at(c, "type") == "Dangling") {
                                 dangling = string_at(c, "status");
                                 break;
                             }
                     return str(dangling, a);
                 }}};
    }
    if (g == "apiregistration.k8s.io" && r == "apiservices") { // kube-aggregator's printer
        return {{"Service", "string", 0,
                 [](const json& o, json_alloc& a) {
                     if (!find_path(o, "spec.service")) return str("Local", a);
                     return str(string_at(o, "spec.service.namespace") + "/" +
                                    string_at(o, "spec.service.name"),
                                a);
                 }},
                {"Available", "string", 0,
                 [](const json& o, json_alloc& a) {
                     std::string status = "Unknown";
                     if (const json* cs = find_path(o, "status.conditions"); cs && cs->IsArray())
                         for (const auto& c : cs->GetArray())
                             if (text_at(c, "type") == "Available") {
                                 status = string_at(c, "status");
                                 const std::string reason = string_at(c, "reason");
                                 if (status != "True" && !reason.empty())
                                     status += " (" + reason + ")";
                             }
                     return str(status, a);
                 }},
                age};
    }
    if (is_hpa(t)) {
        return {{"Reference", "string", 0,
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
                     return str(min && min->IsInt64() ? std::to_string(min->GetInt64()) : "<unset>",
                                a);
                 }},
                integer("MaxPods", "spec.maxReplicas", "string"),
                integer("Replicas", "status.currentReplicas", "string"),
                age};
    }
    return {};
}

// Every column of a built-in kind: Name (last and wide for Events) and its printer's, or what the
// default table convertor prints for a kind without one (Name, Created At).
std::vector<column> builtin_columns(const resource_type& t, core::time_point now) {
    if (t.group.empty() && t.plural == "events") return event_columns(now);
    auto columns = printer_columns(t, now);
    if (columns.empty())
        columns.push_back({"Created At", "date", 0, [](const json& o, json_alloc& a) {
                               return str(string_at(o, "metadata.creationTimestamp"), a);
                           }});
    columns.insert(columns.begin(), {"Name", "string", 0, [](const json& o, json_alloc& a) {
                                         return str(string_at(o, "metadata.name"), a);
                                     }});
    return columns;
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
