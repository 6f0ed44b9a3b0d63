// net/use_tuple.hpp — the completion token of every awaited network operation: errors come back as
// values (a tuple with the error_code first) instead of exceptions.
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace hpaplus::net {

inline constexpr auto use_tuple = boost::asio::as_tuple(boost::asio::use_awaitable);

} // namespace hpaplus::net
