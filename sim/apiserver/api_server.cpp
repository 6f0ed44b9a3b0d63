// sim/apiserver/api_server.cpp — request routing: protobuf bodies decoded, /sim/v1 controls,
// faults, discovery, the metrics APIs, watches, admission, then the verbs on objects; and the
// public face of the server.
#include "sim/apiserver/server.hpp"

#include "sim/apiserver/admission.hpp"
#include "sim/apiserver/openapi.hpp"
#include "sim/apiserver/priority.hpp"
#include "sim/apiserver/protobuf.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <cstdlib>

namespace hpaplus::sim {

api_server::impl::impl(asio::any_io_executor ex, object_store& s, api_server_options o)
    : executor(ex), store(s), options(o), rbac(s) {
    store.on_change([this](collection& c, const watch_event& e) {
        wake_watches();
        if (c.type.group == "rbac.authorization.k8s.io") rbac.invalidate();
        if (c.type.plural == "customresourcedefinitions" && c.type.group == "apiextensions.k8s.io")
            on_crd_change(e);
    });
}

void api_server::impl::wake_watches() {
    for (auto* t : waiting)
        t->cancel();
}

core::time_point api_server::impl::now_time() {
    return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
}

void api_server::impl::audit_write(const http_request& r, const target& t, const sim_user& user,
                                   const http_response& answer, core::time_point received) {
    audit_event e;
    e.verb = access_of(r).verb;
    e.user = user;
    e.user_agent = std::string(r.header("user-agent"));
    e.group = t.group;
    e.version = t.version;
    e.resource = t.plural;
    e.subresource = t.sub;
    e.ns = t.ns;
    e.name = t.name;
    if (e.name.empty() && answer.status < 300) { // a create: the name is the stored object's
        json_doc created;
        created.Parse(answer.body.c_str(), answer.body.size());
        if (!created.HasParseError() && created.IsObject())
            e.name = string_at(created, "metadata.name");
    }
    e.code = answer.status;
    e.received = received;
    e.completed = now_time();
    audit.record(std::move(e));
}

namespace {

// Whether the client asks for protobuf first (client-go's typed clients, kubectl's typed
// commands): the first media range of Accept, not a Table, not a watch stream.
bool protobuf_first(std::string_view accept) {
    const std::string_view first = accept.substr(0, accept.find(','));
    const auto begin = first.find_first_not_of(' ');
    return begin != std::string_view::npos &&
           first.substr(begin).starts_with("application/vnd.kubernetes.protobuf") &&
           first.find("as=") == std::string_view::npos &&
           first.find("stream=watch") == std::string_view::npos;
}

// Answers in protobuf what can be (json_to_protobuf), JSON the rest; streams pass as they are.
class protobuf_answers final : public http_responder {
  public:
    explicit protobuf_answers(http_responder& inner) : inner_(inner) {}
    asio::awaitable<bool> send(http_response response) override {
        if (response.content_type.starts_with("application/json"))
            if (auto encoded = json_to_protobuf(response.body)) {
                response.body = std::move(*encoded);
                response.content_type = "application/vnd.kubernetes.protobuf";
            }
        return inner_.send(std::move(response));
    }
    asio::awaitable<bool> begin_stream(int status, std::string content_type) override {
        return inner_.begin_stream(status, std::move(content_type));
    }
    asio::awaitable<bool> send_chunk(std::string_view data) override {
        return inner_.send_chunk(data);
    }
    asio::awaitable<bool> end_stream() override { return inner_.end_stream(); }

