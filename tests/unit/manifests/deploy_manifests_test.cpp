// deploy/ as a cluster would take it: every manifest parses, the controller's arguments are flags
// `hpaplus controller` accepts, and the RBAC rules grant every call the controller makes.
#include "cli/controller_flags.hpp"
#include "kube/yaml_json.hpp"
#include "metrics/backend_config.hpp"
#include "sim/apiserver/admission.hpp"
#include "sim/resource_type.hpp"

#include <rapidjson/document.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace hpaplus {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> documents(const std::string& file) {
    std::ifstream in(fs::path(HPAPLUS_SOURCE_DIR) / "deploy" / file, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    auto docs = kube::yaml_documents_to_json(s.str());
    EXPECT_TRUE(docs) << file << ": " << docs.error().text;
    return docs ? *docs : std::vector<std::string>{};
}

// Every document of deploy/, keyed by "Kind/name".
std::map<std::string, rapidjson::Document> manifests() {
    std::map<std::string, rapidjson::Document> out;
    for (const auto& entry : fs::directory_iterator(fs::path(HPAPLUS_SOURCE_DIR) / "deploy")) {
        if (entry.path().extension() != ".yaml") continue;
        for (const auto& json : documents(entry.path().filename().string())) {
            rapidjson::Document d;
            d.Parse(json.c_str());
            EXPECT_TRUE(d.IsObject() && d.HasMember("apiVersion") && d.HasMember("kind") &&
                        d.HasMember("metadata") && d["metadata"].HasMember("name"))
                << entry.path() << ": " << json;
            if (!d.IsObject() || !d.HasMember("kind")) continue;
            out[std::string(d["kind"].GetString()) + "/" + d["metadata"]["name"].GetString()] =
                std::move(d);
        }
    }
    return out;
}

bool grants(const rapidjson::Value& role, const std::string& group, const std::string& resource,
            const std::string& verb) {
    auto has = [](const rapidjson::Value& list, const std::string& v) {
        for (const auto& x : list.GetArray())
            if (v == x.GetString() || std::string(x.GetString()) == "*") return true;
        return false;
    };
    for (const auto& rule : role["rules"].GetArray()) {
        bool resource_ok = has(rule["resources"], resource);
        if (!resource_ok && resource.find('/') != std::string::npos)
            resource_ok = has(rule["resources"], "*" + resource.substr(resource.find('/')));
        if (has(rule["apiGroups"], group) && resource_ok && has(rule["verbs"], verb)) return true;
    }
    return false;
}

TEST(DeployManifests, AllPartsArePresentAndParse) {
    const auto m = manifests();
    for (const char* key :
         {"Namespace/hpaplus-system", "ServiceAccount/hpaplus-controller",
          "ClusterRole/hpaplus-controller", "ClusterRoleBinding/hpaplus-controller",
          "Role/hpaplus-leader-election", "RoleBinding/hpaplus-leader-election",
          "Deployment/hpaplus-controller", "PodDisruptionBudget/hpaplus-controller",
          "Service/hpaplus-controller-metrics", "FlowSchema/hpaplus-controller",
          "ConfigMap/hpaplus-metric-backends", "Deployment/hpaplus-adapter",
          "Service/hpaplus-adapter", "APIService/v1beta1.external.metrics.k8s.io",
          "Service/hpaplus-webhook", "MutatingWebhookConfiguration/hpaplus-vpaplus",
          "Certificate/hpaplus-webhook", "APIService/v1beta2.custom.metrics.k8s.io",
          "ClusterRole/hpaplus-adapter-metrics-reader"})
        EXPECT_EQ(m.count(key), 1u) << key;
}

