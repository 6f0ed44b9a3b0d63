// Formula expressions from autoscaler specs: parsing never crashes or recurses without bound, a
// parsed expression evaluates on any input values to a finite number or an error, and every
// input it names is a DNS-1123-shaped word of the text.
#include "policy/formula.hpp"
#include "fuzz/fuzz.hpp"

#include <cmath>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using hpaplus::policy::formula_expression;
    const std::string_view text = hpaplus::fuzz::text(data, size);
    const auto e = formula_expression::parse(text);
    if (!e) {
        hpaplus::fuzz::require(!e.error().text.empty(), "a parse error says why");
        return 0;
    }
    for (const auto& name : e->inputs())
        hpaplus::fuzz::require(!name.empty() && text.find(name) != std::string_view::npos,
                               "an input is a word of the text");
    for (double fill : {0.0, 1.0, -2.5, 1e300}) {
        const std::vector<double> values(e->inputs().size(), fill);
        const auto v = e->evaluate(values);
        hpaplus::fuzz::require(!v || std::isfinite(*v), "a value is finite");
    }
    return 0;
}
