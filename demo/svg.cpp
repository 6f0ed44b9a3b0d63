// demo/svg.cpp — shared chart pieces (no I/O).
#include "demo/svg.hpp"

#include <cmath>
#include <cstdio>

namespace hpaplus::demo::svg {

std::string num(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", v);
    return buffer;
}

std::string short_number(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", std::round(v * 10) / 10);
    return buffer;
}

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

double nice_max(double v) {
    if (v <= 0) return 1;
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= v) return m * p;
    return 10 * p;
}

} // namespace hpaplus::demo::svg
