// cli/evaluate/snapshot.hpp — `hpaplus evaluate`'s input decoded (docs/evaluate.md): what the
// controller would read for one reconcile, with the failures to inject.
#pragma once

#include "core/time.hpp"
#include "kinds/evaluate_input.hpp"
#include "policy/decision.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::cli {

struct snapshot {
    policy::reconcile_input input;
    std::vector<policy::pod_info> pods; ///< owns what input.pods points to
    policy::boost_authority boosts;     ///< what input.boosts points to (`vpapluses`, `target`)
    std::set<std::string, std::less<>> failures;
    /// The error a /scale write would get (failure `updateScale`); nullopt = it succeeds.
    std::optional<std::string> scale_write_error;
    /// What the controller decided from this input (`decided`, from /debug/objects).
    std::optional<kinds::decided_outcome> decided;
};

/// Decodes one input document into `s`; on bad input, one line naming the field. `default_now`
/// is used when the document has no "now".
std::optional<std::string> decode_snapshot(std::string_view input, core::time_point default_now,
                                           snapshot& s);

} // namespace hpaplus::cli
