// sim/resource_type.hpp — what the simulated API server knows about one resource: names for
// discovery, scope, subresources, and the columns `kubectl get` prints.
#pragma once

#include "sim/json_util.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::sim {

struct schema_rules; // sim/apiserver/cel_rules.hpp

struct printer_column {
    std::string name;
    std::string type;      ///< integer | number | string | boolean | date
    std::string json_path; ///< simple dotted path such as .status.replicas
    std::string description;
    std::string format;
    int priority = 0;
};

struct scale_paths {
    std::string spec_replicas;   ///< .spec.replicas
    std::string status_replicas; ///< .status.replicas
    std::string label_selector;  ///< a string field; empty = render spec.selector (Deployments)
};

struct served_version {
    std::string group; ///< "" = core
    std::string version;
};

struct resource_type {
    std::string group; ///< "" = core
    std::string version;
    std::string plural;
    std::string singular;
    std::string kind;
    std::string list_kind;
    std::vector<std::string> short_names;
    std::vector<std::string> categories;
    bool namespaced = true;
    bool status_subresource = false;
    std::optional<scale_paths> scale;
    std::vector<printer_column> columns; ///< empty: the built-in printer or just Name/Age
    bool custom = false;                 ///< served from a CustomResourceDefinition
    bool read_only = false;              ///< computed on request (metrics APIs): get and list only
    bool create_only = false; ///< reviews (TokenReview, SubjectAccessReview): answered, not stored
    std::shared_ptr<const json_doc> schema =
        nullptr; ///< a CRD version's openAPIV3Schema (sim/apiserver/schema.hpp)
    /// Its compiled x-kubernetes-validations (sim/apiserver/cel_rules.hpp), keyed by nodes of
    /// `schema`; null when it has none.
    std::shared_ptr<const schema_rules> rules = nullptr;
    /// Other group-versions served from the same objects by conversion (sim/apiserver/conversion:
    /// HPAs as autoscaling/v1, Events as events.k8s.io/v1).
    std::vector<served_version> converted;
    bool stored_as(std::string_view g, std::string_view v) const {
        return g == group && v == version;
    }
    bool serves(std::string_view g, std::string_view v) const {
        return stored_as(g, v) || std::any_of(converted.begin(), converted.end(), [&](auto& c) {
                   return c.group == g && c.version == v;
               });
    }

    std::string group_version() const { return group.empty() ? version : group + "/" + version; }
    /// `deployments.apps`, `pods` — how Status messages name the resource.
    std::string qualified_plural() const { return group.empty() ? plural : plural + "." + group; }
};

/// The built-in resources the simulated cluster serves.
std::vector<resource_type> builtin_resource_types();

} // namespace hpaplus::sim
