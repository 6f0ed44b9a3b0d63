// controller/vpaplus/checkpoints.cpp — VPAPlusCheckpoint objects: read, created, updated.
#include "controller/vpaplus/checkpoints.hpp"

#include "kinds/api_group.hpp"
#include "kinds/decode.hpp"
#include "kinds/owned_object.hpp"
#include "kinds/vpaplus.hpp"
#include "kube/resources.hpp"
#include "kube/status_writer.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

namespace hpaplus::controller {
namespace {

namespace asio = boost::asio;
using kinds::decode_checkpoint_status;
using kinds::encode_checkpoint_status;
using kinds::vpaplus;

std::string checkpoint_name(const std::string& vpa, const std::string& container) {
    return vpa + "-" + container;
}

} // namespace

asio::awaitable<void> load_checkpoints(vertical_env& env, const vpaplus& v, vertical_memory& m) {
    m.checkpoints_loaded = true;
    auto response = co_await kube::list(env.client, kinds::resources::vpapluscheckpoints, v.ns);
    if (!response) {
        spdlog::warn("{}/{}: checkpoints not read: {}", v.ns, v.name, response.message());
        co_return;
    }
    rapidjson::Document doc;
    if (auto why = net::parse_json(doc, response.body); !why.empty()) {
        spdlog::warn("{}/{}: checkpoints not read: {}", v.ns, v.name, why);
        co_return;
    }
    kube::json_decoder d;
    const kube::json_node items = kube::json_node{&doc, ""}["items"];
    for (std::size_t i = 0, size = d.array(items); i < size; ++i) {
        const auto item = items.at(i);
        if (d.opt_string(item["spec"]["vpaObjectName"]).value_or("") != v.name) continue;
        const std::string container = d.opt_string(item["spec"]["containerName"]).value_or("");
        // Believed only when this VPAPlus made it (its uid in the ownerReferences): anyone who
        // may create objects in the namespace could otherwise hand the recommender a history.
        bool owned = false;
        const kube::json_node owners = item["metadata"]["ownerReferences"];
        for (std::size_t k = 0, n = d.array(owners); k < n && !owned; ++k)
            owned = d.opt_string(owners.at(k)["uid"]).value_or("") == v.uid;
        if (!owned) {
            const std::string name = d.opt_string(item["metadata"]["name"]).value_or("");
            if (name == checkpoint_name(v.name, container)) m.checkpoints[name].foreign = true;
            spdlog::warn("{}/{}: the VPAPlusCheckpoint {} of container {} is not read: its "
                         "ownerReferences do not name this VPAPlus (uid {})",
                         v.ns, v.name, name, container, v.uid);
            continue;
        }
        const auto c = decode_checkpoint_status(item["status"]);
        m.checkpoints[checkpoint_name(v.name, container)].created = true;
        vertical::container_aggregate history(m.config);
        if (container.empty() || !c || !history.load(*c)) {
            spdlog::warn("{}/{}: checkpoint for container {} is unreadable; starting afresh", v.ns,
                         v.name, container);
            continue;
        }
        m.history.insert_or_assign(container, std::move(history));
        spdlog::info("{}/{}: history of container {} restored ({} samples)", v.ns, v.name,
                     container, c->total_samples);
    }
}

asio::awaitable<void> write_checkpoints(vertical_env& env, const vpaplus& v, vertical_memory& m,
                                        core::time_point now, const std::string& key) {
    if (m.last_checkpoint && now - *m.last_checkpoint < env.options.checkpoint_interval) co_return;
    m.last_checkpoint = now;
    for (const auto& entry : m.history) {
        const std::string& container = entry.first; // named: clang 14 captures no bindings
        const std::string name = checkpoint_name(v.name, container);
        const std::string who = v.ns + "/" + v.name;
        const checkpoint_write w{env.client,
                                 kinds::resources::vpapluscheckpoints,
                                 v.ns,
                                 "VPAPlusCheckpoint",
                                 name,
                                 key,
                                 who,
                                 [&] {
                                     return kinds::owned_object(
                                         "VPAPlusCheckpoint", name, {"VPAPlus", v.name, v.uid},
                                         {{"vpaObjectName", v.name}, {"containerName", container}});
                                 }};
        co_await write_checkpoint_status(w, m.checkpoints[name],
                                         encode_checkpoint_status(entry.second.save(), now));
    }
}

} // namespace hpaplus::controller
