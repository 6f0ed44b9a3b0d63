// sim/apiserver/cel_syntax.cpp — CEL's lexer and parser: one pass over tokens, nesting-bounded.
#include "sim/apiserver/cel_parts.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace hpaplus::sim::cel {
namespace {

// ---------------------------------------------------------------------------------------------
// Tokens.

struct token {
    enum class t : std::uint8_t { end, ident, integer, uinteger, real, string, bytes, punct };
    t type = t::end;
    std::size_t at = 0;
    std::string text; ///< identifier, punctuation, or the decoded string
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double d = 0;
    bool int_min_magnitude = false; ///< 9223372036854775808: valid only after a minus
};

class lexer {
  public:
    explicit lexer(std::string_view s) : s_(s) {}

    /// The tokens, or the offset and text of the first error.
    bool run(std::vector<token>& out) {
        for (;;) {
            skip_space();
            token t;
            t.at = pos_;
            if (pos_ >= s_.size()) {
                out.push_back(t);
                return true;
            }
            if (!next(t)) return false;
            out.push_back(std::move(t));
        }
    }
    std::size_t error_at = 0;
    std::string error;

  private:
    std::string_view s_;
    std::size_t pos_ = 0;

    bool fail(std::size_t at, std::string message) {
        error_at = at;
        error = std::move(message);
        return false;
    }
    char at(std::size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
    static bool digit(char c) { return c >= '0' && c <= '9'; }
    static bool hex(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
    static bool ident_start(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }

    void skip_space() {
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
                ++pos_;
            } else if (c == '/' && at(pos_ + 1) == '/') {
                while (pos_ < s_.size() && s_[pos_] != '\n')
                    ++pos_;
            } else {
                return;
            }
        }
    }

    bool next(token& t) {
        const char c = s_[pos_];
        const char n = at(pos_ + 1);
        // String and bytes literals, with their r/b prefixes.
        if (c == '"' || c == '\'') return quoted(t, false, false);
        if ((c == 'r' || c == 'R') && (n == '"' || n == '\''))
            return ++pos_, quoted(t, true, false);
        if ((c == 'b' || c == 'B') && (n == '"' || n == '\''))
            return ++pos_, quoted(t, false, true);
        if ((c == 'b' || c == 'B') && (n == 'r' || n == 'R') &&
            (at(pos_ + 2) == '"' || at(pos_ + 2) == '\''))
            return pos_ += 2, quoted(t, true, true);
        if ((c == 'r' || c == 'R') && (n == 'b' || n == 'B') &&
            (at(pos_ + 2) == '"' || at(pos_ + 2) == '\''))
            return pos_ += 2, quoted(t, true, true);
        if (ident_start(c)) {
            const std::size_t start = pos_;
            while (pos_ < s_.size() && (ident_start(s_[pos_]) || digit(s_[pos_])))
                ++pos_;
            t.type = token::t::ident;
            t.text = std::string(s_.substr(start, pos_ - start));
            return true;
        }
        if (digit(c) || (c == '.' && digit(n))) return number(t);
        static constexpr std::string_view two[] = {"<=", ">=", "==", "!=", "&&", "||"};
        for (const auto p : two)
            if (s_.substr(pos_, 2) == p) {
                t.type = token::t::punct;
                t.text = std::string(p);
                pos_ += 2;
                return true;
            }
        if (std::string_view("()[]{}.,:?!-+*/%<>").find(c) != std::string_view::npos) {
            t.type = token::t::punct;
            t.text = std::string(1, c);
            ++pos_;
            return true;
        }
        return fail(pos_, std::string("Syntax error: token recognition error at: '") + c + "'");
    }

    bool number(token& t) {
        const std::size_t start = pos_;
        if (s_[pos_] == '0' && (at(pos_ + 1) == 'x' || at(pos_ + 1) == 'X')) {
            pos_ += 2;
            const std::size_t digits = pos_;
            while (hex(at(pos_)))
                ++pos_;
            if (pos_ == digits) return fail(start, "Syntax error: invalid hex literal");
            return integer(t, s_.substr(digits, pos_ - digits), 16, start);
        }
        while (digit(at(pos_)))
            ++pos_;
        bool is_real = false;
        if (at(pos_) == '.' && digit(at(pos_ + 1))) {
            is_real = true;
            ++pos_;
            while (digit(at(pos_)))
                ++pos_;
        }
        if ((at(pos_) == 'e' || at(pos_) == 'E') &&
            (digit(at(pos_ + 1)) ||
             ((at(pos_ + 1) == '+' || at(pos_ + 1) == '-') && digit(at(pos_ + 2))))) {
            is_real = true;
            pos_ += 2;
            while (digit(at(pos_)))
                ++pos_;
        }
        if (is_real) {
            t.type = token::t::real;
            const std::string text(s_.substr(start, pos_ - start));
            t.d = std::strtod(text.c_str(), nullptr);
            return true;
        }
        return integer(t, s_.substr(start, pos_ - start), 10, start);
    }

