// policy/formula.cpp — a recursive-descent parser (depth-bounded, one pass) that compiles a Formula
// expression into a postfix program, and the program's evaluator.
#include "policy/formula.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace hpaplus::policy {

namespace {

bool is_lower_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

} // namespace

// expr  := term (('+' | '-') term)*
// term  := unary (('*' | '/') unary)*
// unary := ('-' | '+') unary | primary
// primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
class formula_parser {
  public:
    explicit formula_parser(std::string_view text) : text_(text) {}

    core::outcome<formula_expression> run() {
        if (text_.size() > max_formula_length)
            return core::error_message("the expression is longer than " +
                                       std::to_string(max_formula_length) + " characters");
        skip_space();
        if (pos_ == text_.size()) return core::error_message("the expression is empty");
        expression();
        if (error_.empty() && pos_ < text_.size()) fail("unexpected \"" + token_text() + "\"");
        if (!error_.empty())
            return core::error_message("column " + std::to_string(error_column_ + 1) + ": " +
                                       error_);
        out_.stack_size_ = max_stack_;
        return core::success(std::move(out_));
    }

  private:
    // What the parser knows about a subexpression: a constant has a value known now.
    struct operand {
        bool constant = false;
        double value = 0;
    };

    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t depth_ = 0;
    std::size_t stack_ = 0;
    std::size_t max_stack_ = 0;
    std::string error_;
    std::size_t error_column_ = 0;
    formula_expression out_;

    void fail(std::string message) {
        if (!error_.empty()) return;
        error_ = std::move(message);
        error_column_ = pos_;
    }
    bool failed() const { return !error_.empty(); }

    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                       text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }
    bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
    bool accept(char c) {
        if (!at(c)) return false;
        ++pos_;
        skip_space();
        return true;
    }
    // The offending character for a message: printable ASCII as is, any other byte as \xNN, so
    // the message (a condition, an Event) stays valid UTF-8 whatever the spec holds.
    std::string token_text() const {
        if (pos_ >= text_.size()) return "end of expression";
        const auto c = static_cast<unsigned char>(text_[pos_]);
        if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
        static const char hex[] = "0123456789abcdef";
        return std::string("\\x") + hex[c >> 4] + hex[c & 15];
    }

    void emit(formula_expression::op code, std::uint32_t arg = 0, double number = 0,
              std::size_t pops = 0, std::size_t pushes = 1) {
        out_.program_.push_back({code, arg, number});
        stack_ = stack_ - pops + pushes;
        max_stack_ = std::max(max_stack_, stack_);
    }

    // Depth guard for every construct that recurses.
    bool enter() {
        if (++depth_ > max_formula_depth) {
            fail("the expression nests deeper than " + std::to_string(max_formula_depth) +
                 " levels");
            return false;
        }
        return true;
    }

    operand expression() {
        if (!enter()) return {};
        operand left = term();
        while (!failed() && (at('+') || at('-'))) {
            const bool add = text_[pos_] == '+';
            accept(text_[pos_]);
            const operand right = term();
            emit(add ? formula_expression::op::add : formula_expression::op::sub, 0, 0, 2);
            left = {left.constant && right.constant,
                    add ? left.value + right.value : left.value - right.value};
        }
        --depth_;
        return left;
    }

    operand term() {
        operand left = unary();
        while (!failed() && (at('*') || at('/'))) {
            const bool mul = text_[pos_] == '*';
            accept(text_[pos_]);
            const std::size_t divisor_start = pos_;
            const operand right = unary();
            if (failed()) break;
            if (mul) {
                emit(formula_expression::op::mul, 0, 0, 2);
                left = {left.constant && right.constant, left.value * right.value};
                continue;
            }
            std::string_view divisor = text_.substr(divisor_start, pos_ - divisor_start);
            while (!divisor.empty() && divisor.back() == ' ')
                divisor.remove_suffix(1);
            if (right.constant && right.value == 0) {
                pos_ = divisor_start;
                fail("division by zero (" + std::string(divisor) + " is 0)");
                break;
            }
            out_.divisors_.emplace_back(divisor);
            emit(formula_expression::op::div, static_cast<std::uint32_t>(out_.divisors_.size() - 1),
                 0, 2);
            left = {left.constant && right.constant, right.constant ? left.value / right.value : 0};
        }
        return left;
    }

    operand unary() {
        if (at('-') || at('+')) {
            if (!enter()) return {};
            const bool negate = text_[pos_] == '-';
            accept(text_[pos_]);
            operand o = unary();
            --depth_;
            if (negate) {
                emit(formula_expression::op::neg, 0, 0, 1);
                o.value = -o.value;
            }
            return o;
        }
        return primary();
    }

    operand number() {
        const std::size_t start = pos_;
        while (pos_ < text_.size() && (is_digit(text_[pos_]) || text_[pos_] == '.'))
            ++pos_;
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            std::size_t p = pos_ + 1;
            if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
            if (p < text_.size() && is_digit(text_[p])) {
                pos_ = p;
                while (pos_ < text_.size() && is_digit(text_[pos_]))
                    ++pos_;
            }
        }
        double value = 0;
        const char* first = text_.data() + start;
        const char* last = text_.data() + pos_;
        const auto [end, ec] = std::from_chars(first, last, value);
        if (ec != std::errc() || end != last || !std::isfinite(value)) {
            pos_ = start;
            fail("invalid number \"" + std::string(first, last) + "\"");
            return {};
        }
        skip_space();
        emit(formula_expression::op::number, 0, value);
        return {true, value};
    }

    // A metric name is a DNS-1123 label: "a-b" is one name; write "a - b" to subtract.
    std::string_view name() {
        const std::size_t start = pos_;
        while (
            pos_ < text_.size() && (is_lower_alnum(text_[pos_]) || text_[pos_] == '-') &&
            !(text_[pos_] == '-' && (pos_ + 1 >= text_.size() || !is_lower_alnum(text_[pos_ + 1]))))
            ++pos_;
        return text_.substr(start, pos_ - start);
    }

    operand call(std::string_view function, std::size_t column) {
        if (!enter()) return {};
        std::size_t args = 0;
        std::vector<operand> values;
        do {
            values.push_back(expression());
            ++args;
        } while (!failed() && accept(','));
        if (!failed() && !accept(')')) fail("expected \",\" or \")\", got " + quoted_token());
        --depth_;
        if (failed()) return {};
        if (function == "abs") {
            if (args != 1) {
                pos_ = column;
                fail("abs takes exactly one argument, got " + std::to_string(args));
                return {};
            }
            emit(formula_expression::op::abs, 0, 0, 1);
            return {values[0].constant, std::fabs(values[0].value)};
        }
        const bool is_min = function == "min";
        emit(is_min ? formula_expression::op::min : formula_expression::op::max,
             static_cast<std::uint32_t>(args), 0, args);
        operand result = values[0];
        for (const operand& v : values) {
            result.constant = result.constant && v.constant;
            result.value =
                is_min ? std::min(result.value, v.value) : std::max(result.value, v.value);
        }
        return result;
    }

    std::string quoted_token() const {
        return pos_ >= text_.size() ? "end of expression" : "\"" + token_text() + "\"";
    }

    operand primary() {
        if (pos_ >= text_.size()) {
            fail("expected a number, a metric name or \"(\", got end of expression");
            return {};
        }
        const char c = text_[pos_];
        if (c == '(') {
            accept('(');
            const operand o = expression();
            if (!failed() && !accept(')')) fail("expected \")\", got " + quoted_token());
            return o;
        }
        if (is_digit(c) || c == '.') return number();
        if (c >= 'a' && c <= 'z') {
            const std::size_t column = pos_;
            const std::string_view id = name();
            skip_space();
            if (at('(')) {
                if (id != "min" && id != "max" && id != "abs") {
                    pos_ = column;
                    fail("unknown function \"" + std::string(id) + "\" (expected min, max or abs)");
                    return {};
                }
                accept('(');
                return call(id, column);
            }
            auto& inputs = out_.inputs_;
            auto it = std::find(inputs.begin(), inputs.end(), id);
            if (it == inputs.end()) it = inputs.insert(inputs.end(), std::string(id));
            emit(formula_expression::op::input, static_cast<std::uint32_t>(it - inputs.begin()));
            return {};
        }
        fail("expected a number, a metric name or \"(\", got " + quoted_token());
        return {};
    }
};

