// Integration tests: built-in objects the real API server refuses are refused, in its words
// (shared/reference/kubernetes-wire.md §13 "Validation wording"): HPA replica bounds, workload
// replicas and selectors, ConfigMap keys, names per kind, server-side apply without a type; and
// the CRDs' CEL rules (x-kubernetes-validations) on create and update, with their options.
#include "../support/build_paths.hpp"
#include "../support/json_access.hpp"
#include "../support/manifest_files.hpp"
#include "../support/sim_fixture.hpp"

#include <gtest/gtest.h>

namespace hpaplus {
namespace {

using test::parse;
using test::str;

const std::string hpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

std::string hpa(const std::string& name, const std::string& bounds) {
    return R"({"metadata":{"name":")" + name +
           R"("},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment",)"
           R"("name":"web"},)" +
           bounds + "}}";
}

std::string deployment(const std::string& name, const std::string& replicas,
                       const std::string& template_labels) {
    return R"({"metadata":{"name":")" + name + R"("},"spec":{"replicas":)" + replicas +
           R"(,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":)" +
           template_labels + R"(},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}})";
}

struct SimValidation : ::testing::Test {
    test::sim_fixture sim;

    test::http_result patch(const std::string& path, const std::string& body) {
        return sim.request("PATCH", path, body, "application/merge-patch+json");
    }

    // The 422's message (the test fails when the answer is anything else).
    std::string refused(const std::string& method, const std::string& path,
                        const std::string& body) {
        const auto r = method == "PATCH" ? patch(path, body) : sim.request(method, path, body);
        EXPECT_EQ(r.status, 422) << method << " " << path << ": " << r.body;
        EXPECT_EQ(str(parse(r.body), "/reason"), "Invalid");
        return str(parse(r.body), "/message");
    }
};

TEST_F(SimValidation, HpaReplicaBoundsAsValidateHorizontalPodAutoscaler) {
    EXPECT_EQ(refused("POST", hpas, hpa("inverted", R"("minReplicas":5,"maxReplicas":3)")),
              "HorizontalPodAutoscaler.autoscaling \"inverted\" is invalid: spec.maxReplicas: "
              "Invalid value: 3: must be greater than or equal to `minReplicas`");
    // minReplicas defaults to 1: two errors, aggregated.
    EXPECT_EQ(refused("POST", hpas, hpa("none", R"("maxReplicas":0)")),
              "HorizontalPodAutoscaler.autoscaling \"none\" is invalid: [spec.maxReplicas: "
              "Invalid value: 0: must be greater than 0, spec.maxReplicas: Invalid value: 0: "
              "must be greater than or equal to `minReplicas`]");
    EXPECT_EQ(refused("POST", hpas, hpa("zero", R"("minReplicas":0,"maxReplicas":3)")),
              "HorizontalPodAutoscaler.autoscaling \"zero\" is invalid: spec.minReplicas: "
              "Invalid value: 0: must be greater than or equal to 1");
    // Through autoscaling/v1 too, and on update.
    EXPECT_EQ(sim.request("POST",
                          "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers",
                          hpa("v1", R"("minReplicas":4,"maxReplicas":2)"))
                  .status,
              422);
    ASSERT_EQ(sim.request("POST", hpas, hpa("ok", R"("maxReplicas":3)")).status, 201);
    const auto r = sim.request("PATCH", hpas + "/ok", R"({"spec":{"minReplicas":9}})",
                               "application/merge-patch+json");
    EXPECT_EQ(r.status, 422) << r.body;
}

