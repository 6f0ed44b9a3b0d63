// tests/integration/vertical_fixture.hpp — the fixtures of VPAPlus's integration tests: the
// controller with the vertical module against the simulated cluster, and the same with the pod
// admission webhook served over TLS.
#pragma once

#include "integration/controller_fixture.hpp"

#include "net/base64.hpp"
#include "net/http_client.hpp"
#include "net/tls.hpp"
#include "support/build_paths.hpp"
#include "support/process.hpp"
#include "support/run_awaitable.hpp"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <thread>

namespace hpaplus::test {

inline const std::string vpapluses =
    "/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/default/vpapluses/";
inline const std::string checkpoints =
    "/apis/autoscaling.hpaplus.io/v1alpha1/namespaces/default/vpapluscheckpoints/";
inline const std::string pods_path = "/api/v1/namespaces/default/pods";

// A Deployment whose pods use `cpu_load` in total (split between ready pods) and `memory` each;
// its container asks for 100m and 128Mi (a Burstable pod).
inline std::string workload(const std::string& name, int replicas, const std::string& cpu_load,
                            const std::string& memory = "300Mi") {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
           "\n  namespace: default\n  annotations: {sim.hpaplus.io/cpu-load: \"" + cpu_load +
           "\", sim.hpaplus.io/memory-per-pod: \"" + memory +
           "\"}\nspec:\n  replicas: " + std::to_string(replicas) +
           "\n  selector: {matchLabels: {app: " + name +
           "}}\n  template:\n    metadata: {labels: {app: " + name +
           "}}\n    spec:\n      containers:\n      - name: app\n        image: nginx\n"
           "        resources: {requests: {cpu: 100m, memory: 128Mi}}\n";
}

inline std::string vpaplus(const std::string& name, const std::string& mode,
                           const std::string& extra = "") {
    return "apiVersion: autoscaling.hpaplus.io/v1alpha1\nkind: VPAPlus\nmetadata:\n  name: " +
           name +
           "\n  namespace: default\nspec:\n  targetRef: {apiVersion: apps/v1, kind: Deployment, "
           "name: " +
           name + "}\n  updatePolicy: {updateMode: " + mode + "}\n" + extra;
}

struct pod_view {
    std::string name, uid, cpu_request, memory_request, applied_cpu, resize_pending;
    std::string boost; ///< the start-up boost annotation ("<missing>" when none)
    int restarts = 0;
};

class VerticalTest : public ControllerTest {
  protected:
    explicit VerticalTest(sim::cluster_options options = fast_cluster()) : ControllerTest(options) {
        apply_manifest(sim, read_source_file("crds/vpaplus.yaml"));
    }

    static controller::controller_options vertical_options() {
        auto o = test_controller_options();
        o.enable_vertical = true;
        o.vertical.interval = 300ms;
        o.vertical.checkpoint_interval = 500ms;
        // With seconds of history every bound is wide; pods are updated for a 10 % change at
        // once instead of after 12 h.
        o.vertical.lifetime_threshold = 0s;
        return o;
    }

