// core/int128.hpp — a 128-bit integer for exact intermediate sums (GCC/Clang extension).
#pragma once

namespace hpaplus::core {
__extension__ using int128 = __int128;
} // namespace hpaplus::core
