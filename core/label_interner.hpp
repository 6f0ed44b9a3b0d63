// core/label_interner.hpp — one shared copy of each distinct label set, for caches that hold many
// alike (the pods of one ReplicaSet carry the same labels).
#pragma once

#include "core/interner.hpp"
#include "core/label_selector.hpp"

#include <cstddef>

namespace hpaplus::core {

/// Not thread-safe: one per cache, used by the thread that fills it. The sets it hands out may be
/// copied and dropped on any thread.
class label_interner {
  public:
    /// A set equal to `labels` that shares its buffer with every other set interned so equal.
    label_map intern(label_map labels) {
        return labels.empty() ? labels : sets_.intern(std::move(labels));
    }
    /// Distinct sets held (some perhaps no longer used anywhere else, until the next sweep).
    std::size_t size() const noexcept { return sets_.size(); }

  private:
    struct by_bytes {
        std::size_t operator()(const label_map& labels) const noexcept;
    };
    /// A use count of 1 is the interner's own: no set anywhere shares the buffer, and none can
    /// come to share it but through intern, on this thread.
    static bool held_here_only(const label_map& labels) noexcept;
    struct unused {
        bool operator()(const label_map& labels) const noexcept { return held_here_only(labels); }
    };
    interner<label_map, by_bytes, std::equal_to<>, unused> sets_;
};

} // namespace hpaplus::core
