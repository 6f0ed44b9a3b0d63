// policy/pod_grouping.cpp — pod classification and per-pod requests, as upstream's replica
// calculator does.
#include "policy/pod_grouping.hpp"

#include <algorithm>

namespace hpaplus::policy {
namespace {

bool by_pod(const pod_sample& s, std::string_view pod) {
    return s.pod < pod;
}

// The request or limit of one container, per the basis.
const core::resource_list& amounts_of(const container_spec& c, usage_basis basis) {
    return basis == usage_basis::limits ? c.limits : c.requests;
}

std::string_view basis_word(usage_basis basis) {
    return basis == usage_basis::limits ? "limit" : "request";
}

// A boosted container's CPU without the boost (nullptr when it is not boosted, or for another
// resource).
const core::quantity* unboosted_amount(const pod_info& pod, const container_spec& c,
                                       std::string_view resource, usage_basis basis) {
    if (pod.boosted.empty() || resource != "cpu") return nullptr;
    for (const auto& b : pod.boosted) {
        if (b.name != c.name) continue;
        const auto& q = basis == usage_basis::limits ? b.limit : b.request;
        return q ? &*q : nullptr;
    }
    return nullptr;
}

core::outcome<std::int64_t> pod_amount_of(const pod_info& pod, std::string_view container,
                                          std::string_view resource, usage_basis basis) {
    const core::resource_list& pod_level =
        basis == usage_basis::limits ? pod.pod_limits() : pod.pod_requests();
    // Pod-level resources (KEP-2837) win unless a container is named; a resource not set at pod
    // level falls back to the container sum, as upstream's PodRequests helper does.
    if (container.empty()) {
        if (const core::quantity* q = core::find_resource(pod_level, resource))
            return q->milli_value();
    }
    std::int64_t total = 0;
    auto add = [&](const container_spec& c) -> core::outcome<bool> {
        if (!container.empty() && c.name != container) return false;
        const core::quantity* q = unboosted_amount(pod, c, resource, basis);
        if (!q) q = core::find_resource(amounts_of(c, basis), resource);
        if (!q) {
            return "missing " + std::string(basis_word(basis)) + " for " + std::string(resource) +
                   " in container " + c.name + " of Pod " + pod.name;
        }
        total += q->milli_value();
        return true;
    };
    for (const auto& c : pod.containers()) {
        auto r = add(c);
        if (!r) return r.error();
        if (*r && !container.empty()) return total; // container names are unique inside a pod
    }
    for (const auto& c : pod.init_containers()) {
        if (!c.restart_always) continue; // only sidecars run alongside the app
        auto r = add(c);
        if (!r) return r.error();
        if (*r && !container.empty()) return total;
    }
    if (!container.empty())
        return "container " + std::string(container) + " not found in Pod " + pod.name;
    return total;
}

} // namespace

bool boost_in_force(std::int64_t boosted, const std::optional<std::int64_t>& spec,
                    const std::optional<std::int64_t>& applied, bool ended) {
    if ((applied ? applied : spec) != boosted) return false;
    return !ended || spec != boosted;
}

void sort_samples(sample_set& samples) {
    std::sort(samples.begin(), samples.end(),
              [](const pod_sample& a, const pod_sample& b) { return a.pod < b.pod; });
}

const pod_sample* find_sample(const sample_set& samples, std::string_view pod) {
    const auto it = std::lower_bound(samples.begin(), samples.end(), pod, by_pod);
    return it != samples.end() && it->pod == pod ? &*it : nullptr;
}

void put_sample(sample_set& samples, std::string_view pod, std::int64_t milli) {
    auto it = std::lower_bound(samples.begin(), samples.end(), pod, by_pod);
    if (it != samples.end() && it->pod == pod) {
        *it = pod_sample{pod, milli, {}, {}};
    } else {
        samples.insert(it, pod_sample{pod, milli, {}, {}});
    }
}

bool past_start_up(const pod_info& pod, const controller_config& config, core::time_point now) {
    if (!pod.start_time) return false;
    const auto longest = std::max(config.cpu_initialization_period, config.initial_readiness_delay);
    return *pod.start_time + longest <= now;
}

pod_groups group_pods(const std::vector<const pod_info*>& pods, const sample_set& samples,
                      std::string_view resource, const controller_config& config,
                      core::time_point now, unready_pods mode) {
    pod_groups groups;
    for (const pod_info* pod : pods) {
        if (pod->deleting || pod->phase == pod_phase::failed ||
            pod->phase == pod_phase::succeeded) {
            groups.ignored.push_back(pod->name);
            continue;
        }
        if (pod->phase == pod_phase::pending) {
            groups.unready.push_back(pod->name);
            continue;
        }
        const pod_sample* sample = find_sample(samples, pod->name);
        if (!sample) {
            groups.missing.push_back(pod->name);
            continue;
        }
        if (resource == "cpu") {
            bool unready = false;
            if (!pod->ready || !pod->start_time) {
                unready = true;
            } else {
                const core::time_point transition =
                    pod->ready_transition_time.value_or(core::time_point{});
                if (*pod->start_time + config.cpu_initialization_period > now) {
                    // Still initializing: skip unready pods, and samples not a full window after
                    // readiness.
                    unready = *pod->ready == core::condition_status::false_ ||
                              sample->timestamp < transition + sample->window;
                } else {
                    // Skip pods that are unready and have never been ready.
                    unready = *pod->ready == core::condition_status::false_ &&
                              *pod->start_time + config.initial_readiness_delay > transition;
                }
            }
            if (unready && mode == unready_pods::count &&
                pod->ready != core::condition_status::true_ && past_start_up(*pod, config, now)) {
                groups.counted_unready.push_back(pod->name);
                unready = false;
            }
            if (unready) {
                groups.unready.push_back(pod->name);
                continue;
            }
        }
        ++groups.ready_count;
    }
    return groups;
}

void remove_samples(sample_set& samples, const std::vector<std::string_view>& pods) {
    for (std::string_view pod : pods) {
        const auto it = std::lower_bound(samples.begin(), samples.end(), pod, by_pod);
        if (it != samples.end() && it->pod == pod) samples.erase(it);
    }
}

core::outcome<pod_amounts> pod_resource_amounts(const std::vector<const pod_info*>& pods,
                                                std::string_view container,
                                                std::string_view resource, usage_basis basis) {
    pod_amounts amounts;
    amounts.reserve(pods.size());
    for (const pod_info* pod : pods) {
        auto amount = pod_amount_of(*pod, container, resource, basis);
        if (!amount) return amount.error();
        amounts.push_back({pod->name, *amount});
    }
    std::sort(amounts.begin(), amounts.end(),
              [](const auto& a, const auto& b) { return a.pod < b.pod; });
    return amounts;
}

const pod_amount* find_amount(const pod_amounts& amounts, std::string_view pod) {
    const auto it =
        std::lower_bound(amounts.begin(), amounts.end(), pod,
                         [](const pod_amount& a, std::string_view p) { return a.pod < p; });
    return it != amounts.end() && it->pod == pod ? &*it : nullptr;
}

} // namespace hpaplus::policy