TEST_F(SimValidation, HpaMetricSourcesAndBehaviorPolicies) {
    EXPECT_EQ(
        refused("POST", hpas, hpa("sourceless", R"("maxReplicas":3,"metrics":[{"type":"Pods"}])")),
        "HorizontalPodAutoscaler.autoscaling \"sourceless\" is invalid: spec.metrics[0].pods: "
        "Required value: must populate information for the given metric source");
    EXPECT_NE(refused("POST", hpas, hpa("typo", R"("maxReplicas":3,"metrics":[{"type":"Cpu"}])"))
                  .find("spec.metrics[0].type: Unsupported value: \"Cpu\": supported values: "
                        "\"ContainerResource\", \"External\", \"Object\", \"Pods\", "
                        "\"Resource\""),
              std::string::npos);
    EXPECT_EQ(refused("POST", hpas,
                      hpa("policy", R"("maxReplicas":3,"behavior":{"scaleUp":{"policies":)"
                                    R"([{"type":"Pods","value":0,"periodSeconds":2000}]}})")),
              "HorizontalPodAutoscaler.autoscaling \"policy\" is invalid: "
              "[spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than "
              "zero, spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must "
              "be less than or equal to 1800]");
    EXPECT_NE(refused("POST", hpas,
                      hpa("window", R"("maxReplicas":3,"behavior":{"scaleDown":)"
                                    R"({"stabilizationWindowSeconds":-1}})"))
                  .find("spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: "
                        "must be greater than or equal to zero"),
              std::string::npos);
}

TEST_F(SimValidation, PodContainersAsValidatePodSpec) {
    EXPECT_EQ(refused("POST", test::paths::pods, R"({"metadata":{"name":"empty"},"spec":{}})"),
              "Pod \"empty\" is invalid: spec.containers: Required value");
    EXPECT_EQ(refused("POST", test::paths::pods,
                      R"({"metadata":{"name":"twins"},"spec":{"containers":[{"name":"app",)"
                      R"("image":"nginx"},{"name":"app","image":"nginx"}]}})"),
              "Pod \"twins\" is invalid: spec.containers[1].name: Duplicate value: \"app\"");
    EXPECT_EQ(refused("POST", test::paths::pods,
                      R"({"metadata":{"name":"greedy"},"spec":{"containers":[{"name":"app",)"
                      R"("image":"nginx","resources":{"requests":{"cpu":"2"},"limits":)"
                      R"({"cpu":"1"}}}]}})"),
              "Pod \"greedy\" is invalid: spec.containers[0].resources.requests[cpu]: Invalid "
              "value: \"2\": must be less than or equal to cpu limit of 1");
}

TEST_F(SimValidation, WorkloadReplicasAndSelectorsAsValidateDeployment) {
    const std::string deployments = test::paths::deployments;
    EXPECT_EQ(refused("POST", deployments, deployment("mismatch", "1", R"({"app":"other"})")),
              "Deployment.apps \"mismatch\" is invalid: spec.template.metadata.labels: Invalid "
              "value: map[string]string{\"app\":\"other\"}: `selector` does not match template "
              "`labels`");
    EXPECT_EQ(refused("POST", deployments, deployment("negative", "-1", R"({"app":"web"})")),
              "Deployment.apps \"negative\" is invalid: spec.replicas: Invalid value: -1: must be "
              "greater than or equal to 0");
    EXPECT_EQ(refused("POST", "/apis/apps/v1/namespaces/default/statefulsets",
                      R"({"metadata":{"name":"db"},"spec":{"serviceName":"db","template":)"
                      R"({"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"a",)"
                      R"("image":"x"}]}}}})"),
              "StatefulSet.apps \"db\" is invalid: spec.selector: Required value");
    ASSERT_EQ(sim.request("POST", deployments, deployment("web", "1", R"({"app":"web"})")).status,
              201);
    const auto r = sim.request("PATCH", deployments + "/web", R"({"spec":{"replicas":-3}})",
                               "application/merge-patch+json");
    EXPECT_EQ(r.status, 422) << r.body;
}

