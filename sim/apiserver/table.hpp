// sim/apiserver/table.hpp — server-side printing: the meta.k8s.io/v1 Table `kubectl get` asks for,
// with the columns the real server prints for built-in kinds and a CRD's additionalPrinterColumns.
#pragma once

#include "core/time.hpp"
#include "sim/store.hpp"

#include <string>
#include <vector>

namespace hpaplus::sim {

/// The Table JSON for `objects` of type `t`.
std::string table_json(const resource_type& t, const std::vector<object_ptr>& objects,
                       std::uint64_t rv, core::time_point now,
                       const std::string& continue_token = {});

/// kubectl's HumanDuration (`45s`, `3m20s`, `5h`, `3d`).
std::string human_duration(std::chrono::seconds d);

} // namespace hpaplus::sim
