// Integration tests: `/openapi/v2` of the simulated API server as kube-openapi serves it — JSON and
// gnostic protobuf by Accept, ETag and If-None-Match, built-in kinds, and every served CRD's
// schema converted to v2 the way apiextensions-apiserver publishes it (kubectl 1.20 validates
// `kubectl apply` against this document).
#include "../support/json_access.hpp"
#include "../support/sim_fixture.hpp"
#include "sim/apiserver/openapi.hpp"
#include "sim/apiserver/strategic_merge.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hpaplus {
namespace {

using test::parse;

constexpr const char* kubectl_accept = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

// A protobuf reader written apart from the encoder: the length-delimited fields of one message.
std::multimap<std::uint32_t, std::string> fields_of(std::string_view message) {
    std::multimap<std::uint32_t, std::string> out;
    std::size_t at = 0;
    auto varint = [&]() {
        std::uint64_t v = 0;
        for (int shift = 0; at < message.size() && shift < 64; shift += 7) {
            const auto byte = static_cast<unsigned char>(message[at++]);
            v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
            if (!(byte & 0x80)) break;
        }
        return v;
    };
    while (at < message.size()) {
        const auto key = varint();
        const auto wire = key & 7;
        const auto field = static_cast<std::uint32_t>(key >> 3);
        if (wire == 0) {
            varint();
        } else if (wire == 1) {
            at += 8;
        } else if (wire == 2) {
            const auto n = varint();
            EXPECT_LE(at + n, message.size()) << "field " << field << " runs past its message";
            out.emplace(field, std::string(message.substr(at, n)));
            at += n;
        } else {
            ADD_FAILURE() << "unexpected wire type " << wire;
            break;
        }
    }
    return out;
}

std::string first(const std::multimap<std::uint32_t, std::string>& fields, std::uint32_t n) {
    const auto it = fields.find(n);
    return it == fields.end() ? "" : it->second;
}

const std::string gadget_crd =
    R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"gadgets.example.hpaplus.io"},
  "spec":{"group":"example.hpaplus.io","scope":"Namespaced",
    "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"},
    "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{
      "type":"object",
      "properties":{
        "metadata":{"type":"object"},
        "spec":{"type":"object","required":["size","note"],
          "properties":{
            "size":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
            "note":{"type":"string","nullable":true},
            "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
                    "properties":{"a":{"type":"string"}}},
            "tags":{"type":"array","items":{"type":"string"}},
            "mode":{"type":"string","enum":["Auto","Off"],"default":"Auto"}}}}}}}]}})";

