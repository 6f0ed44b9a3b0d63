// sim::server_side_apply, which takes an applied configuration from any client and the stored
// object with every manager's fields: whatever the two hold, it answers an object or a Status
// (never crashes or recurses without bound), and an answered object's last managedFields entry is
// the manager's Apply entry. Input: the applied JSON, a line `---`, the live JSON (optional); the
// schema is the built-in Deployment's, so lists merge by their keys.
#include "sim/apiserver/server_side_apply.hpp"
#include "fuzz/fuzz.hpp"
#include "net/json_parse.hpp"
#include "sim/apiserver/openapi.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus;
    const std::string_view input = fuzz::text(data, size);
    const auto split = input.find("\n---\n");
    const net::json_limits limits{64, 1u << 20};
    sim::json_doc applied, live;
    if (!net::parse_json(applied, input.substr(0, split), limits).empty()) return 0;
    const bool has_live = split != std::string_view::npos &&
                          net::parse_json(live, input.substr(split + 5), limits).empty();
    for (const bool force : {false, true}) {
        auto result = sim::server_side_apply({applied,
                                              has_live ? &live : nullptr,
                                              sim::builtin_kind_schema("apps", "v1", "Deployment"),
                                              "fuzz",
                                              "apps/v1",
                                              force,
                                              {}});
        if (auto* doc = std::get_if<sim::json_doc>(&result)) {
            const sim::json* managed = sim::find_path(*doc, "metadata.managedFields");
            fuzz::require(managed && managed->IsArray() && !managed->Empty(),
                          "an applied object has managedFields");
            const sim::json& last = (*managed)[managed->Size() - 1];
            fuzz::require(sim::string_at(last, "manager") == "fuzz" &&
                              sim::string_at(last, "operation") == "Apply",
                          "the last entry is the manager's Apply entry");
        }
    }
    return 0;
}
