// vertical/updater/boost.cpp — the CPU start-up boost's arithmetic and its steps.
#include "vertical/updater/boost.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpaplus::vertical {
namespace {

// Far above any node, far below where millicores overflow.
constexpr std::int64_t max_boost_milli = std::int64_t{1} << 50;

std::int64_t boosted_request(std::int64_t request, const cpu_startup_boost& b) {
    switch (b.type) {
    case cpu_startup_boost::kind::factor: {
        const double v = std::ceil(static_cast<double>(request) * b.factor);
        return v >= static_cast<double>(max_boost_milli) ? max_boost_milli
                                                         : static_cast<std::int64_t>(v);
    }
    case cpu_startup_boost::kind::quantity:
        return std::min(request + std::min(b.milli, max_boost_milli), max_boost_milli);
    case cpu_startup_boost::kind::value:
        return b.milli;
    }
    return request;
}

const boosted_cpu* entry_for(const boost_record& r, const std::string& container) {
    for (const auto& e : r.containers)
        if (e.container == container) return &e;
    return nullptr;
}

bool starting(const std::optional<core::time_point>& ready_since, const cpu_startup_boost& b,
              core::time_point now) {
    return !ready_since || now < *ready_since + b.duration;
}

} // namespace

std::vector<container_resources> boosted(const std::vector<container_resources>& base,
                                         const cpu_startup_boost& boost,
                                         const std::vector<container_policy>& policies,
                                         boost_record& record) {
    std::vector<container_resources> out = base;
    for (auto& c : out) {
        if (!c.cpu_request_milli || *c.cpu_request_milli <= 0) continue;
        const std::int64_t request = *c.cpu_request_milli;
        std::int64_t to = boosted_request(request, boost);
        const auto* policy = policy_for(policies, c.name);
        const bool limits = !policy || policy->values == controlled_values::requests_and_limits;
        // RequestsOnly keeps the limit: the request stays just below it, so the pod's QoS class
        // is the same boosted and unboosted (an in-place resize may not change it).
        if (!limits && c.cpu_limit_milli && *c.cpu_limit_milli > 0)
            to = std::min(to, *c.cpu_limit_milli - 1);
        if (to <= request) continue;
        record.containers.push_back({c.name, to, c.cpu_request_milli, c.cpu_limit_milli});
        if (limits) c.cpu_limit_milli = scaled_limit(c.cpu_limit_milli, c.cpu_request_milli, to);
        c.cpu_request_milli = to;
    }
    return out;
}

std::vector<container_resources> unboosted(const std::vector<container_resources>& current,
                                           const boost_record& record) {
    std::vector<container_resources> out = current;
    for (auto& c : out) {
        const auto* e = entry_for(record, c.name);
        if (!e || c.cpu_request_milli != e->boosted_milli) continue;
        c.cpu_request_milli = e->request_milli;
        c.cpu_limit_milli = e->limit_milli;
    }
    return out;
}

std::string_view to_string(boost_step s) {
    switch (s) {
    case boost_step::none:
        return "none";
    case boost_step::boost:
        return "boost";
    case boost_step::hold:
        return "hold";
    case boost_step::unboost:
        return "unboost";
    case boost_step::mark_ended:
        return "mark_ended";
    }
    return "none";
}

boost_step step_of(const std::vector<container_resources>& desired,
                   const std::optional<boost_record>& record,
                   const std::optional<core::time_point>& ready_since,
                   const cpu_startup_boost& boost, core::time_point now) {
    if (!record) return starting(ready_since, boost, now) ? boost_step::boost : boost_step::none;
    if (record->ended) return boost_step::none;
    const bool in_pod = std::any_of(desired.begin(), desired.end(), [&](const auto& c) {
        const auto* e = entry_for(*record, c.name);
        return e && c.cpu_request_milli == e->boosted_milli;
    });
    if (!in_pod) return boost_step::mark_ended;
    return starting(ready_since, boost, now) ? boost_step::hold : boost_step::unboost;
}

} // namespace hpaplus::vertical
