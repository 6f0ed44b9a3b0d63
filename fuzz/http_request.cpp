// The HTTP/1.1 request parser our servers (ops endpoint, adapter, webhook, sim) run on every
// connection, with their limits: any bytes are a request or a refusal (400, 413, 431), never a
// crash.
#include "fuzz/fuzz.hpp"
#include "net/http_server.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto parsed = hpaplus::net::parse_request(hpaplus::fuzz::text(data, size), 4096);
    if (parsed.request) {
        hpaplus::fuzz::require(parsed.request->body.size() <= 4096, "the body limit holds");
        (void)parsed.request->header("content-type");
        (void)parsed.request->query_param("watch");
    } else {
        hpaplus::fuzz::require(parsed.status == 400 || parsed.status == 413 || parsed.status == 431,
                               "a refusal is 400, 413 or 431");
    }
    return 0;
}