    bool integer(token& t, std::string_view digits, int base, std::size_t start) {
        const bool unsigned_suffix = at(pos_) == 'u' || at(pos_) == 'U';
        if (unsigned_suffix) ++pos_;
        std::uint64_t v = 0;
        const auto [end, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
        if (ec != std::errc() || end != digits.data() + digits.size())
            return fail(start, "invalid int literal");
        if (unsigned_suffix) {
            t.type = token::t::uinteger;
            t.u = v;
            return true;
        }
        t.type = token::t::integer;
        if (v == static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1) {
            t.int_min_magnitude = true;
            t.i = std::numeric_limits<std::int64_t>::min();
            return true;
        }
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return fail(start, "invalid int literal");
        t.i = static_cast<std::int64_t>(v);
        return true;
    }

    bool quoted(token& t, bool raw, bool bytes) {
        const std::size_t start = pos_;
        const char q = s_[pos_];
        const bool triple = at(pos_ + 1) == q && at(pos_ + 2) == q;
        pos_ += triple ? 3 : 1;
        std::string out;
        for (;;) {
            if (pos_ >= s_.size())
                return fail(start, "Syntax error: token recognition error: unterminated string");
            const char c = s_[pos_];
            if (triple ? (c == q && at(pos_ + 1) == q && at(pos_ + 2) == q) : c == q) {
                pos_ += triple ? 3 : 1;
                break;
            }
            if (!triple && (c == '\n' || c == '\r'))
                return fail(start, "Syntax error: token recognition error: newline in string");
            if (c != '\\' || raw) {
                out += c;
                ++pos_;
                continue;
            }
            if (!escape(out, bytes)) return false;
        }
        t.type = bytes ? token::t::bytes : token::t::string;
        t.text = std::move(out);
        return true;
    }

    bool escape(std::string& out, bool bytes) {
        const std::size_t start = pos_;
        const char e = at(pos_ + 1);
        pos_ += 2;
        switch (e) {
        case 'a':
            out += '\a';
            return true;
        case 'b':
            out += '\b';
            return true;
        case 'f':
            out += '\f';
            return true;
        case 'n':
            out += '\n';
            return true;
        case 'r':
            out += '\r';
            return true;
        case 't':
            out += '\t';
            return true;
        case 'v':
            out += '\v';
            return true;
        case '\\':
            out += '\\';
            return true;
        case '\'':
            out += '\'';
            return true;
        case '"':
            out += '"';
            return true;
        case '`':
            out += '`';
            return true;
        case '?':
            out += '?';
            return true;
        default:
            break;
        }
        auto read = [&](std::size_t count, int base) -> std::optional<std::uint32_t> {
            std::uint32_t v = 0;
            for (std::size_t i = 0; i < count; ++i) {
                const char c = at(pos_ + i);
                const int d = digit(c)                 ? c - '0'
                              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                       : 99;
                if (d >= base) return std::nullopt;
                v = v * static_cast<std::uint32_t>(base) + static_cast<std::uint32_t>(d);
            }
            pos_ += count;
            return v;
        };
        std::optional<std::uint32_t> v;
        bool code_point = false;
        if (e == 'x' || e == 'X') {
            v = read(2, 16);
        } else if (e == 'u') {
            v = read(4, 16);
            code_point = true;
        } else if (e == 'U') {
            v = read(8, 16);
            code_point = true;
        } else if (e >= '0' && e <= '3') {
            --pos_;
            v = read(3, 8);
        }
        if (!v || (code_point && bytes) || *v > 0x10FFFF || (*v >= 0xD800 && *v <= 0xDFFF))
            return fail(start, "Syntax error: invalid escape sequence");
        if (bytes)
            out += static_cast<char>(*v);
        else
            append_utf8(out, *v);
        return true;
    }
};

// ---------------------------------------------------------------------------------------------
// The parser (cel-spec's grammar).
//
// Expr     = Or ["?" Or ":" Expr]          Or  = And {"||" And}        And = Rel {"&&" Rel}
// Rel      = Add {("<"|"<="|">"|">="|"=="|"!="|"in") Add}
// Add      = Mul {("+"|"-") Mul}           Mul = Unary {("*"|"/"|"%") Unary}
// Unary    = Member | "!" {"!"} Member | "-" {"-"} Member
// Member   = Primary {"." IDENT ["(" [Args] ")"] | "[" Expr "]"}
// Primary  = ["."] IDENT ["(" [Args] ")"] | "(" Expr ")" | "[" [Args] [","] "]"
//          | "{" [Key ":" Expr {"," Key ":" Expr}] [","] "}" | literal

class parser {
  public:
    parser(std::vector<token> tokens) : t_(std::move(tokens)) {}

