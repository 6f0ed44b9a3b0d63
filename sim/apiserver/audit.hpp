// sim/apiserver/audit.hpp — the audit log of the simulated cluster: every write the API server
// carried out or refused (create, update, patch, delete), who sent it and what it answered, as
// kube-apiserver's audit backend records it at level Metadata, stage ResponseComplete. Tests read
// it at GET /sim/v1/audit (an audit.k8s.io/v1 EventList) to count writes per object and per
// writer; the writer of a pod-bound ServiceAccount token is told apart by user.extra's pod name.
#pragma once

#include "core/time.hpp"
#include "sim/apiserver/rbac.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

namespace hpaplus::sim {

struct audit_event {
    std::uint64_t id = 0; ///< auditID's order: one more per event
    std::string verb;     ///< RBAC's: create, update, patch, delete, deletecollection
    sim_user user;
    std::string user_agent;
    std::string group, version, resource, subresource, ns, name; ///< objectRef
    int code = 0;
    core::time_point received, completed;
};

class audit_log {
  public:
    /// Keeps the newest `capacity` events (older ones are dropped, as a log rotates).
    explicit audit_log(std::size_t capacity = 20000) : capacity_(capacity) {}

    void record(audit_event e);
    void clear() { events_.clear(); }
    /// The events as an audit.k8s.io/v1 EventList, oldest first; `resource` (a plural) keeps only
    /// those about it, `after` only those with a larger id.
    std::string event_list(std::string_view resource, std::uint64_t after) const;

  private:
    std::size_t capacity_;
    std::uint64_t next_id_ = 1;
    std::deque<audit_event> events_;
};

} // namespace hpaplus::sim
