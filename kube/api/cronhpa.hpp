// kube/api/cronhpa.hpp — a CronHPA as the controller reads and writes it: the spec, the
// status it keeps (per job, the job in force, a bounded history), and the floor that CronHPAs
// hold on an HPAPlus. Decoding and encoding only; no I/O.
#pragma once

#include "cron/next_fire.hpp"
#include "kube/informer.hpp"
#include "kube/json_decoder.hpp"
#include "policy/decision.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hpaplus::kube {

inline constexpr std::string_view hpaplus_kind = "HPAPlus";

struct cron_job {
    std::string name;
    std::string schedule;
    std::int32_t target_size = 0;
    bool run_once = false;
    friend bool operator==(const cron_job&, const cron_job&) = default;
};

struct cronhpa_spec {
    policy::object_reference target;
    std::string time_zone = "UTC";
    std::vector<std::string> exclude_dates;
    std::optional<std::int64_t> starting_deadline_seconds;
    std::vector<cron_job> jobs;
};

struct cron_job_status {
    cron_job job; ///< the job as it was when this status was written
    std::optional<cron::instant> submit_time;
    std::optional<cron::instant> last_schedule_time;
    std::string next_schedule_time; ///< RFC 3339 in the CronHPA's zone; "" = never
    std::string state;              ///< Scheduled | Succeeded | Failed | Skipped | Missed |
                                    ///< Superseded | Invalid
    std::string message;
};

struct cron_run {
    std::string job;
    cron::instant schedule_time{};
    cron::instant run_time{};
    std::int32_t target_size = 0;
    std::string result; ///< the job state the run left
    std::string message;
};

/// The latest fired job, whose targetSize is in force until the next job fires.
struct cron_active {
    std::string job;
    std::int32_t target_size = 0;
    cron::instant schedule_time{};
    std::string mode;    ///< Direct (it set replicas) | Floor (of an HPAPlus)
    std::string hpaplus; ///< the HPAPlus holding the floor (mode Floor)
};

struct cronhpa_status {
    std::int64_t observed_generation = 0;
    std::optional<cron_active> active;
    std::vector<cron_job_status> jobs;
    std::vector<cron_run> history; ///< newest first
    std::string
        next_schedule_time; ///< the earliest of the jobs' (RFC 3339 in the zone); "" = never
    std::vector<policy::condition> conditions;
};

struct cronhpa {
    std::string ns;
    std::string name;
    std::string uid;
    std::int64_t generation = 0;
    std::optional<cron::instant> created;
    cronhpa_spec spec;
    cronhpa_status status;
};

/// Decodes a CronHPA; a spec error is reported through `d`. The status is read leniently (a
/// field that cannot be read is left out), so a broken status never blocks the spec.
cronhpa decode_cronhpa(kube::json_decoder& d, const kube::json_node& n);

/// The `status` object (JSON); fields that no longer hold are null (removed by a merge patch).
std::string encode_cronhpa_status(const cronhpa& c);

} // namespace hpaplus::kube