    node_ptr run() {
        node_ptr root = expr();
        if (error.empty() && peek().type != token::t::end)
            fail(peek().at, "Syntax error: extraneous input '" + describe(peek()) + "'");
        return error.empty() ? root : nullptr;
    }
    std::size_t error_at = 0;
    std::string error;

  private:
    std::vector<token> t_;
    std::size_t pos_ = 0;
    int nesting_ = 0;

    const token& peek() const { return t_[std::min(pos_, t_.size() - 1)]; }
    bool is(std::string_view punct) const {
        return peek().type == token::t::punct && peek().text == punct;
    }
    bool take(std::string_view punct) {
        if (!is(punct)) return false;
        ++pos_;
        return true;
    }
    static std::string describe(const token& t) {
        switch (t.type) {
        case token::t::end:
            return "<EOF>";
        case token::t::ident:
        case token::t::punct:
            return t.text;
        default:
            return "literal";
        }
    }
    node_ptr fail(std::size_t at, std::string message) {
        if (error.empty()) {
            error_at = at;
            error = std::move(message);
        }
        return nullptr;
    }
    bool expect(std::string_view punct) {
        if (take(punct)) return true;
        fail(peek().at, "Syntax error: mismatched input '" + describe(peek()) + "' expecting '" +
                            std::string(punct) + "'");
        return false;
    }
    node_ptr make(node n) {
        int depth = 0;
        for (const auto& a : n.args)
            depth = std::max(depth, a ? a->depth : 0);
        n.depth = depth + 1;
        if (n.depth > max_tree_depth)
            return fail(n.at,
                        "expression nesting exceeds " + std::to_string(max_tree_depth) + " levels");
        return std::make_shared<const node>(std::move(n));
    }
    node_ptr call(std::string name, std::size_t at, std::vector<node_ptr> args) {
        for (const auto& a : args)
            if (!a) return nullptr;
        node n;
        n.o = node::op::call;
        n.name = std::move(name);
        n.at = at;
        n.args = std::move(args);
        return make(std::move(n));
    }

    struct nest {
        parser& p;
        explicit nest(parser& pp) : p(pp) { ++p.nesting_; }
        ~nest() { --p.nesting_; }
    };

    node_ptr expr() {
        nest guard(*this);
        if (nesting_ > max_nesting)
            return fail(peek().at,
                        "expression nesting exceeds " + std::to_string(max_nesting) + " levels");
        node_ptr condition = logical("||");
        if (!condition || !is("?")) return condition;
        const std::size_t at = peek().at;
        ++pos_;
        node_ptr yes = logical("||");
        if (!yes || !expect(":")) return nullptr;
        node_ptr no = expr();
        return call("_?_:_", at, {condition, yes, no});
    }

    // `||` and `&&` chains are balanced trees, as cel-go builds them.
    node_ptr logical(std::string_view op) {
        std::vector<node_ptr> operands{op == "||" ? logical("&&") : relation()};
        std::vector<std::size_t> ats;
        while (operands.back() && is(op)) {
            ats.push_back(peek().at);
            ++pos_;
            operands.push_back(op == "||" ? logical("&&") : relation());
        }
        if (!operands.back()) return nullptr;
        return balance(op == "||" ? "_||_" : "_&&_", operands, ats, 0, operands.size());
    }
    node_ptr balance(const char* name, const std::vector<node_ptr>& operands,
                     const std::vector<std::size_t>& ats, std::size_t lo, std::size_t hi) {
        if (hi - lo == 1) return operands[lo];
        const std::size_t mid = (lo + hi) / 2;
        node_ptr left = balance(name, operands, ats, lo, mid);
        node_ptr right = balance(name, operands, ats, mid, hi);
        return left && right ? call(name, ats[mid - 1], {left, right}) : nullptr;
    }

