// sim::access_of and sim::rule_allows, which read every request to the simulated cluster and the
// rules of any Role a client stores: whatever the path and the rules hold, the attributes are read
// in one pass and a decision is made (never a crash), the refusal names the verb, and the
// wildcard rules cluster-admin has allow everything. Input: `METHOD PATH[?QUERY]`, a line `---`,
// a JSON array of PolicyRules.
#include "fuzz/fuzz.hpp"
#include "net/http_message.hpp"
#include "net/json_parse.hpp"
#include "sim/apiserver/rbac.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus;
    const std::string_view input = fuzz::text(data, size);
    const auto split = input.find("\n---\n");
    const std::string_view line = input.substr(0, split);
    const auto space = line.find(' ');
    if (space == std::string_view::npos) return 0;
    net::http_request r;
    r.method = std::string(line.substr(0, space));
    r.target = std::string(line.substr(space + 1));
    const auto question = r.target.find('?');
    r.path = r.target.substr(0, question);
    if (question != std::string::npos) r.query = net::parse_query(r.target.substr(question + 1));
    const sim::access_request a = sim::access_of(r);
    const sim::sim_user user{"fuzz", {"system:authenticated"}, {}, {}};
    fuzz::require(sim::forbidden(user, a, "").message.find("cannot " + a.verb) != std::string::npos,
                  "a refusal names the verb");
    sim::json_doc everything;
    everything.Parse(
        R"({"apiGroups":["*"],"resources":["*"],"nonResourceURLs":["*"],"verbs":["*"]})");
    fuzz::require(sim::rule_allows(sim::rule_of(everything), a),
                  "cluster-admin's wildcards allow every request");
    if (split == std::string_view::npos) return 0;
    sim::json_doc rules;
    if (!net::parse_json(rules, input.substr(split + 5), {32, 1u << 20}).empty() ||
        !rules.IsArray())
        return 0;
    for (const auto& rule : rules.GetArray()) {
        const sim::policy_rule parsed = sim::rule_of(rule);
        const bool allowed = sim::rule_allows(parsed, a);
        fuzz::require(allowed == sim::rule_allows(parsed, a), "a decision is a function");
        fuzz::require(!allowed || !parsed.verbs.empty(), "a rule without verbs allows nothing");
        (void)sim::rule_text(parsed);
    }
    return 0;
}
