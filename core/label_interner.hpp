// core/label_interner.hpp — one shared copy of each distinct label set, for caches that hold many
// alike (the pods of one ReplicaSet carry the same labels).
#pragma once

#include "core/label_selector.hpp"

#include <cstddef>
#include <unordered_set>

namespace hpaplus::core {

/// Not thread-safe: one per cache, used by the thread that fills it. The sets it hands out may be
/// copied and dropped on any thread.
class label_interner {
  public:
    /// A set equal to `labels` that shares its buffer with every other set interned so equal.
    label_map intern(label_map labels);
    /// Distinct sets held (some perhaps no longer used anywhere else, until the next sweep).
    std::size_t size() const noexcept { return sets_.size(); }

  private:
    struct by_bytes {
        std::size_t operator()(const label_map& labels) const noexcept;
    };
    /// Drops the sets only the interner still holds.
    void sweep();
    std::unordered_set<label_map, by_bytes> sets_;
    /// Sweeps when the table reaches this size, then at twice what is left: amortized O(1).
    std::size_t sweep_at_ = 64;
};

} // namespace hpaplus::core
