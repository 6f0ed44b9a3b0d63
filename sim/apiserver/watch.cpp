// sim/apiserver/watch.cpp — watch streams: replay or resume from a resourceVersion, selections,
// bookmarks, 410 Gone after compaction, and drops on request; and a list at a resourceVersion
// the store has not reached waits for it, then is "too large".
#include "sim/apiserver/server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <charconv>

namespace hpaplus::sim {

asio::awaitable<void> api_server::impl::watch(const http_request& r, const target& t,
                                              http_responder& out) {
    api_error error;
    auto f = make_filter(r, t, error);
    if (!f) {
        co_await out.send(error_response(error));
        co_return;
    }
    std::chrono::seconds timeout = options.default_watch_timeout;
    if (auto ts = r.query_param("timeoutSeconds")) {
        long long v = 0;
        if (std::from_chars(ts->data(), ts->data() + ts->size(), v).ec == std::errc() && v > 0)
            timeout = std::min(timeout, std::chrono::seconds(v));
    }
    const bool bookmarks = query_flag(r, "allowWatchBookmarks");
    const std::string rv_text(r.query_param("resourceVersion").value_or(""));
    collection* c = store.find(t.group, t.version, t.plural);
    std::uint64_t last = 0;
    bool replay = rv_text.empty() || rv_text == "0";
    if (!replay &&
        std::from_chars(rv_text.data(), rv_text.data() + rv_text.size(), last).ec != std::errc()) {
        co_await out.send(
            error_response(bad_request("invalid resource version \"" + rv_text + "\"")));
        co_return;
    }
    // A version from the future (the store went back, as after an etcd restore) is accepted, as
    // the watch cache accepts it: nothing is sent until the store passes it.
    asio::steady_timer timer(executor);
    if (!co_await out.begin_stream(200, json_type)) co_return;
    auto event_line = [](const char* type, const std::string& object) {
        return std::string(R"({"type":")") + type + R"(","object":)" + object + "}\n";
    };
    auto send_expired = [&](std::uint64_t rv) -> asio::awaitable<void> {
        const api_error e = expired("too old resource version: " + std::to_string(rv) + " (" +
                                    std::to_string(c ? c->compacted_rv : 0) + ")");
        co_await out.send_chunk(event_line("ERROR", status_json(e)));
        co_await out.end_stream();
    };
    if (replay) {
        last = store.resource_version();
        for (const auto& [k, o] : c->objects)
            if (f->matches(*o) &&
                !co_await out.send_chunk(event_line("ADDED", served_text(c->type, t, *o))))
                co_return;
    } else if (!store.first_event_after(*c, last)) {
        co_await send_expired(last);
        co_return;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto last_sent = std::chrono::steady_clock::now();
    const std::uint64_t drop_epoch = faults.watch_epoch();
    const std::uint64_t my_expire_epoch = expire_epoch;
    while (!stopped) {
        if (faults.watch_epoch() != drop_epoch)
            co_return; // dropped: the connection closes without an end
        if (expire_epoch != my_expire_epoch) {
            co_await send_expired(last);
            co_return;
        }
        c = store.find(t.group, t.version, t.plural);
        if (!c) break; // the CRD went away
        const auto first = store.first_event_after(*c, last);
        if (!first) {
            co_await send_expired(last);
            co_return;
        }
        std::string batch;
        for (std::size_t i = *first; i < c->log.size(); ++i) {
            const watch_event& e = c->log[i];
            last = e.rv;
            const bool now_in = f->matches(*e.object);
            const bool was_in = e.previous && f->matches(*e.previous);
            const char* type = e.type;
            if (std::string_view(type) == "MODIFIED") {
                if (!now_in && !was_in) continue;
                if (!now_in)
                    type = "DELETED"; // left the selection
                else if (!was_in)
                    type = "ADDED"; // entered it
            } else if (!now_in) {
                continue;
            }
            batch += event_line(type, served_text(c->type, t, *e.object));
        }
        if (!batch.empty()) {
            if (!co_await out.send_chunk(batch)) co_return;
            last_sent = std::chrono::steady_clock::now();
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) break;
        // A bookmark never names a version older than the watch's own (after a restore it
        // waits, like every event, until the store passes that version).
        if (bookmarks && now - last_sent >= options.bookmark_interval) {
            if (store.resource_version() >= last) {
                const std::string bookmark = R"({"kind":")" + c->type.kind + R"(","apiVersion":")" +
                                             served_group_version(c->type, t) +
                                             R"(","metadata":{"resourceVersion":")" +
                                             std::to_string(store.resource_version()) + "\"}}";
                last = store.resource_version();
                if (!co_await out.send_chunk(event_line("BOOKMARK", bookmark))) co_return;
            }
            last_sent = now;
        }
        auto wake = deadline;
        if (bookmarks) wake = std::min(wake, last_sent + options.bookmark_interval);
        timer.expires_at(wake);
        waiting.insert(&timer);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        waiting.erase(&timer);
    }
    co_await out.end_stream();
}

asio::awaitable<std::optional<api_error>>
api_server::impl::wait_until_fresh(const http_request& r) {
    // As the watch cache serves a list at resourceVersion=N (N not 0, not Exact): it waits up to
    // 3 s for the store to reach N, then answers 504 "Too large resource version".
    const std::string rv_text(r.query_param("resourceVersion").value_or(""));
    std::uint64_t wanted = 0;
    if (rv_text.empty() || rv_text == "0" ||
        r.query_param("resourceVersionMatch").value_or("") == "Exact" ||
        std::from_chars(rv_text.data(), rv_text.data() + rv_text.size(), wanted).ec != std::errc())
        co_return std::nullopt; // the list itself answers what is wrong with the version
    asio::steady_timer timer(executor);
    const auto give_up = std::chrono::steady_clock::now() + options.fresh_wait;
    while (wanted > store.resource_version()) {
        if (std::chrono::steady_clock::now() >= give_up || stopped)
            co_return too_large_resource_version(wanted, store.resource_version());
        timer.expires_at(give_up);
        waiting.insert(&timer);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        waiting.erase(&timer);
    }
    co_return std::nullopt;
}

} // namespace hpaplus::sim