const std::string widget_crd =
    R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"widgets.example.hpaplus.io"},
  "spec":{"group":"example.hpaplus.io","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},
  "versions":[{"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";

struct SimOpenApi : ::testing::Test {
    test::sim_fixture sim;

    rapidjson::Document document() {
        const auto r = sim.get("/openapi/v2");
        EXPECT_EQ(r.status, 200) << r.body;
        return parse(r.body);
    }
};

TEST_F(SimOpenApi, ServesJsonWithBuiltInKindsAndAnEtag) {
    const auto r = sim.get("/openapi/v2");
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.headers.at("content-type"), "application/json");
    ASSERT_TRUE(r.headers.count("etag"));
    EXPECT_EQ(r.headers.at("etag").front(), '"');
    const auto doc = parse(r.body);
    EXPECT_EQ(std::string(doc["swagger"].GetString()), "2.0");
    const auto& defs = doc["definitions"];
    ASSERT_TRUE(defs.HasMember("io.k8s.api.apps.v1.Deployment"));
    const auto& deployment = defs["io.k8s.api.apps.v1.Deployment"];
    const auto& gvk = deployment["x-kubernetes-group-version-kind"][0];
    EXPECT_EQ(std::string(gvk["group"].GetString()), "apps");
    EXPECT_EQ(std::string(gvk["kind"].GetString()), "Deployment");
    EXPECT_EQ(std::string(gvk["version"].GetString()), "v1");
    EXPECT_EQ(std::string(deployment["properties"]["metadata"]["$ref"].GetString()),
              "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    // Lists merge by their upstream keys, so `kubectl apply` patches containers by name.
    const auto& containers = defs["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
    EXPECT_EQ(std::string(containers["x-kubernetes-patch-merge-key"].GetString()), "name");
    for (const char* kind :
         {"io.k8s.api.core.v1.Pod", "io.k8s.api.core.v1.PodList", "io.k8s.api.core.v1.ConfigMap",
          "io.k8s.api.core.v1.Namespace", "io.k8s.api.coordination.v1.Lease",
          "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"})
        EXPECT_TRUE(defs.HasMember(kind)) << kind;
    // Every $ref points at a definition that exists.
    std::vector<const rapidjson::Value*> pending{&defs};
    while (!pending.empty()) {
        const auto* v = pending.back();
        pending.pop_back();
        if (v->IsObject()) {
            for (const auto& m : v->GetObject()) {
                if (std::string(m.name.GetString()) == "$ref" && m.value.IsString()) {
                    const std::string target = m.value.GetString();
                    EXPECT_TRUE(defs.HasMember(target.substr(target.rfind('/') + 1).c_str()))
                        << target;
                }
                pending.push_back(&m.value);
            }
        } else if (v->IsArray()) {
            for (const auto& e : v->GetArray())
                pending.push_back(&e);
        }
    }
}

TEST_F(SimOpenApi, IfNoneMatchGets304UntilACrdChangesTheDocument) {
    const auto first_answer = sim.get("/openapi/v2");
    const std::string etag = first_answer.headers.at("etag");
    const auto again =
        sim.request("GET", "/openapi/v2", "", "", "application/json", {{"If-None-Match", etag}});
    EXPECT_EQ(again.status, 304);
    EXPECT_TRUE(again.body.empty());
    EXPECT_EQ(again.headers.at("etag"), etag);
    // A CRD adds its kinds; the old tag no longer matches.
    ASSERT_EQ(
        sim.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadget_crd)
            .status,
        201);
    const auto changed =
        sim.request("GET", "/openapi/v2", "", "", "application/json", {{"If-None-Match", etag}});
    EXPECT_EQ(changed.status, 200);
    EXPECT_NE(changed.headers.at("etag"), etag);
    EXPECT_TRUE(parse(changed.body)["definitions"].HasMember("io.hpaplus.example.v1.Gadget"));
    // Deleting the CRD takes its kinds out again.
    ASSERT_EQ(sim.request("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                                    "gadgets.example.hpaplus.io")
                  .status,
              200);
    EXPECT_FALSE(document()["definitions"].HasMember("io.hpaplus.example.v1.Gadget"));
    EXPECT_EQ(sim.get("/openapi/v2").headers.at("etag"), etag);
}

TEST_F(SimOpenApi, ServesGnosticProtobufToKubectl) {
    ASSERT_EQ(
        sim.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadget_crd)
            .status,
        201);
    const auto r = sim.request("GET", "/openapi/v2", "", "", kubectl_accept);
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.headers.at("content-type"),
              "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    EXPECT_NE(r.headers.at("etag"), sim.get("/openapi/v2").headers.at("etag"));
    const auto document = fields_of(r.body);
    EXPECT_EQ(first(document, 1), "2.0");                             // swagger
    EXPECT_EQ(first(fields_of(first(document, 2)), 1), "Kubernetes"); // info.title
    std::map<std::string, std::string> schemas; // Definitions → NamedSchema{name, Schema}
    for (const auto& [n, named] : fields_of(first(document, 9)))
        if (n == 1) {
            const auto f = fields_of(named);
            schemas[first(f, 1)] = first(f, 2);
        }
    ASSERT_TRUE(schemas.count("io.hpaplus.example.v1.Gadget"));
    ASSERT_TRUE(schemas.count("io.hpaplus.example.v1.GadgetList"));
    ASSERT_TRUE(schemas.count("io.k8s.api.apps.v1.Deployment"));
    const auto gadget = fields_of(schemas["io.hpaplus.example.v1.Gadget"]);
    EXPECT_EQ(first(fields_of(first(gadget, 22)), 1), "object"); // type
    // The group-version-kind extension is YAML (JSON) text in Any.yaml, as kube-openapi reads it.
    bool gvk = false;
    for (const auto& [n, named] : gadget)
        if (n == 31) {
            const auto f = fields_of(named);
            if (first(f, 1) == "x-kubernetes-group-version-kind")
                gvk = first(fields_of(first(f, 2)), 2) ==
                      R"([{"group":"example.hpaplus.io","kind":"Gadget","version":"v1"}])";
        }
    EXPECT_TRUE(gvk);
    std::map<std::string, std::string> properties;
    for (const auto& [n, named] : fields_of(first(gadget, 25)))
        if (n == 1) {
            const auto f = fields_of(named);
            properties[first(f, 1)] = first(f, 2);
        }
    EXPECT_TRUE(properties.count("apiVersion") && properties.count("kind") &&
                properties.count("spec"));
    EXPECT_EQ(first(fields_of(properties["metadata"]), 1),
              "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
}

TEST_F(SimOpenApi, CrdSchemasAreConvertedAsTheRealServerPublishesThem) {
    ASSERT_EQ(
        sim.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadget_crd)
            .status,
        201);
    ASSERT_EQ(
        sim.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widget_crd)
            .status,
        201);
    const auto doc = document();
    const auto& gadget = doc["definitions"]["io.hpaplus.example.v1.Gadget"];
    const auto& spec = gadget["properties"]["spec"];
    // nullable → not required, untyped; int-or-string → untyped, anyOf dropped
    ASSERT_EQ(spec["required"].Size(), 1u);
    EXPECT_EQ(std::string(spec["required"][0].GetString()), "size");
    EXPECT_FALSE(spec["properties"]["note"].HasMember("type"));
    EXPECT_FALSE(spec["properties"]["size"].HasMember("anyOf"));
    EXPECT_FALSE(spec["properties"]["size"].HasMember("type"));
    // preserve-unknown-fields → neither properties nor type
    EXPECT_FALSE(spec["properties"]["free"].HasMember("properties"));
    EXPECT_FALSE(spec["properties"]["free"].HasMember("type"));
    EXPECT_EQ(std::string(spec["properties"]["tags"]["items"]["type"].GetString()), "string");
    EXPECT_EQ(spec["properties"]["mode"]["enum"].Size(), 2u);
    EXPECT_EQ(std::string(gadget["properties"]["metadata"]["$ref"].GetString()),
              "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    const auto& list = doc["definitions"]["io.hpaplus.example.v1.GadgetList"];
    EXPECT_EQ(std::string(list["properties"]["items"]["items"]["$ref"].GetString()),
              "#/definitions/io.hpaplus.example.v1.Gadget");
    // A root that keeps unknown fields is a bare object with its kind: kubectl then checks nothing.
    const auto& widget = doc["definitions"]["io.hpaplus.example.v1.Widget"];
    EXPECT_FALSE(widget.HasMember("properties"));
    EXPECT_EQ(std::string(widget["x-kubernetes-group-version-kind"][0]["kind"].GetString()),
              "Widget");
}

TEST_F(SimOpenApi, StrictFieldValidationRefusesUnknownFieldsOthersArePruned) {
    ASSERT_EQ(
        sim.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadget_crd)
            .status,
        201);
    const std::string gadgets = "/apis/example.hpaplus.io/v1/namespaces/default/gadgets";
    const std::string body =
        R"({"apiVersion":"example.hpaplus.io/v1","kind":"Gadget","metadata":{"name":"g"},)"
        R"("spec":{"size":1,"note":"n","sise":2}})";
    const auto strict = sim.request("POST", gadgets + "?fieldValidation=Strict", body);
    EXPECT_EQ(strict.status, 400);
    EXPECT_NE(strict.body.find(R"(unknown field \"spec.sise\")"), std::string::npos) << strict.body;
    const auto pruned = sim.request("POST", gadgets, body);
    ASSERT_EQ(pruned.status, 201) << pruned.body;
    EXPECT_FALSE(parse(pruned.body)["spec"].HasMember("sise"));
}

TEST_F(SimOpenApi, UnacceptableFormatIs406) {
    EXPECT_EQ(sim.request("GET", "/openapi/v2", "", "", "text/html").status, 406);
}

// Strategic merge patches read their merge keys from the same schema kubectl does.
struct strategic_case {
    const char* name;
    const char* original;
    const char* patch;
    const char* expected; ///< nullptr: the patch is refused
};

class StrategicMergePatch : public ::testing::TestWithParam<strategic_case> {};

TEST_P(StrategicMergePatch, AppliesAsApimachineryDoes) {
    const auto& c = GetParam();
    rapidjson::Document target = parse(c.original);
    const rapidjson::Document patch = parse(c.patch);
    const auto error = sim::strategic_merge_patch(
        target, patch, sim::builtin_kind_schema("apps", "v1", "Deployment"), target.GetAllocator());
    if (!c.expected) {
        EXPECT_TRUE(error.has_value());
        return;
    }
    ASSERT_FALSE(error) << *error;
    EXPECT_TRUE(sim::equal(target, parse(c.expected)))
        << sim::to_string(target) << "\n expected " << c.expected;
}

#define POD(containers) R"({"spec":{"template":{"spec":{"containers":)" containers "}}}}"
INSTANTIATE_TEST_SUITE_P(
    Deployment, StrategicMergePatch,
    ::testing::Values(
        strategic_case{
            "ContainersMergeByName", POD(R"([{"name":"app","image":"nginx"}])"),
            POD(R"([{"name":"side","image":"busybox"}])"),
            POD(R"([{"name":"app","image":"nginx"},{"name":"side","image":"busybox"}])")},
        strategic_case{
            "KubectlApplyDropsAnEnvVar",
            POD(R"([{"name":"app","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}])"),
            R"({"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"app"}],)"
            R"("containers":[{"name":"app","$setElementOrder/env":[{"name":"A"}],)"
            R"("env":[{"$patch":"delete","name":"B"}]}]}}}})",
            POD(R"([{"name":"app","env":[{"name":"A","value":"1"}]}])")},
        strategic_case{
            "SetElementOrderReorders", POD(R"([{"name":"a"},{"name":"b"}])"),
            R"({"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}]}}}})",
            POD(R"([{"name":"b"},{"name":"a"}])")},
        strategic_case{"ReplaceDirectiveInAList", POD(R"([{"name":"a"},{"name":"b"}])"),
                       POD(R"([{"$patch":"replace"},{"name":"c"}])"), POD(R"([{"name":"c"}])")},
        strategic_case{
            "ListsWithoutAMergeKeyAreReplaced", POD(R"([{"name":"a","args":["x","y"]}])"),
            POD(R"([{"name":"a","args":["z","z"]}])"), POD(R"([{"name":"a","args":["z","z"]}])")},
        strategic_case{"NullDeletesAField", R"({"spec":{"replicas":2,"paused":true}})",
                       R"({"spec":{"paused":null}})", R"({"spec":{"replicas":2}})"},
        strategic_case{"DeleteFromPrimitiveList", R"({"metadata":{"finalizers":["a","b","c"]}})",
                       R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}})",
                       R"({"metadata":{"finalizers":["a","c"]}})"},
        strategic_case{
            "RetainKeysClearsTheOldStrategy",
            R"({"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}})",
            R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})",
            R"({"spec":{"strategy":{"type":"Recreate"}}})"},
        strategic_case{"AMapReplacedWhole", R"({"spec":{"selector":{"matchLabels":{"a":"1"}}}})",
                       R"({"spec":{"selector":{"$patch":"replace","matchLabels":{"b":"2"}}}})",
                       R"({"spec":{"selector":{"matchLabels":{"b":"2"}}}})"},
        strategic_case{"AnElementWithoutItsMergeKeyIsRefused", POD(R"([{"name":"a"}])"),
                       POD(R"([{"image":"nginx"}])"), nullptr},
        strategic_case{"AnUnknownPatchTypeIsRefused", R"({"spec":{}})",
                       R"({"spec":{"$patch":"sideways"}})", nullptr}),
    [](const auto& info) { return std::string(info.param.name); });
