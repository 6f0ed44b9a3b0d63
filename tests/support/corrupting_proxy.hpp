// tests/support/corrupting_proxy.hpp — a TCP proxy on loopback between a client and a server that
// forwards every byte, except that it replaces occurrences of one byte string in what the server
// sends with another of the same length (so HTTP framing, chunk sizes included, still
// holds): a garbled watch event, as a flaky middlebox or a bug would deliver it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace hpaplus::test {

class corrupting_proxy {
  public:
    /// Listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:`upstream_port`; replaces the
    /// first `times` occurrences of `find` the server sends (every one when `times` is 0) with
    /// `replace` (the same length), then forwards as is.
    corrupting_proxy(std::uint16_t upstream_port, std::string find, std::string replace,
                     int times = 1);
    ~corrupting_proxy();
    corrupting_proxy(const corrupting_proxy&) = delete;
    corrupting_proxy& operator=(const corrupting_proxy&) = delete;

    std::uint16_t port() const;
    /// `http://127.0.0.1:PORT`
    std::string url() const;
    /// How many replacements were made.
    int corrupted() const;

  private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

} // namespace hpaplus::test
