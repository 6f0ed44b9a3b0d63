// Every decoder of an object kind (and every record an informer makes of one) the controller reads
// from the API server or its own files: the first byte picks the decoder, the rest is the JSON.
// Decoding hostile JSON never crashes; it is an object or an error.
#include "core/kubernetes.hpp"
#include "fuzz/fuzz.hpp"
#include "kinds/decode.hpp"
#include "kinds/migrate.hpp"
#include "kinds/pod_metrics.hpp"
#include "kinds/prediction_checkpoint.hpp"
#include "kinds/records.hpp"
#include "kinds/vpaplus.hpp"
#include "kube/json_decoder.hpp"
#include "kube/resources.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>

#include <string>

namespace {

using namespace hpaplus::kube;
using namespace hpaplus::kinds;

void decode(unsigned which, const rapidjson::Value& doc, const std::string& text) {
    json_decoder d;
    const json_node n{&doc, ""};
    switch (which % 18) {
    case 0:
        (void)decode_autoscaler(d, n);
        (void)decode_autoscaler_record(doc, false);
        (void)decode_autoscaler_record(doc, true);
        break;
    case 1:
        (void)decode_autoscaler_status(d, n);
        break;
    case 2:
        (void)decode_conditions(d, n);
        break;
    case 3:
        (void)decode_pod(d, n);
        (void)pod_decoder(true)(doc, cached_object("ns", "name"));
        break;
    case 4:
        (void)decode_pod_metrics(d, n);
        break;
    case 5:
        (void)decode_scale(d, n);
        break;
    case 6:
        (void)decode_custom_metric_item(d, n);
        break;
    case 7:
        (void)decode_external_metric_item(d, n);
        break;
    case 8:
        (void)decode_rollout_status(d, n);
        break;
    case 9:
        (void)decode_reference(d, n);
        break;
    case 10:
        (void)decode_cronhpa(d, n);
        break;
    case 11:
        (void)decode_vpaplus(d, n);
        (void)decode_vpaplus_record(doc);
        break;
    case 12:
        (void)decode_vpaplus_status(n);
        break;
    case 13:
        (void)decode_vertical_pod(n);
        (void)decode_boost_record(text); // a pod's start-up boost annotation, read alone
        break;
    case 14:
        (void)decode_checkpoint_status(n);
        if (auto h = decode_prediction_checkpoint(text)) // and what it decodes, written back
            (void)encode_prediction_checkpoint_status(*h, hpaplus::core::time_point{});
        break;
    case 15:
        (void)scale_from_deployment(doc);
        (void)parse_lease(text);
        (void)parse_lease_list(text);
        break;
    case 16:
        (void)hpa_annotations_of(doc);
        (void)asks_for_hpaplus(doc);
        (void)hpaplus_annotations_text(doc);
        break;
    default:
        (void)decode_cronhpa_record(doc);
        (void)status_writes(doc);
        (void)migrate_hpa(doc);
        break;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string text(hpaplus::fuzz::text(data + 1, size - 1));
    rapidjson::Document doc;
    if (!hpaplus::net::parse_json(doc, text).empty()) return 0;
    decode(data[0], doc, text);
    return 0;
}
