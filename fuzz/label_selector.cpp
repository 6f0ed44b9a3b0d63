// Label selectors in their string form: parsing never crashes, a parsed selector's string form
// parses back to the same selector, and matching works on any of them. The input's first line is
// the selector; each further line a label `key=value`, from which label_map is built three ways
// (from_pairs, emplace, insert_or_assign then erase) and held to std::map's behaviour; a set built
// like an equal one shares its buffer, and changing a copy leaves the set it was copied from.
#include "core/label_selector.hpp"
#include "fuzz/fuzz.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

using hpaplus::core::label_map;
using hpaplus::fuzz::require;

bool same(const label_map& labels, const std::map<std::string, std::string>& model) {
    if (labels.size() != model.size()) return false;
    auto m = model.begin();
    for (const auto& [key, value] : labels) {
        if (key != m->first || value != m->second) return false;
        ++m;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace hpaplus::core;
    std::string_view input = hpaplus::fuzz::text(data, size);
    const auto line_end = input.find('\n');
    const std::string_view selector_text = input.substr(0, line_end);
    std::vector<std::pair<std::string_view, std::string_view>> pairs;
    for (std::size_t at = line_end; at != std::string_view::npos && at < input.size();) {
        const auto next = input.find('\n', at + 1);
        const std::string_view line = input.substr(at + 1, next - at - 1);
        const auto equals = line.find('=');
        pairs.emplace_back(line.substr(0, equals),
                           equals == std::string_view::npos ? "" : line.substr(equals + 1));
        at = next;
    }

    std::map<std::string, std::string> model; // std::map's emplace: the first of a key stays
    label_map one_by_one;
    for (const auto& [key, value] : pairs) {
        const bool added = model.emplace(key, value).second;
        require(one_by_one.emplace(key, value) == added, "emplace adds a key once");
    }
    bool duplicates = false;
    const label_map built = label_map::from_pairs(pairs, &duplicates);
    require(duplicates == (model.size() != pairs.size()), "from_pairs reports repeated keys");
    require(same(built, model) && built == one_by_one, "label_map keeps std::map's labels");
    for (const auto& [key, value] : model)
        require(built.find(key) != built.end() && built.at(key) == value, "find finds each key");

    const auto built_model = model;
    label_map changed = built; // the last of a key wins; every other key removed again
    for (const auto& [key, value] : pairs) {
        changed.insert_or_assign(key, value);
        model.insert_or_assign(std::string(key), std::string(value));
    }
    require(same(changed, model), "insert_or_assign as std::map's");
    for (std::size_t i = 1; i < pairs.size(); i += 2) {
        require(changed.erase(pairs[i].first) == (model.erase(std::string(pairs[i].first)) == 1),
                "erase removes a key once");
    }
    require(same(changed, model), "erase as std::map's");
    require(same(built, built_model), "changing a copy leaves the set it was copied from");
    for (const label_map* like : {&one_by_one, &changed}) {
        const label_map again = label_map::from_pairs(pairs, nullptr, like);
        require(again == built, "a set built like another is the set built alone");
        require(again.shares_with(*like) == (!built.empty() && built == *like),
                "a set built like an equal one shares its buffer, and only then");
    }

    const auto selector = parse_label_selector(selector_text);
    if (!selector) return 0;
    const auto again = parse_label_selector(to_string(*selector));
    require(again && *again == *selector, "a selector's string form parses back");
    (void)selector->matches(label_map{{"app", "web"}, {"tier", "a"}});
    (void)selector->matches(built);
    return 0;
}
