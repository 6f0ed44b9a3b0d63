// sim/pod_log.cpp — see the header.
#include "sim/pod_log.hpp"

#include "sim/json_util.hpp"

namespace hpaplus::sim {
namespace {

const json* container_status(const stored_object* pod, std::string_view name) {
    if (!pod) return nullptr;
    const json* list = find_path(pod->doc, "status.containerStatuses");
    if (!list || !list->IsArray()) return nullptr;
    for (const auto& s : list->GetArray())
        if (text_at(s, "name") == name) return &s;
    return nullptr;
}

bool flag(const json* status, std::string_view field) {
    const json* v = status ? find_path(*status, field) : nullptr;
    return v && v->IsBool() && v->GetBool();
}

std::string resources_text(const json* status) {
    std::string out;
    for (const char* kind : {"requests", "limits"}) {
        const json* m = status ? find_path(*status, std::string("resources.") + kind) : nullptr;
        if (!m || !m->IsObject()) continue;
        std::string part;
        for (const auto& [k, v] : m->GetObject())
            if (v.IsString())
                part +=
                    (part.empty() ? "" : ",") + std::string(k.GetString()) + "=" + v.GetString();
        if (!part.empty()) out += (out.empty() ? "" : " ") + std::string(kind) + " " + part;
    }
    return out.empty() ? "none" : out;
}

} // namespace

void pod_log_book::write(container_log& log, core::time_point at, std::string text) {
    log.current.push_back({next_seq_++, at, std::move(text)});
    if (log.current.size() > kept_lines) log.current.pop_front();
}

void pod_log_book::observe(const stored_object* before, const stored_object* after,
                           core::time_point now) {
    if (!after) {
        if (before) logs_.erase(string_at(before->doc, "metadata.uid"));
        return;
    }
    const std::string uid = string_at(after->doc, "metadata.uid");
    const json* list = find_path(after->doc, "status.containerStatuses");
    const bool terminating = find_path(after->doc, "metadata.deletionTimestamp") != nullptr;
    const bool was_terminating =
        before && find_path(before->doc, "metadata.deletionTimestamp") != nullptr;
    if (list && list->IsArray())
        for (const auto& now_status : list->GetArray()) {
            const std::string name = string_at(now_status, "name");
            const json* then = container_status(before, name);
            const bool running = find_path(now_status, "state.running") != nullptr;
            const bool was_running = then && find_path(*then, "state.running") != nullptr;
            if (!running && !logs_.contains(uid)) continue; // nothing ran yet: no log
            container_log& log = logs_[uid][name];
            const std::int64_t restarts = int_at(now_status, "restartCount");
            if (then && restarts > int_at(*then, "restartCount")) {
                write(log, now, "stopped for a restart (restart " + std::to_string(restarts) + ")");
                log.previous.assign(log.current.begin(), log.current.end());
                log.current.clear();
                log.has_previous = true;
            }
            if (running && (!was_running || restarts != (then ? int_at(*then, "restartCount") : 0)))
                write(log, now,
                      "started: image " + string_at(now_status, "image") + ", resources " +
                          resources_text(&now_status));
            else if (running && then && resources_text(then) != resources_text(&now_status))
                write(log, now, "resized: resources " + resources_text(&now_status));
            if (running && flag(&now_status, "ready") != flag(then, "ready"))
                write(log, now, flag(&now_status, "ready") ? "ready" : "not ready");
            if (terminating && !was_terminating) {
                const json* grace = find_path(after->doc, "metadata.deletionGracePeriodSeconds");
                write(log, now,
                      "received SIGTERM, stopping (grace period " +
                          std::to_string(grace && grace->IsInt64() ? grace->GetInt64() : 30) +
                          "s)");
                log.stopped = true;
            }
        }
}

const container_log* pod_log_book::find(std::string_view uid, std::string_view container) const {
    const auto pod = logs_.find(std::string(uid));
    if (pod == logs_.end()) return nullptr;
    const auto it = pod->second.find(container);
    return it == pod->second.end() ? nullptr : &it->second;
}

} // namespace hpaplus::sim
