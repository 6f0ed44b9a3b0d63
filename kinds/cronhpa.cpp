// kinds/cronhpa.cpp — CronHPA decoding, status encoding, and floors.
#include "kinds/cronhpa.hpp"

#include "kinds/decode.hpp"
#include "kube/encode.hpp"

#include <rapidjson/document.h>

namespace hpaplus::kinds {
namespace {

using rapidjson::Value;

std::optional<cron::instant> opt_instant(kube::json_decoder& d, const kube::json_node& n) {
    const auto t = d.opt_time(n);
    if (!t) return std::nullopt;
    return std::chrono::floor<std::chrono::seconds>(*t);
}

std::string rfc3339(cron::instant t) {
    return core::format_rfc3339(std::chrono::time_point_cast<std::chrono::nanoseconds>(t));
}

cron::job decode_job(kube::json_decoder& d, const kube::json_node& n) {
    cron::job j;
    j.name = d.string(n["name"]);
    j.schedule = d.string(n["schedule"]);
    j.target_size = d.opt_int32(n["targetSize"], 0).value_or(0);
    j.run_once = d.opt_bool(n["runOnce"]).value_or(false);
    return j;
}

cron::status decode_status(const kube::json_node& n) {
    cron::status s;
    kube::json_decoder d;
    if (!n.present() || !d.object(n)) return s;
    s.observed_generation = d.opt_int(n["observedGeneration"], 0, INT64_MAX).value_or(0);
    if (const auto a = n["active"]; a.present() && d.object(a)) {
        cron::active_job active;
        active.job = d.opt_string(a["job"]).value_or("");
        active.target_size = d.opt_int32(a["targetSize"], 0).value_or(0);
        active.schedule_time = opt_instant(d, a["scheduleTime"]).value_or(cron::instant{});
        active.mode = cron::parse_run_mode(d.opt_string(a["mode"]).value_or(""))
                          .value_or(cron::run_mode::direct);
        active.hpaplus = d.opt_string(a["hpaPlus"]).value_or("");
        if (d.ok()) s.active = std::move(active);
    }
    const auto jobs = n["jobs"];
    for (std::size_t i = 0, size = d.array(jobs); i < size; ++i) {
        const auto j = jobs.at(i);
        kube::json_decoder jd;
        cron::job_status js;
        js.spec = decode_job(jd, j);
        js.submit_time = opt_instant(jd, j["submitTime"]);
        js.last_schedule_time = opt_instant(jd, j["lastScheduleTime"]);
        js.next_schedule_time = jd.opt_string(j["nextScheduleTime"]).value_or("");
        js.state = cron::parse_job_state(jd.opt_string(j["state"]).value_or(""))
                       .value_or(cron::job_state::scheduled);
        js.message = jd.opt_string(j["message"]).value_or("");
        if (jd.ok()) s.jobs.push_back(std::move(js));
    }
    const auto history = n["history"];
    for (std::size_t i = 0, size = d.array(history); i < size; ++i) {
        const auto h = history.at(i);
        kube::json_decoder hd;
        cron::run_record r;
        r.job = hd.opt_string(h["job"]).value_or("");
        r.schedule_time = opt_instant(hd, h["scheduleTime"]).value_or(cron::instant{});
        r.run_time = opt_instant(hd, h["runTime"]).value_or(cron::instant{});
        r.target_size = hd.opt_int32(h["targetSize"]).value_or(0);
        r.result = cron::parse_job_state(hd.opt_string(h["result"]).value_or(""))
                       .value_or(cron::job_state::scheduled);
        r.message = hd.opt_string(h["message"]).value_or("");
        if (hd.ok()) s.history.push_back(std::move(r));
    }
    kube::json_decoder cd;
    auto conditions = kinds::decode_conditions(cd, n["conditions"]);
    if (cd.ok()) s.conditions = std::move(conditions);
    return s;
}

Value encode_time(cron::instant t, kube::json_allocator& a) {
    return kube::json_string(rfc3339(t), a);
}

} // namespace

cronhpa decode_cronhpa(kube::json_decoder& d, const kube::json_node& n) {
    cronhpa c;
    if (!d.object(n)) return c;
    kube::object_meta meta = d.meta(n);
    c.ns = std::move(meta.ns);
    c.name = std::move(meta.name);
    c.uid = std::move(meta.uid);
    c.generation = meta.generation;
    c.created = opt_instant(d, n["metadata"]["creationTimestamp"]);
    const auto spec = n["spec"];
    if (!d.object(spec)) {
        d.fail(spec, "required field is missing");
        return c;
    }
    d.known_fields(
        spec, {"scaleTargetRef", "timeZone", "excludeDates", "startingDeadlineSeconds", "jobs"});
    c.spec.target = kinds::decode_reference(d, spec["scaleTargetRef"]);
    c.spec.time_zone = d.opt_string(spec["timeZone"]).value_or("UTC");
    const auto excludes = spec["excludeDates"];
    for (std::size_t i = 0, size = d.array(excludes); i < size; ++i)
        c.spec.exclude_dates.push_back(d.string(excludes.at(i)));
    c.spec.starting_deadline_seconds =
        d.opt_int(spec["startingDeadlineSeconds"], 0, std::int64_t{1} << 40);
    const auto jobs = spec["jobs"];
    const std::size_t count = d.array(jobs);
    if (count == 0) d.fail(jobs, "at least one job is required");
    for (std::size_t i = 0; i < count; ++i) {
        const auto j = jobs.at(i);
        d.known_fields(j, {"name", "schedule", "targetSize", "runOnce"});
        if (!j["targetSize"].present()) d.fail(j["targetSize"], "required field is missing");
        cron::job job = decode_job(d, j);
        for (const auto& other : c.spec.jobs)
            if (other.name == job.name)
                d.fail(j["name"], "duplicate job name \"" + job.name + "\"");
        c.spec.jobs.push_back(std::move(job));
    }
    c.status = decode_status(n["status"]);
    return c;
}

std::string encode_cronhpa_status(const cronhpa& c) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    const cron::status& s = c.status;
    doc.AddMember("observedGeneration", s.observed_generation, a);
    doc.AddMember("reference", kube::json_string(c.spec.target.kind + "/" + c.spec.target.name, a),
                  a);
    std::optional<cron::instant> last;
    Value jobs(rapidjson::kArrayType);
    for (const auto& j : s.jobs) {
        Value v(rapidjson::kObjectType);
        v.AddMember("name", kube::json_string(j.spec.name, a), a);
        v.AddMember("schedule", kube::json_string(j.spec.schedule, a), a);
        v.AddMember("targetSize", j.spec.target_size, a);
        v.AddMember("runOnce", j.spec.run_once, a);
        if (j.submit_time) v.AddMember("submitTime", encode_time(*j.submit_time, a), a);
        if (j.last_schedule_time) {
            v.AddMember("lastScheduleTime", encode_time(*j.last_schedule_time, a), a);
            if (!last || *j.last_schedule_time > *last) last = j.last_schedule_time;
        }
        if (!j.next_schedule_time.empty())
            v.AddMember("nextScheduleTime", kube::json_string(j.next_schedule_time, a), a);
        v.AddMember("state", kube::json_string(cron::to_string(j.state), a), a);
        if (!j.message.empty()) v.AddMember("message", kube::json_string(j.message, a), a);
        jobs.PushBack(v, a);
    }
    // null removes what no longer holds (merge patch).
    Value last_value, next_value, active;
    if (last) last_value = encode_time(*last, a);
    if (!s.next_schedule_time.empty()) next_value = kube::json_string(s.next_schedule_time, a);
    doc.AddMember("lastScheduleTime", last_value, a);
    doc.AddMember("nextScheduleTime", next_value, a);
    if (s.active) {
        active.SetObject();
        active.AddMember("job", kube::json_string(s.active->job, a), a);
        active.AddMember("targetSize", s.active->target_size, a);
        active.AddMember("scheduleTime", encode_time(s.active->schedule_time, a), a);
        active.AddMember("mode", kube::json_string(cron::to_string(s.active->mode), a), a);
        if (!s.active->hpaplus.empty())
            active.AddMember("hpaPlus", kube::json_string(s.active->hpaplus, a), a);
    }
    doc.AddMember("active", active, a);
    doc.AddMember("jobs", jobs, a);
    Value history(rapidjson::kArrayType);
    for (const auto& r : s.history) {
        Value v(rapidjson::kObjectType);
        v.AddMember("job", kube::json_string(r.job, a), a);
        v.AddMember("scheduleTime", encode_time(r.schedule_time, a), a);
        v.AddMember("runTime", encode_time(r.run_time, a), a);
        v.AddMember("targetSize", r.target_size, a);
        v.AddMember("result", kube::json_string(cron::to_string(r.result), a), a);
        if (!r.message.empty()) v.AddMember("message", kube::json_string(r.message, a), a);
        history.PushBack(v, a);
    }
    doc.AddMember("history", history, a);
    doc.AddMember("conditions", kube::encode_conditions(s.conditions, a), a);
    return kube::to_json_text(doc);
}

} // namespace hpaplus::kinds
