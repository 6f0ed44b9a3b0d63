// kinds/scale_target.cpp — reading and writing the target's Scale.
#include "kinds/scale_target.hpp"

#include "kinds/decode.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>

namespace hpaplus::kinds {
namespace {

bool is_deployment(const core::object_reference& ref) {
    return ref.kind == "Deployment" && (ref.api_version == "apps/v1" || ref.api_version.empty());
}

std::string scale_error(const kube::api_response& r, const core::object_reference& ref) {
    if (!r.status.message.empty()) return r.status.message;
    const auto path = kube::target_resource(ref);
    return r.ec.message() + " (get " + path.plural + (path.group.empty() ? "" : "." + path.group) +
           " " + ref.name + ")";
}

} // namespace

namespace {

// The CPU of each container of a pod template (a container that cannot be read has none: no boost
// record of it is believed).
std::shared_ptr<const std::vector<policy::boost_authority::container>>
template_cpu_of(const kube::json_node& containers) {
    kube::json_decoder d;
    auto out = std::make_shared<std::vector<policy::boost_authority::container>>();
    const std::size_t size = containers.present() ? d.array(containers) : 0;
    for (std::size_t i = 0; i < size && d.ok(); ++i) {
        const kube::json_node c = containers.at(i);
        policy::boost_authority::container t;
        t.name = d.opt_string(c["name"]).value_or("");
        const auto cpu = [&](const char* kind) -> std::optional<std::int64_t> {
            const auto q = d.opt_quantity(c["resources"][kind]["cpu"]);
            return q && q->milli_fits() ? std::optional(q->milli_value()) : std::nullopt;
        };
        t.request_milli = cpu("requests");
        t.limit_milli = cpu("limits");
        if (d.ok()) out->push_back(std::move(t));
    }
    return out;
}

} // namespace

target_view scale_from_deployment(const rapidjson::Value& object) {
    target_view v;
    kube::json_decoder d;
    const kube::json_node root{&object, ""};
    if (!object.IsObject()) {
        v.error = "the cached Deployment is not an object";
        return v;
    }
    policy::scale_snapshot s;
    // The Deployment's /scale: spec.replicas defaults to 1 on the server.
    s.spec_replicas = d.opt_int32(root["spec"]["replicas"], 0).value_or(1);
    s.status_replicas = d.opt_int32(root["status"]["replicas"], 0).value_or(0);
    if (auto spec = d.selector(root["spec"]["selector"])) {
        auto selector = core::to_label_selector(*spec);
        if (selector) s.selector = core::to_string(*selector);
    }
    v.resource_version = d.opt_string(root["metadata"]["resourceVersion"]).value_or("");
    v.rollout = policy::assess_rollout(kinds::decode_rollout_status(d, root));
    if (!d.ok()) {
        v.error = "the cached Deployment cannot be read: " + d.error().to_string();
        v.rollout.reset();
        return v;
    }
    v.scale = s;
    v.template_cpu = template_cpu_of(root["spec"]["template"]["spec"]["containers"]);
    return v;
}

boost::asio::awaitable<target_view> read_target(kube::api_client& client,
                                                const kube::object_cache* deployments,
                                                const std::string& ns,
                                                const core::object_reference& ref, bool fresh) {
    if (deployments && is_deployment(ref) && !fresh) {
        if (auto cached = deployments->find(ns, ref.name)) {
            if (const auto* record = cached->as<deployment_view>()) co_return *record;
            target_view undecoded;
            undecoded.error = "the cached Deployment was not decoded";
            co_return undecoded;
        }
        target_view missing;
        missing.error = "deployments.apps \"" + ref.name + "\" not found";
        co_return missing;
    }
    const kube::resource_path path = kube::target_resource(ref);
    const std::string scale_name = ref.name + "/scale";
    auto response = co_await kube::get(client, path, ns, scale_name);
    target_view v;
    if (!response) {
        v.error = scale_error(response, ref);
        co_return v;
    }
    auto scale = kube::parse_scale(response.body);
    if (!scale) {
        v.error = "the /scale of " + ref.kind + "/" + ref.name + " is not an autoscaling/v1 Scale";
        co_return v;
    }
    v.scale = policy::scale_snapshot{scale->spec_replicas, scale->status_replicas, scale->selector};
    v.resource_version = scale->resource_version;
    if (deployments && is_deployment(ref)) {
        // Keep the rollout view from the cache (the Scale does not carry it).
        if (auto cached = deployments->find(ns, ref.name))
            if (const auto* record = cached->as<deployment_view>()) v.rollout = record->rollout;
    }
    co_return v;
}

bool target_unchanged(const kube::object_cache* deployments, const std::string& ns,
                      const core::object_reference& ref, const target_view& last) {
    if (!deployments || !is_deployment(ref) || !last.scale) return false;
    const auto cached = deployments->find(ns, ref.name);
    return cached && cached->resource_version == last.resource_version;
}

boost::asio::awaitable<std::optional<policy::rollout_state>>
read_rollout(kube::api_client& client, const std::string& ns, const core::object_reference& ref) {
    if (ref.kind != "StatefulSet" || ref.api_version != "apps/v1") co_return std::nullopt;
    const kube::resource_path path = kube::target_resource(ref);
    auto response = co_await kube::get(client, path, ns, ref.name);
    if (!response)
        co_return policy::rollout_state{false, "unknown (" + scale_error(response, ref) + ")"};
    rapidjson::Document doc;
    std::string bad = net::parse_json(doc, response.body); // bounded depth and size
    kube::json_decoder d;
    policy::workload_rollout_status status;
    if (bad.empty()) status = kinds::decode_rollout_status(d, kube::json_node{&doc, ""});
    if (bad.empty() && !d.ok()) bad = d.error().to_string();
    if (!bad.empty())
        co_return policy::rollout_state{false, "unknown (the StatefulSet " + ref.name +
                                                   " cannot be read: " + bad + ")"};
    co_return policy::assess_rollout(status);
}

boost::asio::awaitable<kube::api_response>
write_scale(kube::api_client& client, const std::string& ns, const core::object_reference& ref,
            std::int32_t replicas, const std::string& resource_version,
            std::string_view fence_key) {
    const kube::resource_path path = kube::target_resource(ref);
    std::string body = kube::scale_body(ref.name, ns, replicas, resource_version);
    const std::string sub = "scale"; // named: GCC 12 mishandles temporaries in co_await calls
    co_return co_await kube::update(client, path, ns, ref.name, std::move(body), sub, fence_key);
}

} // namespace hpaplus::kinds