    std::vector<pod_view> pods(const std::string& app) {
        std::vector<pod_view> out;
        const auto doc = get_json(sim, pods_path + "?labelSelector=app%3D" + app);
        if (!doc.IsObject()) return out;
        for (const auto& p : doc["items"].GetArray()) {
            if (p["metadata"].HasMember("deletionTimestamp")) continue;
            pod_view v;
            v.name = p["metadata"]["name"].GetString();
            v.uid = p["metadata"]["uid"].GetString();
            v.cpu_request = str(p, "/spec/containers/0/resources/requests/cpu");
            v.memory_request = str(p, "/spec/containers/0/resources/requests/memory");
            v.applied_cpu = str(p, "/status/containerStatuses/0/resources/requests/cpu");
            v.boost = str(p, "/metadata/annotations/vpaplus.hpaplus.io~1startup-boost");
            const std::string restarts = str(p, "/status/containerStatuses/0/restartCount");
            v.restarts = restarts.empty() || restarts[0] == '<' ? 0 : std::stoi(restarts);
            if (p.HasMember("status") && p["status"].HasMember("conditions"))
                for (const auto& c : p["status"]["conditions"].GetArray())
                    if (std::string("PodResizePending") == c["type"].GetString())
                        v.resize_pending = c["reason"].GetString();
            out.push_back(v);
        }
        return out;
    }
    /// `app` has `n` pods and `each` holds for every one.
    bool every_pod(const std::string& app, std::size_t n,
                   const std::function<bool(const pod_view&)>& each) {
        const auto ps = pods(app);
        return ps.size() == n && std::all_of(ps.begin(), ps.end(), each);
    }
    std::set<std::string> uids(const std::string& app) {
        std::set<std::string> out;
        for (const auto& p : pods(app))
            out.insert(p.uid);
        return out;
    }
    bool running(const std::string& app, std::size_t n) {
        const auto ps = pods(app);
        if (ps.size() != n) return false;
        for (const auto& p : ps)
            if (p.applied_cpu.empty() || p.applied_cpu[0] == '<') return false;
        return true;
    }
    std::string vstatus(const std::string& name, const char* pointer) {
        const auto doc = get_json(sim, vpapluses + name);
        return doc.IsObject() ? str(doc, pointer) : "<missing>";
    }
    std::string vcondition(const std::string& name, const std::string& type) {
        return condition_at(vpapluses + name, type);
    }
    std::string vmessage(const std::string& name, const std::string& type) {
        return message_at(vpapluses + name, type);
    }
    std::string message_at(const std::string& path, const std::string& type) {
        const auto doc = get_json(sim, path);
        if (!doc.IsObject() || !doc.HasMember("status") || !doc["status"].HasMember("conditions"))
            return "";
        for (const auto& c : doc["status"]["conditions"].GetArray())
            if (type == c["type"].GetString()) return c["message"].GetString();
        return "";
    }
    std::int64_t counter(const std::string& name, const char* pointer) {
        const std::string v = vstatus(name, pointer);
        return v.empty() || v[0] == '<' ? 0 : std::stoll(v);
    }
    static std::int64_t milli(const std::string& q) {
        const auto parsed = core::quantity::parse(q);
        return parsed ? parsed->milli_value() : -1;
    }
};

// The controller serves the pod admission webhook over TLS (a certificate for 127.0.0.1 in a
// temporary directory) and the simulated API server calls it for every pod it creates.
class VerticalWebhookTest : public VerticalTest {
  protected:
    VerticalWebhookTest()
        : tls_(net::make_self_signed({"127.0.0.1"})),
          dir_(std::filesystem::temp_directory_path() /
               ("hpaplus-webhook-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
        std::filesystem::create_directories(dir_);
        std::ofstream(dir_ / "tls.crt") << tls_.cert_pem;
        std::ofstream(dir_ / "tls.key") << tls_.key_pem;
    }
    ~VerticalWebhookTest() override { std::filesystem::remove_all(dir_); }

    controller::controller_options webhook_options() {
        auto o = vertical_options();
        o.vertical.webhook_listen = "127.0.0.1:0";
        o.vertical.webhook_cert_file = (dir_ / "tls.crt").string();
        o.vertical.webhook_key_file = (dir_ / "tls.key").string();
        return o;
    }

    // What deploy/webhook/admission-webhook.yaml registers, pointed at the test's controller by
    // URL.
    void register_webhook(controller_runner& controller) {
        const std::string url = controller.webhook_url();
        ASSERT_FALSE(url.empty());
        apply_manifest(sim, "apiVersion: admissionregistration.k8s.io/v1\n"
                            "kind: MutatingWebhookConfiguration\n"
                            "metadata: {name: hpaplus-vpaplus}\n"
                            "webhooks:\n"
                            "- name: vpaplus.autoscaling.hpaplus.io\n"
                            "  clientConfig: {url: \"" +
                                url + "\", caBundle: " + net::base64_encode(tls_.ca_cert_pem) +
                                "}\n"
                                "  rules: [{operations: [CREATE], apiGroups: [\"\"], "
                                "apiVersions: [v1], resources: [pods]}]\n"
                                "  failurePolicy: Fail\n"
                                "  sideEffects: None\n"
                                "  admissionReviewVersions: [v1]\n");
    }

    net::client_response post_review(controller_runner& controller, const std::string& body) {
        net::client_request r;
        r.url = controller.webhook_url();
        r.body = body;
        r.ca_pem = tls_.ca_cert_pem;
        boost::asio::io_context io;
        return run_awaitable(io, net::send_once(io.get_executor(), r));
    }

    std::string annotation(const std::string& app) {
        const auto doc = get_json(sim, pods_path + "?labelSelector=app%3D" + app);
        std::string out;
        for (const auto& p : doc["items"].GetArray())
            out += str(p, "/metadata/annotations/vpaplus.hpaplus.io~1updates") + "\n";
        return out;
    }

  private:
    net::tls_material tls_;
    std::filesystem::path dir_;
};

} // namespace hpaplus::test
