// The one-pass PodMetricsList decoder (kube/pod_metrics_list): whatever it decodes, the DOM decoder
// (decode_pod_metrics over a parsed document) decodes the same; whatever is not the usual shape it
// leaves to the DOM decoder.
#include "kinds/decode.hpp"
#include "kinds/pod_metrics.hpp"
#include "kube/json_decoder.hpp"
#include "net/json_parse.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace hpaplus::kinds {
namespace {

// What the DOM path makes of `json`: the items, or nullopt when it reports an error.
std::optional<std::vector<core::pod_metrics>> dom(const std::string& json) {
    rapidjson::Document doc;
    if (!net::parse_json(doc, json).empty() || !doc.IsObject()) return std::nullopt;
    kube::json_decoder d;
    std::vector<core::pod_metrics> out;
    const kube::json_node items = kube::json_node{&doc, ""}["items"];
    for (std::size_t i = 0, n = d.array(items); i < n; ++i)
        out.push_back(decode_pod_metrics(d, items.at(i)));
    if (!d.ok()) return std::nullopt;
    return out;
}

const std::string usual = R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1",
  "metadata":{"resourceVersion":""},
  "items":[
    {"metadata":{"name":"web-1","namespace":"shop","creationTimestamp":"2026-11-26T10:00:00Z",
                 "labels":{"app":"web","app.kubernetes.io/name":"web-frontend"}},
     "timestamp":"2026-11-26T10:00:00Z","window":"15.002s",
     "containers":[{"name":"app","usage":{"cpu":"250m","memory":" 64Mi "}},
                   {"name":"proxy","usage":{"cpu":"1234567n","memory":"12Ki"}}]},
    {"metadata":{"name":"web-2"},"timestamp":"2026-11-26T10:00:01.5Z","window":"30s",
     "containers":[],"extra":{"deep":[1,{"x":[null,true]}]}}]})";

TEST(PodMetricsList, DecodesTheUsualShapeAsTheDomDecoderDoes) {
    const auto fast = decode_pod_metrics_list(usual);
    ASSERT_TRUE(fast);
    const auto slow = dom(usual);
    ASSERT_TRUE(slow);
    EXPECT_EQ(*fast, *slow);
    ASSERT_EQ(fast->size(), 2u);
    EXPECT_EQ((*fast)[0].labels.at("app.kubernetes.io/name"), "web-frontend");
    EXPECT_EQ((*fast)[0].containers[1].usage[0].second.milli_value(), 2); // 1234567n rounds up
    EXPECT_EQ((*fast)[1].namespace_, "default");
    EXPECT_EQ((*fast)[1].window, std::chrono::seconds(30));
}

// The controller decodes each list into the pods of one read before (their strings keep their
// storage): whatever those held, the list comes out as a fresh decode gives it.
TEST(PodMetricsList, DecodesIntoUsedPodsAsIntoNewOnes) {
    const std::string other = R"({"items":[
    {"metadata":{"name":"api-0","namespace":"ops","labels":{"tier":"api"}},
     "timestamp":"2026-11-26T11:00:00Z","window":"1m",
     "containers":[{"name":"a","usage":{"cpu":"1"}},{"name":"b","usage":{"memory":"1Gi"}},
                   {"name":"c","usage":{}}]},
    {"metadata":{"name":"api-1","namespace":"ops","labels":{"tier":"api"}},
     "containers":[{"name":"only","usage":{"cpu":"2"}}]},
    {"metadata":{"name":"api-2"},"containers":[]}]})";
    std::vector<core::pod_metrics> used;
    for (const std::string* json : {&usual, &other, &usual, &other}) {
        ASSERT_TRUE(decode_pod_metrics_list(*json, used));
        EXPECT_EQ(used, decode_pod_metrics_list(*json).value());
    }
    // A list that is not decoded leaves part of itself: the next one still comes out whole.
    EXPECT_FALSE(
        decode_pod_metrics_list(R"({"items":[{"metadata":{"name":"x"}},{"metadata":1}]})", used));
    ASSERT_TRUE(decode_pod_metrics_list(usual, used));
    EXPECT_EQ(used, decode_pod_metrics_list(usual).value());
}

