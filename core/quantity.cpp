// core/quantity.cpp — parsing and canonical formatting of resource.Quantity.
// Mirrors apimachinery's quantity.go / suffix.go: same grammar, same round-up to 1n,
// same canonical forms (largest exponent without a fraction; the format family is kept).
#include "core/quantity.hpp"

#include <array>
#include <limits>

namespace hpaplus::core {
namespace {

using nano_t = quantity::nano_t;

constexpr nano_t pow10(int n) {
    nano_t r = 1;
    for (int i = 0; i < n; ++i)
        r *= 10;
    return r;
}

constexpr nano_t nano_per_unit = pow10(9);
// Upstream caps magnitudes at 2^63-1 base units; we hold the same range at nano precision.
constexpr nano_t max_nano =
    static_cast<nano_t>(std::numeric_limits<std::int64_t>::max()) * nano_per_unit;
// Keep at most this many significant digits exactly; the rest only decide the round-up.
constexpr int max_digits = 37;

class quantity_error_category final : public boost::system::error_category {
  public:
    const char* name() const noexcept override { return "quantity"; }
    std::string message(int ev) const override {
        switch (static_cast<quantity_errc>(ev)) {
        case quantity_errc::empty:
            return "quantity is empty";
        case quantity_errc::bad_format:
            return "quantities must match the regular expression "
                   "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
        case quantity_errc::bad_suffix:
            return "unable to parse quantity's suffix";
        case quantity_errc::out_of_range:
            return "quantity is too large (limit is 2^63-1)";
        }
        return "unknown quantity error";
    }
};

struct suffix_info {
    quantity_format format;
    int base10 = 0; // decimal exponent (decimal SI and exponent forms)
    int base2 = 0;  // binary exponent (binary SI)
};

bool parse_suffix(std::string_view s, suffix_info& out) {
    if (s.empty()) {
        out = {quantity_format::decimal_si, 0, 0};
        return true;
    }
    if (s.size() == 1) {
        switch (s[0]) {
        case 'n':
            out = {quantity_format::decimal_si, -9, 0};
            return true;
        case 'u':
            out = {quantity_format::decimal_si, -6, 0};
            return true;
        case 'm':
            out = {quantity_format::decimal_si, -3, 0};
            return true;
        case 'k':
            out = {quantity_format::decimal_si, 3, 0};
            return true;
        case 'M':
            out = {quantity_format::decimal_si, 6, 0};
            return true;
        case 'G':
            out = {quantity_format::decimal_si, 9, 0};
            return true;
        case 'T':
            out = {quantity_format::decimal_si, 12, 0};
            return true;
        case 'P':
            out = {quantity_format::decimal_si, 15, 0};
            return true;
        case 'E':
            out = {quantity_format::decimal_si, 18, 0};
            return true;
        default:
            break;
        }
    }
    if (s.size() == 2 && s[1] == 'i') {
        switch (s[0]) {
        case 'K':
            out = {quantity_format::binary_si, 0, 10};
            return true;
        case 'M':
            out = {quantity_format::binary_si, 0, 20};
            return true;
        case 'G':
            out = {quantity_format::binary_si, 0, 30};
            return true;
        case 'T':
            out = {quantity_format::binary_si, 0, 40};
            return true;
        case 'P':
            out = {quantity_format::binary_si, 0, 50};
            return true;
        case 'E':
            out = {quantity_format::binary_si, 0, 60};
            return true;
        default:
            break;
        }
    }
    if (s.size() >= 2 && (s[0] == 'e' || s[0] == 'E')) {
        std::size_t i = 1;
        bool negative = false;
        if (s[i] == '+' || s[i] == '-') {
            negative = s[i] == '-';
            ++i;
        }
        if (i >= s.size()) return false;
        int exp = 0;
        for (; i < s.size(); ++i) {
            if (s[i] < '0' || s[i] > '9') return false;
            // Exponents this large are out of range (or round to 1n) anyway; clamp to avoid
            // overflow.
            if (exp < 100000) exp = exp * 10 + (s[i] - '0');
        }
        out = {quantity_format::decimal_exponent, negative ? -exp : exp, 0};
        return true;
    }
    return false;
}

// Divides a magnitude by 10^k, rounding up when anything non-zero is dropped.
nano_t div_pow10_round_up(nano_t v, int k, bool sticky) {
    if (k > 38) return (v != 0 || sticky) ? 1 : 0;
    const nano_t d = pow10(k);
    nano_t q = v / d;
    if (v % d != 0 || sticky) ++q;
    return q;
}

std::string to_decimal(nano_t v) {
    if (v == 0) return "0";
    std::string s;
    while (v > 0) {
        s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
        v /= 10;
    }
    return s;
}

} // namespace

const boost::system::error_category& quantity_category() noexcept {
    static const quantity_error_category category;
    return category;
}

boost::system::error_code make_error_code(quantity_errc e) noexcept {
    return {static_cast<int>(e), quantity_category()};
}

boost::system::result<quantity> quantity::parse(std::string_view text) {
    if (text.empty()) return quantity_errc::empty;
    std::size_t i = 0;
    bool negative = false;
    if (text[i] == '+' || text[i] == '-') {
        negative = text[i] == '-';
        ++i;
    }
    // Significant digits (leading zeros dropped) and the decimal exponent they stand at.
    nano_t mantissa = 0;
    int digits = 0;
    int exponent = 0;
    bool sticky = false; // a dropped non-zero digit
    bool any_digit = false;
    bool seen_point = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '.') {
            if (seen_point) return quantity_errc::bad_format;
            seen_point = true;
            continue;
        }
        if (c < '0' || c > '9') break;
        any_digit = true;
        if (mantissa == 0 && c == '0') {
            if (seen_point) --exponent;
            continue;
        }
        if (digits < max_digits) {
            mantissa = mantissa * 10 + (c - '0');
            ++digits;
            if (seen_point) --exponent;
        } else {
            if (c != '0') sticky = true;
            if (!seen_point) ++exponent;
        }
    }
    if (!any_digit) return quantity_errc::bad_format;

    suffix_info suffix{};
    if (!parse_suffix(text.substr(i), suffix)) {
        // Characters outside the quantity alphabet are a format error, known letters a suffix
        // error.
        for (char c : text.substr(i)) {
            const bool allowed =
                std::string_view("eEinumkKMGTP+-0123456789").find(c) != std::string_view::npos;
            if (!allowed) return quantity_errc::bad_format;
        }
        return quantity_errc::bad_suffix;
    }

    nano_t magnitude = mantissa;
    if (magnitude != 0 && suffix.base2 > 0) {
        const nano_t factor = static_cast<nano_t>(1) << suffix.base2;
        if (magnitude > max_nano * pow10(2) / factor) return quantity_errc::out_of_range;
        magnitude *= factor;
    }
    const int shift = exponent + suffix.base10 + 9; // to nano units
    if (magnitude == 0) {
        magnitude = sticky ? 1 : 0;
        if (shift >= 0 && sticky) return quantity_errc::out_of_range;
    } else if (shift >= 0) {
        for (int k = 0; k < shift; ++k) {
            if (magnitude > max_nano / 10) return quantity_errc::out_of_range;
            magnitude *= 10;
        }
    } else {
        magnitude = div_pow10_round_up(magnitude, -shift, sticky);
    }
    if (magnitude > max_nano) return quantity_errc::out_of_range;
    return quantity(negative ? -magnitude : magnitude, suffix.format);
}