#undef POD

TEST_F(SimOpenApi, StrategicMergePatchOverHttpMergesContainersByName) {
    const std::string deployments = "/apis/apps/v1/namespaces/default/deployments";
    ASSERT_EQ(
        sim.request(
               "POST", deployments,
               R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},)"
               R"("spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
               R"("spec":{"containers":[{"name":"app","image":"nginx","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}]}}}})")
            .status,
        201);
    const auto patched = sim.request(
        "PATCH", deployments + "/web",
        R"({"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"$patch":"delete","name":"B"}]},{"name":"side","image":"busybox"}]}}}})",
        "application/strategic-merge-patch+json");
    ASSERT_EQ(patched.status, 200) << patched.body;
    const auto doc = parse(patched.body);
    const auto& containers = doc["spec"]["template"]["spec"]["containers"];
    ASSERT_EQ(containers.Size(), 2u);
    EXPECT_EQ(std::string(containers[0]["image"].GetString()), "nginx");
    ASSERT_EQ(containers[0]["env"].Size(), 1u);
    EXPECT_EQ(std::string(containers[0]["env"][0]["name"].GetString()), "A");
    const auto refused =
        sim.request("PATCH", deployments + "/web",
                    R"({"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}})",
                    "application/strategic-merge-patch+json");
    EXPECT_EQ(refused.status, 400) << refused.body;
}

