// `hpaplus replay`'s input files (cli/replay/recording): the recorded-load file and the autoscaler
// file (YAML or JSON). Any bytes decode or give an error naming what is wrong; what decodes is
// within the limits replay relies on (a positive step, at most 35 days, finite samples, an index
// per series that spec.metrics can have).
#include "cli/replay/recording.hpp"
#include "fuzz/fuzz.hpp"

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus;
    const std::string_view text = fuzz::text(data, size);
    if (const auto load = cli::decode_recording(text)) {
        fuzz::require(load->step.count() > 0, "a recording with a step of zero or less");
        fuzz::require(load->duration() <= cli::max_recording, "a recording above 35 days");
        fuzz::require(!load->series.empty(), "a recording without series");
        for (const auto& [index, values] : load->series)
            for (const auto& v : values)
                fuzz::require(!v || std::isfinite(*v), "a sample that is not a finite number");
    } else {
        fuzz::require(!load.error().text.empty(), "an error without a message");
    }
    if (const auto autoscaler = cli::decode_replay_autoscaler(text)) {
        fuzz::require(!autoscaler->json.empty(), "an autoscaler without its JSON");
        fuzz::require(autoscaler->hpa.spec.max_replicas >= 1, "an autoscaler that was not validated");
    } else {
        fuzz::require(!autoscaler.error().text.empty(), "an error without a message");
    }
    return 0;
}
