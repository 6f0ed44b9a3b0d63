// tests/tools/rbac_usage_check.cpp — every rule of the Roles and ClusterRoles deploy/ ships is
// the only grant of some request the test suite made: run after the suite with the directory the
// tests wrote their simulated clusters' /sim/v1/rbac-usage into ($HPAPLUS_RBAC_USAGE_DIR,
// scripts/test.sh). Removing such a rule refuses that request, and the test that made it fails
// (tests/support/shipped_identity.hpp: the components run under deploy/'s RBAC and a refusal fails
// the test). Prints what each rule was used for; exits 1 naming the rules no test needs.
#include "kube/yaml_json.hpp"
#include "sim/apiserver/rbac.hpp"
#include "support/shipped_identity.hpp"

#include <rapidjson/document.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace {

struct evidence {
    std::uint64_t sole = 0;
    std::set<std::string> verbs;
    std::string example;
};

} // namespace

int main(int argc, char** argv) {
    using namespace hpaplus;
    if (argc != 2) {
        std::fprintf(stderr, "usage: rbac_usage_check DIR (the suite's $HPAPLUS_RBAC_USAGE_DIR)\n");
        return 2;
    }
    std::map<std::string, evidence> seen;
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        rapidjson::Document doc;
        doc.Parse(text.str().c_str());
        if (!doc.IsObject() || !doc.HasMember("rules") || !doc["rules"].IsObject()) continue;
        ++files;
        for (const auto& [key, use] : doc["rules"].GetObject()) {
            evidence& e = seen[key.GetString()];
            const std::uint64_t sole = use["sole"].GetUint64();
            if (sole && e.example.empty()) e.example = use["example"].GetString();
            e.sole += sole;
            for (const auto& v : use["verbs"].GetArray())
                e.verbs.insert(v.GetString());
        }
    }
    std::printf("rbac usage of %d simulated clusters\n", files);
    int unneeded = 0;
    std::set<std::string> checked;
    for (const char* overlay : {"complete", "sharded"})
        for (const auto& yaml : test::shipped_rbac_documents(overlay)) {
            auto json = kube::yaml_documents_to_json(yaml);
            if (!json || json->empty()) continue;
            sim::json_doc role;
            role.Parse(json->front().c_str());
            const std::string kind = sim::string_at(role, "kind");
            if (kind != "Role" && kind != "ClusterRole") continue;
            const std::string name = kind == "Role"
                                         ? "Role/" + sim::string_at(role, "metadata.namespace") +
                                               "/" + sim::string_at(role, "metadata.name")
                                         : "ClusterRole/" + sim::string_at(role, "metadata.name");
            const sim::json* rules = sim::find_path(role, "rules");
            if (!rules || !rules->IsArray()) continue;
            for (const auto& rule : rules->GetArray()) {
                const std::string key = name + ": " + sim::rule_text(sim::rule_of(rule));
                if (!checked.insert(key).second) continue;
                const auto it = seen.find(key);
                if (it == seen.end() || it->second.sole == 0) {
                    std::printf("UNNEEDED  %s\n", key.c_str());
                    ++unneeded;
                    continue;
                }
                std::string verbs;
                for (const auto& v : it->second.verbs)
                    verbs += (verbs.empty() ? "" : ",") + v;
                std::printf("needed    %s\n          %llu requests only it allows, verbs used: %s; "
                            "first: %s\n",
                            key.c_str(), static_cast<unsigned long long>(it->second.sole),
                            verbs.c_str(), it->second.example.c_str());
            }
        }
    if (files == 0) {
        std::printf("no usage recorded: was the suite run with HPAPLUS_RBAC_USAGE_DIR?\n");
        return 1;
    }
    if (unneeded) {
        std::printf("%d shipped rule(s) no test needs: remove them, or add the test that needs "
                    "them\n",
                    unneeded);
        return 1;
    }
    std::printf("every rule deploy/ ships is needed by the suite\n");
    return 0;
}