    node_ptr relation() {
        node_ptr left = addition();
        for (;;) {
            if (!left) return nullptr;
            const token& t = peek();
            const char* name = nullptr;
            if (t.type == token::t::punct) {
                if (t.text == "<") name = "_<_";
                if (t.text == "<=") name = "_<=_";
                if (t.text == ">") name = "_>_";
                if (t.text == ">=") name = "_>=_";
                if (t.text == "==") name = "_==_";
                if (t.text == "!=") name = "_!=_";
            } else if (t.type == token::t::ident && t.text == "in") {
                name = "@in";
            }
            if (!name) return left;
            const std::size_t at = t.at;
            ++pos_;
            left = call(name, at, {left, addition()});
        }
    }
    node_ptr addition() {
        node_ptr left = multiplication();
        while (left && (is("+") || is("-"))) {
            const std::size_t at = peek().at;
            const char* name = peek().text == "+" ? "_+_" : "_-_";
            ++pos_;
            left = call(name, at, {left, multiplication()});
        }
        return left;
    }
    node_ptr multiplication() {
        node_ptr left = unary();
        while (left && (is("*") || is("/") || is("%"))) {
            const std::size_t at = peek().at;
            const char* name = peek().text == "*" ? "_*_" : peek().text == "/" ? "_/_" : "_%_";
            ++pos_;
            left = call(name, at, {left, unary()});
        }
        return left;
    }
    node_ptr unary() {
        if (is("!") || is("-")) {
            const std::size_t at = peek().at;
            const bool negation = is("-");
            std::size_t count = 0;
            while (negation ? is("-") : is("!")) {
                ++pos_;
                ++count;
            }
            // -9223372036854775808 and -5 are literals, as in cel-go.
            if (negation && count % 2 == 1 && peek().type == token::t::integer) {
                node_ptr literal = member();
                if (literal && literal->o == node::op::literal &&
                    literal->literal.k == vk::integer) {
                    node n = *literal;
                    n.literal.i = n.literal.i == std::numeric_limits<std::int64_t>::min()
                                      ? n.literal.i
                                      : -n.literal.i;
                    n.at = at;
                    return make(std::move(n));
                }
                node_ptr operand = literal;
                for (std::size_t i = 0; i < count; ++i)
                    operand = call("-_", at, {operand});
                return operand;
            }
            node_ptr operand = member();
            for (std::size_t i = 0; i < count; ++i)
                operand = call(negation ? "-_" : "!_", at, {operand});
            return operand;
        }
        return member();
    }

    node_ptr member() {
        node_ptr target = primary();
        for (;;) {
            if (!target) return nullptr;
            if (is(".")) {
                const std::size_t at = peek().at;
                ++pos_;
                if (peek().type != token::t::ident)
                    return fail(peek().at, "Syntax error: mismatched input '" + describe(peek()) +
                                               "' expecting IDENTIFIER");
                std::string name = peek().text;
                ++pos_;
                if (is("(")) {
                    ++pos_;
                    std::vector<node_ptr> args{target};
                    if (!arguments(args, ")")) return nullptr;
                    target = member_call(std::move(name), at, std::move(args));
                } else {
                    node n;
                    n.o = node::op::select;
                    n.at = at;
                    n.name = std::move(name);
                    n.args = {target};
                    target = make(std::move(n));
                }
            } else if (is("[")) {
                const std::size_t at = peek().at;
                ++pos_;
                node_ptr index = expr();
                if (!index || !expect("]")) return nullptr;
                target = call("_[_]", at, {target, index});
            } else {
                return target;
            }
        }
    }

    bool arguments(std::vector<node_ptr>& args, std::string_view close) {
        if (take(close)) return true;
        for (;;) {
            node_ptr a = expr();
            if (!a) return false;
            args.push_back(std::move(a));
            if (take(close)) return true;
            if (!expect(",")) return false;
            if (close == "]" && take(close)) return true; // a trailing comma
        }
    }

