// What the adapter reads from outside to decide who calls it: the API server's TokenReview and
// SubjectAccessReview answers, the extension-apiserver-authentication ConfigMap, and the request
// path it derives review attributes (and the Forbidden message) from. The first byte picks the
// reader, the rest is the input. Never a crash; an authenticated user always has a name.
#include "adapter/auth.hpp"
#include "fuzz/fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string_view body = hpaplus::fuzz::text(data + 1, size - 1);
    using namespace hpaplus::adapter;
    switch (data[0] % 4) {
    case 0:
        if (const auto u = token_review_user(body))
            hpaplus::fuzz::require(!u->name.empty(), "an authenticated user has a name");
        break;
    case 1:
        (void)access_review_decision(body);
        break;
    case 2:
        (void)settings_from_configmap(body);
        break;
    default: {
        hpaplus::net::http_request r;
        r.method = "GET";
        r.target = std::string(body);
        r.path = std::string(body.substr(0, body.find('?')));
        const auto a = attributes_of(r);
        (void)forbidden_status({"fuzz", {}, {}}, a, "reason");
        break;
    }
    }
    return 0;
}