TEST_F(SimValidation, WorkloadTemplatesStrategiesAndImmutableSelectors) {
    const std::string deployments = "/apis/apps/v1/namespaces/default/deployments";
    auto with = [](const std::string& name, const std::string& spec_extra,
                   const std::string& containers) {
        return R"({"metadata":{"name":")" + name + R"("},"spec":{)" + spec_extra +
               R"("selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":)"
               R"({"app":"web"}},"spec":{"containers":)" +
               containers + "}}}}";
    };
    const std::string app = R"([{"name":"app","image":"nginx"}])";
    // The pod template is a pod spec, validated as one.
    EXPECT_EQ(refused("POST", deployments, with("imageless", "", R"([{"name":"app"}])")),
              "Deployment.apps \"imageless\" is invalid: spec.template.spec.containers[0].image: "
              "Required value");
    EXPECT_EQ(refused("POST", deployments, with("empty", "", "[]")),
              "Deployment.apps \"empty\" is invalid: spec.template.spec.containers: Required "
              "value");
    EXPECT_EQ(
        refused("POST", deployments, with("blue", R"("strategy":{"type":"BlueGreen"},)", app)),
        "Deployment.apps \"blue\" is invalid: spec.strategy.type: Unsupported value: "
        "\"BlueGreen\": supported values: \"Recreate\", \"RollingUpdate\"");
    EXPECT_EQ(
        refused("POST", deployments,
                with("recreate",
                     R"("strategy":{"type":"Recreate","rollingUpdate":{"maxSurge":1}},)", app)),
        "Deployment.apps \"recreate\" is invalid: spec.strategy.rollingUpdate: Forbidden: "
        "may not be specified when strategy `type` is 'Recreate'");
    EXPECT_EQ(refused("POST", deployments,
                      with("stuck",
                           R"("strategy":{"type":"RollingUpdate","rollingUpdate":)"
                           R"({"maxSurge":0,"maxUnavailable":0}},)",
                           app)),
              "Deployment.apps \"stuck\" is invalid: spec.strategy.rollingUpdate.maxUnavailable: "
              "Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}: may not be 0 when "
              "`maxSurge` is 0");
    // apps/v1 selectors do not change.
    ASSERT_EQ(sim.request("POST", deployments, with("web", "", app)).status, 201);
    EXPECT_EQ(refused("PATCH", deployments + "/web",
                      R"({"spec":{"selector":{"matchLabels":{"app":"web","tier":"1"}},)"
                      R"("template":{"metadata":{"labels":{"app":"web","tier":"1"}}}}})"),
              "Deployment.apps \"web\" is invalid: spec.selector: Invalid value: "
              "v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", \"tier\":\"1\"}, "
              "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable");
    EXPECT_EQ(patch(deployments + "/web", R"({"spec":{"replicas":3}})").status, 200);
}

TEST_F(SimValidation, LeasesAndLegacyEvents) {
    EXPECT_EQ(refused("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
                      R"({"metadata":{"name":"l"},"spec":{"leaseDurationSeconds":0,)"
                      R"("leaseTransitions":-1}})"),
              "Lease.coordination.k8s.io \"l\" is invalid: [spec.leaseDurationSeconds: Invalid "
              "value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be "
              "greater than or equal to 0]");
    EXPECT_EQ(refused("POST", "/api/v1/namespaces/default/events",
                      R"({"metadata":{"name":"e"},"involvedObject":{"kind":"Pod",)"
                      R"("namespace":"other","name":"p"},"reason":"R","message":"m"})"),
              "Event \"e\" is invalid: involvedObject.namespace: Invalid value: \"other\": does "
              "not match event.namespace");
    EXPECT_EQ(sim.request("POST", "/api/v1/namespaces/default/events",
                          R"({"metadata":{"name":"node"},"involvedObject":{"kind":"Node",)"
                          R"("name":"n"},"reason":"R","message":"m"})")
                  .status,
              201);
}

