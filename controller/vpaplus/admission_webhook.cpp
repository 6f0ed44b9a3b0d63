// controller/vpaplus/admission_webhook.cpp — choosing the VPAPlus for a new pod and patching its
// resources.
#include "controller/vpaplus/admission_webhook.hpp"

#include "kinds/records.hpp"
#include "kinds/scale_target.hpp"
#include "kube/encode.hpp"
#include "net/base64.hpp"
#include "net/http_server.hpp"
#include "net/listen_address.hpp"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hpaplus::controller {

using kinds::decode_vertical_pod;
using kinds::target_view;
using kinds::vpaplus;

namespace {

namespace asio = boost::asio;

net::http_response answer(int status, std::string body) {
    net::http_response r;
    r.status = status;
    r.body = std::move(body);
    return r;
}

// The AdmissionReview response: always allowed, with `patch` (JSON text) when there is one.
net::http_response allowed(const std::string& uid, const std::string& patch) {
    rapidjson::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    doc.AddMember("apiVersion", "admission.k8s.io/v1", a);
    doc.AddMember("kind", "AdmissionReview", a);
    rapidjson::Value response(rapidjson::kObjectType);
    response.AddMember("uid", kube::json_string(uid, a), a);
    response.AddMember("allowed", true, a);
    if (!patch.empty()) {
        response.AddMember("patchType", "JSONPatch", a);
        response.AddMember("patch", kube::json_string(net::base64_encode(patch), a), a);
    }
    doc.AddMember("response", response, a);
    return answer(200, kube::to_json_text(doc));
}

struct chosen_vpaplus {
    std::shared_ptr<const kinds::vpaplus_record> record;
    bool applies_recommendation = false; ///< not Off, with a recommendation
};

// The VPAPlus of `ns` with something to set at creation (a recommendation and an update mode
// other than Off, or a start-up boost) whose target's selector matches `labels`; the first by name
// when several do.
asio::awaitable<std::optional<chosen_vpaplus>>
vpaplus_for(pod_admission_env& env, const std::string& ns, const core::label_map& labels) {
    const auto items = env.vpapluses.items();
    for (auto it = items->lower_bound(ns + "/"); it != items->end(); ++it) {
        if (it->second->namespace_() != ns) break;
        // Shared: the record outlives the cache's next change while the target is read.
        const auto record = it->second->share<kinds::vpaplus_record>();
        if (!record || record->invalid) continue;
        const bool applies =
            record->v.mode != vertical::update_mode::off && !record->recommendations.empty();
        if (!applies && !record->v.boost) continue;
        const vpaplus& v = record->v;
        const target_view target =
            co_await kinds::read_target(env.client, &env.deployments, ns, v.target, false);
        if (!target.scale) {
            spdlog::warn("admission: VPAPlus {}/{}: target {}/{}: {}", ns, v.name, v.target.kind,
                         v.target.name, target.error);
            continue;
        }
        const auto selector = core::parse_label_selector(target.scale->selector);
        if (selector && !selector->empty() && selector->matches(labels))
            co_return chosen_vpaplus{record, applies};
    }
    co_return std::nullopt;
}

} // namespace

