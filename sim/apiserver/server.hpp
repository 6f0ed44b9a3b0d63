// sim/apiserver/server.hpp — the simulated API server's state and handlers, shared by the files
// of sim/apiserver/ that each hold one job (routing, CRDs, discovery, collections, watch,
// subresources, metrics APIs, faults). Internal to sim/apiserver.
#pragma once

#include "net/tls.hpp"
#include "sim/apiserver/api_server.hpp"
#include "sim/apiserver/audit.hpp"
#include "sim/apiserver/rbac.hpp"
#include "sim/apiserver/request.hpp"

#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hpaplus::sim {

namespace asio = boost::asio;
using net::http_request;
using net::http_responder;
using net::http_response;

struct openapi_v2_document;

/// A SubjectAccessReview is denied when a rule matches: every non-empty field equals the
/// review's (`group` is one of the user's groups; `path` a non-resource request's path).
struct deny_rule {
    std::string user, group, verb, api_group, resource, ns, path;
};

struct api_server::impl {
    asio::any_io_executor executor;
    object_store& store;
    api_server_options options;
    std::set<asio::steady_timer*> waiting; ///< idle watches, woken on every write
    std::uint64_t expire_epoch = 0;        ///< bumped to end every watch with 410
    bool stopped = false;
    api_server::usage_function usage;      ///< resource metrics, when served
    api_server::log_function pod_logs;     ///< the kubelet's container logs, when served
    api_server::stats_function node_stats; ///< the kubelet's /stats/summary, when served
    fault_injector faults;
    std::function<void(std::chrono::milliseconds)> restart;
    std::optional<store_snapshot> backup; ///< POST /sim/v1/snapshot; a restart may restore it
    std::function<std::string()> prometheus;
    admission* admission_chain = nullptr; ///< mutating webhooks, when the cluster has them
    std::uint64_t crd_changes = 0; ///< bumped on every CRD write: the served kinds may change
    std::uint64_t openapi_v2_built_at = ~std::uint64_t{0};
    std::shared_ptr<const openapi_v2_document> openapi_v2_cache;
    /// The aggregator's client certificate (CN front-proxy-client) and its CA, published in
    /// kube-system/extension-apiserver-authentication.
    net::tls_material front_proxy;
    std::map<std::string, sim_user> tokens; ///< bearer token → user (set in bootstrap and tests)
    std::vector<deny_rule> deny_rules;      ///< SubjectAccessReview: denied before RBAC is asked
    rbac_authorizer rbac;                   ///< every request but the admin's
    audit_log audit;                        ///< every write answered (GET /sim/v1/audit)

    // Records a write (any method but GET) of `t` that `user` sent and `answer` answered.
    void audit_write(const http_request& r, const target& t, const sim_user& user,
                     const http_response& answer, core::time_point received);

    // --- lifecycle and routing (api_server.cpp)

    impl(asio::any_io_executor ex, object_store& s, api_server_options o);

    void wake_watches();

    static core::time_point now_time();

    asio::awaitable<void> handle(http_request& r, http_responder& out);

    // --- CustomResourceDefinitions (crd_registry.cpp)

    std::optional<resource_type> crd_type(const json& crd) const;

    void on_crd_change(const watch_event& e);

    // --- discovery and OpenAPI (discovery.cpp)

    std::string resource_list(const std::string& gv);
    /// apidiscovery.k8s.io/v2 APIGroupDiscoveryList of /api (`core`) or /apis; nullopt when a
    /// group is served by an aggregated server elsewhere (the legacy lists answer then).
    std::optional<std::string> aggregated_discovery(bool core);

    // Every served API group and its versions, the preferred (stored) one first.
    std::vector<std::pair<std::string, std::vector<std::string>>> groups();

    static json group_json(const std::string& group, const std::vector<std::string>& versions,
                           json_alloc& a);

    // OpenAPI v3, just enough for kubectl to see that this server validates fields itself
    // (a PATCH operation per kind carrying x-kubernetes-group-version-kind and a fieldValidation
    // parameter), so `kubectl apply/create -f` need no client-side schema.
    http_response openapi_v3(const std::vector<std::string>& parts);

