// controller/coordination.cpp — the rules between kinds.
#include "controller/coordination.hpp"

#include "core/kubernetes.hpp"
#include "kinds/records.hpp"

#include <algorithm>
#include <tuple>

namespace hpaplus::controller {
namespace {

using core::condition_status;
using kinds::cronhpa;
using kinds::vpaplus;

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
    if (v.boost && h.cpu)
        m += "; start-up cpu boost: boosted pods count at their unboosted cpu request";
    return m;
}

// The records (valid ones) of a cache indexed by_target that aim at `ref` in `ns`, in key order.
template <class Record>
std::vector<std::shared_ptr<const Record>>
aimed_at(const kube::object_cache& cache, std::string_view ns, const core::object_reference& ref) {
    std::vector<std::shared_ptr<const Record>> out;
    for (const auto& o : cache.by_index(kinds::by_target, kinds::target_lookup(ns, ref).key()))
        if (auto r = o->share<Record>(); r && !r->invalid) out.push_back(std::move(r));
    return out;
}

// What of a cached CronHPA decides a floor: its target and the job in force.
struct floor_view {
    core::object_reference target;
    std::optional<cron::active_job> active;
};

std::optional<floor_view> floor_of(const kube::object_cptr& o) {
    const auto* r = o ? o->as<kinds::cronhpa_record>() : nullptr;
    if (!r) return std::nullopt;
    return floor_view{r->c.spec.target, r->c.status.active};
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
    if (ref.kind == kinds::hpaplus_kind)
        return autoscaler.kind == kinds::hpaplus_kind && ref.name == autoscaler.name;
    return ref.kind == workload.kind && ref.name == workload.name;
}

std::optional<policy::cron_floor> find_cron_floor(const kube::object_cache& cronhpas,
                                                  const std::string& ns,
                                                  const core::object_reference& autoscaler,
                                                  const core::object_reference& workload) {
    // A CronHPA aims at the workload, or at an HPAPlus by name (aims_at): both keys, in key order.
    std::vector<kube::object_cptr> candidates =
        cronhpas.by_index(kinds::by_target, kinds::target_lookup(ns, workload).key());
    if (autoscaler.kind == kinds::hpaplus_kind) {
        auto named =
            cronhpas.by_index(kinds::by_target, kinds::target_lookup(ns, autoscaler).key());
        candidates.insert(candidates.end(), named.begin(), named.end());
        std::sort(candidates.begin(), candidates.end(),
                  [](const auto& a, const auto& b) { return a->key < b->key; });
    }
    std::optional<policy::cron_floor> best;
    for (const auto& object : candidates) {
        const auto* r = object->as<kinds::cronhpa_record>();
        if (!r || r->invalid || !r->c.status.active ||
            !aims_at(r->c.spec.target, autoscaler, workload))
            continue;
        const cron::active_job& a = *r->c.status.active;
        const auto since = std::chrono::time_point_cast<std::chrono::nanoseconds>(a.schedule_time);
        if (best && (a.target_size < best->replicas ||
                     (a.target_size == best->replicas && since <= best->since)))
            continue;
        best = policy::cron_floor{a.target_size, r->c.name, a.job, since};
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

std::string autoscaler_scaling(const kube::object_cache& hpapluses, const std::string& ns,
                               const core::object_reference& workload) {
    const auto aimed =
        hpapluses.by_index(kinds::by_target, kinds::target_lookup(ns, workload).key());
    return aimed.empty() ? std::string() : std::string(aimed.front()->name());
}

void note_vertical_use(const kube::object_cache& vpapluses, const std::string& ns,
                       const std::string& kind, const policy::autoscaler& hpa,
                       std::vector<core::condition>& conditions, core::time_point now) {
    const auto aimed = aimed_at<kinds::vpaplus_record>(vpapluses, ns, hpa.spec.scale_target_ref);
    if (aimed.empty()) {
        core::remove_condition(conditions, "CoordinatedWithVPAPlus");
        return;
    }
    const vpaplus& v = aimed.front()->v;
    horizontal_use use = uses_of(hpa);
    use.kind = kind;
    use.name = hpa.name;
    core::set_condition(
        conditions, "CoordinatedWithVPAPlus", condition_status::true_, coordination_reason(v, use),
        "VPAPlus " + v.name + " sizes the pods; " + coordination_message(v, use), now);
}

horizontal_use find_horizontal_use(const kube::object_cache& autoscalers, const std::string& kind,
                                   const std::string& ns, const core::object_reference& workload) {
    const auto aimed = aimed_at<kinds::autoscaler_record>(autoscalers, ns, workload);
    if (aimed.empty()) return {};
    horizontal_use use = uses_of(aimed.front()->hpa);
    use.kind = kind;
    use.name = aimed.front()->hpa.name;
    return use;
}

controller::horizontal_sharing sharing_for(const vpaplus& v, const horizontal_use& h) {
    if (h.name.empty()) return {};
    return {h.kind == "HPAPlus" ? h.name : h.kind + "/" + h.name, h.cpu && !v.share_cpu,
            h.memory && !v.share_memory, coordination_reason(v, h), coordination_message(v, h)};
}

policy::boost_authority boost_authority_for(
    const kube::object_cache* vpapluses, const std::string& ns,
    const core::object_reference& workload,
    const std::shared_ptr<const std::vector<policy::boost_authority::container>>& template_cpu) {
    policy::boost_authority out;
    if (!vpapluses || !template_cpu) return out;
    for (const auto& r : aimed_at<kinds::vpaplus_record>(*vpapluses, ns, workload))
        if (r->v.boost) {
            out.vpaplus = r->v.name;
            out.containers = *template_cpu;
            break;
        }
    return out;
}

} // namespace hpaplus::controller
