// kube/api/hpa_annotations.cpp — see the header.
#include "kube/api/hpa_annotations.hpp"

#include <charconv>

namespace hpaplus::kube {
namespace {

constexpr std::string_view prefix = "autoscaling.hpaplus.io/";

std::optional<std::string> one_of(const std::string& value,
                                  std::initializer_list<const char*> allowed) {
    for (const char* a : allowed)
        if (value == a) return value;
    return std::nullopt;
}

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
            out.mode = one_of(value, {"Auto", "DryRun", "Off"});
            if (!out.mode) bad(key, value, "Auto, DryRun or Off");
        } else if (key == rollout_policy_annotation) {
            out.rollout_policy = one_of(value, {"Continue", "Freeze", "FreezeScaleDown"});
            if (!out.rollout_policy) bad(key, value, "Continue, Freeze or FreezeScaleDown");
        } else if (key != "autoscaling.hpaplus.io/controller") {
            out.problems.push_back("annotation " + key + " is not one HPAPlus knows; ignored");
        }
    }
    return out;
}

} // namespace hpaplus::kube
