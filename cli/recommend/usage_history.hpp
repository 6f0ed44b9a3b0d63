// cli/recommend/usage_history.hpp — a recorded usage history (the input of `hpaplus recommend`,
// DESIGN §4.4c) and the controller's histories fed from it in time order. `recommend` answers once
// at the end; `replay --vertical` asks along the way.
#pragma once

#include "core/outcome.hpp"
#include "core/time.hpp"
#include "kinds/vpaplus.hpp"
#include "vertical/recommender/estimator.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::cli {

/// One usage sample or OOM kill.
struct recorded_usage {
    core::time_point time;
    bool oom = false; ///< at equal times usage samples are fed first
    std::string pod;
    std::string container;
    std::optional<std::int64_t> cpu_milli;    ///< usage (OOM: none)
    std::optional<std::int64_t> memory_bytes; ///< usage, or the memory at an OOM kill
    /// What the container requested when sampled (replay's "requests the pods had"); never
    /// weighted, as upstream.
    std::optional<std::int64_t> cpu_request_milli;
    std::optional<std::int64_t> memory_request_bytes;
};

struct recorded_history {
    std::optional<core::time_point> now;
    kinds::vpaplus vpa;
    std::vector<recorded_usage> feed; ///< samples and OOMs in the order they are fed
};

/// Decodes the input (JSON or YAML): samples in time order (stable; usage before OOMs at equal
/// times, then file order). The error is one line (at most ~400 bytes) naming the field.
core::outcome<recorded_history> decode_recorded_history(std::string_view text, bool now_required);

/// The controller's histories: one aggregate per container name, one window per pod's container.
struct usage_histories {
    vertical::recommender_config config;
    std::map<std::string, vertical::container_aggregate> by_name;
    std::map<std::string, vertical::container_window> windows; ///< by pod/container

    void feed(const recorded_usage& r);
    /// Forgets histories without a sample for the memory window before `now` (as the controller
    /// does each pass), then recommends as the controller does.
    std::vector<vertical::container_recommendation>
    recommend(core::time_point now, const std::vector<vertical::container_policy>& policies);
};

} // namespace hpaplus::cli