TEST_F(SimValidation, ConfigMapKeysAndNamesPerKind) {
    EXPECT_EQ(refused("POST", test::paths::configmaps,
                      R"({"metadata":{"name":"c"},"data":{"bad key":"v","good.key":"v"}})"),
              "ConfigMap \"c\" is invalid: data[bad key]: Invalid value: \"bad key\": a valid "
              "config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
              "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
              "'[-._a-zA-Z0-9]+')");
    EXPECT_EQ(refused("POST", test::paths::configmaps, R"({"metadata":{"name":"Bad_Name"}})"),
              "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a "
              "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
              "'-' or '.', and must start and end with an alphanumeric character (e.g. "
              "'example.com', regex used for validation is "
              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    EXPECT_NE(refused("POST", "/api/v1/namespaces", R"({"metadata":{"name":"a.b"}})")
                  .find("a lowercase RFC 1123 label must consist of"),
              std::string::npos);
    EXPECT_NE(refused("POST", "/api/v1/namespaces/default/services",
                      R"({"metadata":{"name":"1st"},"spec":{"ports":[{"port":80}]}})")
                  .find("a DNS-1035 label must consist of"),
              std::string::npos);
    EXPECT_EQ(
        sim.request("POST", test::paths::configmaps, R"({"metadata":{"name":"a.b-c"}})").status,
        201);
}

TEST_F(SimValidation, ServerSideApplyOfABodyWithoutItsTypeIsABadRequest) {
    const auto r = sim.request("PATCH", test::paths::configmaps + "/c?fieldManager=me",
                               R"({"metadata":{"name":"c"},"data":{"k":"v"}})",
                               "application/apply-patch+yaml");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(str(parse(r.body), "/message"), "invalid object type: /, Kind=");
    EXPECT_EQ(sim.get(test::paths::configmaps + "/c").status, 404) << "nothing created";
}

const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const std::string hpapluses = "/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/default/hpapluses";
const std::string widgets = "/apis/test.hpaplus.io/v1/namespaces/default/widgets";

std::string hpaplus(const std::string& name, const std::string& bounds) {
    return R"({"apiVersion":"autoscaling.hpaplus.io/v1alpha1","kind":"HPAPlus","metadata":{"name":")" +
           name + R"("},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},)" + bounds +
           "}}";
}

// A CRD of the test's own: one rule of each option on spec and its fields; `max_rules` are
// spec.max's.
std::string widget_crd(const std::string& max_rules = "[]") {
    return R"j({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"widgets.test.hpaplus.io"},"spec":{"group":"test.hpaplus.io",
      "scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget"},
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":
      {"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[
        {"rule":"self.replicas <= self.max",
         "messageExpression":"'replicas ' + string(self.replicas) + ' exceed ' + string(self.max)",
         "fieldPath":".replicas","reason":"FieldValueForbidden"},
        {"rule":"!has(self.divisor) || self.max / self.divisor >= 0","message":"max / divisor"}],
      "properties":{"replicas":{"type":"integer"},"divisor":{"type":"integer"},
        "max":{"type":"integer","x-kubernetes-validations":)j" +
           max_rules + R"j(},
        "name":{"type":"string","maxLength":20,"x-kubernetes-validations":[
          {"rule":"self == oldSelf","message":"name is immutable"}]},
        "tags":{"type":"array","maxItems":8,"items":{"type":"string","maxLength":10},
          "x-kubernetes-validations":[{"rule":"self.size() <= 3"}]}}}}}}}]}})j";
}

std::string widget(const std::string& name, const std::string& spec) {
    return R"({"apiVersion":"test.hpaplus.io/v1","kind":"Widget","metadata":{"name":")" + name +
           R"("},"spec":)" + spec + "}";
}

