// core/text.hpp — helpers for text built by appending to a buffer.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

namespace hpaplus::core {

/// Appends `n` in decimal, without a temporary string.
inline void append_decimal(std::string& out, std::int64_t n) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
}

} // namespace hpaplus::core
