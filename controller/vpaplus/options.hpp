// controller/vpaplus/options.hpp — the flags of the vertical module (`hpaplus controller
// --enable-vertical`): its loop, checkpoints, admission webhook and history source, on top of the
// updater's per-pod thresholds.
#pragma once

#include "vertical/updater/plan.hpp"

#include <chrono>
#include <string>

namespace hpaplus::controller {

/// The vertical module's loop (its per-pod thresholds are vertical::updater_config).
struct vertical_options : vertical::updater_config {
    std::chrono::nanoseconds interval = std::chrono::minutes(1); ///< upstream recommender/updater
    std::chrono::nanoseconds checkpoint_interval = std::chrono::minutes(1);
    /// The pod admission webhook (POST /mutate-pods over TLS): ADDR:PORT, "" = not served. While
    /// it is not, Initial and Recreate only recommend (a recreated pod would not get the
    /// recommendation).
    std::string webhook_listen;
    std::string webhook_cert_file; ///< PEM serving certificate (chain) of the webhook
    std::string webhook_key_file;  ///< its PEM private key
    /// A prometheus backend of --metric-backends to seed a VPAPlus's history from when it has no
    /// checkpoint yet (upstream --storage=prometheus); "" = metrics API and checkpoints only.
    std::string history_backend;
    std::chrono::nanoseconds history_length = std::chrono::hours(24 * 8);
    std::chrono::nanoseconds history_resolution = std::chrono::hours(1);
    /// Every sample and OOM fed to a history, and each recommendation written, appended to this
    /// file as JSON lines (controller/vpaplus/sample_record.hpp); "" = not recorded.
    std::string record_samples;
};

} // namespace hpaplus::controller
