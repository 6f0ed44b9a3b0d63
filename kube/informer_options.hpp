// kube/informer_options.hpp — how an informer lists and watches (a light header for option
// structs and flags).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace hpaplus::kube {

struct json_shape;

struct informer_options {
    std::string label_selector;
    std::size_t page_size = 500;
    std::chrono::seconds watch_timeout{300}; ///< server-side timeoutSeconds of each watch
    std::chrono::milliseconds idle_timeout{
        120000}; ///< no event or bookmark for this long: reconnect
    std::chrono::milliseconds initial_backoff{800};
    std::chrono::milliseconds max_backoff{30000};
    /// For a kind whose CustomResourceDefinition may not be installed: a 404 on the list counts as
    /// an empty list (the informer is synced), and the list is tried again with backoff until the
    /// kind is served.
    bool absent_means_empty = false;
    /// What of each object the cache keeps (kube/json_shape.hpp); null = all of it.
    std::shared_ptr<const json_shape> keep;
    /// Pods only (client-go's SetTransform): each pod is decoded as it enters the cache
    /// (cached_object::pod); an undecodable one keeps a null pod.
    bool decode_pods = false;
    /// false: the cache keeps no JSON (cached_object::json stays empty), only what is decoded —
    /// for pods when nothing reads their JSON.
    bool keep_json = true;
};

} // namespace hpaplus::kube
