// demo/svg.hpp — the small pieces every chart HPAPlus draws shares (the demo's report and
// `hpaplus replay`'s): numbers as SVG wants them, escaped text, round axis maxima.
#pragma once

#include <string>

namespace hpaplus::demo::svg {

/// A coordinate: one decimal.
std::string num(double v);
/// An axis label: `4`, `2.5`, `0.8`.
std::string short_number(double v);
/// Text safe inside SVG/HTML elements and attribute values.
std::string escape(const std::string& s);
/// A "nice" axis maximum (1, 2, 5 × 10^n) at or above `v`.
double nice_max(double v);

} // namespace hpaplus::demo::svg
