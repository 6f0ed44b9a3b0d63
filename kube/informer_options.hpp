// kube/informer_options.hpp — how an informer lists and watches (a light header for option
// structs and flags).
#pragma once

#include <rapidjson/fwd.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace hpaplus::kube {

struct decoded_record; // kube/object_cache.hpp
struct cached_object;

struct informer_options {
    std::string label_selector;
    std::size_t page_size = 500;
    std::chrono::seconds watch_timeout{300}; ///< server-side timeoutSeconds of each watch
    std::chrono::milliseconds idle_timeout{
        120000}; ///< no event or bookmark for this long: reconnect
    std::chrono::milliseconds initial_backoff{800};
    /// The longest wait between tries while lists or watches fail (client-go's is 30 s): short,
    /// so that the cache catches up within seconds of the server coming back, while the writes
    /// that depend on it are held (max_stale).
    std::chrono::milliseconds max_backoff{5000};
    /// How long the cache may go without a working list or watch and still count as current:
    /// past it, current() is false — what depends on it is not written — until a full list has
    /// been applied (and a second more, for the caches that mirror it on other threads).
    std::chrono::milliseconds max_stale{5000};
    /// For a kind whose CustomResourceDefinition may not be installed: a 404 on the list counts as
    /// an empty list (the informer is synced), and the list is tried again with backoff until the
    /// kind is served.
    bool absent_means_empty = false;
    /// Decodes each object once as it enters the cache into its kind's typed record
    /// (cached_object::record; client-go's SetTransform and typed listers in one), and the cache
    /// keeps no JSON. Null: the cache keeps each object's JSON text instead. `meta` is the cached
    /// object as far as it is made (key, labels — shared by equal sets —, versions).
    std::function<decoded_record(const rapidjson::Value& object, const cached_object& meta)> decode;
};

} // namespace hpaplus::kube
