// Quantities as the API server writes them: parsing never crashes, and a parsed quantity's
// canonical text parses back to the same value.
#include "core/quantity.hpp"
#include "fuzz/fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using hpaplus::core::quantity;
    const auto q = quantity::parse(hpaplus::fuzz::text(data, size));
    if (!q) return 0;
    const std::string canonical = q->to_string();
    const auto again = quantity::parse(canonical);
    hpaplus::fuzz::require(again && *again == *q, "a canonical quantity parses back to itself");
    (void)q->milli_value();
    (void)q->value();
    (void)q->as_double();
    return 0;
}
