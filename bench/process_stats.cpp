// bench/process_stats.cpp — /proc/<pid>/stat and /proc/<pid>/status.
#include "process_stats.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace hpaplus::bench {
namespace {

std::string proc_file(int pid, const char* name) {
    return "/proc/" + (pid == 0 ? std::string("self") : std::to_string(pid)) + "/" + name;
}

} // namespace

std::chrono::duration<double> process_cpu(int pid) {
    if (pid == 0) { // this process: getrusage has microseconds, /proc only clock ticks
        rusage u{};
        getrusage(RUSAGE_SELF, &u);
        const auto us = [](const timeval& t) { return t.tv_sec * 1e6 + t.tv_usec; };
        return std::chrono::duration<double>((us(u.ru_utime) + us(u.ru_stime)) / 1e6);
    }
    std::ifstream in(proc_file(pid, "stat"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const auto close = text.rfind(')');
    if (close == std::string::npos) return std::chrono::duration<double>(0);
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; fields >> field; ++i) { // field 3 is the state
        if (i == 14) utime = std::stoull(field);
        if (i == 15) {
            stime = std::stoull(field);
            break;
        }
    }
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    return std::chrono::duration<double>(static_cast<double>(utime + stime) / ticks);
}

std::uint64_t resident_bytes(int pid) {
    std::ifstream in(proc_file(pid, "status"));
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    }
    return 0;
}

} // namespace hpaplus::bench