TEST(DeployManifests, TheControllerArgumentsAreAcceptedFlags) {
    const auto m = manifests();
    const auto& deployment = m.at("Deployment/hpaplus-controller");
    EXPECT_EQ(deployment["spec"]["replicas"].GetInt(), 2);
    const auto& container = deployment["spec"]["template"]["spec"]["containers"][0];
    std::vector<std::string> args;
    for (const auto& a : container["args"].GetArray())
        args.emplace_back(a.GetString());
    ASSERT_EQ(args.front(), "controller");
    bool help = false;
    const auto options = cli::parse_controller_flags(args, help);
    ASSERT_TRUE(options) << options.error().text;
    EXPECT_TRUE(options->leader.enabled);
    EXPECT_EQ(options->leader.lease_namespace, deployment["metadata"]["namespace"].GetString());
    EXPECT_EQ(options->ops_listen, "0.0.0.0:8080");
    EXPECT_EQ(options->native_hpas.selection, controller::native_hpa_selection::all);
    EXPECT_STREQ(container["livenessProbe"]["httpGet"]["path"].GetString(), "/healthz");
    EXPECT_STREQ(container["readinessProbe"]["httpGet"]["path"].GetString(), "/readyz");
    // The Lease the Role names is the one the controller takes.
    const auto& role = m.at("Role/hpaplus-leader-election");
    EXPECT_STREQ(role["rules"][1]["resourceNames"][0].GetString(),
                 options->leader.lease_name.c_str());
}

TEST(DeployManifests, RbacGrantsEveryCallTheControllerMakes) {
    const auto m = manifests();
    const auto& role = m.at("ClusterRole/hpaplus-controller");
    const std::tuple<const char*, const char*, const char*> calls[] = {
        {"autoscaling.hpaplus.io", "hpapluses", "list"},
        {"autoscaling.hpaplus.io", "hpapluses", "watch"},
        {"autoscaling.hpaplus.io", "hpapluses/status", "patch"},
        {"autoscaling", "horizontalpodautoscalers", "list"},
        {"autoscaling", "horizontalpodautoscalers", "watch"},
        {"autoscaling", "horizontalpodautoscalers/status", "update"},
        {"autoscaling", "horizontalpodautoscalers/status", "patch"},
        {"autoscaling.hpaplus.io", "cronhpas", "watch"},
        {"autoscaling.hpaplus.io", "cronhpas/status", "patch"},
        {"", "pods", "watch"},
        {"apps", "deployments", "watch"},
        {"apps", "deployments/scale", "update"},
        {"apps", "statefulsets/scale", "get"},
        {"metrics.k8s.io", "pods", "list"},
        {"custom.metrics.k8s.io", "pods/qps", "get"},
        {"external.metrics.k8s.io", "queue_length", "list"},
        {"", "events", "create"},
        {"", "events", "patch"},
        {"autoscaling.hpaplus.io", "vpapluses", "watch"},
        {"autoscaling.hpaplus.io", "vpapluses/status", "patch"},
        {"autoscaling.hpaplus.io", "vpapluscheckpoints", "create"},
        {"autoscaling.hpaplus.io", "vpapluscheckpoints/status", "patch"},
        {"", "pods/resize", "patch"},
        {"", "pods/eviction", "create"}};
    for (const auto& [group, resource, verb] : calls)
        EXPECT_TRUE(grants(role, group, resource, verb)) << group << " " << resource << " " << verb;
    EXPECT_FALSE(grants(role, "", "secrets", "get"));
    EXPECT_FALSE(grants(role, "apps", "deployments", "update"));
    EXPECT_FALSE(grants(role, "autoscaling", "horizontalpodautoscalers", "update"))
        << "the spec is the user's; HPAPlus writes only the status";
    EXPECT_FALSE(grants(role, "", "pods", "delete")) << "pods go only through the Eviction API";
    const auto& lease_role = m.at("Role/hpaplus-leader-election");
    EXPECT_TRUE(grants(lease_role, "coordination.k8s.io", "leases", "create"));
    EXPECT_TRUE(grants(lease_role, "coordination.k8s.io", "leases", "update"));
}