core::outcome<formula_expression> formula_expression::parse(std::string_view text) {
    return formula_parser(text).run();
}

core::outcome<double> formula_expression::evaluate(std::span<const double> values) const {
    std::vector<double> stack;
    stack.reserve(stack_size_);
    for (const step& s : program_) {
        switch (s.code) {
        case op::number:
            stack.push_back(s.number);
            break;
        case op::input:
            if (s.arg >= values.size())
                return core::error_message("no value for \"" + inputs_[s.arg] + "\"");
            stack.push_back(values[s.arg]);
            break;
        case op::neg:
            stack.back() = -stack.back();
            break;
        case op::abs:
            stack.back() = std::fabs(stack.back());
            break;
        case op::min:
        case op::max: {
            const auto first = stack.end() - static_cast<std::ptrdiff_t>(s.arg);
            const double v = s.code == op::min ? *std::min_element(first, stack.end())
                                               : *std::max_element(first, stack.end());
            stack.erase(first, stack.end());
            stack.push_back(v);
            break;
        }
        default: {
            const double right = stack.back();
            stack.pop_back();
            double& left = stack.back();
            if (s.code == op::add) {
                left += right;
            } else if (s.code == op::sub) {
                left -= right;
            } else if (s.code == op::mul) {
                left *= right;
            } else {
                if (right == 0)
                    return core::error_message("division by zero (" + divisors_[s.arg] + " is 0)");
                left /= right;
            }
        }
        }
    }
    const double result = stack.empty() ? 0 : stack.back();
    if (!std::isfinite(result)) return core::error_message("the result is not a finite number");
    return result;
}

} // namespace hpaplus::policy