  private:
    http_responder& inner_;
};

} // namespace

asio::awaitable<void> api_server::impl::handle(http_request& r, http_responder& client) {
    protobuf_answers protobuf_out(client);
    http_responder& out = protobuf_first(r.header("accept")) ? protobuf_out : client;
    if (std::getenv("HPAPLUS_SIM_TRACE"))
        std::fprintf(stderr, "sim: %s %s [%s] accept=[%s] %zu bytes\n", r.method.c_str(),
                     r.target.c_str(), std::string(r.header("content-type")).c_str(),
                     std::string(r.header("accept")).c_str(), r.body.size());
    // kubectl's typed commands send built-in kinds as protobuf; we decode them and answer JSON.
    if (r.header("content-type").find("application/vnd.kubernetes.protobuf") == 0 &&
        !r.body.empty()) {
        auto decoded = protobuf_to_json(r.body, r.path.ends_with("/status"));
        if (!decoded) {
            co_await out.send(error_response(unsupported_media_type(decoded.error().text)));
            co_return;
        }
        r.body = std::move(*decoded);
        for (auto& [k, v] : r.headers)
            if (k == "content-type") v = json_type;
    }
    if (auto refused = rewrite_watch_path(r)) {
        co_await out.send(error_response(*refused));
        co_return;
    }
    const auto parts = split(r.path);
    if (parts.size() >= 2 && parts[0] == "sim" && parts[1] == "v1") {
        co_await out.send(control(r, parts));
        co_return;
    }
    const core::time_point received = now_time();
    const auto answer_latency = co_await apply_faults(r, parts, out);
    if (!answer_latency) co_return;
    const api_result<sim_user> user = admit_caller(r);
    if (!user) {
        co_await out.send(error_response(user.error()));
        co_return;
    }
    if (parts.size() >= 3 && parts[0] == "apis")
        if (const object_ptr apiservice = aggregated(parts[1], parts[2])) {
            http_response answer = co_await proxy(r, *apiservice, *user);
            co_await out.send(std::move(answer));
            co_return;
        }
    if (auto d = discovery(r, parts)) {
        co_await out.send(std::move(*d));
        co_return;
    }
    // The node proxy's one path the sim's kubelet answers: what metrics-server scrapes.
    if (parts.size() == 7 && parts[0] == "api" && parts[1] == "v1" && parts[2] == "nodes" &&
        parts[4] == "proxy" && parts[5] == "stats" && parts[6] == "summary" && node_stats &&
        r.method == "GET") {
        const auto summary = node_stats(parts[3]);
        collection* nodes = store.find("", "v1", "nodes");
        http_response answer = summary ? ok(*summary)
                               : nodes ? error_response(not_found(nodes->type, parts[3]))
                                       : error_response(not_found_path(r.path));
        co_await out.send(std::move(answer));
        co_return;
    }
    const std::optional<target> t = resource_target(parts);
    if (!t) {
        co_await out.send(error_response(not_found_path(r.path)));
        co_return;
    }
    if (t->group == "custom.metrics.k8s.io" || t->group == "external.metrics.k8s.io") {
        co_await out.send(metrics_apis(r, parts));
        co_return;
    }
    if (const collection* c = store.find(t->group, t->version, t->plural);
        c && c->type.create_only) {
        co_await out.send(review(r, *t, *user));
        co_return;
    }
    if (t->group.empty() && t->plural == "serviceaccounts" && t->sub == "token") {
        co_await out.send(token_request(r, *t));
        co_return;
    }
    if (t->group.empty() && t->plural == "pods" && t->sub == "log" && r.method == "GET") {
        co_await pod_log(r, *t, out);
        co_return;
    }
    if (t->group.empty() && t->plural == "pods" &&
        (t->sub == "exec" || t->sub == "attach" || t->sub == "portforward") &&
        (r.method == "GET" || r.method == "POST")) {
        co_await out.send(kubelet_stream(r, *t));
        co_return;
    }
    if (t->group == "metrics.k8s.io" && usage) {
        co_await out.send(resource_metrics(r, *t));
        co_return;
    }
    if (r.method == "GET" && t->name.empty() && query_flag(r, "watch")) {
        if (!store.find(t->group, t->version, t->plural)) {
            co_await out.send(error_response(not_found_path(r.path)));
            co_return;
        }
        co_await watch(r, *t, out);
        co_return;
    }
    if (r.method == "POST" && t->name.empty() && admission_chain) {
        if (auto e = co_await admit(r, *t)) {
            co_await out.send(error_response(*e));
            co_return;
        }
    }
    if (r.method == "GET" && t->name.empty()) {
        if (auto too_large = co_await wait_until_fresh(r)) {
            co_await out.send(error_response(*too_large));
            co_return;
        }
    }
    http_response answer = objects(r, *t);
    if (r.method != "GET") audit_write(r, *t, *user, answer, received);
    if (answer_latency->count() > 0) { // carried out, but the client hears of it late
        asio::steady_timer timer(executor, *answer_latency);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    co_await out.send(std::move(answer));
}

api_server::api_server(asio::any_io_executor executor, object_store& store,
                       api_server_options options)
    : impl_(std::make_unique<impl>(executor, store, options)) {
    for (auto& t : builtin_resource_types())
        store.add_type(std::move(t));
}

api_server::~api_server() = default;

asio::awaitable<void> api_server::handle(http_request& request, http_responder& responder) {
    return impl_->handle(request, responder);
}

void api_server::stop() {
    impl_->stopped = true;
    impl_->wake_watches();
}

fault_injector& api_server::faults() {
    return impl_->faults;
}

void api_server::on_restart_request(std::function<void(std::chrono::milliseconds)> f) {
    impl_->restart = std::move(f);
}

void api_server::use_admission(admission& chain) {
    impl_->admission_chain = &chain;
}

void api_server::serve_prometheus(std::function<std::string()> text) {
    impl_->prometheus = std::move(text);
}

void api_server::bootstrap() {
    collection* namespaces = impl_->store.find("", "v1", "namespaces");
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
        json_doc doc;
        doc.Parse((std::string(R"({"metadata":{"name":")") + ns + R"("}})").c_str());
        (void)impl_->store.create(*namespaces, "", std::move(doc));
    }
    bootstrap_priority_classes(impl_->store);
    impl_->bootstrap_authentication();
}

} // namespace hpaplus::sim