// Labels and resources are checked for repeats by sorting, not against each other: a pod with
// tens of thousands of them decodes (as the DOM decoder has it) instead of taking n² steps.
TEST(PodMetricsList, ManyLabelsAndResourcesDecodeAsTheDomDecoderDoes) {
    std::string labels, usage;
    for (int i = 50'000; i > 0; --i) {
        const std::string n = std::to_string(i);
        labels += (labels.empty() ? "\"l" : ",\"l") + n + R"(":"v)" + n + '"';
        usage += (usage.empty() ? "\"r" : ",\"r") + n + R"(":")" + n + "m\"";
    }
    const std::string json = R"({"items":[{"metadata":{"name":"a","labels":{)" + labels +
                             R"(}},"containers":[{"name":"c","usage":{)" + usage + "}}]}]}";
    const auto fast = decode_pod_metrics_list(json);
    ASSERT_TRUE(fast);
    ASSERT_EQ(fast->size(), 1u);
    EXPECT_EQ((*fast)[0].labels.size(), 50'000u);
    EXPECT_EQ((*fast)[0].labels.at("l7"), "v7");
    EXPECT_EQ((*fast)[0].containers.at(0).usage.size(), 50'000u);
    EXPECT_EQ(dom(json), fast);
    const std::string repeated = json.substr(0, json.size() - 6) + R"(,"r9":"1"}}]}]})";
    EXPECT_FALSE(decode_pod_metrics_list(repeated));
}

// The text is parsed in place in a copy: escaped strings (shorter once decoded, written back over
// the copy) come out as the DOM decoder has them, label and resource names among them, and the
// caller's text is left as it was — the DOM decoder may still need it.
TEST(PodMetricsList, EscapedStringsDecodeAsTheDomDecoderDoesAndTheTextIsLeftWhole) {
    const std::string json =
        R"({"items":[{"metadata":{"name":"w\u0065b-1\n","namespace":"sh\"op",)"
        R"("labels":{"a\u0070p":"fr\\ont \"end\"","tier":"t\/1"}},)"
        R"("containers":[{"name":"\u00e9t\u00e9","usage":{"c\u0070u":"250m","memory":"1Mi"}}]},)"
        R"({"metadata":{"name":"web-2","labels":{"app":"plain"}},)"
        R"("containers":[{"name":"app","usage":{"cpu":"1m"}}]}]})";
    const std::string before = json;
    const auto fast = decode_pod_metrics_list(json);
    ASSERT_TRUE(fast);
    EXPECT_EQ(json, before);
    ASSERT_EQ(fast->size(), 2u);
    EXPECT_EQ(dom(json), fast);
    const auto& pod = (*fast)[0];
    EXPECT_EQ(pod.name, "web-1\n");
    EXPECT_EQ(pod.namespace_, "sh\"op");
    EXPECT_EQ(pod.labels.at("app"), "fr\\ont \"end\"");
    EXPECT_EQ(pod.labels.at("tier"), "t/1");
    ASSERT_EQ(pod.containers.size(), 1u);
    EXPECT_EQ(pod.containers[0].name, "\u00e9t\u00e9");
    ASSERT_EQ(pod.containers[0].usage.size(), 2u);
    EXPECT_EQ(pod.containers[0].usage[0].first, "cpu");
    std::vector<core::pod_metrics> reused; // decoded twice into the same pods: the same again
    ASSERT_TRUE(decode_pod_metrics_list(json, reused));
    ASSERT_TRUE(decode_pod_metrics_list(json, reused));
    EXPECT_EQ(reused, *fast);
}

