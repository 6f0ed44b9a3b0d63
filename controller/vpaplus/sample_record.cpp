// controller/vpaplus/sample_record.cpp — the JSON lines of --vertical-record-samples.
#include "controller/vpaplus/sample_record.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

namespace hpaplus::controller {
namespace {

using json_writer = rapidjson::Writer<rapidjson::StringBuffer>;

void key_string(json_writer& w, const char* key, std::string_view value) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

// {"vpa": VPA, KIND: {time, pod, container, then what `fields` writes}}
template <class Fields>
std::string line_of(std::string_view vpa, const char* kind, core::time_point at,
                    std::string_view pod, std::string_view container, Fields fields) {
    rapidjson::StringBuffer buffer;
    json_writer w(buffer);
    w.StartObject();
    key_string(w, "vpa", vpa);
    w.Key(kind);
    w.StartObject();
    key_string(w, "time", core::format_rfc3339_nano(at));
    key_string(w, "pod", pod);
    key_string(w, "container", container);
    fields(w);
    w.EndObject();
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

} // namespace

sample_recorder::sample_recorder(const std::string& path)
    : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) {
    if (fd_ < 0)
        throw std::runtime_error("--vertical-record-samples: cannot open " + path + ": " +
                                 std::strerror(errno));
}

sample_recorder::~sample_recorder() {
    ::close(fd_);
}

void sample_recorder::write_line(const std::string& line) {
    if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
        spdlog::warn("--vertical-record-samples: a line was not written: {}", std::strerror(errno));
}

void sample_recorder::sample(std::string_view vpa, core::time_point at, std::string_view pod,
                             std::string_view container, std::optional<std::int64_t> cpu_milli,
                             std::optional<std::int64_t> memory_bytes) {
    write_line(line_of(vpa, "sample", at, pod, container, [&](json_writer& w) {
        if (cpu_milli) key_string(w, "cpu", std::to_string(*cpu_milli) + "m");
        if (memory_bytes) key_string(w, "memory", std::to_string(*memory_bytes));
    }));
}

void sample_recorder::oom(std::string_view vpa, core::time_point at, std::string_view pod,
                          std::string_view container, std::int64_t memory_bytes) {
    write_line(line_of(vpa, "oom", at, pod, container, [&](json_writer& w) {
        key_string(w, "memory", std::to_string(memory_bytes));
    }));
}

void sample_recorder::recommended(std::string_view vpa, core::time_point now) {
    rapidjson::StringBuffer buffer;
    json_writer w(buffer);
    w.StartObject();
    key_string(w, "vpa", vpa);
    key_string(w, "recommended", core::format_rfc3339_nano(now));
    w.EndObject();
    write_line(std::string(buffer.GetString(), buffer.GetSize()) + "\n");
}

} // namespace hpaplus::controller
