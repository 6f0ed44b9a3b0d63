// sim/apiserver/defaults.hpp — the API server's defaulting of built-in objects, as the real server
// applies it to every create and update before validation and storage (upstream's SetDefaults_*
// functions of core/v1 and apps/v1, and the ServiceAccount, Priority and DefaultTolerationSeconds
// admission plugins for pods). Typed clients read the defaulted fields as required.
#pragma once

#include "sim/json_util.hpp"
#include "sim/resource_type.hpp"

#include <string>

namespace hpaplus::sim {

/// Fills in what the server defaults for `type`: pods, Deployments, ReplicaSets and StatefulSets
/// (their pod templates included), Services and HorizontalPodAutoscalers. Idempotent; other kinds
/// are left as they are.
void apply_defaults(const resource_type& type, json_doc& object);

/// A new Job's generated selector (generateSelectorIfNeeded, unless spec.manualSelector): the
/// template gets `job-name` and `controller-uid` labels (legacy and batch.kubernetes.io/ keys)
/// and the selector matches batch.kubernetes.io/controller-uid=`uid`, the uid the Job is stored
/// with.
void generate_job_selector(json_doc& job, const std::string& uid);

} // namespace hpaplus::sim
