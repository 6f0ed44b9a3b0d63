// core/label_interner.cpp — one shared copy of each distinct label set.
#include "core/label_interner.hpp"

#include <algorithm>
#include <functional>
#include <string_view>

namespace hpaplus::core {

std::size_t label_interner::by_bytes::operator()(const label_map& labels) const noexcept {
    return std::hash<std::string_view>{}(labels.bytes());
}

label_map label_interner::intern(label_map labels) {
    if (labels.empty()) return labels;
    if (const auto it = sets_.find(labels); it != sets_.end()) return *it;
    if (sets_.size() >= sweep_at_) {
        sweep();
        sweep_at_ = std::max<std::size_t>(64, 2 * sets_.size());
    }
    sets_.insert(labels);
    return labels;
}

void label_interner::sweep() {
    // A use count of 1 is the interner's own: no set anywhere shares the buffer, and none can come
    // to share it but through intern, on this thread.
    std::erase_if(sets_, [](const label_map& labels) { return labels.data_.use_count() == 1; });
}

} // namespace hpaplus::core