    // OpenAPI v2 as kube-openapi serves it: JSON or protobuf by Accept (406 for anything else),
    // an ETag per encoding, 304 for a matching If-None-Match. Rebuilt only after a CRD changed.
    http_response openapi_v2(const http_request& r);

    std::optional<http_response> discovery(const http_request& r,
                                           const std::vector<std::string>& parts);

    // --- objects and collections (collections.cpp)

    static bool wants_table(const http_request& r);

    // The apiVersion and JSON of an object as the request's version shows it (HPAs are stored
    // as autoscaling/v2 and also served as v1: sim/apiserver/hpa_versions).
    static std::string served_group_version(const resource_type& type, const target& t);
    static std::string served_text(const resource_type& type, const target& t,
                                   const stored_object& o);

    // Who writes (metadata.managedFields): the fieldManager parameter or the User-Agent.
    static write_origin origin_of(const http_request& r, const resource_type& type,
                                  const target& t);

    std::optional<filter> make_filter(const http_request& r, const target& t, api_error& error);

    http_response list(const http_request& r, collection& c, const target& t);

    // Every request but a watch: one complete response.
    http_response objects(http_request& r, target t);

    // List, create, or delete a collection.
    http_response collection_request(const http_request& r, collection& c, target& t);

    // Parses a request body through net::parse_json (size and nesting limits, no recursion); a
    // 400 naming what is wrong otherwise.
    static std::optional<api_error> parse_body(const http_request& r, json_doc& body);

    // A server-side apply (`application/apply-patch+yaml`) of the object `current` (nullptr:
    // absent, so the apply creates it): sim/apiserver/server_side_apply.
    http_response apply(const http_request& r, collection& c, const target& t,
                        const object_ptr& current);

    // Applies a PATCH body to `base` according to its content type.
    std::optional<api_error> apply_patch(const http_request& r, const resource_type& type,
                                         json_doc& base);

    // A custom resource is pruned, defaulted and validated against its CRD's schema; with
    // `fieldValidation=Strict` (what kubectl sends by default) an unknown field is refused. Its
    // CEL rules run then, with `old` (the stored object) on an update.
    static std::optional<api_error> check_schema(const http_request& r, const resource_type& type,
                                                 const std::string& name, json_doc& body,
                                                 const json* old = nullptr);

    object_ptr mark_terminating(collection& namespaces, const object_ptr& ns);
    // DeleteOptions, from the query and the body (a JSON DeleteOptions); 400 when the body is
    // not one.
    struct delete_options {
        std::string propagation; ///< "" (the kind's default), Background, Orphan, Foreground
        std::optional<std::int64_t> grace_seconds;
        std::optional<std::string> uid, resource_version; ///< preconditions
    };
    static api_result<delete_options> delete_options_of(const http_request& r);
    // 409 Conflict when a precondition does not hold (the object is kept), as the registry's
    // storage answers it.
    static std::optional<api_error>
    check_preconditions(const resource_type& type, const stored_object& o, const delete_options& d);
    std::vector<std::pair<collection*, object_ptr>> dependents_of(const std::string& ns,
                                                                  const std::string& uid);
    object_ptr delete_propagating(collection& c, const object_ptr& owner, bool orphan);

    // Mutating admission of a create: the webhooks' patches end up in the request body, which
    // the create then stores (after schema validation, as on the real server).
    asio::awaitable<std::optional<api_error>> admit(http_request& r, const target& t);

    // --- watch (watch.cpp)

    asio::awaitable<void> watch(const http_request& r, const target& t, http_responder& out);
    /// GET pods/NAME/log (sim/apiserver/kubelet.cpp).
    asio::awaitable<void> pod_log(const http_request& r, const target& t, http_responder& out);
    /// pods/NAME/exec, attach, portforward (sim/apiserver/kubelet.cpp).
    http_response kubelet_stream(const http_request& r, const target& t);

    // --- subresources: scale, eviction, resize (subresources.cpp)

    // Scale subresource: build autoscaling/v1 Scale from the object.
    api_result<std::string> scale_of(const collection& c, const stored_object& o);

