// bench/json_line.hpp — one result line on stdout (DESIGN §4.6): a JSON object with a `name`,
// the figures, and for goals the ratio against the in-run baseline and whether the goal held.
#pragma once

#include <cstdio>
#include <string>

namespace hpaplus::bench {

class json_line {
  public:
    explicit json_line(const std::string& name) { text_ = "{\"name\":\"" + name + "\""; }
    json_line& add(const char* key, double value) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.6g", value);
        text_ += std::string(",\"") + key + "\":" + buffer;
        return *this;
    }
    json_line& add(const char* key, const std::string& value) {
        text_ += std::string(",\"") + key + "\":\"" + value + "\"";
        return *this;
    }
    json_line& flag(const char* key, bool value) {
        text_ += std::string(",\"") + key + "\":" + (value ? "true" : "false");
        return *this;
    }
    void print() const {
        std::printf("%s}\n", text_.c_str());
        std::fflush(stdout);
    }

  private:
    std::string text_;
};

} // namespace hpaplus::bench
