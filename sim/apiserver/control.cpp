// sim/apiserver/control.cpp — injected faults (latency and errors by verb and resource) and the
// simulated cluster's own controls under /sim/v1/.
#include "sim/apiserver/server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <charconv>

namespace hpaplus::sim {

// The verb in RBAC's terms and the resource (a subresource counts as itself) for fault rules.
std::pair<std::string, std::string>
api_server::impl::verb_and_resource(const http_request& r, const std::vector<std::string>& parts) {
    std::string resource = "*";
    const std::optional<target> t = resource_target(parts);
    if (t) resource = t->sub.empty() ? t->plural : t->sub;
    const bool named = t && !t->name.empty();
    std::string verb = "get";
    if (r.method == "GET")
        verb = query_flag(r, "watch") ? "watch" : named ? "get" : "list";
    else if (r.method == "POST")
        verb = "create";
    else if (r.method == "PUT")
        verb = "update";
    else if (r.method == "PATCH")
        verb = "patch";
    else if (r.method == "DELETE")
        verb = "delete";
    return {verb, resource};
}

// Applies latency and injected errors; returns nullopt when the request was answered with an
// error, otherwise how long to hold its answer back once it is carried out.
asio::awaitable<std::optional<std::chrono::milliseconds>>
api_server::impl::apply_faults(const http_request& r, const std::vector<std::string>& parts,
                               http_responder& out) {
    if (faults.rules().empty()) co_return std::chrono::milliseconds(0);
    const auto [verb, resource] = verb_and_resource(r, parts);
    const auto verdict = faults.judge(verb, resource);
    if (verdict.latency.count() > 0) {
        asio::steady_timer timer(executor, verdict.latency);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    if (!verdict.error_code) co_return verdict.answer_latency;
    api_error e;
    switch (*verdict.error_code) {
    case 429:
        e = too_many_requests(1);
        break;
    case 500:
        e = internal_error("injected failure");
        break;
    case 504:
        e = api_error{504,
                      "Timeout",
                      "the server was unable to return a response in the time allotted, but "
                      "may still be processing the request",
                      {},
                      {},
                      {},
                      {},
                      std::nullopt};
        break;
    default:
        e = api_error{503,
                      "ServiceUnavailable",
                      "the server is currently unable to handle the request",
                      {},
                      {},
                      {},
                      {},
                      std::nullopt};
    }
    co_await out.send(error_response(e));
    co_return std::nullopt;
}

// /sim/v1/...: the simulated cluster's own controls.
http_response api_server::impl::control(const http_request& r,
                                        const std::vector<std::string>& parts) {
    const std::string what = parts.size() >= 3 ? parts[2] : "";
    const std::string sub = parts.size() >= 4 ? parts[3] : "";
    if (what == "faults" && sub.empty()) {
        if (r.method == "DELETE") {
            faults.clear();
            return ok(R"({"rules":[]})");
        }
        if (r.method == "POST" || r.method == "PUT") {
            auto rules = fault_injector::parse_rules(r.body);
            if (!rules) return error_response(bad_request(rules.error().text));
            if (r.method == "PUT") faults.clear();
            for (auto& rule : *rules)
                faults.add(std::move(rule));
        }
        std::string body = R"({"rules":[)";
        for (std::size_t i = 0; i < faults.rules().size(); ++i) {
            const auto& f = faults.rules()[i];
            body += (i ? "," : "") + std::string(R"({"verb":")") + f.verb + R"(","resource":")" +
                    f.resource + R"(","errorRate":)" + std::to_string(f.error_rate) +
                    R"(,"errorCode":)" + std::to_string(f.error_code) + R"(,"latencyMs":)" +
                    std::to_string(f.latency.count()) + R"(,"answerLatencyMs":)" +
                    std::to_string(f.answer_latency.count()) + "}";
        }
        return ok(body + "]}");
    }
    if (what == "faults" && sub == "drop-watches" && r.method == "POST") {
        faults.drop_watches();
        wake_watches();
        return ok(R"({"dropped":true})");
    }
    if (what == "faults" && sub == "expire" && r.method == "POST") {
        // Every watch of the resource gets 410 and no resourceVersion before now can be
        // resumed.
        const std::string resource(r.query_param("resource").value_or(""));
        bool found = false;
        for (collection* c : store.collections()) {
            if (!resource.empty() && c->type.plural != resource) continue;
            store.compact(*c);
            found = true;
        }
        if (!found) return error_response(bad_request("no such resource \"" + resource + "\""));
        expire_epoch++;
        wake_watches();
        return ok(R"({"expired":true})");
    }
    if (auto answer = auth_control(r, what)) return std::move(*answer);
    if (what == "audit" && sub.empty()) {
        if (r.method == "DELETE") {
            audit.clear();
            return ok(audit.event_list("", 0));
        }
        if (r.method != "GET") return error_response(bad_request("GET or DELETE /sim/v1/audit"));
        std::uint64_t after = 0;
        if (const auto a = r.query_param("after")) {
            const auto [end, ec] = std::from_chars(a->data(), a->data() + a->size(), after);
            if (ec != std::errc() || end != a->data() + a->size())
                return error_response(bad_request("after: not a number"));
        }
        return ok(audit.event_list(r.query_param("resource").value_or(""), after));
    }
    if (what == "prometheus" && r.method == "GET" && prometheus)
        return http_response{200, "text/plain; version=0.0.4; charset=utf-8", prometheus(), {}};
    if (what == "snapshot" && r.method == "POST") {
        backup = store.snapshot();
        return ok(R"({"resourceVersion":")" + std::to_string(backup->rv) + "\"}");
    }
    if (what == "restart" && r.method == "POST" && restart) {
        long long down = 0;
        if (auto d = r.query_param("downSeconds"))
            std::from_chars(d->data(), d->data() + d->size(), down);
        if (r.query_param("restore").value_or("") == "snapshot") {
            if (!backup) return error_response(bad_request("no snapshot to restore"));
            faults.drop_watches(); // the watches of the old state end with the server
            wake_watches();
            store.restore(*backup);
        }
        restart(std::chrono::milliseconds(std::clamp<long long>(down, 0, 600) * 1000));
        return http_response{202, json_type, R"({"restarting":true})", {}};
    }
    return error_response(not_found_path(r.path));
}

} // namespace hpaplus::sim
