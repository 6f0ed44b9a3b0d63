// `hpaplus recommend`'s input (cli/recommend_command): any bytes give a recommendation or one line
// naming what is wrong, and every recommendation keeps lowerBound ≤ target ≤ upperBound.
#include "cli/recommend_command.hpp"
#include "core/quantity.hpp"
#include "fuzz/fuzz.hpp"

#include <rapidjson/document.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus;
    const auto result = cli::recommend_document(fuzz::text(data, size));
    if (result.exit_code != 0) {
        fuzz::require(result.exit_code == 2, "an exit code other than 0 or 2");
        fuzz::require(!result.error.empty(), "an error without a message");
        fuzz::require(result.error.find('\n') == std::string::npos, "an error of several lines");
        return 0;
    }
    rapidjson::Document out;
    out.Parse(result.output.c_str());
    fuzz::require(!out.HasParseError() && out.IsObject(), "output that is not a JSON object");
    const auto& list = out["recommendation"]["containerRecommendations"];
    for (const auto& c : list.GetArray())
        for (const char* resource : {"cpu", "memory"}) {
            if (!c["target"].HasMember(resource)) continue;
            const auto value = [&](const char* bound) {
                return core::quantity::parse(c[bound][resource].GetString()).value();
            };
            fuzz::require(value("lowerBound") <= value("target") &&
                              value("target") <= value("upperBound"),
                          "a target outside its bounds");
        }
    return 0;
}
