// cli/migrate_command.cpp — `hpaplus migrate`: reads HPAs (files or stdin), writes HPAPlus objects
// (kinds/migrate does one object).
#include "cli/migrate_command.hpp"

#include "cli/evaluate/decision_json.hpp"
#include "cli/flags.hpp"
#include "cli/read_input.hpp"
#include "kinds/migrate.hpp"
#include "kube/yaml_json.hpp"
#include "net/json_parse.hpp"

#include <rapidjson/document.h>

#include <cstdio>

namespace hpaplus::cli {
namespace {

constexpr const char* migrate_usage =
    "Usage: hpaplus migrate [FILE|-]...\n"
    "\n"
    "Reads HorizontalPodAutoscalers (autoscaling/v2, v2beta2 or v1; YAML or JSON; several "
    "documents\n"
    "and Lists, as `kubectl get hpa -A -o yaml` prints them) and writes the equivalent HPAPlus\n"
    "objects as JSON for `kubectl apply -f -`: one object, or a List of them. The spec is kept "
    "field\n"
    "for field; the autoscaling.hpaplus.io/ annotations (sync-period-seconds, mode, "
    "rollout-policy,\n"
    "pod-selection) "
    "become spec fields; status and what the API server sets are left out. Without FILE, or with "
    "-,\n"
    "stdin is read. Objects that are not HorizontalPodAutoscalers are skipped with a note on "
    "stderr.\n"
    "\n"
    "Exit codes: 0 written, 2 bad usage or bad input (no HorizontalPodAutoscaler, unreadable "
    "YAML).\n";

std::string object_name(const rapidjson::Value& o) {
    if (!o.IsObject() || !o.HasMember("metadata") || !o["metadata"].IsObject()) return "?";
    const auto& m = o["metadata"];
    std::string ns =
        m.HasMember("namespace") && m["namespace"].IsString() ? m["namespace"].GetString() : "";
    std::string name = m.HasMember("name") && m["name"].IsString() ? m["name"].GetString() : "?";
    return ns.empty() ? name : ns + "/" + name;
}

// Adds the HPAPlus of `o` (or of each item of a List) to `items`.
void migrate_object(const rapidjson::Value& o, rapidjson::Document& out, migrate_result& r) {
    if (o.IsObject() && o.HasMember("items") && o["items"].IsArray()) {
        for (const auto& item : o["items"].GetArray())
            migrate_object(item, out, r);
        return;
    }
    auto migrated = kinds::migrate_hpa(o);
    if (!migrated) {
        r.warnings.push_back(object_name(o) + ": skipped: " + migrated.error().text);
        return;
    }
    for (const auto& w : migrated->warnings)
        r.warnings.push_back(object_name(o) + ": " + w);
    out["items"].PushBack(rapidjson::Value(migrated->object, out.GetAllocator()),
                          out.GetAllocator());
}

} // namespace

migrate_result migrate_documents(std::string_view input) {
    migrate_result r;
    auto documents = kube::yaml_documents_to_json(std::string(input));
    if (!documents) return {2, {}, {}, documents.error().text};
    rapidjson::Document out;
    out.SetObject();
    out.AddMember("apiVersion", "v1", out.GetAllocator());
    out.AddMember("kind", "List", out.GetAllocator());
    out.AddMember("items", rapidjson::Value(rapidjson::kArrayType), out.GetAllocator());
    for (const auto& text : *documents) {
        rapidjson::Document doc;
        if (auto why = net::parse_json(doc, text); !why.empty())
            return {2, {}, {}, "bad JSON: " + why};
        migrate_object(doc, out, r);
    }
    const auto& items = out["items"];
    if (items.Empty())
        return {2, {}, std::move(r.warnings), "no HorizontalPodAutoscaler in the input"};
    r.output =
        pretty_json(items.Size() == 1 ? items[0] : static_cast<const rapidjson::Value&>(out));
    return r;
}

int run_migrate(int argc, char** argv) {
    std::vector<std::string> paths(argv + 1, argv + argc);
    for (const auto& p : paths) {
        if (p == "--help" || p == "-h") {
            std::fputs(migrate_usage, stdout);
            return 0;
        }
        if (p.size() > 1 && p[0] == '-') return usage_error("hpaplus migrate", "unknown flag " + p);
    }
    if (paths.empty()) paths.push_back("-");
    std::string all;
    for (const auto& p : paths) {
        auto text = read_input(p);
        if (!text) return usage_error("hpaplus migrate", p + ": " + text.error().text);
        // Documents of several files: each file starts a new document.
        all += "\n---\n" + *text;
    }
    const migrate_result r = migrate_documents(all);
    for (const auto& w : r.warnings)
        std::fprintf(stderr, "hpaplus migrate: %s\n", w.c_str());
    if (r.exit_code != 0) return usage_error("hpaplus migrate", r.error);
    std::fwrite(r.output.data(), 1, r.output.size(), stdout);
    return 0;
}

} // namespace hpaplus::cli
