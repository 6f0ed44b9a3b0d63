// sim/apiserver/cel.cpp — CEL's parser (one pass over tokens, nesting-bounded), its checker
// against a structural schema, and its evaluator (cel-go's semantics, cost-bounded).
#include "sim/apiserver/cel.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace hpaplus::sim::cel {

using vk = value::kind;
using node_ptr = std::shared_ptr<const node>;

/// An expression tree. Operators are calls named as cel-go names them (`_&&_`, `_[_]`, `@in`).
struct node {
    enum class op : std::uint8_t { literal, ident, select, has, call, list, map, comprehension };
    op o = op::literal;
    std::size_t at = 0; ///< its offset in the source (errors point at it)
    int depth = 1;
    value literal;
    std::string name;           ///< identifier, field, function or macro
    std::string var;            ///< a comprehension's variable
    std::vector<node_ptr> args; ///< operands; a member call's target is args[0]
    bool member = false;
};

value value::boolean(bool v) {
    value r;
    r.k = vk::boolean;
    r.b = v;
    return r;
}
value value::integer(std::int64_t v) {
    value r;
    r.k = vk::integer;
    r.i = v;
    return r;
}
value value::string(std::string v) {
    value r;
    r.k = vk::string;
    r.s = std::move(v);
    return r;
}
value value::error(std::string message) {
    value r;
    r.k = vk::error;
    r.s = std::move(message);
    return r;
}

namespace {

value uinteger(std::uint64_t v) {
    value r;
    r.k = vk::uinteger;
    r.u = v;
    return r;
}
value real(double v) {
    value r;
    r.k = vk::real;
    r.d = v;
    return r;
}
value type_value(std::string name) {
    value r;
    r.k = vk::type;
    r.s = std::move(name);
    return r;
}
value list_of(std::vector<value> items) {
    value r;
    r.k = vk::list;
    r.items = std::make_shared<const std::vector<value>>(std::move(items));
    return r;
}

bool flag(const json* schema, const char* name) {
    const json* f = member_of(schema, name);
    return f && f->IsBool() && f->GetBool();
}
std::string_view schema_type(const json* schema) {
    const json* t = member_of(schema, "type");
    return t && t->IsString() ? std::string_view(t->GetString(), t->GetStringLength())
                              : std::string_view();
}

// ---------------------------------------------------------------------------------------------
// Strings as code points (size, indexOf, charAt and substring count them, as cel-go does).

std::vector<std::size_t> code_point_offsets(std::string_view s) {
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) offsets.push_back(i);
    return offsets;
}
/// The offset of the code point after the one at `i`.
std::size_t next_boundary(std::string_view s, std::size_t i) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80)
        ++i;
    return i;
}
std::size_t code_points(std::string_view s) {
    std::size_t n = 0;
    for (const char c : s)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}
void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// Go's fmt %g of a double (shortest digits; an exponent below -4 or from 6 up is written as
// such), which cel-go's string(double) prints.
std::string format_double(double d) {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string sci(buf, end); // d.ddde±XX
    const auto e = sci.find('e');
    std::string mantissa = sci.substr(0, e);
    const int exponent = std::stoi(sci.substr(e + 1));
    const bool negative = mantissa[0] == '-';
    if (negative) mantissa.erase(0, 1);
    std::string digits;
    for (const char c : mantissa)
        if (c != '.') digits += c;
    std::string out = negative ? "-" : "";
    if (exponent < -4 || exponent >= 6) {
        out += digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        out += exponent < 0 ? "e-" : "e+";
        const int magnitude = exponent < 0 ? -exponent : exponent;
        if (magnitude < 10) out += "0";
        out += std::to_string(magnitude);
        return out;
    }
    if (exponent < 0)
        return out + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    const auto point = static_cast<std::size_t>(exponent) + 1;
    if (digits.size() <= point) return out + digits + std::string(point - digits.size(), '0');
    return out + digits.substr(0, point) + "." + digits.substr(point);
}

// Binds a comprehension's variable in `scope` for its body and restores what it shadowed.
template <class Map> class binding {
  public:
    binding(Map& scope, const std::string& name, typename Map::mapped_type value)
        : scope_(scope), name_(name) {
        if (const auto it = scope_.find(name_); it != scope_.end()) {
            had_ = true;
            old_ = std::move(it->second);
        }
        scope_[name_] = std::move(value);
    }
    binding(const binding&) = delete;
    binding& operator=(const binding&) = delete;
    ~binding() {
        if (had_)
            scope_[name_] = std::move(old_);
        else
            scope_.erase(name_);
    }

  private:
    Map& scope_;
    std::string name_;
    bool had_ = false;
    typename Map::mapped_type old_{};
};

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

