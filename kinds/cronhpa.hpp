// kinds/cronhpa.hpp — a CronHPA as the controller reads and writes it: the spec and the status
// it keeps (cron/status.hpp: per job, the job in force, a bounded history). Decoding and encoding
// only; no I/O.
#pragma once

#include "cron/status.hpp"
#include "kube/json_decoder.hpp"
#include "kube/object_cache.hpp"
#include "policy/decision.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hpaplus::kinds {

inline constexpr std::string_view hpaplus_kind = "HPAPlus";

struct cronhpa_spec {
    core::object_reference target;
    std::string time_zone = "UTC";
    std::vector<std::string> exclude_dates;
    std::optional<std::int64_t> starting_deadline_seconds;
    std::vector<cron::job> jobs;
};

struct cronhpa {
    std::string ns;
    std::string name;
    std::string uid;
    std::int64_t generation = 0;
    std::optional<cron::instant> created;
    cronhpa_spec spec;
    cron::status status;
};

/// Decodes a CronHPA; a spec error is reported through `d`. The status is read leniently (a
/// field that cannot be read is left out), so a broken status never blocks the spec.
cronhpa decode_cronhpa(kube::json_decoder& d, const kube::json_node& n);

/// The `status` object (JSON); fields that no longer hold are null (removed by a merge patch).
std::string encode_cronhpa_status(const cronhpa& c);

} // namespace hpaplus::kinds
