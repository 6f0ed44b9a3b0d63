// kube/informer.cpp — list + watch cache (client-go Reflector semantics).
#include "kube/informer.hpp"

#include "kube/encode.hpp"
#include "kube/json_decoder.hpp"
#include "net/http_message.hpp"
#include "net/json_parse.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <charconv>
#include <optional>

namespace hpaplus::kube {

namespace asio = boost::asio;

namespace {

std::string with_query(const std::string& path, const std::string& query) {
    return path + (path.find('?') == std::string::npos ? "?" : "&") + query;
}

object_cptr object_from(const rapidjson::Value& v, const informer_options& options,
                        core::label_interner& labels) {
    json_decoder d;
    const json_node node{&v, ""};
    object_meta meta = d.meta(node);
    auto o = std::make_shared<cached_object>(meta.ns, meta.name);
    o->resource_version = std::move(meta.resource_version);
    o->generation = meta.generation;
    o->labels = labels.intern(d.string_map(node["metadata"]["labels"]));
    if (options.decode)
        o->record = options.decode(v, *o);
    else
        o->record = make_record(to_json_text(v));
    return o;
}

// Waits `backoff`, then doubles it up to `max` (a plain coroutine: GCC 12 mishandles coroutine
// lambdas).
asio::awaitable<void> backoff_wait(asio::steady_timer& timer, std::chrono::milliseconds& backoff,
                                   std::chrono::milliseconds max) {
    timer.expires_after(backoff);
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    backoff = std::min(backoff * 2, max);
}

} // namespace

informer::informer(api_client& client, std::string collection, informer_options options)
    : client_(client), collection_(std::move(collection)), options_(std::move(options)) {}

namespace {
std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
// After a long gap, how long a caught-up cache waits before it counts as current: the caches
// that mirror it on other threads get its changes posted, and the workers there read them.
constexpr std::chrono::nanoseconds settle = std::chrono::seconds(1);
} // namespace

bool informer::current() const {
    if (!synced_flag_) return false;
    // Read on every pass of every worker: the clock only when a gap is open or just closed.
    if (const std::int64_t stale = stale_since_; stale != 0)
        return steady_ns() - stale < std::chrono::nanoseconds(options_.max_stale).count();
    const std::int64_t caught_up = caught_up_at_;
    return caught_up == 0 || steady_ns() - caught_up >= settle.count();
}

void informer::went_stale() {
    std::int64_t none = 0;
    stale_since_.compare_exchange_strong(none, steady_ns());
    if (!behind_reported_ && !current()) {
        behind_reported_ = true;
        spdlog::warn("{}: no working list or watch for over {} ms ({}); nothing that depends on it "
                     "is decided or written until a full list is applied",
                     collection_, options_.max_stale.count(), last_error_);
    }
}

void informer::caught_up(bool listed) {
    const std::int64_t stale = stale_since_;
    if (stale == 0) return;
    const std::int64_t now = steady_ns();
    if (now - stale < std::chrono::nanoseconds(options_.max_stale).count()) {
        stale_since_ = 0; // a short gap: the watch resumed from the last version loses nothing
    } else if (listed) {
        caught_up_at_ = now; // a long one: only a full list tells what changed meanwhile
        stale_since_ = 0;
        if (behind_reported_)
            spdlog::info("{}: listed again after {} ms without a working list or watch",
                         collection_, (now - stale) / 1000000);
        behind_reported_ = false;
    }
}

asio::awaitable<bool> informer::wait_synced(std::chrono::milliseconds timeout) {
    // A short poll: this runs once per informer at start-up, so a signal is not worth its state.
    constexpr std::chrono::milliseconds poll{20};
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    asio::steady_timer timer(co_await asio::this_coro::executor);
    while (!synced_ && std::chrono::steady_clock::now() < deadline) {
        timer.expires_after(poll);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    co_return synced_;
}

bool informer::apply(std::string_view type, std::string_view json) {
    if (type != "ADDED" && type != "MODIFIED" && type != "DELETED" && type != "BOOKMARK")
        return false; // an event type no server sends: the stream is garbled
    rapidjson::Document doc;
    if (!net::parse_json(doc, json).empty() || !doc.IsObject()) return false;
    object_cptr object = object_from(doc, options_, labels_);
    if (!object->resource_version.empty()) resource_version_ = object->resource_version;
    if (type == "BOOKMARK") return true;
    if (type == "DELETED") {
        remove(object);
    } else {
        put(object);
    }
    return true;
}

asio::awaitable<bool> informer::list() {
    std::map<std::string, object_cptr, std::less<>> fresh;
    std::string next;
    std::string version;
    do {
        std::string query = "limit=" + std::to_string(options_.page_size);
        if (!options_.label_selector.empty())
            query += "&labelSelector=" + net::percent_encode(options_.label_selector);
        if (!next.empty()) query += "&continue=" + net::percent_encode(next);
        // Arguments of a coroutine call are named first: GCC 12 destroys braced temporaries twice.
        api_request request{"GET", with_query(collection_, query), "", "application/json"};
        const api_response r = co_await client_.send(std::move(request));
        if (!r && r.ec == errc::not_found && options_.absent_means_empty) {
            replace(std::move(fresh), "");
            served_ = false;
            last_error_ =
                "list " + collection_ + ": not served (is its CustomResourceDefinition installed?)";
            co_return true;
        }
        if (!r) {
            last_error_ = "list " + collection_ + ": " + r.status.message;
            co_return false;
        }
        rapidjson::Document doc;
        const std::string bad = net::parse_json(doc, r.body);
        if (!bad.empty() || !doc.IsObject() || !doc.HasMember("items") || !doc["items"].IsArray()) {
            last_error_ =
                "list " + collection_ + ": " + (bad.empty() ? "the response is not a list" : bad);
            co_return false;
        }
        for (const auto& item : doc["items"].GetArray()) {
            object_cptr o = object_from(item, options_, labels_);
            fresh[o->key] = std::move(o);
        }
        json_decoder d;
        const json_node root{&doc, ""};
        version = d.opt_string(root["metadata"]["resourceVersion"]).value_or("");
        next = d.opt_string(root["metadata"]["continue"]).value_or("");
    } while (!next.empty());
    replace(std::move(fresh), version);
    served_ = true;
    last_error_.clear();
    co_return true;
}

void informer::replace(std::map<std::string, object_cptr, std::less<>> fresh, std::string version) {
    // Tell handlers what changed (a relist may have missed events).
    auto& cached = objects();
    for (const auto& [key, object] : fresh) {
        const auto it = cached.find(key);
        if (it == cached.end()) {
            store(cached, object);
            notify(change::added, object, nullptr);
        } else if (it->second->resource_version != object->resource_version) {
            const object_cptr previous = store(cached, object);
            notify(change::modified, object, previous);
        }
    }
    for (auto it = cached.begin(); it != cached.end();) {
        if (fresh.count(it->first)) {
            ++it;
            continue;
        }
        object_cptr gone = it->second;
        it = cached.erase(it);
        notify(change::deleted, gone, gone);
    }
    resource_version_ = std::move(version);
    synced_ = true;
    caught_up(true);
    synced_flag_ = true;
    ++lists_;
}

asio::awaitable<api_response> informer::watch() {
    std::string query = "watch=true&allowWatchBookmarks=true&resourceVersion=" +
                        net::percent_encode(resource_version_) +
                        "&timeoutSeconds=" + std::to_string(options_.watch_timeout.count());
    if (!options_.label_selector.empty())
        query += "&labelSelector=" + net::percent_encode(options_.label_selector);
    std::string target = with_query(collection_, query);
    watch_lines_ = 0;
    std::string garbled; // an event of a type no server sends, or an object that does not decode
    api_client::event_handler handler = [&](std::string_view type, std::string_view object) {
        ++watch_lines_;
        if (!apply(type, object)) {
            garbled = std::string(type);
            return false;
        }
        return !stopped_;
    };
    api_response r = co_await client_.watch(std::move(target), std::move(handler),
                                            options_.idle_timeout, [this] { caught_up(false); });
    if (!garbled.empty() && r) {
        // Ended as a decode error ends client-go's watch: listed again after the backoff (run()).
        r.ec = make_error_code(errc::undecodable);
        r.status.message = "a " + garbled + " event that does not decode";
    }
    co_return r;
}

asio::awaitable<std::optional<bool>> informer::server_went_back() {
    api_request request{"GET", with_query(collection_, "limit=1"), "", "application/json"};
    const api_response r = co_await client_.send(std::move(request));
    const bool away =
        r.unanswered() || r.ec == errc::server_error || r.ec == errc::too_many_requests;
    if (!r) co_return away ? std::nullopt : std::optional<bool>(false);
    rapidjson::Document doc;
    if (!net::parse_json(doc, r.body).empty() || !doc.IsObject()) co_return false;
    json_decoder d;
    const json_node root{&doc, ""};
    const std::string theirs = d.opt_string(root["metadata"]["resourceVersion"]).value_or("");
    // resourceVersions are opaque, but every server we know counts them up: compare numbers
    std::uint64_t now = 0, held = 0;
    const auto number = [](const std::string& s, std::uint64_t& v) {
        return !s.empty() &&
               std::from_chars(s.data(), s.data() + s.size(), v).ptr == s.data() + s.size();
    };
    if (!number(theirs, now) || !number(resource_version_, held)) co_return false;
    co_return now < held;
}

asio::awaitable<void> informer::run() {
    auto executor = co_await asio::this_coro::executor;
    asio::steady_timer timer(executor);
    std::chrono::milliseconds backoff = options_.initial_backoff;
    bool need_list = true;
    bool check_version = false; // the server went away: did it come back from a backup?
    while (!stopped_) {
        // Behind for long: the events missed may be more than a resumed watch replays (the
        // server's watch cache is bounded), and a deletion missed would leave a worker acting on
        // an object that is gone — list from scratch (which also tells whether the server's
        // versions went back).
        if (!need_list && !current()) need_list = true;
        if (check_version && !need_list) {
            // A server restored from a backup has versions older than ours, and its watch cache
            // accepts a watch from ours without a word, sending nothing until it passes it: ask
            // for the current version first, and list from scratch when it went back.
            const auto went_back = co_await server_went_back();
            if (!went_back) { // still away (or no answer we can read): ask again later
                went_stale();
                co_await backoff_wait(timer, backoff, options_.max_backoff);
                continue;
            }
            check_version = false;
            need_list = *went_back;
        }
        if (need_list) {
            const bool listed = co_await list();
            if (!listed) went_stale();
            if (!listed || !served_) { // not served: list again later
                co_await backoff_wait(timer, backoff, options_.max_backoff);
                continue;
            }
            need_list = false;
        }
        const api_response r = co_await watch();
        if (r) {
            backoff = options_.initial_backoff; // a watch that ended normally: just watch again
            // ... unless it said nothing at all, not even a bookmark: the server may have come
            // back from a backup between two watches and accepted this one from our version.
            check_version = watch_lines_ == 0;
            continue;
        }
        last_error_ = "watch " + collection_ + ": " + r.status.message;
        went_stale();
        // A line that does not decode: list again, as client-go's reflector does after a watch
        // error — resuming could meet the same line again and again, and a list applies what it
        // hid (a DELETED) whatever became of the stream.
        if (r.ec == errc::undecodable) need_list = true;
        if (r.ec == errc::gone || r.ec == errc::not_found) {
            need_list = true; // the version is too old: relist (immediately)
            continue;
        }
        // The server is behind the version we hold (its store went back, as after an etcd
        // restore): what we hold may be gone from it, so list from scratch after the backoff.
        if (resource_version_too_large(r.status)) need_list = true;
        if (r.unanswered()) check_version = true;
        co_await backoff_wait(timer, backoff, options_.max_backoff);
    }
}

} // namespace hpaplus::kube
