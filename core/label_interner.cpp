// core/label_interner.cpp — one shared copy of each distinct label set.
#include "core/label_interner.hpp"

#include <functional>
#include <string_view>

namespace hpaplus::core {

std::size_t label_interner::by_bytes::operator()(const label_map& labels) const noexcept {
    return std::hash<std::string_view>{}(labels.bytes());
}

bool label_interner::held_here_only(const label_map& labels) noexcept {
    return labels.data_.use_count() == 1;
}

} // namespace hpaplus::core
