// kinds/hpa_annotations.cpp — see the header.
#include "kinds/hpa_annotations.hpp"

#include "policy/types.hpp"

#include <charconv>

namespace hpaplus::kinds {
namespace {

constexpr std::string_view prefix = "autoscaling.hpaplus.io/";

} // namespace

hpa_annotations read_hpa_annotations(const std::map<std::string, std::string>& annotations) {
    hpa_annotations out;
    auto bad = [&](const std::string& key, const std::string& value, const char* want) {
        out.problems.push_back("annotation " + key + ": want " + want + ", got \"" + value +
                               "\"; ignored");
    };
    for (const auto& [key, value] : annotations) {
        if (key.compare(0, prefix.size(), prefix) != 0) continue;
        if (key == sync_period_annotation) {
            std::int32_t seconds = 0;
            const auto [end, ec] =
                std::from_chars(value.data(), value.data() + value.size(), seconds);
            if (ec == std::errc{} && end == value.data() + value.size() && seconds >= 1 &&
                seconds <= 86400)
                out.sync_period_seconds = seconds;
            else
                bad(key, value, "whole seconds from 1 to 86400");
        } else if (key == mode_annotation) {
            if (policy::parse_run_mode(value))
                out.mode = value;
            else
                bad(key, value, policy::run_mode_spellings);
        } else if (key == rollout_policy_annotation) {
            if (policy::parse_rollout_policy(value))
                out.rollout_policy = value;
            else
                bad(key, value, policy::rollout_policy_spellings);
        } else if (key == pod_selection_annotation) {
            if (policy::parse_pod_selection(value))
                out.pod_selection = value;
            else
                bad(key, value, policy::pod_selection_spellings);
        } else if (key == unready_pods_annotation) {
            if (policy::parse_unready_pods(value))
                out.unready_pods = value;
            else
                bad(key, value, policy::unready_pods_spellings);
        } else if (key != "autoscaling.hpaplus.io/controller") {
            out.problems.push_back("annotation " + key + " is not one HPAPlus knows; ignored");
        }
    }
    return out;
}

} // namespace hpaplus::kinds
