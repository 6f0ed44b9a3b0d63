// Go durations (`1h30m`, `250ms`): parsing never crashes or overflows, and a parsed duration
// formatted as Go does parses back to the same value.
#include "core/duration.hpp"
#include "fuzz/fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus::core;
    const auto d = parse_go_duration(hpaplus::fuzz::text(data, size));
    if (!d) return 0;
    const auto again = parse_go_duration(format_go_duration(*d));
    hpaplus::fuzz::require(again && *again == *d, "a formatted duration parses back");
    return 0;
}
