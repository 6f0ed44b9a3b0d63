// sim/pod_log.hpp — the simulated kubelet's container logs: what each container "prints"
// as its pod moves (started, ready or not, resized, asked to stop), read through pods/NAME/log.
// Lines are derived from the pod's own status changes, so every line is a fact the API shows
// too. Each container keeps its last 1000 lines and those of the run before its last restart
// (`previous`); a pod's logs go with the pod.
#pragma once

#include "core/time.hpp"
#include "sim/store.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hpaplus::sim {

struct log_line {
    std::uint64_t seq = 0; ///< increases over all lines of a container, previous runs included
    core::time_point at;
    std::string text;
};

struct container_log {
    std::deque<log_line> current;
    std::vector<log_line> previous;
    bool has_previous = false; ///< it restarted at least once
    bool stopped = false;      ///< its pod is Terminating: no more lines will come
};

class pod_log_book {
  public:
    /// Records what changed between two versions of a pod (`before` null: created; `after` null:
    /// deleted, its logs dropped).
    void observe(const stored_object* before, const stored_object* after, core::time_point now);

    /// The log of a container of the pod with `uid`, or nullptr when it has none yet.
    const container_log* find(std::string_view uid, std::string_view container) const;

    static constexpr std::size_t kept_lines = 1000;

  private:
    void write(container_log& log, core::time_point at, std::string text);

    std::unordered_map<std::string, std::map<std::string, container_log, std::less<>>> logs_;
    std::uint64_t next_seq_ = 1;
};

} // namespace hpaplus::sim