    node_ptr member_call(std::string name, std::size_t at, std::vector<node_ptr> args) {
        static const std::set<std::string_view> macros{"all", "exists", "exists_one", "map",
                                                       "filter"};
        if (macros.count(name) && args.size() >= 3) {
            // A comprehension: its first argument names the variable.
            const node_ptr& variable = args[1];
            if (variable->o != node::op::ident)
                return fail(variable->at, "argument must be a simple name");
            if (args.size() > 4 || (name != "map" && args.size() != 3))
                return fail(at, "no matching overload for '" + name + "'");
            node n;
            n.o = node::op::comprehension;
            n.at = at;
            n.name = std::move(name);
            n.var = variable->name;
            n.args.push_back(args[0]);
            for (std::size_t i = 2; i < args.size(); ++i)
                n.args.push_back(args[i]);
            return make(std::move(n));
        }
        node n;
        n.o = node::op::call;
        n.member = true;
        n.at = at;
        n.name = std::move(name);
        n.args = std::move(args);
        return make(std::move(n));
    }

    node_ptr primary() {
        nest guard(*this);
        if (nesting_ > max_nesting)
            return fail(peek().at,
                        "expression nesting exceeds " + std::to_string(max_nesting) + " levels");
        const token t = peek();
        node n;
        n.at = t.at;
        switch (t.type) {
        case token::t::end:
            return fail(t.at, "Syntax error: mismatched input '<EOF>' expecting expression");
        case token::t::integer:
            if (t.int_min_magnitude && !(pos_ > 0 && t_[pos_ - 1].text == "-"))
                return fail(t.at, "invalid int literal");
            ++pos_;
            n.literal = value::integer(t.i);
            return make(std::move(n));
        case token::t::uinteger:
            ++pos_;
            n.literal = uinteger(t.u);
            return make(std::move(n));
        case token::t::real:
            ++pos_;
            n.literal = real(t.d);
            return make(std::move(n));
        case token::t::string:
            ++pos_;
            n.literal = value::string(t.text);
            return make(std::move(n));
        case token::t::bytes:
            ++pos_;
            n.literal.k = vk::bytes;
            n.literal.s = t.text;
            return make(std::move(n));
        case token::t::ident:
            return identifier();
        case token::t::punct:
            break;
        }
        if (take("(")) {
            node_ptr inner = expr();
            return inner && expect(")") ? inner : nullptr;
        }
        if (take("[")) {
            n.o = node::op::list;
            if (!arguments(n.args, "]")) return nullptr;
            return make(std::move(n));
        }
        if (take("{")) {
            n.o = node::op::map;
            if (take("}")) return make(std::move(n));
            for (;;) {
                node_ptr key = expr();
                if (!key || !expect(":")) return nullptr;
                node_ptr v = expr();
                if (!v) return nullptr;
                n.args.push_back(std::move(key));
                n.args.push_back(std::move(v));
                if (take("}")) break;
                if (!expect(",")) return nullptr;
                if (take("}")) break;
            }
            return make(std::move(n));
        }
        if (is(".") && t_[pos_ + 1].type == token::t::ident) {
            ++pos_; // a leading dot names the root container: the same names here
            return identifier();
        }
        return fail(t.at,
                    "Syntax error: mismatched input '" + describe(t) + "' expecting expression");
    }

    node_ptr identifier() {
        const token t = peek();
        ++pos_;
        if (reserved_words().count(t.text) || t.text == "in")
            return fail(t.at, "Syntax error: reserved identifier: " + t.text);
        node n;
        n.at = t.at;
        if (t.text == "true" || t.text == "false") {
            n.literal = value::boolean(t.text == "true");
            return make(std::move(n));
        }
        if (t.text == "null") return make(std::move(n));
        if (is("(")) {
            ++pos_;
            std::vector<node_ptr> args;
            if (!arguments(args, ")")) return nullptr;
            if (t.text == "has") {
                if (args.size() != 1 || args[0]->o != node::op::select)
                    return fail(t.at, "invalid argument to has() macro");
                n.o = node::op::has;
                n.at = args[0]->at; // errors point at the selection, as cel-go's
                n.name = args[0]->name;
                n.args = {args[0]->args[0]};
                return make(std::move(n));
            }
            n.o = node::op::call;
            n.name = t.text;
            n.args = std::move(args);
            return make(std::move(n));
        }
        if (is("{"))
            return fail(peek().at,
                        "message construction is not supported by the simulated cluster");
        n.o = node::op::ident;
        n.name = t.text;
        return make(std::move(n));
    }
};

} // namespace

parsed parse_expression(std::string_view source) {
    std::vector<token> tokens;
    lexer lex(source);
    if (!lex.run(tokens)) return {nullptr, located(source, lex.error_at, lex.error)};
    parser p(std::move(tokens));
    node_ptr root = p.run();
    if (!root) return {nullptr, located(source, p.error_at, p.error)};
    return {std::move(root), {}};
}

} // namespace hpaplus::sim::cel
