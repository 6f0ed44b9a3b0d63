// Label selectors in their string form: parsing never crashes, a parsed selector's string form
// parses back to the same selector, and matching works on any of them.
#include "core/label_selector.hpp"
#include "fuzz/fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus::core;
    const auto selector = parse_label_selector(hpaplus::fuzz::text(data, size));
    if (!selector) return 0;
    const auto again = parse_label_selector(to_string(*selector));
    hpaplus::fuzz::require(again && *again == *selector, "a selector's string form parses back");
    label_map labels;
    labels["app"] = "web";
    labels["tier"] = "a";
    (void)selector->matches(labels);
    return 0;
}
