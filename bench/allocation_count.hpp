// bench/allocation_count.hpp — how many times the benchmark process called operator new: the
// steady pass's allocations per reconcile (docs/performance.md, G4). Counted by replacing the
// global operator new (allocation_count.cpp) and forwarding to malloc, so a preloaded allocator
// (jemalloc, mimalloc) still serves them. Direct malloc calls (rapidjson's pool chunks, C
// libraries) are not counted. Sanitizer builds replace operator new themselves: there the count
// is not kept and `allocations_counted()` is false.
#pragma once

#include <cstdint>

namespace hpaplus::bench {

/// operator new calls since start-up, on every thread.
std::uint64_t allocations();
/// Whether `allocations()` counts (false in sanitizer builds).
bool allocations_counted();

} // namespace hpaplus::bench