struct negotiation_case {
    const char* accept;
    sim::openapi_format expected;
};

class OpenApiNegotiation : public ::testing::TestWithParam<negotiation_case> {};

TEST_P(OpenApiNegotiation, PicksAsKubeOpenApiDoes) {
    EXPECT_EQ(sim::negotiate_openapi_v2(GetParam().accept), GetParam().expected)
        << GetParam().accept;
}

INSTANTIATE_TEST_SUITE_P(
    Accept, OpenApiNegotiation,
    ::testing::Values(negotiation_case{"", sim::openapi_format::json},
                      negotiation_case{"*/*", sim::openapi_format::json},
                      negotiation_case{"application/json", sim::openapi_format::json},
                      negotiation_case{kubectl_accept, sim::openapi_format::protobuf},
                      negotiation_case{"application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
                                       sim::openapi_format::protobuf},
                      negotiation_case{"application/json;q=0.5, "
                                       "application/com.github.proto-openapi.spec."
                                       "v2.v1.0+protobuf",
                                       sim::openapi_format::protobuf},
                      negotiation_case{
                          "*/*;q=0.1, application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
                          sim::openapi_format::protobuf},
                      negotiation_case{"application/json;q=0", sim::openapi_format::none},
                      negotiation_case{"text/plain", sim::openapi_format::none}));

