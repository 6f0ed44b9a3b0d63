// `hpaplus evaluate`'s input, which `hpaplus why` also reads from the controller's ops port
// (cli/evaluate/snapshot): any bytes give a decision — as JSON, and explained in words — or one line
// naming what is wrong.
#include "cli/evaluate_command.hpp"
#include "core/time.hpp"
#include "fuzz/fuzz.hpp"

#include <rapidjson/document.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus;
    const auto now = core::parse_rfc3339("2026-01-01T00:10:00Z").value();
    const std::string_view input = fuzz::text(data, size);
    const auto decided = cli::evaluate_document(input, now);
    const auto explained =
        cli::evaluate_document(input, now, cli::evaluate_output::explanation);
    fuzz::require(decided.exit_code == explained.exit_code, "explained and decided disagree");
    if (decided.exit_code != 0) {
        fuzz::require(decided.exit_code == 2, "an exit code other than 0 or 2");
        fuzz::require(!decided.error.empty(), "an error without a message");
        fuzz::require(decided.error.find('\n') == std::string::npos, "an error of several lines");
        return 0;
    }
    rapidjson::Document out;
    out.Parse(decided.output.c_str());
    fuzz::require(!out.HasParseError() && out.IsObject(), "output that is not a JSON object");
    fuzz::require(explained.output.find("Decision: ") != std::string::npos,
                  "an explanation without its decision");
    return 0;
}
