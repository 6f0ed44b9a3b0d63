// fuzz/fuzz.hpp — what every harness shares: the input as text, and a check that stops the run
// (libFuzzer reports it as a crash with the input) when an invariant does not hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace hpaplus::fuzz {

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

inline void require(bool holds, const char* what) {
    if (holds) return;
    std::fprintf(stderr, "invariant broken: %s\n", what);
    __builtin_trap();
}

} // namespace hpaplus::fuzz
