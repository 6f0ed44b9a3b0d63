// vertical/recommender/go_math.hpp — the few functions of Go's `math` package whose results the
// upstream VPA recommender depends on to the last bit, computed the way Go (amd64) computes them.
// C's libm rounds differently in the last place for some inputs (C's pow(1.05, 4) puts memory
// bucket 4 at 43,101,250 bytes, Go's at 43,101,249), and a bucket boundary or a truncation to
// millicores turns that bit into a different recommendation.
#pragma once

namespace hpaplus::vertical::go {

/// math.Log: argument reduction to [√2/2, √2) and the FreeBSD e_log.c polynomial (Go's
/// log_amd64.s does the same operations in the same order).
double log(double x);

/// math.Exp2: reduction to t ∈ [-1/2, 1/2] around the nearest integer k, then Go's expmulti.
double exp2(double x);

/// math.Pow: Go's special cases, then for the integer part of y successive squaring of the
/// frexp mantissa with the powers of two kept apart (the fractional part through Exp·Log).
double pow(double x, double y);

} // namespace hpaplus::vertical::go
