// bench/process_stats.hpp — CPU time and resident memory of a process (Linux /proc), and the
// current thread's CPU time.
#pragma once

#include <chrono>
#include <cstdint>

namespace hpaplus::bench {

/// User + system CPU time of process `pid` (0 = this process).
std::chrono::duration<double> process_cpu(int pid = 0);
/// Resident set size in bytes of process `pid` (0 = this process).
std::uint64_t resident_bytes(int pid = 0);

} // namespace hpaplus::bench