TEST_F(SimValidation, TheHpaplusCrdsCelRulesRefuseInTheServersWords) {
    auto docs = kube::yaml_documents_to_json(
        test::read_file(std::string(HPAPLUS_SOURCE_DIR) + "/crds/hpaplus.yaml"));
    ASSERT_TRUE(docs);
    for (const auto& crd : *docs)
        ASSERT_EQ(sim.request("POST", crds, crd).status, 201);
    EXPECT_EQ(refused("POST", hpapluses, hpaplus("inverted", R"("minReplicas":9,"maxReplicas":2)")),
              "HPAPlus.autoscaling.hpaplus.io \"inverted\" is invalid: spec: Invalid value: "
              "\"object\": minReplicas must be less than or equal to maxReplicas");
    // On update too, by patch and by PUT.
    ASSERT_EQ(
        sim.request("POST", hpapluses, hpaplus("web", R"("minReplicas":1,"maxReplicas":2)")).status,
        201);
    EXPECT_NE(refused("PATCH", hpapluses + "/web", R"({"spec":{"minReplicas":9}})")
                  .find("minReplicas must be less than or equal to maxReplicas"),
              std::string::npos);
    EXPECT_NE(
        refused("PUT", hpapluses + "/web", hpaplus("web", R"("minReplicas":3,"maxReplicas":2)"))
            .find("minReplicas must be less than or equal to maxReplicas"),
        std::string::npos);
    EXPECT_EQ(patch(hpapluses + "/web", R"({"spec":{"maxReplicas":9}})").status, 200);
    // A type error keeps the rules from running, as strategy.go's hasBlockingErr.
    EXPECT_EQ(
        refused("POST", hpapluses, hpaplus("typo", R"("minReplicas":"nine","maxReplicas":2)")),
        "HPAPlus.autoscaling.hpaplus.io \"typo\" is invalid: [spec.minReplicas: Invalid "
        "value: \"string\": spec.minReplicas in body must be of type integer: \"string\", "
        "<nil>: Invalid value: \"null\": some validation rules were not checked because "
        "the object was invalid; correct the existing errors to complete validation]");
}

// A schema's `pattern`, matched as the real server does (anywhere in the value; the HPAPlus
// CRD's anchored ones); a hostile value against a pattern that backtracks is refused, not a hang.
TEST_F(SimValidation, PatternsAreEnforcedAsTheRealServerDoes) {
    auto docs = kube::yaml_documents_to_json(
        test::read_file(std::string(HPAPLUS_SOURCE_DIR) + "/crds/hpaplus.yaml"));
    ASSERT_TRUE(docs);
    for (const auto& crd : *docs)
        ASSERT_EQ(sim.request("POST", crds, crd).status, 201);
    const std::string bounds = R"("minReplicas":1,"maxReplicas":3,"metrics":[{"type":"Resource",)"
                               R"("resource":{"name":"cpu","target":{"type":"Utilization",)"
                               R"("averageUtilization":50}},"tolerance":{"scaleUp":")";
    const std::string refusal = refused("POST", hpapluses, hpaplus("odd", bounds + R"(lots"}}])"));
    EXPECT_NE(refusal.find("spec.metrics[0].tolerance.scaleUp: Invalid value: \"lots\": "
                           "spec.metrics[0].tolerance.scaleUp in body should match '^"),
              std::string::npos)
        << refusal;
    EXPECT_EQ(sim.request("POST", hpapluses, hpaplus("fine", bounds + R"(50m"}}])")).status, 201);

    ASSERT_EQ(
        sim.request("POST", crds,
                    R"j({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"gadgets.test.hpaplus.io"},"spec":{"group":"test.hpaplus.io",
      "scope":"Namespaced","names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":
      {"type":"object","properties":{"spec":{"type":"object","properties":{
        "code":{"type":"string","pattern":"[0-9]{3}"},
        "slow":{"type":"string","pattern":"^(a+)+$"}}}}}}}]}})j")
            .status,
        201);
    const std::string gadgets = "/apis/test.hpaplus.io/v1/namespaces/default/gadgets";
    const auto gadget = [](const std::string& name, const std::string& spec) {
        return R"({"apiVersion":"test.hpaplus.io/v1","kind":"Gadget","metadata":{"name":")" + name +
               R"("},"spec":)" + spec + "}";
    };
    // Unanchored, as Go's MatchString: three digits anywhere will do.
    EXPECT_EQ(sim.request("POST", gadgets, gadget("g1", R"({"code":"id-123-x"})")).status, 201);
    EXPECT_EQ(refused("POST", gadgets, gadget("g2", R"({"code":"12"})")),
              "Gadget.test.hpaplus.io \"g2\" is invalid: spec.code: Invalid value: \"12\": "
              "spec.code in body should match '[0-9]{3}'");
    const std::string hostile = std::string(5000, 'a') + "!";
    EXPECT_NE(refused("POST", gadgets, gadget("g3", R"({"slow":")" + hostile + R"("})"))
                  .find("spec.slow"),
              std::string::npos);
}