    http_response write_scale(collection& c, const target& t, const stored_object& current,
                              const json& scale);

    // pods/eviction (policy/v1 Eviction): deletes the pod unless a disruption budget forbids it.
    http_response evict(const http_request& r, collection& pods, const stored_object& pod);

    // pods/resize: only container resources change; the simulated kubelet then actuates it.
    http_response resize(const http_request& r, collection& pods, const stored_object& pod);

    // --- metrics APIs (metrics_apis.cpp)

    // metrics.k8s.io/v1beta1: a PodMetrics computed from the workload model, like
    // metrics-server, appended to `out`; `times` are its creationTimestamp and timestamp.
    struct pod_metrics_times {
        core::rfc3339_text created, sampled;
        explicit pod_metrics_times(core::time_point now);
    };
    void append_pod_metrics(std::string& out, const stored_object& pod,
                            const std::pair<std::int64_t, std::int64_t>& use,
                            const pod_metrics_times& times);

    http_response resource_metrics(const http_request& r, const target& t);

    http_response metrics_apis(const http_request& r, const std::vector<std::string>& parts);

    // --- authentication, authorization and reviews (access.cpp)

    // The front-proxy CA and client certificate, the admin token and the ConfigMap
    // kube-system/extension-apiserver-authentication.
    void bootstrap_authentication();

    // The caller: a known bearer token's user; the admin when the request has no token (the
    // sim's own convenience); 401 for a token it does not know.
    api_result<sim_user> authenticate(const http_request& r) const;

    // The user the caller acts as: itself, or who the Impersonate-* headers name when RBAC lets
    // it impersonate them (403 otherwise).
    api_result<sim_user> impersonate(const http_request& r, sim_user caller);

    // Authentication, impersonation and authorization of a request: the user it runs as, or the
    // 401/403 it is answered with.
    api_result<sim_user> admit_caller(const http_request& r);

    // POST of a TokenReview, SubjectAccessReview, LocalSubjectAccessReview,
    // SelfSubjectAccessReview, SelfSubjectRulesReview or SelfSubjectReview: the review with its
    // status, as `user` asks it.
    http_response review(const http_request& r, const target& t, const sim_user& user);

    // POST serviceaccounts/NAME/token (TokenRequest): a token that authenticates as the
    // ServiceAccount.
    http_response token_request(const http_request& r, const target& t);

    // /sim/v1/tokens, /sim/v1/authorization and /sim/v1/rbac-usage.
    std::optional<http_response> auth_control(const http_request& r, const std::string& what);

    // --- the aggregation layer (aggregation.cpp)

    // The APIService that takes /apis/GROUP/VERSION to a Service, if there is one.
    object_ptr aggregated(const std::string& group, const std::string& version);
    std::vector<std::pair<std::string, std::string>> aggregated_group_versions();

    // The request sent on to the APIService's Service endpoint, as kube-apiserver's proxy sends
    // it: the front-proxy client certificate, the caller in X-Remote-User/X-Remote-Group.
    asio::awaitable<http_response> proxy(const http_request& r, const stored_object& apiservice,
                                         const sim_user& user);

    // --- faults and /sim/v1 controls (control.cpp)

    // The verb in RBAC's terms and the resource (a subresource counts as itself) for fault rules.
    static std::pair<std::string, std::string>
    verb_and_resource(const http_request& r, const std::vector<std::string>& parts);

    // Applies latency and injected errors; returns true when the request was answered with an
    // error.
    /// A list at a resourceVersion the store has not reached: waits for it (fresh_wait), then
    /// the 504 "Too large resource version".
    asio::awaitable<std::optional<api_error>> wait_until_fresh(const http_request& r);

    /// nullopt: answered with an injected error; otherwise how long to hold the answer back.
    asio::awaitable<std::optional<std::chrono::milliseconds>>
    apply_faults(const http_request& r, const std::vector<std::string>& parts, http_responder& out);

    // /sim/v1/...: the simulated cluster's own controls.
    http_response control(const http_request& r, const std::vector<std::string>& parts);
};

} // namespace hpaplus::sim
