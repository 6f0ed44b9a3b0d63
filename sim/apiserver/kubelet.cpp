// sim/apiserver/kubelet.cpp — what the API server fetches from the simulated kubelet. GET
// pods/NAME/log: the API server's LogREST with the kubelet's logs (sim/pod_log): PodLogOptions
// validated as upstream, the container chosen as LogLocation chooses it, the kubelet's answers for
// a container that has not started or never restarted, and `follow` streamed until the pod is
// gone. pods/NAME/exec, attach and portforward, which the simulated kubelet cannot run. And
// nodes/NAME/proxy/stats/summary, answered in api_server.cpp from the workload model.
#include "sim/apiserver/server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <charconv>

namespace hpaplus::sim {
namespace {

constexpr const char* text_type = "text/plain";

std::optional<std::int64_t> integer_param(const http_request& r, std::string_view name,
                                          bool& malformed) {
    const auto v = r.query_param(name);
    if (!v) return std::nullopt;
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec != std::errc() || end != v->data() + v->size()) malformed = true;
    return n;
}

struct log_options {
    std::string container;
    bool follow = false, previous = false, timestamps = false;
    std::optional<std::int64_t> tail_lines, limit_bytes;
    std::optional<core::time_point> since;
};

// ValidatePodLogOptions (422, kind PodLogOptions) and the query's decoding (400).
api_result<log_options> parse_log_options(const http_request& r, const std::string& pod,
                                          core::time_point now) {
    log_options o;
    o.container = std::string(r.query_param("container").value_or(""));
    o.follow = query_flag(r, "follow");
    o.previous = query_flag(r, "previous");
    o.timestamps = query_flag(r, "timestamps");
    bool malformed = false;
    o.tail_lines = integer_param(r, "tailLines", malformed);
    o.limit_bytes = integer_param(r, "limitBytes", malformed);
    const auto since_seconds = integer_param(r, "sinceSeconds", malformed);
    if (malformed)
        return bad_request("invalid query: tailLines, limitBytes and sinceSeconds are integers");
    const auto since_time = r.query_param("sinceTime");
    std::vector<std::pair<std::string, std::string>> causes;
    if (o.tail_lines && *o.tail_lines < 0)
        causes.emplace_back("tailLines", "Invalid value: " + std::to_string(*o.tail_lines) +
                                             ": must be greater than or equal to 0");
    if (o.limit_bytes && *o.limit_bytes < 1)
        causes.emplace_back("limitBytes", "Invalid value: " + std::to_string(*o.limit_bytes) +
                                              ": must be greater than 0");
    if (since_seconds && since_time)
        causes.emplace_back("", "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be "
                                "specified");
    if (since_seconds && *since_seconds < 1)
        causes.emplace_back("sinceSeconds", "Invalid value: " + std::to_string(*since_seconds) +
                                                ": must be greater than 0");
    if (!causes.empty()) {
        resource_type options_kind;
        options_kind.kind = "PodLogOptions";
        options_kind.plural = "pods";
        return invalid(options_kind, pod, std::move(causes));
    }
    if (since_seconds) o.since = now - std::chrono::seconds(*since_seconds);
    if (since_time) {
        const auto t = core::parse_rfc3339(*since_time);
        if (!t) return bad_request("invalid query: sinceTime must be an RFC 3339 time");
        o.since = *t;
    }
    return o;
}

// ValidateContainer: the named container, or the only one.
api_result<std::string> choose_container(const json& pod, const std::string& name,
                                         const std::string& pod_name) {
    std::vector<std::string> names;
    for (const char* list : {"spec.initContainers", "spec.containers", "spec.ephemeralContainers"})
        if (const json* l = find_path(pod, list); l && l->IsArray())
            for (const auto& c : l->GetArray())
                names.push_back(string_at(c, "name"));
    if (!name.empty()) {
        if (std::find(names.begin(), names.end(), name) == names.end())
            return bad_request("container " + name + " is not valid for pod " + pod_name);
        return name;
    }
    const json* containers = find_path(pod, "spec.containers");
    const auto count = containers && containers->IsArray() ? containers->Size() : 0;
    if (count == 1) return string_at((*containers)[0], "name");
    if (count == 0) return bad_request("a container name must be specified for pod " + pod_name);
    std::string listed;
    for (const auto& n : names)
        listed += (listed.empty() ? "" : " ") + n;
    return bad_request("a container name must be specified for pod " + pod_name +
                       ", choose one of: [" + listed + "]");
}

// The kubelet's answer for a container that has no log of the kind asked for.
std::string not_started(const json& pod, const std::string& container, const std::string& name) {
    std::string reason = "ContainerCreating";
    if (const json* list = find_path(pod, "status.containerStatuses"); list && list->IsArray())
        for (const auto& s : list->GetArray())
            if (text_at(s, "name") == container && !string_at(s, "state.waiting.reason").empty())
                reason = string_at(s, "state.waiting.reason");
    return "container \"" + container + "\" in pod \"" + name + "\" is waiting to start: " + reason;
}

// The lines after `after` that the options select, as the kubelet writes them.
std::string render(const std::vector<const log_line*>& lines, const log_options& o,
                   std::int64_t& budget) {
    std::string out;
    for (const log_line* l : lines) {
        std::string line = o.timestamps ? core::format_rfc3339_nano(l->at) + " " : std::string();
        line += l->text + "\n";
        if (o.limit_bytes) {
            if (budget <= 0) break;
            if (static_cast<std::int64_t>(line.size()) > budget) line.resize(budget);
            budget -= static_cast<std::int64_t>(line.size());
        }
        out += line;
    }
    return out;
}

std::vector<const log_line*> select(const container_log& log, const log_options& o,
                                    std::uint64_t after) {
    std::vector<const log_line*> lines;
    if (o.previous) {
        for (const auto& l : log.previous)
            if (l.seq > after && (!o.since || l.at >= *o.since)) lines.push_back(&l);
    } else {
        for (const auto& l : log.current)
            if (l.seq > after && (!o.since || l.at >= *o.since)) lines.push_back(&l);
    }
    return lines;
}

// What a log request asks, once checked: the answer, or (follow) where the stream starts.
struct log_request {
    std::optional<http_response> answer; ///< set: send it and be done
    log_options options;
    std::string uid, container, first; ///< follow: the pod, its container, the first chunk
    std::int64_t budget = 0;           ///< limitBytes left
    std::uint64_t last = 0;            ///< the newest line sent or skipped
};

log_request check_log_request(const http_request& r, const target& t, object_store& store,
                              const api_server::log_function& logs, core::time_point now) {
    log_request q;
    const auto fail = [&](const api_error& e) {
        q.answer = error_response(e);
        return q;
    };
    collection* pods = store.find("", "v1", "pods");
    if (!pods) return fail(not_found_path(r.path));
    const object_ptr pod = store.get(*pods, t.ns, t.name);
    if (!pod) return fail(not_found(pods->type, t.name));
    auto options = parse_log_options(r, t.name, now);
    if (!options) return fail(options.error());
    q.options = *options;
    auto container = choose_container(pod->doc, options->container, t.name);
    if (!container) return fail(container.error());
    q.container = *container;
    q.answer = http_response{};
    q.answer->content_type = text_type;
    // A pod no node has taken yet has nowhere to read from: an empty answer.
    if (string_at(pod->doc, "spec.nodeName").empty() || !logs) return q;
    q.uid = string_at(pod->doc, "metadata.uid");
    const container_log* log = logs(q.uid, q.container);
    if (options->previous && (!log || !log->has_previous))
        return fail(bad_request("previous terminated container \"" + q.container + "\" in pod \"" +
                                t.name + "\" not found"));
    if (!log) return fail(bad_request(not_started(pod->doc, q.container, t.name)));
    std::vector<const log_line*> lines = select(*log, *options, 0);
    if (options->tail_lines && static_cast<std::int64_t>(lines.size()) > *options->tail_lines)
        lines.erase(lines.begin(), lines.end() - *options->tail_lines);
    q.budget = options->limit_bytes.value_or(0);
    q.answer->body = render(lines, *options, q.budget);
    if (!options->follow || options->previous) return q;
    // A follower gets what comes after the newest line, whatever the tail showed of it.
    q.last = log->current.empty() ? 0 : log->current.back().seq;
    q.first = std::move(q.answer->body);
    q.answer.reset();
    return q;
}

// The node's InternalIP, where the API server dials its kubelet.
std::string kubelet_address(object_store& store, const std::string& node) {
    collection* nodes = store.find("", "v1", "nodes");
    const object_ptr n = nodes ? store.get(*nodes, "", node) : nullptr;
    if (n)
        if (const json* list = find_path(n->doc, "status.addresses"); list && list->IsArray())
            for (const auto& a : list->GetArray())
                if (text_at(a, "type") == "InternalIP") return string_at(a, "address");
    return node;
}

} // namespace