// The shipped backends file is valid, and the controller and the adapter read it where it is
// mounted; the APIServices point at the adapter's Service.
TEST(DeployManifests, BackendsFileParsesAndIsMountedWhereTheFlagsPointAndTheApiServicesReachIt) {
    const auto m = manifests();
    auto file = metrics::parse_backends(
        m.at("ConfigMap/hpaplus-metric-backends")["data"]["backends.yaml"].GetString());
    ASSERT_TRUE(file) << file.error().text;
    EXPECT_FALSE(file->adapter_external.empty());
    for (const char* name : {"Deployment/hpaplus-controller", "Deployment/hpaplus-adapter"}) {
        const auto& pod = m.at(name)["spec"]["template"]["spec"];
        const auto& container = pod["containers"][0];
        std::string flag;
        for (const auto& a : container["args"].GetArray())
            if (std::string(a.GetString()).rfind("--metric-backends=", 0) == 0)
                flag = a.GetString();
        EXPECT_EQ(flag, "--metric-backends=/etc/hpaplus/backends.yaml") << name;
        EXPECT_STREQ(container["volumeMounts"][0]["mountPath"].GetString(), "/etc/hpaplus");
        EXPECT_STREQ(pod["volumes"][0]["configMap"]["name"].GetString(), "hpaplus-metric-backends");
    }
    const auto& service = m.at("Service/hpaplus-adapter");
    for (const char* name : {"APIService/v1beta1.external.metrics.k8s.io",
                             "APIService/v1beta2.custom.metrics.k8s.io"}) {
        const auto& ref = m.at(name)["spec"]["service"];
        EXPECT_STREQ(ref["name"].GetString(), service["metadata"]["name"].GetString());
        EXPECT_STREQ(ref["namespace"].GetString(), service["metadata"]["namespace"].GetString());
        EXPECT_EQ(ref["port"].GetInt(), service["spec"]["ports"][0]["port"].GetInt());
    }
}

// The webhook configuration is one the API server accepts, reaches the controller's webhook port
// through the Service, and the controller reads the certificate from the Secret it is mounted
// from.
TEST(DeployManifests, TheAdmissionWebhookReachesTheControllerWithTheMountedCertificate) {
    auto m = manifests();
    auto& configuration = m.at("MutatingWebhookConfiguration/hpaplus-vpaplus");
    const auto types = sim::builtin_resource_types();
    const auto type = std::find_if(types.begin(), types.end(), [](const auto& t) {
        return t.plural == "mutatingwebhookconfigurations";
    });
    ASSERT_NE(type, types.end());
    rapidjson::Document copy;
    copy.CopyFrom(configuration, copy.GetAllocator());
    const auto invalid = sim::prepare_webhook_configuration(*type, "hpaplus-vpaplus", copy);
    EXPECT_FALSE(invalid) << (invalid ? invalid->message : "");
    const auto& webhook = configuration["webhooks"][0];
    EXPECT_STREQ(webhook["failurePolicy"].GetString(), "Ignore");
    const auto& ref = webhook["clientConfig"]["service"];
    EXPECT_STREQ(ref["path"].GetString(), "/mutate-pods");
    const auto& service = m.at("Service/hpaplus-webhook");
    EXPECT_STREQ(ref["name"].GetString(), service["metadata"]["name"].GetString());
    EXPECT_STREQ(ref["namespace"].GetString(), service["metadata"]["namespace"].GetString());
    EXPECT_EQ(ref["port"].GetInt(), service["spec"]["ports"][0]["port"].GetInt());
    EXPECT_STREQ(m.at("Certificate/hpaplus-webhook")["spec"]["dnsNames"][0].GetString(),
                 "hpaplus-webhook.hpaplus-system.svc");

    const auto& deployment = m.at("Deployment/hpaplus-controller");
    const auto& pod = deployment["spec"]["template"]["spec"];
    const auto& container = pod["containers"][0];
    std::vector<std::string> args;
    for (const auto& a : container["args"].GetArray())
        args.emplace_back(a.GetString());
    bool help = false;
    const auto options = cli::parse_controller_flags(args, help);
    ASSERT_TRUE(options) << options.error().text;
    std::string port_name = service["spec"]["ports"][0]["targetPort"].GetString();
    int container_port = 0;
    for (const auto& p : container["ports"].GetArray())
        if (port_name == p["name"].GetString()) container_port = p["containerPort"].GetInt();
    EXPECT_EQ(options->vertical.webhook_listen, "0.0.0.0:" + std::to_string(container_port));
    std::string mount, secret;
    for (const auto& v : container["volumeMounts"].GetArray())
        if (std::string("webhook-tls") == v["name"].GetString()) mount = v["mountPath"].GetString();
    for (const auto& v : pod["volumes"].GetArray())
        if (std::string("webhook-tls") == v["name"].GetString())
            secret = v["secret"]["secretName"].GetString();
    EXPECT_EQ(options->vertical.webhook_cert_file, mount + "/tls.crt");
    EXPECT_EQ(options->vertical.webhook_key_file, mount + "/tls.key");
    EXPECT_EQ(secret, m.at("Certificate/hpaplus-webhook")["spec"]["secretName"].GetString());
}

} // namespace
} // namespace hpaplus
