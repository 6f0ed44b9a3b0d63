// controller/coordination.cpp — the rules between kinds.
#include "controller/coordination.hpp"

#include "core/kubernetes.hpp"
#include "kube/api/cronhpa.hpp"
#include "kube/api/vpaplus.hpp"
#include "kube/decode.hpp"

#include <rapidjson/document.h>

#include <tuple>

namespace hpaplus::controller {
namespace {

using core::condition_status;
using kube::cronhpa;
using kube::vpaplus;

// The resources an HPAPlus scales on (Resource and ContainerResource metrics).
horizontal_use uses_of(const policy::autoscaler& hpa) {
    horizontal_use use;
    for (const auto& m : hpa.spec.metrics) {
        if (m.type != policy::metric_source_type::resource &&
            m.type != policy::metric_source_type::container_resource)
            continue;
        use.cpu = use.cpu || m.resource_name == "cpu";
        use.memory = use.memory || m.resource_name == "memory";
    }
    return use;
}

const core::object_reference& target_of(const vpaplus& v) {
    return v.target;
}

const core::object_reference& target_of(const policy::autoscaler& hpa) {
    return hpa.spec.scale_target_ref;
}

// The CoordinatedWith* condition's reason and message for a VPAPlus `v` beside the horizontal
// autoscaler `h` (both sides say the same).
const char* coordination_reason(const vpaplus& v, const horizontal_use& h) {
    return (h.cpu && !v.share_cpu) || (h.memory && !v.share_memory) ? "ResourcesLeftToHPAPlus"
                                                                    : "NoConflict";
}

std::string coordination_message(const vpaplus& v, const horizontal_use& h) {
    std::string left, shared;
    for (const auto& [uses, allowed, name] :
         {std::tuple{h.cpu, v.share_cpu, "cpu"}, std::tuple{h.memory, v.share_memory, "memory"}}) {
        if (!uses) continue;
        std::string& into = allowed ? shared : left;
        into += (into.empty() ? "" : ", ") + std::string(name);
    }
    std::string m = h.kind + " " + h.name + " scales " + v.target.kind + "/" + v.target.name;
    if (!left.empty()) m += "; " + left + " left to it (not controlled here)";
    if (!shared.empty()) m += "; " + shared + " controlled by both (allowSharedResources)";
    if (left.empty() && shared.empty()) m += " on other metrics; nothing shared";
    return m;
}

// The first cached object of `ns` that decodes (strictly) into a T aimed at `workload`.
template <class T, class Decode>
std::optional<T> find_aimed_at(const kube::object_cache& informer, const std::string& ns,
                               const core::object_reference& workload, Decode decode) {
    const auto items = informer.items();
    for (auto it = items->lower_bound(ns + "/"); it != items->end(); ++it) {
        const auto& o = it->second;
        if (o->namespace_() != ns) break;
        rapidjson::Document doc;
        doc.Parse(o->json.data(), o->json.size());
        if (doc.HasParseError()) continue;
        kube::json_decoder d;
        T object = decode(d, kube::json_node{&doc, ""});
        const core::object_reference& target = target_of(object);
        if (d.ok() && target.kind == workload.kind && target.name == workload.name) return object;
    }
    return std::nullopt;
}

// What of a cached CronHPA decides a floor: its target and the job in force.
struct floor_view {
    core::object_reference target;
    std::optional<cron::active_job> active;
};

std::optional<floor_view> floor_of(const kube::object_cptr& o) {
    if (!o) return std::nullopt;
    rapidjson::Document doc;
    doc.Parse(o->json.data(), o->json.size());
    if (doc.HasParseError()) return std::nullopt;
    kube::json_decoder d;
    kube::cronhpa c = kube::decode_cronhpa(d, {&doc, ""});
    return floor_view{std::move(c.spec.target), std::move(c.status.active)};
}

bool same_floor(const std::optional<floor_view>& a, const std::optional<floor_view>& b) {
    const auto key = [](const std::optional<floor_view>& f) {
        if (!f) return std::string();
        std::string k = f->target.kind + "/" + f->target.name;
        if (f->active)
            k += "|" + f->active->job + "|" + std::to_string(f->active->target_size) + "|" +
                 std::to_string(f->active->schedule_time.time_since_epoch().count());
        return k;
    };
    return key(a) == key(b);
}

} // namespace

bool aims_at(const core::object_reference& ref, const core::object_reference& autoscaler,
             const core::object_reference& workload) {
    if (ref.kind == kube::hpaplus_kind)
        return autoscaler.kind == kube::hpaplus_kind && ref.name == autoscaler.name;
    return ref.kind == workload.kind && ref.name == workload.name;
}

std::optional<policy::cron_floor> find_cron_floor(const kube::object_cache& cronhpas,
                                                  const std::string& ns,
                                                  const core::object_reference& autoscaler,
                                                  const core::object_reference& workload) {
    std::optional<policy::cron_floor> best;
    for (const auto& object : cronhpas.select(ns, core::label_selector{})) {
        rapidjson::Document doc;
        doc.Parse(object->json.data(), object->json.size());
        if (doc.HasParseError()) continue;
        kube::json_decoder d;
        const kube::cronhpa c = kube::decode_cronhpa(d, {&doc, ""});
        if (!d.ok() || !c.status.active || !aims_at(c.spec.target, autoscaler, workload)) continue;
        const cron::active_job& a = *c.status.active;
        const auto since = std::chrono::time_point_cast<std::chrono::nanoseconds>(a.schedule_time);
        if (best && (a.target_size < best->replicas ||
                     (a.target_size == best->replicas && since <= best->since)))
            continue;
        best = policy::cron_floor{a.target_size, c.name, a.job, since};
    }
    return best;
}

std::vector<core::object_reference> floor_changes(const kube::object_cptr& previous,
                                                  const kube::object_cptr& current) {
    const auto before = floor_of(previous);
    const auto after = floor_of(current);
    if (same_floor(before, after)) return {};
    std::vector<core::object_reference> out;
    if (before) out.push_back(before->target);
    if (after && (!before || after->target.kind != before->target.kind ||
                  after->target.name != before->target.name))
        out.push_back(after->target);
    return out;
}

// The HPAPlus of `ns` that scales `workload` ("" when none).
std::string autoscaler_scaling(const kube::object_cache& hpapluses, const std::string& ns,
                               const core::object_reference& workload) {
    for (const auto& object : hpapluses.select(ns, core::label_selector{})) {
        rapidjson::Document doc;
        doc.Parse(object->json.data(), object->json.size());
        if (doc.HasParseError()) continue;
        kube::json_decoder d;
        const kube::json_node ref = kube::json_node{&doc, ""}["spec"]["scaleTargetRef"];
        if (d.opt_string(ref["kind"]).value_or("") == workload.kind &&
            d.opt_string(ref["name"]).value_or("") == workload.name)
            return std::string(object->name());
    }
    return "";
}

void note_vertical_use(const kube::object_cache& vpapluses, const std::string& ns,
                       const std::string& kind, const policy::autoscaler& hpa,
                       std::vector<core::condition>& conditions, core::time_point now) {
    const auto v =
        find_aimed_at<vpaplus>(vpapluses, ns, hpa.spec.scale_target_ref, kube::decode_vpaplus);
    if (!v) {
        core::remove_condition(conditions, "CoordinatedWithVPAPlus");
        return;
    }
    horizontal_use use = uses_of(hpa);
    use.kind = kind;
    use.name = hpa.name;
    core::set_condition(
        conditions, "CoordinatedWithVPAPlus", condition_status::true_, coordination_reason(*v, use),
        "VPAPlus " + v->name + " sizes the pods; " + coordination_message(*v, use), now);
}

horizontal_use find_horizontal_use(const kube::object_cache& autoscalers, const std::string& kind,
                                   const std::string& ns, const core::object_reference& workload) {
    const auto hpa =
        find_aimed_at<policy::autoscaler>(autoscalers, ns, workload, kube::decode_autoscaler);
    if (!hpa) return {};
    horizontal_use use = uses_of(*hpa);
    use.kind = kind;
    use.name = hpa->name;
    return use;
}

vertical::horizontal_sharing sharing_for(const vpaplus& v, const horizontal_use& h) {
    if (h.name.empty()) return {};
    return {h.kind == "HPAPlus" ? h.name : h.kind + "/" + h.name, h.cpu && !v.share_cpu,
            h.memory && !v.share_memory, coordination_reason(v, h), coordination_message(v, h)};
}

} // namespace hpaplus::controller