// pods/NAME/exec, attach and portforward: the API server's checks (streamLocation) in upstream's
// words, then the upgrade its proxy requires; the simulated kubelet runs no containers, so the
// upgraded stream fails as the real server's does when the kubelet does not answer.
http_response api_server::impl::kubelet_stream(const http_request& r, const target& t) {
    collection* pods = store.find("", "v1", "pods");
    if (!pods) return error_response(not_found_path(r.path));
    const object_ptr pod = store.get(*pods, t.ns, t.name);
    if (!pod) return error_response(not_found(pods->type, t.name));
    if (t.sub != "portforward") {
        auto container = choose_container(
            pod->doc, std::string(r.query_param("container").value_or("")), t.name);
        if (!container) return error_response(container.error());
    }
    const std::string node = string_at(pod->doc, "spec.nodeName");
    if (node.empty())
        return error_response(bad_request("pod " + t.name + " does not have a host assigned"));
    const std::string connection = ascii_lower(std::string(r.header("connection")));
    if (r.header("upgrade").empty() || connection.find("upgrade") == std::string::npos)
        return error_response(bad_request("Upgrade request required"));
    api_error e;
    e.code = 500;
    e.reason = "InternalError";
    e.message = "error dialing backend: dial tcp " + kubelet_address(store, node) +
                ":10250: connect: connection refused";
    return error_response(e);
}

