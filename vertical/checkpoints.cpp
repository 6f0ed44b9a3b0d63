// vertical/checkpoints.cpp — VPAPlusCheckpoint objects: read, created, updated.
#include "vertical/checkpoints.hpp"

#include "kinds/api_group.hpp"
#include "kinds/decode.hpp"
#include "kinds/vpaplus.hpp"
#include "kube/resources.hpp"
#include "kube/status_writer.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

namespace hpaplus::vertical {
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
            if (name == checkpoint_name(v.name, container)) m.checkpoints_foreign.insert(name);
            spdlog::warn("{}/{}: the VPAPlusCheckpoint {} of container {} is not read: its "
                         "ownerReferences do not name this VPAPlus (uid {})",
                         v.ns, v.name, name, container, v.uid);
            continue;
        }
        const auto c = decode_checkpoint_status(item["status"]);
        m.checkpoints_created.insert(checkpoint_name(v.name, container));
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
    const auto& r = kinds::resources::vpapluscheckpoints;
    for (const auto& [container, history] : m.history) {
        const std::string name = checkpoint_name(v.name, container);
        if (m.checkpoints_foreign.count(name)) {
            auto removed = co_await kube::remove(env.client, r, v.ns, name, key);
            if (!removed && removed.ec != kube::errc::not_found) {
                spdlog::warn("{}/{}: checkpoint {} it does not own not deleted: {}", v.ns, v.name,
                             name, removed.message());
                continue;
            }
            m.checkpoints_foreign.erase(name);
        }
        if (!m.checkpoints_created.count(name)) {
            const std::string body = R"({"apiVersion":")" + std::string(vpaplus_api_version) +
                                     R"(","kind":"VPAPlusCheckpoint","metadata":{"name":")" + name +
                                     R"(","ownerReferences":[{"apiVersion":")" +
                                     vpaplus_api_version + R"(","kind":"VPAPlus","name":")" +
                                     v.name + R"(","uid":")" + v.uid +
                                     R"("}]},"spec":{"vpaObjectName":")" + v.name +
                                     R"(","containerName":")" + container + R"("}})";
            auto created = co_await kube::create(env.client, r, v.ns, body, key);
            if (!created && created.ec != kube::errc::already_exists) {
                spdlog::warn("{}/{}: checkpoint {} not created: {}", v.ns, v.name, name,
                             created.message());
                continue;
            }
            m.checkpoints_created.insert(name);
        }
        const std::string patch =
            R"({"status":)" + encode_checkpoint_status(history.save(), now) + "}";
        const std::string sub = "status";
        auto written = co_await kube::merge_patch(env.client, r, v.ns, name, patch, sub, key);
        if (!written) {
            if (written.ec == kube::errc::not_found) m.checkpoints_created.erase(name);
            spdlog::warn("{}/{}: checkpoint {} not written: {}", v.ns, v.name, name,
                         written.message());
        }
    }
}

} // namespace hpaplus::vertical
