// RFC 3339 times: parsing never crashes, a time outside what time_point holds is an error (never a
// wrapped value), and a parsed time written with its fraction parses back to the same instant.
#include "core/time.hpp"
#include "fuzz/fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus::core;
    const auto t = parse_rfc3339(hpaplus::fuzz::text(data, size));
    if (!t) return 0;
    const auto again = parse_rfc3339(format_rfc3339_nano(*t));
    hpaplus::fuzz::require(again && *again == *t, "a written time parses back");
    return 0;
}