asio::awaitable<void> api_server::impl::pod_log(const http_request& r, const target& t,
                                                http_responder& out) {
    log_request q = check_log_request(r, t, store, pod_logs, now_time());
    if (q.answer) {
        co_await out.send(std::move(*q.answer));
        co_return;
    }
    if (!co_await out.begin_stream(200, text_type)) co_return;
    if (!q.first.empty() && !co_await out.send_chunk(q.first)) co_return;
    // Follows until the container's pod is gone (or the budget is spent); woken by every write,
    // as a pod's lines come with its status writes.
    asio::steady_timer timer(executor);
    while (!stopped && (!q.options.limit_bytes || q.budget > 0)) {
        collection* pods = store.find("", "v1", "pods");
        const object_ptr pod = pods ? store.get(*pods, t.ns, t.name) : nullptr;
        const container_log* log = pod_logs(q.uid, q.container);
        if (!pod || string_at(pod->doc, "metadata.uid") != q.uid || !log) break;
        const std::vector<const log_line*> fresh = select(*log, q.options, q.last);
        if (!fresh.empty()) {
            q.last = fresh.back()->seq;
            const std::string chunk = render(fresh, q.options, q.budget);
            if (!co_await out.send_chunk(chunk)) co_return;
        }
        timer.expires_after(std::chrono::seconds(1));
        waiting.insert(&timer);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        waiting.erase(&timer);
    }
    co_await out.end_stream();
}

void api_server::serve_pod_logs(log_function logs) {
    impl_->pod_logs = std::move(logs);
}

void api_server::serve_node_stats(stats_function summary) {
    impl_->node_stats = std::move(summary);
}

} // namespace hpaplus::sim
