// sim::cel::compile and evaluate, which read every x-kubernetes-validations rule a client writes
// into a CRD and run it on every write of its objects: whatever the rule and the object, the
// parse is one bounded pass (no crash, no deep recursion), and an evaluation ends within its cost
// limit with a value or an error — an error of cost exactly when the limit was passed — and is a
// function of its inputs. Input: a CEL expression, optionally a line `---` and a JSON `self`.
#include "fuzz/fuzz.hpp"
#include "net/json_parse.hpp"
#include "sim/apiserver/cel.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus;
    namespace cel = sim::cel;
    const std::string_view input = fuzz::text(data, size);
    const auto split = input.find("\n---\n");
    const std::string_view source = input.substr(0, split);
    sim::json_doc self;
    if (split != std::string_view::npos &&
        (!net::parse_json(self, input.substr(split + 5), {32, 1u << 16}).empty()))
        return 0;
    const auto compiled = cel::compile(source, nullptr, cel::result_type::boolean);
    fuzz::require(compiled.ok.has_value() != !compiled.error.empty(),
                  "a compile gives a program or an error");
    fuzz::require(source.size() <= cel::max_source_bytes || !compiled.ok,
                  "an oversized source is refused");
    if (!compiled.ok) return 0;
    constexpr std::uint64_t limit = 20'000; // a fuzz run is many evaluations, not one large one
    const cel::value bound = cel::value_of(self, nullptr);
    const auto first = cel::evaluate(*compiled.ok, bound, &bound, limit);
    const bool over = first.result.is_error() && first.result.s == cel::cost_exceeded;
    fuzz::require(over == (first.cost > limit), "the cost error is given exactly past the limit");
    const auto second = cel::evaluate(*compiled.ok, bound, &bound, limit);
    fuzz::require(first.cost == second.cost && first.result.k == second.result.k &&
                      first.result.s == second.result.s && first.result.i == second.result.i &&
                      first.result.b == second.result.b,
                  "an evaluation is a function of its inputs");
    (void)cel::type_name(first.result);
    return 0;
}
