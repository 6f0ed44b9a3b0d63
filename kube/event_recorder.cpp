// kube/event_recorder.cpp — create or aggregate Events.
#include "kube/event_recorder.hpp"

#include "kube/resources.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace hpaplus::kube {
namespace {

constexpr std::size_t max_remembered = 8192;

std::string created_name(const std::string& body) {
    rapidjson::Document doc;
    if (!net::parse_json(doc, body).empty() || !doc.IsObject()) return {};
    const auto meta = doc.FindMember("metadata");
    if (meta == doc.MemberEnd() || !meta->value.IsObject()) return {};
    const auto name = meta->value.FindMember("name");
    return name != meta->value.MemberEnd() && name->value.IsString() ? name->value.GetString()
                                                                     : std::string();
}

} // namespace

event_spam_filter::event_spam_filter(int burst, std::chrono::seconds refill)
    : burst_(burst), refill_(refill) {}

double event_spam_filter::refilled(const bucket& b, core::time_point now) const {
    if (now <= b.last || refill_.count() <= 0) return b.tokens; // a clock going back adds nothing
    const double earned = std::chrono::duration<double>(now - b.last) / refill_;
    return std::min<double>(burst_, b.tokens + earned);
}

bool event_spam_filter::allow(const std::string& key, core::time_point now) {
    auto it = buckets_.find(key);
    if (it == buckets_.end()) {
        // A full bucket carries no information: forget those before remembering another key.
        if (buckets_.size() >= max_remembered)
            std::erase_if(buckets_,
                          [&](const auto& kv) { return refilled(kv.second, now) >= burst_; });
        if (buckets_.size() >= max_remembered) buckets_.clear(); // a storm of distinct objects
        it = buckets_.emplace(key, bucket{static_cast<double>(burst_), now}).first;
    }
    bucket& b = it->second;
    b.tokens = refilled(b, now);
    b.last = std::max(b.last, now);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
}

event_recorder::event_recorder(kube::api_client& client, std::string host,
                               std::chrono::seconds window)
    : client_(client), host_(std::move(host)), window_(window) {}

void event_recorder::forget_older_than(core::time_point cutoff) {
    for (auto it = recent_.begin(); it != recent_.end();) {
        if (it->second.last < cutoff)
            it = recent_.erase(it);
        else
            ++it;
    }
}

boost::asio::awaitable<void> event_recorder::record(const involved_object& object,
                                                    const core::event& e, core::time_point now,
                                                    request_class priority) {
    if (!spam_.allow(object.namespace_ + "/" + object.name + "/" + object.uid + "\n" + e.reason,
                     now)) {
        ++filtered_;
        spdlog::debug("{}/{}: Event {} dropped by the spam filter", object.namespace_, object.name,
                      e.reason);
        co_return;
    }
    std::string key =
        object.namespace_ + "/" + object.name + "\n" + e.type + "\n" + e.reason + "\n" + e.message;
    const std::string now_text = core::format_rfc3339(now);
    auto it = recent_.find(key);
    if (it != recent_.end() && now - it->second.last < window_ && !it->second.event_name.empty()) {
        recorded& r = it->second;
        const std::string patch = "{\"count\":" + std::to_string(r.count + 1) +
                                  ",\"lastTimestamp\":\"" + now_text + "\"}";
        const std::string event_name = r.event_name;
        const std::string no_sub; // named: GCC 12 mishandles temporaries in co_await calls
        auto response =
            co_await kube::merge_patch(client_, kube::resources::events, object.namespace_,
                                       event_name, patch, no_sub, {}, priority);
        if (response) {
            ++r.count;
            r.last = now;
            ++aggregated_;
            co_return;
        }
        // The Event expired or was deleted: create a new one below.
        spdlog::debug("{}/{}: updating Event {} failed: {}", object.namespace_, object.name,
                      event_name, response.status.message);
    }
    std::string body = kube::event_body(
        object.namespace_, object.kind, object.name, object.uid, object.api_version, e.type,
        e.reason, e.message, object.source.value_or(event_source{"hpaplus", host_}), now_text);
    auto response = co_await kube::create(client_, kube::resources::events, object.namespace_,
                                          std::move(body), {}, priority);
    if (!response) {
        spdlog::warn("{}/{}: recording Event {} failed: {}", object.namespace_, object.name,
                     e.reason, response.message());
        co_return;
    }
    ++created_;
    if (window_.count() == 0) co_return;
    if (recent_.size() >= max_remembered) forget_older_than(now - window_);
    if (recent_.size() >= max_remembered) recent_.clear(); // a storm of distinct events
    recent_[std::move(key)] = {created_name(response.body), 1, now};
}

} // namespace hpaplus::kube
