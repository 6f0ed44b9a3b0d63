// core/interner.hpp — one shared copy of each distinct value, for caches that hold many alike (the
// pods of one ReplicaSet carry the same labels and the same template).
#pragma once

#include <algorithm>
#include <cstddef>
#include <unordered_set>

namespace hpaplus::core {

/// Hands out the copy it holds of a value equal to the one given (a shared value: copying it costs
/// a reference count). A value that no one but the interner holds any more — `Unused` tells — is
/// dropped by a sweep when the table reaches twice what the last sweep left: amortized O(1).
/// Not thread-safe: one per cache, used by the thread that fills it; the values it hands out may
/// be copied and dropped on any thread.
template <class T, class Hash, class Equal, class Unused> class interner {
  public:
    T intern(T value) {
        if (const auto it = held_.find(value); it != held_.end()) return *it;
        if (held_.size() >= sweep_at_) {
            std::erase_if(held_, Unused{});
            sweep_at_ = std::max<std::size_t>(64, 2 * held_.size());
        }
        held_.insert(value);
        return value;
    }
    /// Distinct values held (some perhaps no longer used anywhere else, until the next sweep).
    std::size_t size() const noexcept { return held_.size(); }

  private:
    std::unordered_set<T, Hash, Equal> held_;
    std::size_t sweep_at_ = 64;
};

} // namespace hpaplus::core
