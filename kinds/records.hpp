// kinds/records.hpp — the typed records the informers keep: each object is decoded once, at the
// door (kube::informer_options::decode), into an immutable record every reader shares (client-go's
// typed listers). Readers take them with cached_object::as<T>() and never parse JSON. The one piece
// of raw JSON kept is an object's stored status, parsed, for the status writer to compare with
// (kube/status_writer.hpp); nothing else of an object's JSON stays in the cache.
#pragma once

#include "kinds/cronhpa.hpp"
#include "kinds/native_hpa.hpp"
#include "kinds/scale_target.hpp"
#include "kinds/vpaplus.hpp"
#include "kube/informer_options.hpp"
#include "kube/object_cache.hpp"
#include "policy/types.hpp"

#include <rapidjson/fwd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::kinds {

/// An object's `status` as the server sent it, parsed (null when it has none). Its nodes live in
/// small chunks of their own: a rapidjson document's default first chunk is 64 KiB, per object.
using status_tree = std::shared_ptr<const rapidjson::Value>;

/// An HPAPlus or a plain autoscaling/v2 HorizontalPodAutoscaler.
struct autoscaler_record {
    policy::autoscaler hpa;             ///< annotations applied; defaults when valid
    std::optional<std::string> invalid; ///< why the spec cannot be used
    std::string uid;
    /// spec.syncPeriodSeconds of an HPAPlus, the annotation of a plain HPA; read on its own, so
    /// an object whose spec is invalid still keeps its period (nullopt: unset or unreadable).
    std::optional<std::chrono::seconds> sync_period;
    /// The stored status (a bad spec does not hide it): the decoded autoscaler's, or when the
    /// object is invalid, the status read alone.
    const policy::autoscaler_status& status() const {
        return invalid ? status_read_alone : hpa.status;
    }
    policy::autoscaler_status
        status_read_alone; ///< only when invalid (else it would be held twice)
    status_tree stored_status;
    // Plain HPAs only:
    std::vector<std::string> annotation_problems; ///< bad autoscaling.hpaplus.io/ annotations
    std::vector<status_write> status_writes;      ///< who wrote its status, and when
    bool asks_for_hpaplus = false;                ///< annotated controller: hpaplus
    std::string hpaplus_annotations; ///< the autoscaling.hpaplus.io/ ones as key=value lines
};

struct cronhpa_record {
    cronhpa c;
    std::optional<std::string> invalid; ///< why the spec cannot be read
    status_tree stored_status;
};

struct vpaplus_record {
    vpaplus v;
    std::optional<std::string> invalid; ///< why the spec cannot be read
    vpaplus_status status;              ///< counters and conditions as stored
    /// The recommendation the stored status holds (what the admission webhook applies).
    std::vector<vertical::container_recommendation> recommendations;
    status_tree stored_status;
};

/// A ReplicaSet, as the link between its pods and its Deployment (podSelection OwnerReferences).
struct replicaset_record {
    core::object_reference controller; ///< empty kind when it has none
};

/// A pod: what the autoscaler reads (its template shared with every pod alike) and, with the
/// vertical module, what that reads (held apart: without it a pod does not pay for its room).
struct pod_record {
    std::optional<policy::pod_info> pod;            ///< nullopt when it could not be decoded
    std::unique_ptr<const vertical::pod_view> view; ///< with the vertical module only
};

using record_decoder = decltype(kube::informer_options::decode);
/// `native`: plain HPAs (their annotations and managed fields are read too).
record_decoder autoscaler_decoder(bool native);
record_decoder cronhpa_decoder();
record_decoder vpaplus_decoder();
/// `vertical`: keep what the vertical module reads of a pod too. Equal pod templates share one
/// record: a decoder remembers the templates it handed out, so it serves one informer (one thread).
record_decoder pod_decoder(bool vertical);
record_decoder deployment_decoder();
record_decoder replicaset_decoder();

/// The decoders one at a time (the informers' decoders call these; tests and tools may too).
autoscaler_record decode_autoscaler_record(const rapidjson::Value& object, bool native);
/// The status an autoscaler's record holds once `status_json` (encode_status's text, which
/// names every field it has) is written to it: what a reconcile decides from while the cache
/// still shows the version before its own write.
policy::autoscaler_status written_autoscaler_status(std::string_view status_json);
cronhpa_record decode_cronhpa_record(const rapidjson::Value& object);
vpaplus_record decode_vpaplus_record(const rapidjson::Value& object);

/// The index of autoscalers, CronHPAs and VPAPluses by what they aim at (target_key).
inline constexpr const char* by_target = "target";
/// `namespace/Kind/name` of a target reference.
std::string target_key(std::string_view ns, const core::object_reference& ref);
/// target_key for a lookup (object_cache::by_index), built in place: no allocation for the usual
/// lengths (a pass looks its target up several times), and no state outside the object.
class target_lookup {
  public:
    target_lookup(std::string_view ns, const core::object_reference& ref);
    std::string_view key() const {
        return spilled_.empty() ? std::string_view(inline_, size_) : spilled_;
    }

  private:
    char inline_[192];
    std::size_t size_ = 0;
    std::string spilled_; ///< a key longer than inline_
};
/// Keeps the by_target index on a cache of autoscaler, CronHPA or VPAPlus records.
void index_by_target(kube::object_cache& cache);

} // namespace hpaplus::kinds