// The decoder reserves room by the size of the list before it on the same thread: whatever the
// guess (too small, too big, past its cap), the items are the same.
TEST(PodMetricsList, ListsOfAnySizeOneAfterAnotherDecodeAsTheDomDecoderDoes) {
    for (const int pods : {1, 200, 3, 5000, 0, 50, 50}) {
        std::string items;
        for (int i = 0; i < pods; ++i) {
            // Pods of one list differ in size, as real ones do.
            items += (i ? "," : "") + std::string(R"({"metadata":{"name":"p)") + std::to_string(i) +
                     R"(","labels":{"app":"web)" + std::string(i % 7, 'x') +
                     R"("}},"containers":[{"name":"c","usage":{"cpu":")" + std::to_string(i + 1) +
                     "m\"}}]}";
        }
        const std::string json = R"({"items":[)" + items + "]}";
        const auto fast = decode_pod_metrics_list(json);
        ASSERT_TRUE(fast) << pods;
        ASSERT_EQ(fast->size(), static_cast<std::size_t>(pods));
        EXPECT_EQ(dom(json), fast) << pods;
    }
}

// A pod with the same labels as the pod before it (the pods of one ReplicaSet, listed by name)
// shares that pod's label set; any other pod has its own.
TEST(PodMetricsList, APodLabelledAsThePodBeforeItSharesItsLabelSet) {
    const auto item = [](const std::string& name, const std::string& labels) {
        return R"({"metadata":{"name":")" + name + R"(","labels":{)" + labels +
               R"(}},"containers":[{"name":"c","usage":{"cpu":"1m"}}]})";
    };
    const std::string json =
        R"({"items":[)" + item("a-1", R"("app":"a","hash":"1")") + "," +
        item("a-2", R"("hash":"1","app":"a")") + "," + item("a-3", R"("app":"a","hash":"1")") +
        "," + item("b-1", R"("app":"a","hash":"2")") + "," + item("c-1", "") + "," +
        item("c-2", "") + "," + item("d-1", R"("app":"a","hash":"2","x":"")") + "]}";
    const auto fast = decode_pod_metrics_list(json);
    ASSERT_TRUE(fast);
    ASSERT_EQ(fast->size(), 7u);
    const auto& pods = *fast;
    EXPECT_TRUE(pods[1].labels.shares_with(pods[0].labels)); // the same set in another order
    EXPECT_TRUE(pods[2].labels.shares_with(pods[0].labels));
    EXPECT_FALSE(pods[3].labels.shares_with(pods[2].labels));
    EXPECT_EQ(pods[3].labels.at("hash"), "2");
    EXPECT_TRUE(pods[4].labels.empty());
    EXPECT_TRUE(pods[5].labels.empty());
    EXPECT_FALSE(pods[6].labels.shares_with(pods[3].labels));
    EXPECT_EQ(pods[6].labels.size(), 3u);
    EXPECT_EQ(dom(json), fast);
}

TEST(PodMetricsList, AListWithoutItemsIsEmpty) {
    for (const char* json : {R"({"kind":"PodMetricsList"})", R"({"items":[]})"}) {
        const auto fast = decode_pod_metrics_list(json);
        ASSERT_TRUE(fast) << json;
        EXPECT_TRUE(fast->empty());
        EXPECT_EQ(dom(json), fast) << json;
    }
}

// Not the usual shape: left to the DOM decoder, whether it then reads it or reports it.
TEST(PodMetricsList, LeavesEverythingElseToTheDomDecoder) {
    const std::string deep = R"({"items":[{"metadata":{"name":"a"},"x":)" + std::string(600, '[') +
                             std::string(600, ']') + "}]}";
    for (
        const std::string& json : std::vector<std::string>{
            "",
            "[]",
            "7",
            R"({"items":null})",
            R"({"items":{}})",
            R"({"items":[7]})",
            R"({"items":[{}]})",
            R"({"items":[{"metadata":{"namespace":"x"}}]})",
            R"({"items":[{"metadata":{"name":5}}]})",
            R"({"items":[{"metadata":{"name":"a","labels":{"k":1}}}]})",
            R"({"items":[{"metadata":{"name":"a","labels":{"k":"1","k":"2"}}}]})",
            R"({"items":[{"metadata":{"name":"a"},"metadata":{"name":"b"}}]})",
            R"({"items":[{"metadata":{"name":"a"}}],"items":[]})",
            R"({"items":[{"metadata":{"name":"a"},"timestamp":"yesterday"}]})",
            R"({"items":[{"metadata":{"name":"a"},"timestamp":null}]})",
            R"({"items":[{"metadata":{"name":"a"},"window":"15"}]})",
            R"({"items":[{"metadata":{"name":"a"},"containers":[{"usage":{}}]}]})",
            R"({"items":[{"metadata":{"name":"a"},"containers":[{"name":"c","usage":{"cpu":5}}]}]})",
            R"({"items":[{"metadata":{"name":"a"},"containers":[{"name":"c","usage":{"cpu":"5x"}}]}]})",
            R"({"items":[{"metadata":{"name":"a"},"containers":[{"name":"c","usage":{"cpu":"1","cpu":"2"}}]}]})",
            R"({"items":[{"metadata":{"name":"a"}}]} trailing)",
            std::string("{\"items\":[]}\0 trailing", 22), // ends early for a NUL-terminated reader
            deep})
        EXPECT_FALSE(decode_pod_metrics_list(json)) << json.substr(0, 120);
}

} // namespace
} // namespace hpaplus::kinds
