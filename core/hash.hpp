// core/hash.hpp — FNV-1a, 64 bits: a stable hash of text (the same in every process and release),
// for shard assignment and for telling whether a text changed without keeping it.
#pragma once

#include <cstdint>
#include <string_view>

namespace hpaplus::core {

constexpr std::uint64_t fnv1a(std::string_view text) {
    std::uint64_t h = 14695981039346656037ull;
    for (const char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

} // namespace hpaplus::core
