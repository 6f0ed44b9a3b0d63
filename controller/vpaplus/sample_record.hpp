// controller/vpaplus/sample_record.hpp — `--vertical-record-samples FILE`: every usage sample and
// OOM kill a VPAPlus feeds into its history, and each recommendation it wrote, as JSON lines in the
// form `hpaplus recommend` reads (docs/vertical.md, "Record what VPAPlus saw"). One writer per
// lane; each line is one write() to a file opened O_APPEND, so the lanes' lines never interleave.
#pragma once

#include "core/time.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hpaplus::controller {

class sample_recorder {
  public:
    /// Opens (creates) `path` for appending; throws std::runtime_error naming it when it cannot.
    explicit sample_recorder(const std::string& path);
    ~sample_recorder();
    sample_recorder(const sample_recorder&) = delete;
    sample_recorder& operator=(const sample_recorder&) = delete;

    /// `vpa` is namespace/name. {"vpa", "sample": {time, pod, container, cpu, memory}}
    void sample(std::string_view vpa, core::time_point at, std::string_view pod,
                std::string_view container, std::optional<std::int64_t> cpu_milli,
                std::optional<std::int64_t> memory_bytes);
    /// {"vpa", "oom": {time, pod, container, memory}}
    void oom(std::string_view vpa, core::time_point at, std::string_view pod,
             std::string_view container, std::int64_t memory_bytes);
    /// {"vpa", "recommended": now}: the status written at `now` holds the recommendation of
    /// everything recorded for `vpa` before this line.
    void recommended(std::string_view vpa, core::time_point now);

  private:
    void write_line(const std::string& line);
    int fd_ = -1;
};

} // namespace hpaplus::controller
