// controller/runtime/process_metrics.hpp — the process's own resource use, as Prometheus's Go and
// Python clients export it (`process_cpu_seconds_total`, `process_resident_memory_bytes`, …): read
// from /proc at scrape time, so a dashboard for any Kubernetes controller shows HPAPlus too.
#pragma once

#include <optional>
#include <string_view>

namespace hpaplus::controller {

/// The fields of /proc/PID/stat that the process metrics use, in the kernel's units.
struct proc_stat {
    unsigned long long user_ticks = 0;    ///< utime, field 14
    unsigned long long system_ticks = 0;  ///< stime, field 15
    unsigned long long start_ticks = 0;   ///< starttime, field 22: clock ticks after boot
    unsigned long long virtual_bytes = 0; ///< vsize, field 23
    long long resident_pages = 0;         ///< rss, field 24
};

/// Parses the text of /proc/PID/stat. The command (field 2) is in parentheses and may hold any
/// byte, parentheses and spaces included, so the fields are counted from its last ')'. nullopt
/// when the text is not such a line (too few fields, a field that is not a number).
std::optional<proc_stat> parse_proc_stat(std::string_view text);

/// The `btime` line of /proc/stat: the boot time in seconds since the epoch (nullopt: none).
std::optional<unsigned long long> parse_boot_time(std::string_view proc_stat_text);

struct process_sample {
    double cpu_seconds = 0; ///< user + system
    double resident_bytes = 0;
    double virtual_bytes = 0;
    double open_fds = 0;
    double max_fds = 0;            ///< the soft RLIMIT_NOFILE
    double start_time_seconds = 0; ///< since the epoch
};

/// This process's sample (fields it cannot read stay 0). Reads a few small files: call it at
/// scrape time, not on a hot path.
process_sample read_process_sample();

} // namespace hpaplus::controller
