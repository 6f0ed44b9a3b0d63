// controller/runtime/process_metrics.cpp — /proc/self read into the process_* series.
#include "controller/runtime/process_metrics.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

namespace hpaplus::controller {
namespace {

// At most `limit` bytes of a file (/proc files report no size; /proc/stat grows with the CPUs).
std::string read_small_file(const char* path, std::size_t limit) {
    std::ifstream in(path, std::ios::binary);
    std::string text(limit, '\0');
    in.read(text.data(), static_cast<std::streamsize>(limit));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

// The next space-separated field of `text` from `at`, as a number of type T.
template <class T> bool next_number(std::string_view text, std::size_t& at, T& out) {
    while (at < text.size() && text[at] == ' ')
        ++at;
    const char* begin = text.data() + at;
    const char* end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(begin, end, out);
    if (ec != std::errc() || (stop != end && *stop != ' ' && *stop != '\n')) return false;
    at = static_cast<std::size_t>(stop - text.data());
    return true;
}

// Skips one space-separated field of any text.
bool skip_field(std::string_view text, std::size_t& at) {
    while (at < text.size() && text[at] == ' ')
        ++at;
    if (at >= text.size()) return false;
    while (at < text.size() && text[at] != ' ')
        ++at;
    return true;
}

} // namespace

std::optional<proc_stat> parse_proc_stat(std::string_view text) {
    const auto close = text.rfind(')');
    if (close == std::string_view::npos) return std::nullopt;
    std::size_t at = close + 1;
    proc_stat s;
    // Fields 3 (state) to 13 come first; then utime (14), stime (15); 16–21; starttime (22),
    // vsize (23), rss (24).
    for (int field = 3; field <= 13; ++field)
        if (!skip_field(text, at)) return std::nullopt;
    if (!next_number(text, at, s.user_ticks) || !next_number(text, at, s.system_ticks))
        return std::nullopt;
    for (int field = 16; field <= 21; ++field)
        if (!skip_field(text, at)) return std::nullopt;
    if (!next_number(text, at, s.start_ticks) || !next_number(text, at, s.virtual_bytes) ||
        !next_number(text, at, s.resident_pages))
        return std::nullopt;
    return s;
}

std::optional<unsigned long long> parse_boot_time(std::string_view text) {
    for (std::size_t line = 0; line < text.size();) {
        const auto end = std::min(text.find('\n', line), text.size());
        const std::string_view l = text.substr(line, end - line);
        if (l.starts_with("btime ")) {
            std::size_t at = 5;
            unsigned long long seconds = 0;
            if (next_number(l, at, seconds)) return seconds;
            return std::nullopt;
        }
        line = end + 1;
    }
    return std::nullopt;
}

process_sample read_process_sample() {
    process_sample out;
    const long ticks = ::sysconf(_SC_CLK_TCK);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (const auto stat = parse_proc_stat(read_small_file("/proc/self/stat", 4096));
        stat && ticks > 0) {
        out.cpu_seconds =
            static_cast<double>(stat->user_ticks + stat->system_ticks) / static_cast<double>(ticks);
        out.virtual_bytes = static_cast<double>(stat->virtual_bytes);
        out.resident_bytes = static_cast<double>(stat->resident_pages) * static_cast<double>(page);
        if (const auto boot = parse_boot_time(read_small_file("/proc/stat", 1 << 20)))
            out.start_time_seconds =
                static_cast<double>(*boot) +
                static_cast<double>(stat->start_ticks) / static_cast<double>(ticks);
    }
    std::error_code ec;
    std::size_t fds = 0;
    for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
         it.increment(ec))
        ++fds;
    out.open_fds = static_cast<double>(fds);
    if (rlimit limit{}; ::getrlimit(RLIMIT_NOFILE, &limit) == 0)
        out.max_fds = limit.rlim_cur == RLIM_INFINITY ? 0 : static_cast<double>(limit.rlim_cur);
    return out;
}

} // namespace hpaplus::controller
