// cli/read_input.hpp — a command's input file (or stdin for "-"), read with a size limit so that an
// endless stream cannot exhaust memory.
#pragma once

#include "core/outcome.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace hpaplus::cli {

inline constexpr std::size_t max_input_bytes = 64u << 20;

/// The whole of `path` ("-" = stdin); an error says the file cannot be opened or is too large.
core::outcome<std::string> read_input(std::string_view path, std::size_t limit = max_input_bytes);

} // namespace hpaplus::cli