TEST_F(SimValidation, CelRulesWithMessageExpressionReasonFieldPathAndOldSelf) {
    ASSERT_EQ(sim.request("POST", crds, widget_crd()).status, 201);
    EXPECT_EQ(refused("POST", widgets, widget("a", R"({"replicas":9,"max":3})")),
              "Widget.test.hpaplus.io \"a\" is invalid: spec.replicas: Forbidden: replicas 9 "
              "exceed 3");
    EXPECT_EQ(
        refused("POST", widgets, widget("b", R"({"replicas":1,"max":3,"tags":["a","b","c","d"]})")),
        "Widget.test.hpaplus.io \"b\" is invalid: spec.tags: Invalid value: \"array\": "
        "failed rule: self.size() <= 3");
    EXPECT_EQ(refused("POST", widgets, widget("c", R"({"replicas":1,"max":3,"divisor":0})")),
              "Widget.test.hpaplus.io \"c\" is invalid: spec: Invalid value: \"object\": "
              "division by zero evaluating rule: max / divisor");
    // A transition rule runs on updates only, where the old object has the value.
    ASSERT_EQ(
        sim.request("POST", widgets, widget("d", R"({"replicas":1,"max":30,"name":"x"})")).status,
        201);
    EXPECT_EQ(refused("PATCH", widgets + "/d", R"({"spec":{"name":"y"}})"),
              "Widget.test.hpaplus.io \"d\" is invalid: spec.name: Invalid value: \"string\": "
              "name is immutable");
    EXPECT_EQ(patch(widgets + "/d", R"({"spec":{"replicas":2}})").status, 200);
    // A rule added later leaves unchanged values be (ratcheting) and holds changed ones to it.
    const auto current = parse(sim.get(crds + "/widgets.test.hpaplus.io").body);
    auto updated = parse(widget_crd(R"([{"rule":"self <= 10","message":"max is at most 10"}])"));
    updated["metadata"].AddMember(
        "resourceVersion",
        rapidjson::Value(str(current, "/metadata/resourceVersion").c_str(), updated.GetAllocator()),
        updated.GetAllocator());
    ASSERT_EQ(sim.request("PUT", crds + "/widgets.test.hpaplus.io", sim::to_string(updated)).status,
              200);
    EXPECT_EQ(patch(widgets + "/d", R"({"spec":{"replicas":3}})").status, 200);
    EXPECT_EQ(refused("PATCH", widgets + "/d", R"({"spec":{"max":31}})"),
              "Widget.test.hpaplus.io \"d\" is invalid: spec.max: Invalid value: \"integer\": "
              "max is at most 10");
    EXPECT_EQ(refused("POST", widgets, widget("e", R"({"replicas":1,"max":11})")),
              "Widget.test.hpaplus.io \"e\" is invalid: spec.max: Invalid value: \"integer\": "
              "max is at most 10");
}

TEST_F(SimValidation, ACrdWhoseRuleDoesNotCompileIsRefused) {
    std::string crd = widget_crd(R"([{"rule":"self.replica <= 1"}])");
    EXPECT_EQ(refused("POST", crds, crd),
              "CustomResourceDefinition.apiextensions.k8s.io \"widgets.test.hpaplus.io\" is "
              "invalid: spec.validation.openAPIV3Schema.properties[spec].properties[max]."
              "x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{"
              "Rule:\"self.replica <= 1\", Message:\"\", MessageExpression:\"\", "
              "Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", "
              "OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: type "
              "'int' does not support field selection\n | self.replica <= 1\n | ....^");
    EXPECT_EQ(sim.get("/apis/test.hpaplus.io/v1").status, 404) << "the kind is not served";
}

} // namespace
} // namespace hpaplus
