// tests/support/manifest_files.hpp — reading the repository's YAML manifests in unit tests: a
// file's text, the first document of a YAML text as JSON, and the examples of one kind.
#pragma once

#include "kube/yaml_json.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace hpaplus::test {

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The first document of `yaml` as JSON (a test failure when it does not parse).
inline rapidjson::Document json_of(const std::string& yaml) {
    auto docs = kube::yaml_documents_to_json(yaml);
    EXPECT_TRUE(docs) << docs.error().text;
    rapidjson::Document d;
    if (docs && !docs->empty()) d.Parse(docs->front().c_str());
    return d;
}

/// The objects of `kind` in crds/examples/ of the source tree at `source_dir`, by file name.
inline std::vector<std::pair<std::string, rapidjson::Document>>
examples_of(const std::string& source_dir, const std::string& kind) {
    std::vector<std::pair<std::string, rapidjson::Document>> out;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(source_dir) / "crds/examples")) {
        if (entry.path().extension() != ".yaml") continue;
        auto object = json_of(read_file(entry.path()));
        if (object.IsObject() && object.HasMember("kind") && kind == object["kind"].GetString())
            out.emplace_back(entry.path().filename().string(), std::move(object));
    }
    return out;
}

} // namespace hpaplus::test
