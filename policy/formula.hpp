// policy/formula.hpp — the expression language of HPAPlus `Formula` metrics (docs/formula.md):
// numbers, metric names, `+ - * /`, parentheses, `min(...)`, `max(...)` and `abs(...)`.
// Parsing is linear in the text and bounded (length and nesting), so a hostile spec cannot stall
// the controller; a parsed expression is a small stack program.
#pragma once

#include "core/outcome.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::policy {

/// Longest expression text accepted, and deepest nesting of parentheses, calls and signs.
inline constexpr std::size_t max_formula_length = 4096;
inline constexpr std::size_t max_formula_depth = 64;

class formula_expression {
  public:
    /// Parses `text`. Errors say what and where ("column 7: unknown function \"sqrt\""); a division
    /// by a constant zero is an error here, not at evaluation.
    static core::outcome<formula_expression> parse(std::string_view text);

    /// The metric names the expression reads, each once, in order of first use.
    const std::vector<std::string>& inputs() const noexcept { return inputs_; }

    /// The value with `values[i]` standing for inputs()[i]. Errors: a division by zero (naming the
    /// divisor) or a result that is not a finite number.
    core::outcome<double> evaluate(std::span<const double> values) const;

  private:
    enum class op : std::uint8_t { number, input, add, sub, mul, div, neg, abs, min, max };
    struct step {
        op code = op::number;
        std::uint32_t arg = 0; ///< input index, argument count (min/max), divisor text (div)
        double number = 0;
    };
    friend class formula_parser;

    std::vector<step> program_;
    std::vector<std::string> inputs_;
    std::vector<std::string> divisors_; ///< the source text of each divisor, for error messages
    std::size_t stack_size_ = 0;
};

} // namespace hpaplus::policy
