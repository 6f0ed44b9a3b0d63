// deploy/ as a cluster would take it: every manifest parses, the controller's arguments are flags
// `hpaplus controller` accepts, and the RBAC rules grant every call the controller makes.
#include "../../support/build_paths.hpp"
#include "../../support/process.hpp"
#include "cli/controller_flags.hpp"
#include "kube/yaml_json.hpp"
#include "metrics/backend_config.hpp"
#include "sim/apiserver/admission.hpp"
#include "sim/resource_type.hpp"

#include <rapidjson/document.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace hpaplus {
namespace {

namespace fs = std::filesystem;

// `kubectl kustomize DIR` (DIR under the source tree) with `kubectl`; fails the test on an error.
std::string render(const std::string& dir, const std::string& kubectl = "kubectl") {
    const auto r = test::run_command(kubectl + " kustomize " + HPAPLUS_SOURCE_DIR + "/" + dir +
                                     " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << kubectl << " kustomize " << dir << ": " << r.output;
    return r.output;
}

// Every document `kubectl kustomize DIR` renders, keyed by "Kind/name".
std::map<std::string, rapidjson::Document> manifests(const std::string& dir = "deploy/complete",
                                                     const std::string& kubectl = "kubectl") {
    std::map<std::string, rapidjson::Document> out;
    auto docs = kube::yaml_documents_to_json(render(dir, kubectl));
    EXPECT_TRUE(docs) << dir << ": " << docs.error().text;
    for (const auto& json : docs ? *docs : std::vector<std::string>{}) {
        rapidjson::Document d;
        d.Parse(json.c_str());
        EXPECT_TRUE(d.IsObject() && d.HasMember("apiVersion") && d.HasMember("kind") &&
                    d.HasMember("metadata") && d["metadata"].HasMember("name"))
            << dir << ": " << json;
        if (!d.IsObject() || !d.HasMember("kind")) continue;
        const std::string key =
            std::string(d["kind"].GetString()) + "/" + d["metadata"]["name"].GetString();
        EXPECT_EQ(out.count(key), 0u) << dir << ": " << key << " twice";
        out[key] = std::move(d);
    }
    return out;
}

// Every kubectl the tests run with: the one on PATH and scripts/setup.sh's others (Debian's 1.20,
// the oldest client we support, whose kustomize is 2.0.3).
std::vector<std::string> kubectls() {
    std::vector<std::string> out{"kubectl"};
    std::stringstream extra(HPAPLUS_EXTRA_KUBECTLS);
    for (std::string k; std::getline(extra, k, ':');)
        if (!k.empty()) out.push_back(k);
    return out;
}

const char* const overlays[] = {"deploy",         "deploy/vertical", "deploy/webhook",
                                "deploy/adapter", "deploy/complete", "deploy/other-namespace",
                                "deploy/sharded"};

// The controller's arguments as the kubelet passes them: $(VAR) from the container's env, whose
// fieldRef metadata.namespace is the pod's namespace.
std::vector<std::string> controller_args(const rapidjson::Value& deployment) {
    const auto& container = deployment["spec"]["template"]["spec"]["containers"][0];
    std::map<std::string, std::string> env;
    if (container.HasMember("env")) {
        for (const auto& e : container["env"].GetArray()) {
            if (e.HasMember("value")) env[e["name"].GetString()] = e["value"].GetString();
            if (e.HasMember("valueFrom") &&
                std::string(e["valueFrom"]["fieldRef"]["fieldPath"].GetString()) ==
                    "metadata.namespace")
                env[e["name"].GetString()] = deployment["metadata"]["namespace"].GetString();
        }
    }
    std::vector<std::string> args;
    for (const auto& a : container["args"].GetArray()) {
        std::string arg = a.GetString();
        for (const auto& [name, value] : env)
            for (std::size_t at; (at = arg.find("$(" + name + ")")) != std::string::npos;)
                arg.replace(at, name.size() + 3, value);
        args.push_back(arg);
    }
    return args;
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
    const auto m = manifests("deploy/complete");
    for (const char* key : {"Namespace/hpaplus-system",
                            "ServiceAccount/hpaplus-controller",
                            "ClusterRole/hpaplus-controller",
                            "ClusterRoleBinding/hpaplus-controller",
                            "Role/hpaplus-leader-election",
                            "RoleBinding/hpaplus-leader-election",
                            "Deployment/hpaplus-controller",
                            "PodDisruptionBudget/hpaplus-controller",
                            "Service/hpaplus-controller-metrics",
                            "FlowSchema/hpaplus-controller",
                            "ConfigMap/hpaplus-metric-backends",
                            "Deployment/hpaplus-adapter",
                            "Service/hpaplus-adapter",
                            "APIService/v1beta1.external.metrics.k8s.io",
                            "Service/hpaplus-webhook",
                            "MutatingWebhookConfiguration/hpaplus-vpaplus",
                            "Certificate/hpaplus-webhook",
                            "APIService/v1beta2.custom.metrics.k8s.io",
                            "ClusterRole/hpaplus-adapter-metrics-reader",
                            "Certificate/hpaplus-adapter",
                            "NetworkPolicy/hpaplus-adapter",
                            "ClusterRole/hpaplus-vertical",
                            "ClusterRoleBinding/hpaplus-vertical"})
        EXPECT_EQ(m.count(key), 1u) << key;
}

// The image tags deploy/ ships are the version CMakeLists.txt's project(VERSION) names (the one
// place the version is written; docs/releasing.md).
TEST(DeployManifests, EveryImageIsTheProjectVersion) {
    std::ifstream in(std::string(HPAPLUS_SOURCE_DIR) + "/CMakeLists.txt");
    const std::string cmake((std::istreambuf_iterator<char>(in)), {});
    const std::string prefix = "project(hpaplus VERSION ";
    const auto at = cmake.find(prefix);
    ASSERT_NE(at, std::string::npos);
    const auto from = at + prefix.size();
    const std::string version = cmake.substr(from, cmake.find(' ', from) - from);
    std::size_t images = 0;
    for (const auto& [key, doc] : manifests("deploy/complete")) {
        if (key.rfind("Deployment/", 0) != 0) continue;
        for (const auto& c : doc["spec"]["template"]["spec"]["containers"].GetArray()) {
            const std::string image = c["image"].GetString();
            EXPECT_EQ(image.substr(image.rfind(':') + 1), version) << key << ": " << image;
            ++images;
        }
    }
    EXPECT_EQ(images, 2u);
}

// Issue 71: the CRDs are their own kustomization, and no overlay of the controller carries one, so
// deleting or pruning the controller never deletes the CRDs (and every object made of them).
TEST(DeployManifests, TheCrdsAreInstalledApartFromEveryOverlay) {
    for (const auto& kubectl : kubectls()) {
        std::set<std::string> crds;
        for (const auto& [key, doc] : manifests("crds", kubectl))
            crds.insert(key);
        EXPECT_EQ(crds, (std::set<std::string>{
                            "CustomResourceDefinition/cronhpas.autoscaling.hpaplus.io",
                            "CustomResourceDefinition/hpapluscheckpoints.autoscaling.hpaplus.io",
                            "CustomResourceDefinition/hpapluses.autoscaling.hpaplus.io",
                            "CustomResourceDefinition/vpapluscheckpoints.autoscaling.hpaplus.io",
                            "CustomResourceDefinition/vpapluses.autoscaling.hpaplus.io"}))
            << kubectl;
        for (const char* dir : overlays)
            for (const auto& [key, doc] : manifests(dir, kubectl))
                EXPECT_NE(key.rfind("CustomResourceDefinition/", 0), 0u) << kubectl << " " << dir;
    }
}

// `kubectl apply -k deploy/` installs the base: the namespace, RBAC, the backends ConfigMap, the
// horizontal controller and its FlowSchema — no CRD, no vertical module, no webhook, no adapter.
TEST(DeployManifests, TheBaseIsWhatApplyKInstalls) {
    const auto m = manifests("deploy");
    std::set<std::string> kinds;
    for (const auto& [key, doc] : m)
        kinds.insert(key.substr(0, key.find('/')));
    EXPECT_EQ(kinds,
              (std::set<std::string>{"ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment",
                                     "FlowSchema", "Namespace", "PodDisruptionBudget", "Role",
                                     "RoleBinding", "Service", "ServiceAccount"}));
    EXPECT_EQ(m.count("Service/hpaplus-webhook"), 0u);
    EXPECT_EQ(m.count("Deployment/hpaplus-adapter"), 0u);
    EXPECT_EQ(m.count("ClusterRole/hpaplus-vertical"), 0u);
    // Without the webhook the controller neither serves nor mounts it; without deploy/vertical it
    // runs no VPAPlus.
    const auto args = controller_args(m.at("Deployment/hpaplus-controller"));
    for (const auto& a : args) {
        EXPECT_EQ(a.find("webhook"), std::string::npos) << a;
        EXPECT_EQ(a.find("vertical"), std::string::npos) << a;
    }
    bool help = false;
    const auto options = cli::parse_controller_flags(args, help);
    ASSERT_TRUE(options);
    EXPECT_FALSE(options->enable_vertical);
}

// Every overlay renders with every kubectl we support, and the one for another namespace leaves
// nothing behind in hpaplus-system (the adapter's RoleBinding stays in kube-system, beside the Role
// it grants).
TEST(DeployManifests, EveryOverlayRendersWithEveryKubectlAndMovesWholly) {
    for (const auto& kubectl : kubectls()) {
        for (const char* dir : overlays)
            EXPECT_FALSE(render(dir, kubectl).empty()) << kubectl << " " << dir;
        const std::string moved = render("deploy/other-namespace", kubectl);
        EXPECT_EQ(moved.find("hpaplus-system"), std::string::npos) << kubectl << "\n" << moved;
        for (const auto& [key, doc] : manifests("deploy/other-namespace", kubectl)) {
            if (!doc["metadata"].HasMember("namespace")) continue;
            EXPECT_STREQ(doc["metadata"]["namespace"].GetString(),
                         key == "RoleBinding/hpaplus-adapter-auth-reader" ? "kube-system"
                                                                          : "platform-autoscaling")
                << kubectl << " " << key;
        }
    }
}

TEST(DeployManifests, TheControllerArgumentsAreAcceptedFlags) {
    for (const char* dir : {"deploy", "deploy/complete", "deploy/other-namespace"}) {
        const auto m = manifests(dir);
        const auto& deployment = m.at("Deployment/hpaplus-controller");
        EXPECT_EQ(deployment["spec"]["replicas"].GetInt(), 2);
        const auto& container = deployment["spec"]["template"]["spec"]["containers"][0];
        const auto args = controller_args(deployment);
        ASSERT_EQ(args.front(), "controller");
        bool help = false;
        const auto options = cli::parse_controller_flags(args, help);
        ASSERT_TRUE(options) << dir << ": " << options.error().text;
        EXPECT_TRUE(options->leader.enabled);
        // The Lease is in the namespace the controller runs in, wherever that is.
        EXPECT_EQ(options->leader.lease_namespace, deployment["metadata"]["namespace"].GetString())
            << dir;
        EXPECT_EQ(options->ops_listen, "0.0.0.0:8080");
        EXPECT_EQ(options->native_hpas.selection, controller::native_hpa_selection::all);
        EXPECT_STREQ(container["livenessProbe"]["httpGet"]["path"].GetString(), "/healthz");
        EXPECT_STREQ(container["readinessProbe"]["httpGet"]["path"].GetString(), "/readyz");
        EXPECT_TRUE(container["securityContext"]["readOnlyRootFilesystem"].GetBool());
        EXPECT_TRUE(
            deployment["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"].GetBool());
        // The Lease the Role names is the one the controller takes, in the Role's namespace.
        const auto& role = m.at("Role/hpaplus-leader-election");
        EXPECT_STREQ(role["rules"][1]["resourceNames"][0].GetString(),
                     options->leader.lease_name.c_str());
        EXPECT_EQ(options->leader.lease_namespace, role["metadata"]["namespace"].GetString());
    }
}

// The sharded overlay: several acting replicas, and a Role for every Lease the shards use (shard
// and membership Leases have names of their own, so no resourceNames).
TEST(DeployManifests, TheShardedOverlayRunsReplicasThatMayUseEveryShardLease) {
    const auto m = manifests("deploy/sharded");
    const auto& deployment = m.at("Deployment/hpaplus-controller");
    EXPECT_EQ(deployment["spec"]["replicas"].GetInt(), 3);
    bool help = false;
    const auto options = cli::parse_controller_flags(controller_args(deployment), help);
    ASSERT_TRUE(options) << options.error().text;
    EXPECT_EQ(options->shards, 6);
    EXPECT_EQ(options->threads, 2);
    EXPECT_TRUE(options->leader.enabled);
    const auto& role = m.at("Role/hpaplus-leader-election");
    ASSERT_EQ(role["rules"].Size(), 1u);
    const auto& rule = role["rules"][0];
    EXPECT_FALSE(rule.HasMember("resourceNames"));
    std::set<std::string> verbs;
    for (const auto& v : rule["verbs"].GetArray())
        verbs.insert(v.GetString());
    for (const char* verb : {"get", "list", "create", "update", "delete"})
        EXPECT_TRUE(verbs.count(verb)) << verb;
    EXPECT_EQ(options->leader.lease_namespace, role["metadata"]["namespace"].GetString());
}

// Issue 71: the base grants what the horizontal controller calls and, like kube-controller-
// manager's system:controller:horizontal-pod-autoscaler, nothing that writes a pod.
TEST(DeployManifests, RbacGrantsEveryCallTheControllerMakes) {
    const auto m = manifests("deploy");
    const auto& role = m.at("ClusterRole/hpaplus-controller");
    const std::tuple<const char*, const char*, const char*> calls[] = {
        {"autoscaling.hpaplus.io", "hpapluses", "list"},
        {"autoscaling.hpaplus.io", "hpapluses", "watch"},
        {"autoscaling.hpaplus.io", "hpapluses/status", "patch"},
        {"autoscaling", "horizontalpodautoscalers", "list"},
        {"autoscaling", "horizontalpodautoscalers", "watch"},
        {"autoscaling", "horizontalpodautoscalers/status", "patch"},
        {"autoscaling.hpaplus.io", "cronhpas", "watch"},
        {"autoscaling.hpaplus.io", "cronhpas/status", "patch"},
        {"", "pods", "watch"},
        {"apps", "deployments", "watch"},
        {"apps", "deployments/scale", "update"},
        {"apps", "statefulsets/scale", "get"},
        {"apps", "statefulsets", "get"},
        {"metrics.k8s.io", "pods", "list"},
        {"custom.metrics.k8s.io", "pods/qps", "get"},
        {"external.metrics.k8s.io", "queue_length", "list"},
        {"", "events", "create"},
        {"", "events", "patch"}};
    for (const auto& [group, resource, verb] : calls)
        EXPECT_TRUE(grants(role, group, resource, verb)) << group << " " << resource << " " << verb;
    EXPECT_FALSE(grants(role, "", "secrets", "get"));
    EXPECT_FALSE(grants(role, "apps", "deployments", "update"));
    EXPECT_FALSE(grants(role, "apps", "statefulsets", "update"));
    EXPECT_FALSE(grants(role, "autoscaling", "horizontalpodautoscalers", "update"))
        << "the spec is the user's; HPAPlus writes only the status";
    // Status is merge-patched, never read or replaced (the suite's RBAC record shows it).
    EXPECT_FALSE(grants(role, "autoscaling", "horizontalpodautoscalers/status", "update"));
    EXPECT_FALSE(grants(role, "autoscaling.hpaplus.io", "hpapluses/status", "get"));
    // Nothing of the vertical module's: patching a pod's labels can detach it from its Service.
    for (const auto& [resource, verb] :
         std::vector<std::pair<std::string, std::string>>{{"pods", "patch"},
                                                          {"pods", "update"},
                                                          {"pods", "delete"},
                                                          {"pods/eviction", "create"},
                                                          {"pods/resize", "patch"}})
        EXPECT_FALSE(grants(role, "", resource, verb)) << resource << " " << verb;
    EXPECT_FALSE(grants(role, "autoscaling.hpaplus.io", "vpapluses", "list"));
    const auto& lease_role = m.at("Role/hpaplus-leader-election");
    EXPECT_TRUE(grants(lease_role, "coordination.k8s.io", "leases", "create"));
    EXPECT_TRUE(grants(lease_role, "coordination.k8s.io", "leases", "update"));
    // No other ClusterRole in the base.
    for (const auto& [key, doc] : m) {
        if (key.rfind("ClusterRole/", 0) == 0) {
            EXPECT_EQ(key, "ClusterRole/hpaplus-controller");
        }
    }
}

// deploy/vertical turns VPAPlus on and grants its calls in a ClusterRole of its own, bound to the
// controller's ServiceAccount (the workers run in its process).
TEST(DeployManifests, TheVerticalOverlayAddsOnlyTheVerticalModulesRules) {
    for (const char* dir : {"deploy/vertical", "deploy/webhook", "deploy/complete"}) {
        const auto m = manifests(dir);
        bool help = false;
        const auto options = cli::parse_controller_flags(
            controller_args(m.at("Deployment/hpaplus-controller")), help);
        ASSERT_TRUE(options) << dir;
        EXPECT_TRUE(options->enable_vertical) << dir;
        const auto& role = m.at("ClusterRole/hpaplus-vertical");
        const std::tuple<const char*, const char*, const char*> calls[] = {
            {"autoscaling.hpaplus.io", "vpapluses", "watch"},
            {"autoscaling.hpaplus.io", "vpapluses/status", "patch"},
            {"autoscaling.hpaplus.io", "vpapluscheckpoints", "create"},
            {"autoscaling.hpaplus.io", "vpapluscheckpoints/status", "patch"},
            {"", "pods", "patch"},
            {"", "pods/resize", "patch"},
            {"", "pods/eviction", "create"}};
        for (const auto& [group, resource, verb] : calls)
            EXPECT_TRUE(grants(role, group, resource, verb))
                << dir << " " << resource << " " << verb;
        EXPECT_FALSE(grants(role, "", "pods", "delete")) << "pods go only through the Eviction API";
        EXPECT_FALSE(grants(role, "apps", "deployments/scale", "update"));
        const auto& binding = m.at("ClusterRoleBinding/hpaplus-vertical");
        EXPECT_STREQ(binding["roleRef"]["name"].GetString(), "hpaplus-vertical");
        EXPECT_STREQ(binding["subjects"][0]["name"].GetString(), "hpaplus-controller");
    }
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
void expect_webhook_reaches_the_controller(const std::string& dir) {
    SCOPED_TRACE(dir);
    auto m = manifests(dir);
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
    EXPECT_EQ(std::string(m.at("Certificate/hpaplus-webhook")["spec"]["dnsNames"][0].GetString()),
              "hpaplus-webhook." + std::string(service["metadata"]["namespace"].GetString()) +
                  ".svc");

    const auto& deployment = m.at("Deployment/hpaplus-controller");
    const auto& pod = deployment["spec"]["template"]["spec"];
    const auto& container = pod["containers"][0];
    const auto args = controller_args(deployment);
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
    // Only the webhook and ops ports are open.
    const auto& policy = m.at("NetworkPolicy/hpaplus-controller");
    EXPECT_STREQ(policy["metadata"]["namespace"].GetString(),
                 service["metadata"]["namespace"].GetString());
    std::vector<int> open;
    for (const auto& p : policy["spec"]["ingress"][0]["ports"].GetArray())
        open.push_back(p["port"].GetInt());
    std::sort(open.begin(), open.end());
    const auto ops = options->ops_listen.substr(options->ops_listen.rfind(':') + 1);
    std::vector<int> expected{container_port, std::stoi(ops)};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(open, expected);
    EXPECT_EQ(policy["spec"]["ingress"].Size(), 1u);
}

// The API server verifies the adapter: no APIService skips TLS verification, each has its CA
// injected from the adapter's Certificate, which names the adapter's Service and whose Secret is
// mounted where --tls-cert-file and --tls-private-key-file point; a NetworkPolicy admits only the
// serving port.
void expect_the_adapter_is_verified(const std::string& dir) {
    SCOPED_TRACE(dir);
    const auto m = manifests(dir);
    const auto& service = m.at("Service/hpaplus-adapter");
    const std::string ns = service["metadata"]["namespace"].GetString();
    for (const char* name : {"APIService/v1beta1.external.metrics.k8s.io",
                             "APIService/v1beta2.custom.metrics.k8s.io"}) {
        const auto& api = m.at(name);
        EXPECT_FALSE(api["spec"].HasMember("insecureSkipTLSVerify")) << name;
        EXPECT_EQ(std::string(
                      api["metadata"]["annotations"]["cert-manager.io/inject-ca-from"].GetString()),
                  ns + "/hpaplus-adapter")
            << name;
    }
    const auto& certificate = m.at("Certificate/hpaplus-adapter");
    EXPECT_EQ(std::string(certificate["spec"]["dnsNames"][0].GetString()),
              "hpaplus-adapter." + ns + ".svc");
    const auto& pod = m.at("Deployment/hpaplus-adapter")["spec"]["template"]["spec"];
    const auto& container = pod["containers"][0];
    std::string mount, secret, cert_flag, key_flag, listen;
    for (const auto& v : container["volumeMounts"].GetArray())
        if (std::string("tls") == v["name"].GetString()) mount = v["mountPath"].GetString();
    for (const auto& v : pod["volumes"].GetArray())
        if (std::string("tls") == v["name"].GetString())
            secret = v["secret"]["secretName"].GetString();
    for (const auto& a : container["args"].GetArray()) {
        const std::string arg = a.GetString();
        for (auto [prefix, into] : {std::pair{"--tls-cert-file=", &cert_flag},
                                    std::pair{"--tls-private-key-file=", &key_flag},
                                    std::pair{"--listen=0.0.0.0:", &listen}})
            if (arg.rfind(prefix, 0) == 0) *into = arg.substr(std::string(prefix).size());
    }
    EXPECT_EQ(secret, certificate["spec"]["secretName"].GetString());
    EXPECT_EQ(cert_flag, mount + "/tls.crt");
    EXPECT_EQ(key_flag, mount + "/tls.key");
    const auto& policy = m.at("NetworkPolicy/hpaplus-adapter");
    EXPECT_EQ(policy["spec"]["ingress"].Size(), 1u);
    EXPECT_EQ(std::to_string(policy["spec"]["ingress"][0]["ports"][0]["port"].GetInt()), listen);
    EXPECT_FALSE(policy["spec"]["ingress"][0].HasMember("from")) << "the API server is no pod";
    // Delegated authentication and authorization: the service account's token is mounted, may
    // create TokenReviews and SubjectAccessReviews, and may read the front-proxy CA.
    EXPECT_TRUE(pod["automountServiceAccountToken"].GetBool());
    const std::string account = pod["serviceAccountName"].GetString();
    auto expect_binding = [&](const std::string& key, const char* role_kind, const char* role,
                              const char* binding_namespace) {
        SCOPED_TRACE(key);
        ASSERT_EQ(m.count(key), 1u);
        const auto& b = m.at(key);
        EXPECT_STREQ(b["roleRef"]["kind"].GetString(), role_kind);
        EXPECT_STREQ(b["roleRef"]["name"].GetString(), role);
        if (binding_namespace) {
            EXPECT_STREQ(b["metadata"]["namespace"].GetString(), binding_namespace);
        }
        EXPECT_EQ(b["subjects"][0]["name"].GetString(), account);
        EXPECT_EQ(b["subjects"][0]["namespace"].GetString(), ns);
    };
    expect_binding("ClusterRoleBinding/hpaplus-adapter-auth-delegator", "ClusterRole",
                   "system:auth-delegator", nullptr);
    expect_binding("RoleBinding/hpaplus-adapter-auth-reader", "Role",
                   "extension-apiserver-authentication-reader", "kube-system");
}

TEST(DeployManifests, TheApiServerVerifiesTheAdapterItsCertificateAndOnlyItsPortIsOpen) {
    for (const char* dir : {"deploy/adapter", "deploy/complete", "deploy/other-namespace"})
        expect_the_adapter_is_verified(dir);
}

TEST(DeployManifests, TheAdmissionWebhookReachesTheControllerWithTheMountedCertificate) {
    for (const char* dir : {"deploy/webhook", "deploy/other-namespace"})
        expect_webhook_reaches_the_controller(dir);
}

} // namespace
} // namespace hpaplus