const std::set<std::string_view>& reserved_words() {
    static const std::set<std::string_view> words{
        "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
        "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
    return words;
}

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

// cel-go's error text: the position (1-based line and column) and the line with a caret.
std::string located(std::string_view source, std::size_t at, const std::string& message) {
    std::size_t line = 1, line_start = 0;
    for (std::size_t i = 0; i < at && i < source.size(); ++i)
        if (source[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    const std::size_t line_end = std::min(source.find('\n', line_start), source.size());
    const std::size_t column = code_points(source.substr(line_start, at - line_start));
    return "ERROR: <input>:" + std::to_string(line) + ":" + std::to_string(column + 1) + ": " +
           message + "\n | " + std::string(source.substr(line_start, line_end - line_start)) +
           "\n | " + std::string(column, '.') + "^";
}

// ---------------------------------------------------------------------------------------------
// The checker: what cel-go's type checker refuses, as far as the schema tells types.

struct ctype {
    enum class k : std::uint8_t {
        dyn,
        null,
        boolean,
        integer,
        uinteger,
        real,
        string,
        bytes,
        list,
        map,
        object,
        type
    };
    k kind = k::dyn;
    const json* schema = nullptr; ///< list, map and object from the schema; null: elements dyn
    bool root = false;            ///< a resource root: metadata is name and generateName only
};

const json* items_of(const json* schema) {
    const json* items = member_of(schema, "items");
    return items && items->IsObject() ? items : nullptr;
}
const json* additional_of(const json* schema) {
    const json* a = member_of(schema, "additionalProperties");
    return a && a->IsObject() ? a : nullptr;
}

ctype type_of_schema(const json* schema) {
    if (!schema) return {};
    if (flag(schema, "x-kubernetes-int-or-string") ||
        (flag(schema, "x-kubernetes-preserve-unknown-fields") && schema_type(schema).empty()))
        return {};
    const std::string_view t = schema_type(schema);
    if (t == "integer") return {ctype::k::integer};
    if (t == "number") return {ctype::k::real};
    if (t == "string") return {ctype::k::string};
    if (t == "boolean") return {ctype::k::boolean};
    if (t == "array") return {ctype::k::list, schema};
    if (t == "object") {
        if (member_of(schema, "properties") || !additional_of(schema))
            return {ctype::k::object, schema};
        return {ctype::k::map, schema};
    }
    return {};
}

const char* ctype_name(const ctype& t) {
    switch (t.kind) {
    case ctype::k::dyn:
        return "dyn";
    case ctype::k::null:
        return "null_type";
    case ctype::k::boolean:
        return "bool";
    case ctype::k::integer:
        return "int";
    case ctype::k::uinteger:
        return "uint";
    case ctype::k::real:
        return "double";
    case ctype::k::string:
        return "string";
    case ctype::k::bytes:
        return "bytes";
    case ctype::k::list:
        return "list";
    case ctype::k::map:
        return "map";
    case ctype::k::object:
        return "object";
    case ctype::k::type:
        return "type";
    }
    return "dyn";
}

// A property name as a rule spells it: reserved words and characters CEL identifiers lack are
// escaped (`__namespace__`, `__dash__`, `__dot__`, `__slash__`, `__underscores__`).
std::string unescaped(std::string_view name) {
    if (name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__") {
        const std::string_view inner = name.substr(2, name.size() - 4);
        if (reserved_words().count(inner) || inner == "true" || inner == "false" ||
            inner == "null" || inner == "in")
            return std::string(inner);
    }
    std::string out;
    for (std::size_t i = 0; i < name.size();) {
        bool replaced = false;
        for (const auto& [from, to] :
             {std::pair{"__underscores__", "__"}, std::pair{"__dot__", "."},
              std::pair{"__dash__", "-"}, std::pair{"__slash__", "/"}}) {
            const std::size_t n = std::strlen(from);
            if (name.substr(i, n) == from) {
                out += to;
                i += n;
                replaced = true;
                break;
            }
        }
        if (!replaced) out += name[i++];
    }
    return out;
}

const std::set<std::string_view>& unsupported_functions() {
    static const std::set<std::string_view> names{
        "matches",    "timestamp",  "duration", "getFullYear", "getMonth", "getDate", "getHours",
        "getMinutes", "getSeconds", "quantity", "isQuantity",  "url",      "isURL",   "ip",
        "isIP",       "cidr",       "isCIDR",   "format",      "isSorted", "sum",     "min",
        "max",        "optional",   "find",     "findAll",     "regex",    "semver",  "isSemver"};
    return names;
}

// What a rule on a whole object sees of its metadata (cel-go's WithTypeAndObjectMeta).
const json& root_metadata() {
    static const json_doc schema = [] {
        json_doc d;
        d.Parse(R"({"type":"object","properties":{"name":{"type":"string"},)"
                R"("generateName":{"type":"string"}}})");
        return d;
    }();
    return schema;
}

class checker {
  public:
    checker(std::string_view source) : source_(source) {}
    std::string error;
    bool uses_old_self = false;

    ctype check(const node& n, std::map<std::string, ctype>& scope) {
        if (!error.empty()) return {};
        switch (n.o) {
        case node::op::literal:
            switch (n.literal.k) {
            case vk::null:
                return {ctype::k::null};
            case vk::boolean:
                return {ctype::k::boolean};
            case vk::integer:
                return {ctype::k::integer};
            case vk::uinteger:
                return {ctype::k::uinteger};
            case vk::real:
                return {ctype::k::real};
            case vk::string:
                return {ctype::k::string};
            case vk::bytes:
                return {ctype::k::bytes};
            default:
                return {};
            }
        case node::op::ident: {
            if (auto it = scope.find(n.name); it != scope.end()) {
                if (n.name == "oldSelf") uses_old_self = true;
                return it->second;
            }
            static const std::set<std::string_view> types{"int",       "uint",  "double", "bool",
                                                          "string",    "bytes", "list",   "map",
                                                          "null_type", "type"};
            if (types.count(n.name)) return {ctype::k::type};
            return fail(n, "undeclared reference to '" + n.name + "' (in container '')");
        }
        case node::op::select:
        case node::op::has: {
            const ctype target = check(*n.args[0], scope);
            return field(n, target, n.o == node::op::has);
        }
        case node::op::list: {
            for (const auto& a : n.args)
                check(*a, scope);
            return {ctype::k::list};
        }
        case node::op::map: {
            for (const auto& a : n.args)
                check(*a, scope);
            return {ctype::k::map};
        }
        case node::op::comprehension:
            return comprehension(n, scope);
        case node::op::call:
            return call(n, scope);
        }
        return {};
    }

  private:
    std::string_view source_;

    ctype fail(const node& n, const std::string& message) {
        if (error.empty()) error = located(source_, n.at, message);
        return {};
    }

    ctype field(const node& n, const ctype& target, bool presence) {
        if (!error.empty()) return {};
        const std::string name = unescaped(n.name);
        switch (target.kind) {
        case ctype::k::dyn:
            return {};
        case ctype::k::map:
            return presence ? ctype{ctype::k::boolean}
                            : type_of_schema(additional_of(target.schema));
        case ctype::k::object: {
            if (!target.schema) return presence ? ctype{ctype::k::boolean} : ctype{};
            const json* properties = member_of(target.schema, "properties");
            const json* property = member_of(properties, name.c_str());
            if (target.root && name == "metadata")
                return presence ? ctype{ctype::k::boolean}
                                : ctype{ctype::k::object, &root_metadata()};
            if (target.root && (name == "apiVersion" || name == "kind"))
                return presence ? ctype{ctype::k::boolean} : ctype{ctype::k::string};
            if (!property) {
                if (flag(target.schema, "x-kubernetes-preserve-unknown-fields"))
                    return presence ? ctype{ctype::k::boolean} : ctype{};
                return fail(n, "undefined field '" + name + "'");
            }
            return presence ? ctype{ctype::k::boolean} : type_of_schema(property);
        }
        default:
            return fail(n, std::string("type '") + ctype_name(target) +
                               "' does not support field selection");
        }
    }

    ctype element_of(const ctype& range) {
        if (range.kind == ctype::k::list) return type_of_schema(items_of(range.schema));
        if (range.kind == ctype::k::map) return {ctype::k::string};
        if (range.kind == ctype::k::object) return {ctype::k::string};
        return {};
    }

    ctype comprehension(const node& n, std::map<std::string, ctype>& scope) {
        const ctype range = check(*n.args[0], scope);
        if (!error.empty()) return {};
        if (range.kind != ctype::k::dyn && range.kind != ctype::k::list &&
            range.kind != ctype::k::map && range.kind != ctype::k::object)
            return fail(n,
                        "expression of type '" + std::string(ctype_name(range)) +
                            "' cannot be range of a comprehension (must be list, map, or dynamic)");
        ctype result{ctype::k::boolean};
        {
            const binding bound(scope, n.var, element_of(range));
            for (std::size_t i = 1; i < n.args.size(); ++i) {
                const ctype t = check(*n.args[i], scope);
                const bool transform = n.name == "map" && i + 1 == n.args.size();
                if (!transform && t.kind != ctype::k::boolean && t.kind != ctype::k::dyn)
                    fail(*n.args[i], "found no matching overload for '_&&_' applied to '(bool, " +
                                         std::string(ctype_name(t)) + ")'");
            }
        }
        if (n.name == "map" || n.name == "filter") {
            result = {ctype::k::list};
            if (n.name == "filter")
                result = range.kind == ctype::k::list ? range : ctype{ctype::k::list};
        }
        return result;
    }

    static bool numeric(const ctype& t) {
        return t.kind == ctype::k::integer || t.kind == ctype::k::uinteger ||
               t.kind == ctype::k::real;
    }
    static bool known(const ctype& t) { return t.kind != ctype::k::dyn; }
    static bool same(const ctype& a, const ctype& b) {
        auto norm = [](ctype::k k) { return k == ctype::k::object ? ctype::k::map : k; };
        return norm(a.kind) == norm(b.kind);
    }

    ctype overload(const node& n, const std::vector<ctype>& args) {
        std::string list;
        for (std::size_t i = 0; i < args.size(); ++i)
            list += (i ? ", " : "") + std::string(ctype_name(args[i]));
        return fail(n,
                    "found no matching overload for '" + n.name + "' applied to '" +
                        (n.member && !args.empty() ? std::string(ctype_name(args[0])) + "." : "") +
                        "(" + list + ")'");
    }

    ctype call(const node& n, std::map<std::string, ctype>& scope) {
        std::vector<ctype> a;
        for (const auto& arg : n.args)
            a.push_back(check(*arg, scope));
        if (!error.empty()) return {};
        const std::string& f = n.name;
        const bool all_known = std::all_of(a.begin(), a.end(), known);
        const ctype boolean{ctype::k::boolean};
        if (f == "_&&_" || f == "_||_" || f == "!_") {
            for (const auto& t : a)
                if (known(t) && t.kind != ctype::k::boolean) return overload(n, a);
            return boolean;
        }
        if (f == "_?_:_") {
            if (known(a[0]) && a[0].kind != ctype::k::boolean) return overload(n, a);
            return known(a[1]) && known(a[2]) && same(a[1], a[2]) ? a[1] : ctype{};
        }
        if (f == "_==_" || f == "_!=_") {
            if (all_known && !same(a[0], a[1]) && a[0].kind != ctype::k::null &&
                a[1].kind != ctype::k::null)
                return overload(n, a);
            return boolean;
        }
        if (f == "_<_" || f == "_<=_" || f == "_>_" || f == "_>=_") {
            if (all_known && !(numeric(a[0]) && numeric(a[1])) &&
                !(same(a[0], a[1]) &&
                  (a[0].kind == ctype::k::string || a[0].kind == ctype::k::bytes ||
                   a[0].kind == ctype::k::boolean)))
                return overload(n, a);
            return boolean;
        }
        if (f == "@in") {
            if (known(a[1]) && a[1].kind != ctype::k::list && a[1].kind != ctype::k::map &&
                a[1].kind != ctype::k::object)
                return overload(n, a);
            return boolean;
        }
        if (f == "_+_" || f == "_-_" || f == "_*_" || f == "_/_" || f == "_%_") {
            if (!all_known) return {};
            const bool ok_numeric =
                same(a[0], a[1]) && numeric(a[0]) && !(f == "_%_" && a[0].kind == ctype::k::real);
            const bool ok_concat = f == "_+_" && same(a[0], a[1]) &&
                                   (a[0].kind == ctype::k::string || a[0].kind == ctype::k::bytes ||
                                    a[0].kind == ctype::k::list);
            if (!ok_numeric && !ok_concat) return overload(n, a);
            return a[0].kind == ctype::k::list ? ctype{ctype::k::list} : a[0];
        }
        if (f == "-_") {
            if (known(a[0]) && a[0].kind != ctype::k::integer && a[0].kind != ctype::k::real)
                return overload(n, a);
            return a[0];
        }
        if (f == "_[_]") {
            if (a[0].kind == ctype::k::list) {
                if (known(a[1]) && !numeric(a[1])) return overload(n, a);
                return type_of_schema(items_of(a[0].schema));
            }
            if (a[0].kind == ctype::k::map) return type_of_schema(additional_of(a[0].schema));
            if (a[0].kind == ctype::k::object) return {};
            if (known(a[0])) return overload(n, a);
            return {};
        }
        if (unsupported_functions().count(f))
            return fail(n, "function '" + f + "' is not supported by the simulated cluster");
        struct signature {
            const char* name;
            bool member;
            std::size_t arity;             ///< with the target
            std::vector<ctype::k> accepts; ///< the target's (or first argument's) types
            ctype::k result;
        };
        using K = ctype::k;
        static const std::vector<signature> functions{
            {"size", false, 1, {K::string, K::bytes, K::list, K::map, K::object}, K::integer},
            {"size", true, 1, {K::string, K::bytes, K::list, K::map, K::object}, K::integer},
            {"contains", true, 2, {K::string}, K::boolean},
            {"startsWith", true, 2, {K::string}, K::boolean},
            {"endsWith", true, 2, {K::string}, K::boolean},
            {"lowerAscii", true, 1, {K::string}, K::string},
            {"upperAscii", true, 1, {K::string}, K::string},
            {"trim", true, 1, {K::string}, K::string},
            {"join", true, 1, {K::list}, K::string},
            {"join", true, 2, {K::list}, K::string},
            {"indexOf", true, 2, {K::string}, K::integer},
            {"indexOf", true, 3, {K::string}, K::integer},
            {"lastIndexOf", true, 2, {K::string}, K::integer},
            {"lastIndexOf", true, 3, {K::string}, K::integer},
            {"charAt", true, 2, {K::string}, K::string},
            {"substring", true, 2, {K::string}, K::string},
            {"substring", true, 3, {K::string}, K::string},
            {"replace", true, 3, {K::string}, K::string},
            {"replace", true, 4, {K::string}, K::string},
            {"split", true, 2, {K::string}, K::list},
            {"split", true, 3, {K::string}, K::list},
            {"int", false, 1, {K::integer, K::uinteger, K::real, K::string}, K::integer},
            {"uint", false, 1, {K::integer, K::uinteger, K::real, K::string}, K::uinteger},
            {"double", false, 1, {K::integer, K::uinteger, K::real, K::string}, K::real},
            {"string",
             false,
             1,
             {K::integer, K::uinteger, K::real, K::string, K::bytes, K::boolean},
             K::string},
            {"bool", false, 1, {K::boolean, K::string}, K::boolean},
            {"bytes", false, 1, {K::bytes, K::string}, K::bytes},
            {"dyn", false, 1, {}, K::dyn},
            {"type", false, 1, {}, K::type},
        };
        bool named = false;
        for (const auto& s : functions) {
            if (s.name != f) continue;
            named = true;
            if (s.member != n.member || s.arity != a.size()) continue;
            if (!s.accepts.empty() && known(a[0]) &&
                std::find(s.accepts.begin(), s.accepts.end(), a[0].kind) == s.accepts.end())
                continue;
            if (f == "dyn") return {};
            return {s.result};
        }
        if (named) return overload(n, a);
        return fail(n, "undeclared reference to '" + f + "' (in container '')");
    }
};

// ---------------------------------------------------------------------------------------------
// The evaluator.

struct evaluator {
    std::uint64_t limit = per_call_limit;
    std::uint64_t cost = 0;
    bool exceeded = false;
    std::map<std::string, value, std::less<>> vars;

    bool spend(std::uint64_t n) {
        cost += n;
        if (cost > limit) exceeded = true;
        return !exceeded;
    }
    static std::uint64_t tenth(std::size_t bytes) { return (bytes + 9) / 10; }

    // Lists and maps, read in place or built.
    static std::size_t size_of(const value& v) {
        if (v.k == vk::list) return v.doc ? v.doc->Size() : v.items->size();
        if (v.k == vk::map) return v.doc ? v.doc->MemberCount() : v.entries->size();
        return 0;
    }
    static value element(const value& list, std::size_t i) {
        if (list.doc)
            return value_of((*list.doc)[static_cast<rapidjson::SizeType>(i)],
                            items_of(list.schema));
        return (*list.items)[i];
    }
    static value key_at(const value& map, std::size_t i) {
        if (map.doc) {
            const auto& m = *(map.doc->MemberBegin() + static_cast<std::ptrdiff_t>(i));
            return value::string(std::string(m.name.GetString(), m.name.GetStringLength()));
        }
        return (*map.entries)[i].first;
    }
    static const json* property_schema(const value& map, const char* name) {
        if (const json* p = member_of(member_of(map.schema, "properties"), name)) return p;
        return additional_of(map.schema);
    }
    /// The value at `key` of a map, or nullopt.
    static std::optional<value> lookup(const value& map, const value& key) {
        if (map.doc) {
            if (key.k != vk::string) return std::nullopt;
            const auto it =
                map.doc->FindMember(json(rapidjson::StringRef(key.s.data(), key.s.size())));
            if (it == map.doc->MemberEnd()) return std::nullopt;
            return value_of(it->value, property_schema(map, key.s.c_str()));
        }
        for (const auto& [k, v] : *map.entries) {
            const value eq = equals(k, key);
            if (eq.k == vk::boolean && eq.b) return v;
        }
        return std::nullopt;
    }

    static bool is_number(const value& v) {
        return v.k == vk::integer || v.k == vk::uinteger || v.k == vk::real;
    }
    // -1, 0, 1 across int, uint and double (NaN: nullopt).
    static std::optional<int> compare_numbers(const value& a, const value& b) {
        if (a.k == vk::real || b.k == vk::real) {
            const double x = a.k == vk::real      ? a.d
                             : a.k == vk::integer ? static_cast<double>(a.i)
                                                  : static_cast<double>(a.u);
            const double y = b.k == vk::real      ? b.d
                             : b.k == vk::integer ? static_cast<double>(b.i)
                                                  : static_cast<double>(b.u);
            if (std::isnan(x) || std::isnan(y)) return std::nullopt;
            return x < y ? -1 : x > y ? 1 : 0;
        }
        if (a.k == vk::integer && b.k == vk::integer) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
        if (a.k == vk::uinteger && b.k == vk::uinteger) return a.u < b.u ? -1 : a.u > b.u ? 1 : 0;
        if (a.k == vk::integer)
            return a.i < 0                                 ? -1
                   : static_cast<std::uint64_t>(a.i) < b.u ? -1
                   : static_cast<std::uint64_t>(a.i) > b.u ? 1
                                                           : 0;
        return b.i < 0                                 ? 1
               : a.u < static_cast<std::uint64_t>(b.i) ? -1
               : a.u > static_cast<std::uint64_t>(b.i) ? 1
                                                       : 0;
    }

    // CEL's heterogeneous equality: numbers across types, lists and maps deep, other kinds false.
    static value equals(const value& a, const value& b) {
        if (a.is_error()) return a;
        if (b.is_error()) return b;
        if (is_number(a) && is_number(b)) {
            const auto c = compare_numbers(a, b);
            return value::boolean(c && *c == 0);
        }
        if (a.k != b.k) return value::boolean(false);
        switch (a.k) {
        case vk::null:
            return value::boolean(true);
        case vk::boolean:
            return value::boolean(a.b == b.b);
        case vk::string:
        case vk::bytes:
        case vk::type:
            return value::boolean(a.s == b.s);
        case vk::list: {
            const std::size_t n = size_of(a);
            if (n != size_of(b)) return value::boolean(false);
            for (std::size_t i = 0; i < n; ++i) {
                const value eq = equals(element(a, i), element(b, i));
                if (eq.is_error() || !eq.b) return eq;
            }
            return value::boolean(true);
        }
        case vk::map: {
            const std::size_t n = size_of(a);
            if (n != size_of(b)) return value::boolean(false);
            for (std::size_t i = 0; i < n; ++i) {
                const value key = key_at(a, i);
                const auto other = lookup(b, key);
                if (!other) return value::boolean(false);
                const value eq = equals(*lookup(a, key), *other);
                if (eq.is_error() || !eq.b) return eq;
            }
            return value::boolean(true);
        }
        default:
            return value::boolean(false);
        }
    }

    static value no_overload() { return value::error("no such overload"); }

    value eval(const node& n) {
        if (!spend(1)) return value::error(std::string(cost_exceeded));
        switch (n.o) {
        case node::op::literal:
            if (n.literal.k == vk::string || n.literal.k == vk::bytes)
                spend(tenth(n.literal.s.size()));
            return n.literal;
        case node::op::ident: {
            if (auto it = vars.find(n.name); it != vars.end()) return it->second;
            return type_value(n.name);
        }
        case node::op::select:
        case node::op::has: {
            const value target = eval(*n.args[0]);
            if (target.is_error()) return target;
            if (target.k != vk::map) return value::error("no such overload");
            const auto found = lookup(target, value::string(unescaped(n.name)));
            if (n.o == node::op::has) return value::boolean(found.has_value());
            if (!found) return value::error("no such key: " + unescaped(n.name));
            return *found;
        }
        case node::op::list: {
            std::vector<value> items;
            for (const auto& a : n.args) {
                value v = eval(*a);
                if (v.is_error()) return v;
                items.push_back(std::move(v));
            }
            spend(items.size());
            return list_of(std::move(items));
        }
        case node::op::map: {
            auto entries = std::make_shared<std::vector<std::pair<value, value>>>();
            for (std::size_t i = 0; i + 1 < n.args.size(); i += 2) {
                value k = eval(*n.args[i]);
                if (k.is_error()) return k;
                if (k.k != vk::string && k.k != vk::integer && k.k != vk::uinteger &&
                    k.k != vk::boolean)
                    return value::error("unsupported key type");
                value v = eval(*n.args[i + 1]);
                if (v.is_error()) return v;
                for (const auto& e : *entries) {
                    const value eq = equals(e.first, k);
                    if (eq.k == vk::boolean && eq.b)
                        return value::error("Failed with repeated key");
                }
                entries->emplace_back(std::move(k), std::move(v));
            }
            spend(entries->size());
            value r;
            r.k = vk::map;
            r.entries = std::move(entries);
            return r;
        }
        case node::op::comprehension:
            return comprehension(n);
        case node::op::call:
            return call(n);
        }
        return no_overload();
    }

    value comprehension(const node& n) {
        const value range = eval(*n.args[0]);
        if (range.is_error()) return range;
        if (range.k != vk::list && range.k != vk::map) return no_overload();
        const std::size_t count = size_of(range);
        const binding bound(vars, n.var, value{});
        return iterate(n, range, count);
    }

    // all/exists: a false (true) decides whatever errors other elements gave, as `&&` (`||`)
    // would; exists_one, filter and map are strict.
    value iterate(const node& n, const value& range, std::size_t count) {
        const bool all = n.name == "all", exists = n.name == "exists";
        const bool transform_only = n.name == "map" && n.args.size() == 2;
        std::optional<value> error;
        std::size_t trues = 0;
        std::vector<value> out;
        for (std::size_t i = 0; i < count; ++i) {
            if (!spend(1)) return value::error(std::string(cost_exceeded));
            const value& element_value = vars[n.var] =
                range.k == vk::list ? element(range, i) : key_at(range, i);
            if (transform_only) {
                value v = eval(*n.args[1]);
                if (v.is_error()) return v;
                out.push_back(std::move(v));
                continue;
            }
            const value p = eval(*n.args[1]);
            if (exceeded) return value::error(std::string(cost_exceeded));
            if (all || exists) {
                if (p.k != vk::boolean) {
                    if (!error) error = p.is_error() ? p : no_overload();
                } else if (p.b == exists) {
                    return p;
                }
                continue;
            }
            if (p.is_error()) return p;
            if (p.k != vk::boolean) return no_overload();
            if (!p.b) continue;
            if (n.name == "exists_one") {
                ++trues;
            } else if (n.name == "filter") {
                out.push_back(element_value);
            } else {
                value v = eval(*n.args[2]);
                if (v.is_error()) return v;
                out.push_back(std::move(v));
            }
        }
        if (all || exists) return error ? *error : value::boolean(all);
        if (n.name == "exists_one") return value::boolean(trues == 1);
        if (!spend(out.size())) return value::error(std::string(cost_exceeded));
        return list_of(std::move(out));
    }

    value call(const node& n) {
        const std::string& f = n.name;
        // The logical operators evaluate both sides and absorb errors (commutatively).
        if (f == "_&&_" || f == "_||_") {
            const bool absorbing = f == "_||_";
            const value a = eval(*n.args[0]);
            if (a.k == vk::boolean && a.b == absorbing) return a;
            const value b = eval(*n.args[1]);
            if (b.k == vk::boolean && b.b == absorbing) return b;
            if (exceeded) return value::error(std::string(cost_exceeded));
            if (a.is_error()) return a;
            if (b.is_error()) return b;
            if (a.k != vk::boolean || b.k != vk::boolean) return no_overload();
            return value::boolean(!absorbing);
        }
        if (f == "_?_:_") {
            const value c = eval(*n.args[0]);
            if (c.is_error()) return c;
            if (c.k != vk::boolean) return no_overload();
            return eval(*n.args[c.b ? 1 : 2]);
        }
        std::vector<value> a;
        a.reserve(n.args.size());
        for (const auto& arg : n.args) {
            value v = eval(*arg);
            if (v.is_error()) return v;
            a.push_back(std::move(v));
        }
        if (f == "!_") return a[0].k == vk::boolean ? value::boolean(!a[0].b) : no_overload();
        if (f == "-_") {
            if (a[0].k == vk::integer)
                return a[0].i == std::numeric_limits<std::int64_t>::min()
                           ? value::error("integer overflow")
                           : value::integer(-a[0].i);
            if (a[0].k == vk::real) return real(-a[0].d);
            return no_overload();
        }
        if (f == "_==_" || f == "_!=_") {
            const value eq = equals(a[0], a[1]);
            if (eq.is_error()) return eq;
            return value::boolean(f == "_==_" ? eq.b : !eq.b);
        }
        if (f == "_<_" || f == "_<=_" || f == "_>_" || f == "_>=_") {
            std::optional<int> c;
            if (is_number(a[0]) && is_number(a[1])) {
                c = compare_numbers(a[0], a[1]);
                if (!c) return value::boolean(false);
            } else if (a[0].k == a[1].k && (a[0].k == vk::string || a[0].k == vk::bytes)) {
                spend(tenth(std::min(a[0].s.size(), a[1].s.size())));
                c = a[0].s < a[1].s ? -1 : a[0].s > a[1].s ? 1 : 0;
            } else if (a[0].k == vk::boolean && a[1].k == vk::boolean) {
                c = static_cast<int>(a[0].b) - static_cast<int>(a[1].b);
            } else {
                return no_overload();
            }
            if (f == "_<_") return value::boolean(*c < 0);
            if (f == "_<=_") return value::boolean(*c <= 0);
            if (f == "_>_") return value::boolean(*c > 0);
            return value::boolean(*c >= 0);
        }
        if (f == "@in") {
            if (a[1].k == vk::list) {
                for (std::size_t i = 0, size = size_of(a[1]); i < size; ++i) {
                    if (!spend(1)) return value::error(std::string(cost_exceeded));
                    const value eq = equals(a[0], element(a[1], i));
                    if (eq.k == vk::boolean && eq.b) return eq;
                }
                return value::boolean(false);
            }
            if (a[1].k == vk::map) return value::boolean(lookup(a[1], a[0]).has_value());
            return no_overload();
        }
        if (f == "_[_]") return index(a[0], a[1]);
        if (f == "_+_" || f == "_-_" || f == "_*_" || f == "_/_" || f == "_%_")
            return arithmetic(f, a[0], a[1]);
        return function(f, a);
    }

    static value index(const value& target, const value& key) {
        if (target.k == vk::list) {
            std::int64_t i = 0;
            if (key.k == vk::integer)
                i = key.i;
            else if (key.k == vk::uinteger &&
                     key.u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                i = static_cast<std::int64_t>(key.u);
            else if (key.k == vk::real && std::trunc(key.d) == key.d && std::abs(key.d) < 9e18)
                i = static_cast<std::int64_t>(key.d);
            else
                return no_overload();
            if (i < 0 || static_cast<std::uint64_t>(i) >= size_of(target))
                return value::error("index out of bounds: " + std::to_string(i));
            return element(target, static_cast<std::size_t>(i));
        }
        if (target.k == vk::map) {
            auto found = lookup(target, key);
            if (!found) {
                std::string shown = key.k == vk::string    ? key.s
                                    : key.k == vk::integer ? std::to_string(key.i)
                                                           : type_name(key);
                return value::error("no such key: " + shown);
            }
            return *found;
        }
        return no_overload();
    }

    value arithmetic(const std::string& f, const value& x, const value& y) {
        if (x.k != y.k) return no_overload();
        const char op = f[1];
        switch (x.k) {
        case vk::integer: {
            std::int64_t r = 0;
            bool overflow = false;
            if (op == '+') overflow = __builtin_add_overflow(x.i, y.i, &r);
            if (op == '-') overflow = __builtin_sub_overflow(x.i, y.i, &r);
            if (op == '*') overflow = __builtin_mul_overflow(x.i, y.i, &r);
            if (op == '/' || op == '%') {
                if (y.i == 0)
                    return value::error(op == '/' ? "division by zero" : "modulus by zero");
                if (x.i == std::numeric_limits<std::int64_t>::min() && y.i == -1)
                    return value::error("integer overflow");
                r = op == '/' ? x.i / y.i : x.i % y.i;
            }
            return overflow ? value::error("integer overflow") : value::integer(r);
        }
        case vk::uinteger: {
            std::uint64_t r = 0;
            bool overflow = false;
            if (op == '+') overflow = __builtin_add_overflow(x.u, y.u, &r);
            if (op == '-') overflow = __builtin_sub_overflow(x.u, y.u, &r);
            if (op == '*') overflow = __builtin_mul_overflow(x.u, y.u, &r);
            if (op == '/' || op == '%') {
                if (y.u == 0)
                    return value::error(op == '/' ? "division by zero" : "modulus by zero");
                r = op == '/' ? x.u / y.u : x.u % y.u;
            }
            return overflow ? value::error("unsigned integer overflow") : uinteger(r);
        }
        case vk::real:
            if (op == '+') return real(x.d + y.d);
            if (op == '-') return real(x.d - y.d);
            if (op == '*') return real(x.d * y.d);
            if (op == '/') return real(x.d / y.d);
            return no_overload();
        case vk::string:
        case vk::bytes:
            if (op != '+') return no_overload();
            if (!spend(tenth(x.s.size() + y.s.size())))
                return value::error(std::string(cost_exceeded));
            {
                value r = x;
                r.s += y.s;
                return r;
            }
        case vk::list: {
            if (op != '+') return no_overload();
            std::vector<value> items;
            for (std::size_t i = 0, n = size_of(x); i < n; ++i)
                items.push_back(element(x, i));
            for (std::size_t i = 0, n = size_of(y); i < n; ++i)
                items.push_back(element(y, i));
            if (!spend(items.size())) return value::error(std::string(cost_exceeded));
            return list_of(std::move(items));
        }
        default:
            return no_overload();
        }
    }

    value function(const std::string& f, std::vector<value>& a) {
        const value& x = a[0];
        if (f == "size") {
            if (x.k == vk::string) {
                spend(tenth(x.s.size()));
                return value::integer(static_cast<std::int64_t>(code_points(x.s)));
            }
            if (x.k == vk::bytes) return value::integer(static_cast<std::int64_t>(x.s.size()));
            if (x.k == vk::list || x.k == vk::map)
                return value::integer(static_cast<std::int64_t>(size_of(x)));
            return no_overload();
        }
        if (f == "dyn") return x;
        if (f == "type") return type_value(type_name(x));
        if (f == "int" || f == "uint" || f == "double" || f == "string" || f == "bool" ||
            f == "bytes")
            return conversion(f, x);
        if (x.k == vk::list && f == "join") {
            std::string out;
            const std::string separator = a.size() > 1 && a[1].k == vk::string ? a[1].s : "";
            if (a.size() > 1 && a[1].k != vk::string) return no_overload();
            for (std::size_t i = 0, n = size_of(x); i < n; ++i) {
                const value e = element(x, i);
                if (e.k != vk::string) return no_overload();
                out += (i ? separator : "") + e.s;
                if (!spend(tenth(e.s.size()))) return value::error(std::string(cost_exceeded));
            }
            return value::string(std::move(out));
        }
        if (x.k != vk::string) return no_overload();
        for (std::size_t i = 1; i < a.size(); ++i)
            if (a[i].k != vk::string && a[i].k != vk::integer) return no_overload();
        if (!spend(tenth(x.s.size()))) return value::error(std::string(cost_exceeded));
        const std::string& s = x.s;
        auto str = [&](std::size_t i) -> const std::string* {
            return i < a.size() && a[i].k == vk::string ? &a[i].s : nullptr;
        };
        auto num = [&](std::size_t i) -> std::optional<std::int64_t> {
            if (i < a.size() && a[i].k == vk::integer) return a[i].i;
            return std::nullopt;
        };
        if (f == "contains" && str(1)) return value::boolean(s.find(*str(1)) != std::string::npos);
        if (f == "startsWith" && str(1))
            return value::boolean(s.size() >= str(1)->size() &&
                                  s.compare(0, str(1)->size(), *str(1)) == 0);
        if (f == "endsWith" && str(1))
            return value::boolean(s.size() >= str(1)->size() &&
                                  s.compare(s.size() - str(1)->size(), str(1)->size(), *str(1)) ==
                                      0);
        if (f == "lowerAscii" || f == "upperAscii") {
            std::string out = s;
            for (auto& c : out)
                if (f == "lowerAscii" ? (c >= 'A' && c <= 'Z') : (c >= 'a' && c <= 'z'))
                    c = static_cast<char>(c ^ 0x20);
            return value::string(std::move(out));
        }
        if (f == "trim") {
            // Unicode White_Space in ASCII and Latin-1, as Go's unicode.IsSpace.
            const std::string_view space = " \t\n\v\f\r";
            const auto first = s.find_first_not_of(space);
            if (first == std::string::npos) return value::string("");
            return value::string(s.substr(first, s.find_last_not_of(space) - first + 1));
        }
        const auto offsets = code_point_offsets(s);
        const auto length = static_cast<std::int64_t>(offsets.size());
        auto byte_at = [&](std::int64_t cp) {
            return cp >= length ? s.size() : offsets[static_cast<std::size_t>(cp)];
        };
        auto cp_of = [&](std::size_t byte) {
            return static_cast<std::int64_t>(code_points(std::string_view(s).substr(0, byte)));
        };
        if ((f == "indexOf" || f == "lastIndexOf") && str(1)) {
            const bool last = f == "lastIndexOf";
            std::int64_t from = last ? length : 0;
            if (a.size() == 3) {
                if (!num(2)) return no_overload();
                from = *num(2);
                if (from < 0 || from > length)
                    return value::error("index out of range: " + std::to_string(from));
            }
            const std::size_t found =
                last ? s.rfind(*str(1), byte_at(from)) : s.find(*str(1), byte_at(from));
            return value::integer(found == std::string::npos ? -1 : cp_of(found));
        }
        if (f == "charAt" && num(1)) {
            const std::int64_t i = *num(1);
            if (i < 0 || i > length)
                return value::error("index out of range: " + std::to_string(i));
            if (i == length) return value::string("");
            return value::string(s.substr(byte_at(i), byte_at(i + 1) - byte_at(i)));
        }
        if (f == "substring" && num(1)) {
            const std::int64_t begin = *num(1);
            const std::int64_t end = a.size() == 3 ? (num(2) ? *num(2) : -2) : length;
            if (end == -2) return no_overload();
            if (begin < 0 || begin > length)
                return value::error("index out of range: " + std::to_string(begin));
            if (end < 0 || end > length)
                return value::error("index out of range: " + std::to_string(end));
            if (begin > end)
                return value::error("invalid substring range. start: " + std::to_string(begin) +
                                    ", end: " + std::to_string(end));
            return value::string(s.substr(byte_at(begin), byte_at(end) - byte_at(begin)));
        }
        if (f == "replace" && str(1) && str(2)) {
            std::int64_t limit_n = a.size() == 4 ? (num(3) ? *num(3) : -2) : -1;
            if (limit_n == -2 && a.size() == 4) return no_overload();
            const std::string& from = *str(1);
            const std::string& to = *str(2);
            std::string out;
            std::size_t i = 0;
            std::int64_t done = 0;
            while (limit_n < 0 || done < limit_n) {
                const std::size_t found =
                    from.empty() ? (i <= s.size() ? i : std::string::npos) : s.find(from, i);
                if (found == std::string::npos) break;
                out += s.substr(i, found - i) + to;
                ++done;
                if (!spend(tenth(to.size()) + 1)) return value::error(std::string(cost_exceeded));
                if (from.empty()) {
                    if (found >= s.size()) {
                        i = s.size() + 1;
                        break;
                    }
                    const std::size_t next = next_boundary(s, found);
                    out += s.substr(found, next - found);
                    i = next;
                } else {
                    i = found + from.size();
                }
            }
            if (i <= s.size()) out += s.substr(i);
            return value::string(std::move(out));
        }
        if (f == "split" && str(1)) {
            std::int64_t limit_n = a.size() == 3 ? (num(2) ? *num(2) : 0) : -1;
            std::vector<value> parts;
            if (limit_n == 0) return list_of({});
            const std::string& separator = *str(1);
            std::size_t i = 0;
            while (limit_n < 0 || static_cast<std::int64_t>(parts.size()) + 1 < limit_n) {
                if (separator.empty()) {
                    if (i >= s.size()) break;
                    const std::size_t next = next_boundary(s, i);
                    parts.push_back(value::string(s.substr(i, next - i)));
                    i = next;
                    continue;
                }
                const std::size_t found = s.find(separator, i);
                if (found == std::string::npos) break;
                parts.push_back(value::string(s.substr(i, found - i)));
                i = found + separator.size();
                if (!spend(1)) return value::error(std::string(cost_exceeded));
            }
            if (!separator.empty() || i < s.size()) parts.push_back(value::string(s.substr(i)));
            return list_of(std::move(parts));
        }
        return no_overload();
    }

    static value conversion(const std::string& f, const value& x) {
        if (f == "int") {
            if (x.k == vk::integer) return x;
            if (x.k == vk::uinteger)
                return x.u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                           ? value::error("range error")
                           : value::integer(static_cast<std::int64_t>(x.u));
            if (x.k == vk::real) {
                if (!(x.d > -9223372036854775808.0 && x.d < 9223372036854775808.0))
                    return value::error("range error");
                return value::integer(static_cast<std::int64_t>(x.d));
            }
            if (x.k == vk::string) {
                std::int64_t v = 0;
                const auto [end, ec] = std::from_chars(x.s.data(), x.s.data() + x.s.size(), v);
                if (ec != std::errc() || end != x.s.data() + x.s.size())
                    return value::error("type conversion error from 'string' to 'int'");
                return value::integer(v);
            }
        }
        if (f == "uint") {
            if (x.k == vk::uinteger) return x;
            if (x.k == vk::integer)
                return x.i < 0 ? value::error("range error")
                               : uinteger(static_cast<std::uint64_t>(x.i));
            if (x.k == vk::real) {
                if (!(x.d > -1.0 && x.d < 18446744073709551616.0))
                    return value::error("range error");
                return uinteger(static_cast<std::uint64_t>(x.d));
            }
            if (x.k == vk::string) {
                std::uint64_t v = 0;
                const auto [end, ec] = std::from_chars(x.s.data(), x.s.data() + x.s.size(), v);
                if (ec != std::errc() || end != x.s.data() + x.s.size())
                    return value::error("type conversion error from 'string' to 'uint'");
                return uinteger(v);
            }
        }
        if (f == "double") {
            if (x.k == vk::real) return x;
            if (x.k == vk::integer) return real(static_cast<double>(x.i));
            if (x.k == vk::uinteger) return real(static_cast<double>(x.u));
            if (x.k == vk::string) {
                char* end = nullptr;
                const double v = std::strtod(x.s.c_str(), &end);
                if (x.s.empty() || end != x.s.c_str() + x.s.size())
                    return value::error("type conversion error from 'string' to 'double'");
                return real(v);
            }
        }
        if (f == "string") {
            if (x.k == vk::string) return x;
            if (x.k == vk::bytes) return value::string(x.s);
            if (x.k == vk::integer) return value::string(std::to_string(x.i));
            if (x.k == vk::uinteger) return value::string(std::to_string(x.u));
            if (x.k == vk::boolean) return value::string(x.b ? "true" : "false");
            if (x.k == vk::real) return value::string(format_double(x.d));
        }
        if (f == "bool") {
            if (x.k == vk::boolean) return x;
            if (x.k == vk::string) {
                static const std::set<std::string_view> yes{"1", "t", "T", "TRUE", "true", "True"};
                static const std::set<std::string_view> no{"0",     "f",     "F",
                                                           "FALSE", "false", "False"};
                if (yes.count(x.s)) return value::boolean(true);
                if (no.count(x.s)) return value::boolean(false);
                return value::error("type conversion error from 'string' to 'bool'");
            }
        }
        if (f == "bytes") {
            if (x.k == vk::bytes) return x;
            if (x.k == vk::string) {
                value r = x;
                r.k = vk::bytes;
                return r;
            }
        }
        return no_overload();
    }
};

// ---------------------------------------------------------------------------------------------
// What bounds a rule's cost (the manifest test's view of the real server's estimator).

struct bounds {
    const json* root_schema;
    std::vector<std::string> unbounded;

    static std::string path_of(const node& n) {
        if (n.o == node::op::ident) return n.name;
        if (n.o == node::op::select) return path_of(*n.args[0]) + "." + n.name;
        if (n.o == node::op::call && n.name == "_[_]") return path_of(*n.args[0]) + "[…]";
        return "(expression)";
    }

    // The schema of what a node reads from the document, or null.
    const json* schema_of(const node& n, const std::map<std::string, const json*>& scope) {
        if (n.o == node::op::ident) {
            auto it = scope.find(n.name);
            return it == scope.end() ? nullptr : it->second;
        }
        if (n.o == node::op::select) {
            const json* parent = schema_of(*n.args[0], scope);
            const std::string name = unescaped(n.name);
            if (const json* p = member_of(member_of(parent, "properties"), name.c_str())) return p;
            return additional_of(parent);
        }
        if (n.o == node::op::call && n.name == "_[_]") {
            const json* parent = schema_of(*n.args[0], scope);
            return items_of(parent) ? items_of(parent) : additional_of(parent);
        }
        return nullptr;
    }
    static std::optional<std::uint64_t> max_items(const json* schema) {
        for (const char* key : {"maxItems", "maxProperties"})
            if (const json* m = member_of(schema, key); m && m->IsUint64()) return m->GetUint64();
        return std::nullopt;
    }
    static std::optional<std::uint64_t> max_length(const json* schema) {
        if (const json* m = member_of(schema, "maxLength"); m && m->IsUint64())
            return m->GetUint64();
        if (const json* e = member_of(schema, "enum"); e && e->IsArray()) {
            std::uint64_t longest = 0;
            for (const auto& v : e->GetArray())
                if (v.IsString()) longest = std::max<std::uint64_t>(longest, v.GetStringLength());
            return longest;
        }
        return std::nullopt;
    }

    // Cost as every walk at its maxItems and every string at its maxLength; records what is
    // unbounded.
    std::uint64_t cost(const node& n, std::map<std::string, const json*>& scope) {
        std::uint64_t c = 1;
        if (n.o == node::op::comprehension) {
            const json* range = schema_of(*n.args[0], scope);
            const auto items = max_items(range);
            const bool from_document = range != nullptr;
            if (from_document && !items)
                unbounded.push_back("`" + path_of(*n.args[0]) +
                                    "`: a list or map walked without maxItems/maxProperties");
            c += cost(*n.args[0], scope);
            const json* element = items_of(range);
            std::uint64_t body = 0;
            {
                const binding bound(scope, n.var, element);
                for (std::size_t i = 1; i < n.args.size(); ++i)
                    body += cost(*n.args[i], scope);
            }
            const std::uint64_t iterations = n.args[0]->o == node::op::list
                                                 ? n.args[0]->args.size()
                                                 : items.value_or(from_document ? 0 : 1);
            return c + iterations * (body + 1);
        }
        if (n.o == node::op::call) {
            static const std::set<std::string_view> string_reads{
                "_==_",     "_!=_",       "_<_",        "_<=_",    "_>_",         "_>=_",
                "contains", "startsWith", "endsWith",   "indexOf", "lastIndexOf", "split",
                "replace",  "lowerAscii", "upperAscii", "trim"};
            if (string_reads.count(n.name)) {
                for (const auto& a : n.args) {
                    const json* s = schema_of(*a, scope);
                    if (!s || schema_type(s) != "string") continue;
                    const auto length = max_length(s);
                    if (!length)
                        unbounded.push_back("`" + path_of(*a) +
                                            "`: a string compared or searched without maxLength");
                    else
                        c += (*length + 9) / 10;
                }
            }
            if (n.name == "@in" || n.name == "join") {
                const node& operand = n.name == "join" ? *n.args[0] : *n.args.back();
                if (const json* list = schema_of(operand, scope)) {
                    const auto items = max_items(list);
                    if (!items)
                        unbounded.push_back("`" + path_of(operand) +
                                            "`: a list searched without maxItems");
                    c += items.value_or(0);
                }
            }
        }
        for (const auto& a : n.args)
            c += cost(*a, scope);
        return c;
    }
};

} // namespace

value value_of(const json& v, const json* schema) {
    value r;
    if (v.IsNull()) return r;
    const std::string_view t =
        flag(schema, "x-kubernetes-int-or-string") ? "" : schema_type(schema);
    if (v.IsBool()) return value::boolean(v.GetBool());
    if (v.IsString()) return value::string(std::string(v.GetString(), v.GetStringLength()));
    if (v.IsNumber()) {
        // As decoded JSON: an integer that fits int64 is an int, any other number a double.
        if (t != "number" && v.IsInt64()) return value::integer(v.GetInt64());
        return real(v.GetDouble());
    }
    if (v.IsArray()) r.k = vk::list;
    if (v.IsObject()) r.k = vk::map;
    r.doc = &v;
    r.schema = schema;
    return r;
}

std::size_t size_of(const value& v) {
    return evaluator::size_of(v);
}
value element_at(const value& list, std::size_t i) {
    return evaluator::element(list, i);
}
std::pair<value, value> entry_at(const value& map, std::size_t i) {
    value key = evaluator::key_at(map, i);
    auto found = evaluator::lookup(map, key);
    return {std::move(key), found ? std::move(*found) : value{}};
}

std::string type_name(const value& v) {
    switch (v.k) {
    case vk::null:
        return "null_type";
    case vk::boolean:
        return "bool";
    case vk::integer:
        return "int";
    case vk::uinteger:
        return "uint";
    case vk::real:
        return "double";
    case vk::string:
        return "string";
    case vk::bytes:
        return "bytes";
    case vk::list:
        return "list";
    case vk::map:
        return "map";
    case vk::type:
        return "type";
    case vk::error:
        return "error";
    }
    return "dyn";
}

compiled compile(std::string_view source, const json* self_schema, result_type want,
                 bool resource_root) {
    compiled out;
    if (source.size() > max_source_bytes) {
        out.error = "ERROR: <input>:-1:0: expression code point size exceeds limit: size: " +
                    std::to_string(code_points(source)) + ", limit " +
                    std::to_string(max_source_bytes);
        return out;
    }
    std::vector<token> tokens;
    lexer lex(source);
    if (!lex.run(tokens)) {
        out.error = located(source, lex.error_at, lex.error);
        return out;
    }
    parser p(std::move(tokens));
    node_ptr root = p.run();
    if (!root) {
        out.error = located(source, p.error_at, p.error);
        return out;
    }
    checker c(source);
    ctype self = type_of_schema(self_schema);
    self.root = resource_root;
    std::map<std::string, ctype> scope{{"self", self}, {"oldSelf", self}};
    const ctype result = c.check(*root, scope);
    if (!c.error.empty()) {
        out.error = c.error;
        return out;
    }
    const auto wanted = want == result_type::boolean ? ctype::k::boolean : ctype::k::string;
    if (result.kind != ctype::k::dyn && result.kind != wanted) {
        out.error = want == result_type::boolean ? "cel expression must evaluate to a bool"
                                                 : "messageExpression must evaluate to a string";
        return out;
    }
    out.ok = program{std::move(root), c.uses_old_self};
    return out;
}

evaluation evaluate(const program& p, const value& self, const value* old_self,
                    std::uint64_t limit) {
    evaluator e;
    e.limit = limit;
    e.vars.emplace("self", self);
    if (old_self) e.vars.emplace("oldSelf", *old_self);
    value result = e.eval(*p.root);
    if (e.exceeded) result = value::error(std::string(cost_exceeded));
    return {std::move(result), e.cost};
}

std::vector<std::string> unbounded_inputs(const program& p, const json* self_schema) {
    bounds b{self_schema, {}};
    std::map<std::string, const json*> scope{{"self", self_schema}, {"oldSelf", self_schema}};
    (void)b.cost(*p.root, scope);
    return b.unbounded;
}

std::optional<std::uint64_t> estimated_cost(const program& p, const json* self_schema) {
    bounds b{self_schema, {}};
    std::map<std::string, const json*> scope{{"self", self_schema}, {"oldSelf", self_schema}};
    const std::uint64_t c = b.cost(*p.root, scope);
    if (!b.unbounded.empty()) return std::nullopt;
    return c;
}

} // namespace hpaplus::sim::cel
