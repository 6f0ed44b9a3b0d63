// policy/types.cpp — the pod's shared template.
#include "policy/types.hpp"

namespace hpaplus::policy {

const std::shared_ptr<const pod_template>& empty_pod_template() {
    static const auto empty = std::make_shared<const pod_template>();
    return empty;
}

pod_template& pod_info::own_template() {
    auto own = std::make_shared<pod_template>(*shared);
    pod_template& t = *own;
    shared = std::move(own);
    return t;
}

bool operator==(const pod_info& a, const pod_info& b) {
    return a.name == b.name && a.labels == b.labels && a.phase == b.phase &&
           a.deleting == b.deleting && a.ready == b.ready && a.start_time == b.start_time &&
           a.ready_transition_time == b.ready_transition_time && a.boosted == b.boosted &&
           (a.shared == b.shared || *a.shared == *b.shared);
}

} // namespace hpaplus::policy
