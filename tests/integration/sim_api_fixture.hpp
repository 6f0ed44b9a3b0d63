// tests/integration/sim_api_fixture.hpp — the fixture of the simulated API server's tests: a
// simulated cluster, a Deployment and a CRD to create.
#pragma once

#include "../support/json_access.hpp"
#include "../support/sim_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hpaplus {

using test::paths::deployments;
inline const std::string deployment_json =
    R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},)"
    R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
    R"("spec":{"containers":[{"name":"app","image":"nginx"}]}}}})";

inline const std::string crd_json =
    R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"widgets.example.hpaplus.io"},
  "spec":{"group":"example.hpaplus.io","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"]},
  "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
    "subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas","labelSelectorPath":".status.selector"}},
    "additionalPrinterColumns":[{"name":"Replicas","type":"integer","jsonPath":".spec.replicas"},{"name":"Color","type":"string","jsonPath":".spec.color"},
      {"name":"First","type":"string","jsonPath":".spec.parts[0].name"},{"name":"Last","type":"string","jsonPath":".spec.parts[-1].name"},
      {"name":"Ready","type":"string","jsonPath":".spec.checks[?(@.type==\"Ready\")].status"},{"name":"NotReady","type":"string","jsonPath":".spec.checks[?(@.type != 'Ready')].type"},
      {"name":"Heavy","type":"string","jsonPath":".spec.parts[?(@.weight==2)].name"},{"name":"AnyTag","type":"string","jsonPath":".spec.parts[*].tag"},
      {"name":"Beyond","type":"string","jsonPath":".spec.parts[5].name"}]}]}})";

struct SimApi : ::testing::Test {
    test::sim_fixture sim;

    std::string create_deployment() {
        const auto r = sim.request("POST", deployments, deployment_json);
        EXPECT_EQ(r.status, 201) << r.body;
        return test::str(test::parse(r.body), "/metadata/resourceVersion");
    }
};

} // namespace hpaplus
