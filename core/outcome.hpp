// core/outcome.hpp — the result type of pure code whose failures are explained in words:
// `outcome<T>` holds a T or an error_message (label selectors, requests, replica calculations).
#pragma once

#include <boost/system/result.hpp>

#include <stdexcept>
#include <string>

namespace hpaplus::core {

/// A failure explained in words, worded like upstream where upstream has a message.
struct error_message {
    std::string text;
    error_message() = default;
    error_message(std::string t) : text(std::move(t)) {} // NOLINT(google-explicit-constructor)
    error_message(const char* t) : text(t) {}            // NOLINT(google-explicit-constructor)
};

/// Found by ADL when outcome::value() is called on an error: a bug, so it throws.
[[noreturn]] inline void throw_exception_from_error(const error_message& e,
                                                    const boost::source_location&) {
    throw std::logic_error(e.text);
}

template <class T> using outcome = boost::system::result<T, error_message>;

/// A successful outcome, spelled out (needed where T is constructible from a string too).
template <class T> outcome<T> success(T value) {
    return outcome<T>(boost::system::in_place_value, std::move(value));
}

} // namespace hpaplus::core