TEST(OpenApiEtag, MatchesListsWildcardsAndWeakTags) {
    EXPECT_TRUE(sim::etag_matches("\"AB\"", "\"AB\""));
    EXPECT_TRUE(sim::etag_matches("\"x\", W/\"AB\"", "\"AB\""));
    EXPECT_TRUE(sim::etag_matches("*", "\"AB\""));
    EXPECT_FALSE(sim::etag_matches("", "\"AB\""));
    EXPECT_FALSE(sim::etag_matches("\"ABC\"", "\"AB\""));
}

TEST(OpenApiNames, GroupsAreReversed) {
    EXPECT_EQ(sim::openapi_definition_name("autoscaling.hpaplus.io", "v1alpha1", "HPAPlus"),
              "io.hpaplus.autoscaling.v1alpha1.HPAPlus");
    EXPECT_EQ(sim::openapi_definition_name("apps", "v1", "Deployment"), "apps.v1.Deployment");
}

TEST(OpenApiProtobuf, DeepSchemasStopInsteadOfRecursingWithoutBound) {
    rapidjson::Document doc;
    doc.SetObject();
    auto& a = doc.GetAllocator();
    rapidjson::Value schema(rapidjson::kObjectType);
    schema.AddMember("type", "string", a);
    for (int i = 0; i < 5000; ++i) { // 5,000 nested `items`
        rapidjson::Value outer(rapidjson::kObjectType);
        outer.AddMember("type", "array", a);
        outer.AddMember("items", schema, a);
        schema = std::move(outer);
    }
    rapidjson::Value defs(rapidjson::kObjectType);
    defs.AddMember("deep", schema, a);
    doc.AddMember("definitions", defs, a);
    const std::string encoded = sim::openapi_v2_protobuf(doc);
    EXPECT_FALSE(encoded.empty());
    EXPECT_LT(encoded.size(), 10'000u);
    auto converted = sim::openapi_v2_schema(doc["definitions"]["deep"], a);
    int depth = 0;
    for (const rapidjson::Value* v = &converted; v->IsObject() && v->HasMember("items");
         v = &(*v)["items"])
        ++depth;
    EXPECT_LT(depth, 200);
}

} // namespace
} // namespace hpaplus
