// The one-pass PodMetricsList decoder against the DOM decoder it stands in for: on any bytes it
// either declines (the DOM decoder then runs) or gives exactly what the DOM decoder gives — which
// must then decode without an error.
#include "fuzz/fuzz.hpp"
#include "kinds/decode.hpp"
#include "kinds/pod_metrics.hpp"
#include "kube/json_decoder.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus;
    const std::string text(fuzz::text(data, size));
    const auto fast = kinds::decode_pod_metrics_list(text);
    // Decoded into the pods of the inputs before (as the controller's reads reuse theirs, though
    // it clears a list that was not decoded): the same answer, whatever those held.
    static std::vector<core::pod_metrics> reused;
    const bool reused_decoded = kinds::decode_pod_metrics_list(text, reused);
    fuzz::require(reused_decoded == fast.has_value(), "decoded into a used list differently");
    if (!fast) return 0;
    fuzz::require(reused == *fast, "decoded into a used list differently");
    rapidjson::Document doc;
    fuzz::require(net::parse_json(doc, text).empty() && doc.IsObject(),
                  "decoded what the DOM parser refuses");
    kube::json_decoder d;
    std::vector<core::pod_metrics> slow;
    const kube::json_node items = kube::json_node{&doc, ""}["items"];
    for (std::size_t i = 0, n = d.array(items); i < n; ++i)
        slow.push_back(kinds::decode_pod_metrics(d, items.at(i)));
    fuzz::require(d.ok(), "decoded what the DOM decoder reports as an error");
    fuzz::require(slow == *fast, "decoded differently from the DOM decoder");
    return 0;
}
