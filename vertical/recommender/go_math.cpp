// vertical/recommender/go_math.cpp — Go's Log, Exp2 and Pow, operation for operation. Compiled
// with -ffp-contract=off (vertical/CMakeLists.txt): a fused multiply-add would round once where Go
// rounds twice.
#include "vertical/recommender/go_math.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

namespace hpaplus::vertical::go {
namespace {

constexpr double ln2_hi = 6.93147180369123816490e-01;
constexpr double ln2_lo = 1.90821492927058770002e-10;
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// Go's expmulti: e^r × 2^k with r = hi − lo, a rational approximation on the reduced argument.
double exp_multi(double hi, double lo, int k) {
    constexpr double p1 = 1.66666666666666657415e-01;
    constexpr double p2 = -2.77777777770155933842e-03;
    constexpr double p3 = 6.61375632143793436117e-05;
    constexpr double p4 = -1.65339022054652515390e-06;
    constexpr double p5 = 4.13813679705723846039e-08;
    const double r = hi - lo;
    const double t = r * r;
    const double c = r - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))));
    const double y = 1 - ((lo - (r * c) / (2 - c)) - hi);
    return std::ldexp(y, k);
}

// Go's pure exp (only Pow's fractional exponents reach it; the recommender's never do).
double exp(double x) {
    constexpr double log2e = 1.44269504088896338700e+00;
    if (std::isnan(x) || x == inf) return x;
    if (x == -inf) return 0;
    if (x > 7.09782712893383973096e+02) return inf;
    if (x < -7.45133219101941108420e+02) return 0;
    if (-0x1p-28 < x && x < 0x1p-28) return 1 + x;
    int k = 0;
    if (x < 0) k = static_cast<int>(log2e * x - 0.5);
    if (x > 0) k = static_cast<int>(log2e * x + 0.5);
    const double hi = x - static_cast<double>(k) * ln2_hi;
    const double lo = static_cast<double>(k) * ln2_lo;
    return exp_multi(hi, lo, k);
}

bool is_odd_integer(double y) {
    double whole = 0;
    const double fraction = std::modf(y, &whole);
    return fraction == 0 && std::fabs(whole) < 0x1p63 &&
           (static_cast<std::int64_t>(whole) & 1) == 1;
}

} // namespace

double log(double x) {
    constexpr double l1 = 6.666666666666735130e-01;
    constexpr double l2 = 3.999999999940941908e-01;
    constexpr double l3 = 2.857142874366239149e-01;
    constexpr double l4 = 2.222219843214978396e-01;
    constexpr double l5 = 1.818357216161805012e-01;
    constexpr double l6 = 1.531383769920937332e-01;
    constexpr double l7 = 1.479819860511658591e-01;
    if (std::isnan(x) || x == inf) return x;
    if (x < 0) return nan;
    if (x == 0) return -inf;
    int exponent = 0;
    double f1 = std::frexp(x, &exponent);
    if (f1 < M_SQRT1_2) {
        f1 *= 2;
        --exponent;
    }
    const double f = f1 - 1;
    const double k = exponent;
    const double s = f / (2 + f);
    const double s2 = s * s;
    const double s4 = s2 * s2;
    const double t1 = s2 * (l1 + s4 * (l3 + s4 * (l5 + s4 * l7)));
    const double t2 = s4 * (l2 + s4 * (l4 + s4 * l6));
    const double r = t1 + t2;
    const double hfsq = 0.5 * f * f;
    return k * ln2_hi - ((hfsq - (s * (hfsq + r) + k * ln2_lo)) - f);
}

double exp2(double x) {
    if (std::isnan(x) || x == inf) return x;
    if (x == -inf) return 0;
    if (x > 1.0239999999999999e+03) return inf;
    if (x < -1.0740e+03) return 0;
    int k = 0;
    if (x > 0) k = static_cast<int>(x + 0.5);
    if (x < 0) k = static_cast<int>(x - 0.5);
    const double t = x - static_cast<double>(k);
    return exp_multi(t * ln2_hi, -t * ln2_lo, k);
}

double pow(double x, double y) {
    if (y == 0 || x == 1) return 1;
    if (y == 1) return x;
    if (std::isnan(x) || std::isnan(y)) return nan;
    if (x == 0) {
        if (y < 0) return is_odd_integer(y) ? std::copysign(inf, x) : inf;
        return is_odd_integer(y) ? x : 0;
    }
    if (std::isinf(y)) {
        if (x == -1) return 1;
        return (std::fabs(x) < 1) == (y > 0) ? 0 : inf;
    }
    if (std::isinf(x)) {
        if (x < 0) return pow(1 / x, -y); // Pow(-0, -y)
        return y < 0 ? 0 : inf;
    }
    if (y == 0.5) return std::sqrt(x);
    if (y == -0.5) return 1 / std::sqrt(x);

    double whole = 0;
    double fraction = std::modf(std::fabs(y), &whole);
    if (fraction != 0 && x < 0) return nan;
    if (whole >= 0x1p63) {
        if (x == -1) return 1;
        return (std::fabs(x) < 1) == (y > 0) ? 0 : inf;
    }
    // The answer is kept as mantissa × 2^exponent until the end.
    double mantissa = 1.0;
    long exponent = 0;
    if (fraction != 0) {
        if (fraction > 0.5) {
            fraction -= 1;
            whole += 1;
        }
        mantissa = exp(fraction * log(x));
    }
    int x_exponent_int = 0;
    double x1 = std::frexp(x, &x_exponent_int);
    long x_exponent = x_exponent_int;
    for (auto i = static_cast<std::int64_t>(whole); i != 0; i >>= 1) {
        if (x_exponent < -(1L << 12) || (1L << 12) < x_exponent) {
            exponent += x_exponent; // certain under/overflow: ldexp below gives 0 or Inf
            break;
        }
        if ((i & 1) == 1) {
            mantissa *= x1;
            exponent += x_exponent;
        }
        x1 *= x1;
        x_exponent <<= 1;
        if (x1 < .5) {
            x1 += x1;
            --x_exponent;
        }
    }
    if (y < 0) {
        mantissa = 1 / mantissa;
        exponent = -exponent;
    }
    if (exponent > 1L << 20) return std::ldexp(mantissa, 1 << 20);
    if (exponent < -(1L << 20)) return std::ldexp(mantissa, -(1 << 20));
    return std::ldexp(mantissa, static_cast<int>(exponent));
}

} // namespace hpaplus::vertical::go
