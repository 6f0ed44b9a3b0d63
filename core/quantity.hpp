// core/quantity.hpp — Kubernetes resource.Quantity: parsing, canonical formatting, milli-values.
// Values are kept exactly as a signed count of nano-units (what upstream rounds to), so every
// form the API server accepts round-trips and MilliValue() rounds the way upstream does (up).
#pragma once

#include <boost/system/error_code.hpp>
#include <boost/system/result.hpp>

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace hpaplus::core {

/// How a quantity was written; kept so that formatting stays in the same family (as upstream does).
enum class quantity_format : std::uint8_t { decimal_si, binary_si, decimal_exponent };

/// Why a quantity string was rejected.
enum class quantity_errc {
    empty = 1,    ///< the string is empty
    bad_format,   ///< not of the form sign? number suffix?
    bad_suffix,   ///< the suffix is not one Kubernetes knows (`1K`, `1KB`, `1mi`)
    out_of_range, ///< magnitude above 2^63-1 base units
};

/// The error category for quantity_errc; messages are upstream's texts.
const boost::system::error_category& quantity_category() noexcept;
boost::system::error_code make_error_code(quantity_errc e) noexcept;

/// A Kubernetes resource quantity, exact to 1n (1e-9).
class quantity {
  public:
    __extension__ using nano_t = __int128;

    quantity() = default;

    /// Parses the upstream grammar: `[+-]number[suffix]` with decimal SI (n u m k M G T P E),
    /// binary SI (Ki .. Ei) or an exponent (`e3`, `E-3`). Rounds up (away from zero) to 1n.
    static boost::system::result<quantity> parse(std::string_view text);

    /// `resource.NewMilliQuantity(milli, format)`.
    static quantity from_milli(std::int64_t milli,
                               quantity_format format = quantity_format::decimal_si);
    /// `resource.NewQuantity(value, format)`.
    static quantity from_value(std::int64_t value,
                               quantity_format format = quantity_format::decimal_si);

    /// `MilliValue()`: ceil(q × 1000), rounded away from zero; saturates at the int64 limits.
    std::int64_t milli_value() const noexcept;
    /// `Value()`: ceil(q), rounded away from zero; saturates at the int64 limits.
    std::int64_t value() const noexcept;
    /// True when milli_value() did not saturate.
    bool milli_fits() const noexcept;
    /// `AsApproximateFloat64()`.
    double as_double() const noexcept;

    /// The canonical string the API server writes (`1500m`, `1Gi`, `1e3`).
    std::string to_string() const;

    quantity_format format() const noexcept { return format_; }
    int sign() const noexcept { return nano_ < 0 ? -1 : (nano_ > 0 ? 1 : 0); }
    bool is_zero() const noexcept { return nano_ == 0; }

    /// Quantities compare by value, never by spelling (`1000m` == `1`).
    friend bool operator==(const quantity& a, const quantity& b) noexcept {
        return a.nano_ == b.nano_;
    }
    friend std::strong_ordering operator<=>(const quantity& a, const quantity& b) noexcept {
        return a.nano_ <=> b.nano_;
    }

  private:
    quantity(nano_t nano, quantity_format format) : nano_(nano), format_(format) {}

    nano_t nano_ = 0;
    quantity_format format_ = quantity_format::decimal_si;
};

} // namespace hpaplus::core

namespace boost::system {
template <> struct is_error_code_enum<hpaplus::core::quantity_errc> : std::true_type {};
} // namespace boost::system
