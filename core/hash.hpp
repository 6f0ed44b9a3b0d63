// core/hash.hpp — FNV-1a, 64 bits: a stable hash of text (the same in every process and release),
// for shard assignment and for telling whether a text changed without keeping it; and the
// transparent hash of unordered maps keyed by strings.
#pragma once

#include <cstdint>
#include <functional>
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

/// Hashes a string or a view alike, so an unordered map keyed by std::string (with
/// std::equal_to<>) is searched by a view without building a string.
struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
        return std::hash<std::string_view>{}(s);
    }
};

} // namespace hpaplus::core