asio::awaitable<net::http_response> review_pod(pod_admission_env& env, const std::string& body) {
    rapidjson::Document doc;
    if (auto e = kube::parse_json(doc, body, "AdmissionReview"))
        co_return answer(400, e->to_string());
    const kube::json_node root{&doc, ""};
    kube::json_decoder d;
    const auto request = root["request"];
    const std::string api_version = d.opt_string(root["apiVersion"]).value_or("");
    const std::string uid = d.opt_string(request["uid"]).value_or("");
    if (!d.ok() || api_version != "admission.k8s.io/v1" || uid.empty())
        co_return answer(400, "want an admission.k8s.io/v1 AdmissionReview with request.uid");
    if (d.opt_string(request["kind"]["kind"]).value_or("") != "Pod" ||
        d.opt_string(request["operation"]).value_or("") != "CREATE")
        co_return allowed(uid, "");
    const std::string ns = d.opt_string(request["namespace"]).value_or("");
    const auto pod = request["object"];
    const auto labels = d.string_map(pod["metadata"]["labels"]);
    if (!d.ok()) co_return allowed(uid, "");
    const auto chosen = co_await vpaplus_for(env, ns, labels);
    if (!chosen) co_return allowed(uid, "");
    const vpaplus& v = chosen->record->v;
    const vertical::pod_view p = decode_vertical_pod(pod);
    auto to = chosen->applies_recommendation
                  ? vertical::resized(p.desired,
                                      vertical::for_pod(p.desired, chosen->record->recommendations))
                  : p.desired;
    // AEP-7862: the boost starts from the recommendation (else the pod's own request).
    vertical::boost_record boost{v.name, {}, false};
    if (v.boost) to = vertical::boosted(to, *v.boost, v.policies, boost);
    if (to == p.desired) co_return allowed(uid, "");
    const std::string name = d.opt_string(pod["metadata"]["name"]).value_or("");
    spdlog::info("admission: pod {}/{} gets {} of VPAPlus {}", ns,
                 name.empty() ? d.opt_string(pod["metadata"]["generateName"]).value_or("") + "*"
                              : name,
                 boost.containers.empty()         ? "the recommendation"
                 : chosen->applies_recommendation ? "the recommendation and start-up boost"
                                                  : "the start-up boost",
                 v.name);
    co_return allowed(
        uid, vertical::admission_patch(
                 p, to, v.name, boost.containers.empty() ? "" : kinds::encode_boost_record(boost)));
}

struct pod_admission_server::impl {
    pod_admission_env env;
    std::unique_ptr<net::http_server> server;
    std::atomic<std::uint64_t> reviews{0};

    explicit impl(pod_admission_env e) : env(e) {}

    asio::awaitable<void> handle(net::http_request& r, net::http_responder& out) {
        if (r.path != "/mutate-pods") {
            co_await out.send(answer(404, "only /mutate-pods is served here"));
            co_return;
        }
        if (r.method != "POST") {
            co_await out.send(answer(405, "POST an AdmissionReview"));
            co_return;
        }
        ++reviews;
        auto response = co_await review_pod(env, r.body);
        co_await out.send(std::move(response));
    }
};

namespace {
std::string read_pem(const std::string& path, const char* flag) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in || text.str().empty())
        throw std::runtime_error(std::string("--") + flag + ": cannot read \"" + path + "\"");
    return text.str();
}
} // namespace

pod_admission_server::pod_admission_server(asio::any_io_executor executor,
                                           const std::string& listen, const std::string& cert_file,
                                           const std::string& key_file, pod_admission_env env)
    : impl_(std::make_shared<impl>(env)) {
    net::http_server_options o;
    unsigned short port = 0;
    if (!net::split_listen(listen, o.address, port))
        throw std::runtime_error("--vertical-webhook-listen: want ADDR:PORT, got \"" + listen +
                                 "\"");
    o.port = port;
    (void)read_pem(cert_file, "vertical-webhook-cert-file"); // a start-up error names the flag
    (void)read_pem(key_file, "vertical-webhook-key-file");
    // Read again every 10 s: a certificate cert-manager renewed serves without a restart.
    o.tls_from_files = net::tls_files{cert_file, key_file};
    o.on_tls_reload = [](const std::string& error) {
        if (error.empty())
            spdlog::info("admission webhook: serving the renewed TLS certificate");
        else
            spdlog::warn("admission webhook: keeping the last good TLS certificate: {}", error);
    };
    const auto self = impl_.get();
    impl_->server = std::make_unique<net::http_server>(
        executor, o,
        [self](net::http_request& r, net::http_responder& out) { return self->handle(r, out); });
}

pod_admission_server::~pod_admission_server() {
    stop();
}

void pod_admission_server::start() {
    impl_->server->start();
}

void pod_admission_server::stop() {
    impl_->server->stop();
}

std::string pod_admission_server::url() const {
    return impl_->server->url() + "/mutate-pods";
}

std::uint64_t pod_admission_server::reviews() const {
    return impl_->reviews;
}

} // namespace hpaplus::controller