quantity quantity::from_milli(std::int64_t milli, quantity_format format) {
    return quantity(static_cast<nano_t>(milli) * pow10(6), format);
}

quantity quantity::from_value(std::int64_t value, quantity_format format) {
    return quantity(static_cast<nano_t>(value) * nano_per_unit, format);
}

namespace {
std::int64_t saturate(nano_t v) {
    if (v > std::numeric_limits<std::int64_t>::max())
        return std::numeric_limits<std::int64_t>::max();
    if (v < std::numeric_limits<std::int64_t>::min())
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(v);
}

nano_t scaled_round_up(nano_t nano, int k) {
    const nano_t magnitude = nano < 0 ? -nano : nano;
    const nano_t scaled = div_pow10_round_up(magnitude, k, false);
    return nano < 0 ? -scaled : scaled;
}
} // namespace

std::int64_t quantity::milli_value() const noexcept {
    return saturate(scaled_round_up(nano_, 6));
}

std::int64_t quantity::value() const noexcept {
    return saturate(scaled_round_up(nano_, 9));
}

bool quantity::milli_fits() const noexcept {
    const nano_t m = scaled_round_up(nano_, 6);
    return m <= std::numeric_limits<std::int64_t>::max() &&
           m >= std::numeric_limits<std::int64_t>::min();
}

double quantity::as_double() const noexcept {
    return static_cast<double>(nano_) / 1e9;
}

std::string quantity::to_string() const {
    if (nano_ == 0) return "0";
    const bool negative = nano_ < 0;
    const nano_t magnitude = negative ? -nano_ : nano_;
    std::string out = negative ? "-" : "";

    const bool integral = magnitude % nano_per_unit == 0;
    if (format_ == quantity_format::binary_si && integral && magnitude >= 1024 * nano_per_unit) {
        nano_t units = magnitude / nano_per_unit;
        static constexpr std::array<const char*, 7> binary = {"",   "Ki", "Mi", "Gi",
                                                              "Ti", "Pi", "Ei"};
        std::size_t k = 0;
        while (k + 1 < binary.size() && units % 1024 == 0) {
            units /= 1024;
            ++k;
        }
        return out + to_decimal(units) + binary[k];
    }

    // Decimal: the largest multiple-of-3 exponent that leaves an integer mantissa.
    int exp = -9;
    nano_t mantissa = magnitude;
    while (exp < 18 && mantissa % 1000 == 0) {
        mantissa /= 1000;
        exp += 3;
    }
    out += to_decimal(mantissa);
    if (format_ == quantity_format::decimal_exponent) {
        if (exp != 0) out += "e" + std::to_string(exp);
        return out;
    }
    switch (exp) {
    case -9:
        return out + "n";
    case -6:
        return out + "u";
    case -3:
        return out + "m";
    case 0:
        return out;
    case 3:
        return out + "k";
    case 6:
        return out + "M";
    case 9:
        return out + "G";
    case 12:
        return out + "T";
    case 15:
        return out + "P";
    default:
        return out + "E";
    }
}

} // namespace hpaplus::core
