// Log lines of any text (names, annotations and messages users wrote travel in them): the JSON form
// is one line that parses as an object whose msg (and namespace/name, when the text starts with an
// object's key) holds the text, valid UTF-8 kept byte for byte; the text form is one line with no
// control character. Either way, nothing the text holds can end a line or forge another.
#include "controller/runtime/logging.hpp"
#include "fuzz/fuzz.hpp"

#include <rapidjson/document.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include <memory>
#include <sstream>

namespace {

struct sink_and_logger {
    explicit sink_and_logger(std::unique_ptr<spdlog::formatter> formatter)
        : sink(std::make_shared<spdlog::sinks::ostream_sink_st>(out)), logger("hpaplus", sink) {
        sink->set_formatter(std::move(formatter));
    }
    std::string line(std::string_view text) {
        out.str("");
        logger.info("{}", text);
        return out.str();
    }
    std::ostringstream out;
    std::shared_ptr<spdlog::sinks::ostream_sink_st> sink;
    spdlog::logger logger;
};

bool one_line(const std::string& line) {
    return !line.empty() && line.find('\n') == line.size() - 1;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using hpaplus::fuzz::require;
    static sink_and_logger json(hpaplus::controller::json_log_formatter());
    static sink_and_logger text(hpaplus::controller::log_formatter());
    const std::string_view message = hpaplus::fuzz::text(data, size);

    const std::string j = json.line(message);
    require(one_line(j), "a JSON log line is one line");
    rapidjson::Document doc;
    doc.Parse(j.c_str(), j.size() - 1);
    require(!doc.HasParseError() && doc.IsObject(), "a JSON log line parses as an object");
    require(doc.HasMember("msg") && doc["msg"].IsString(), "it has a msg");
    std::string whole(doc["msg"].GetString(), doc["msg"].GetStringLength());
    if (doc.HasMember("name")) {
        require(doc.HasMember("namespace"), "a name comes with its namespace");
        whole = std::string(doc["namespace"].GetString()) + "/" + doc["name"].GetString() + ": " +
                whole;
    }
    // Text that is valid UTF-8 without a C0, DEL or C1 control reads back as it was.
    bool plain = true;
    for (std::size_t i = 0; i < message.size(); ++i) {
        const auto c = static_cast<unsigned char>(message[i]);
        if (c < 0x20 || c == 0x7f || c >= 0x80) plain = false;
    }
    if (plain) require(whole == message, "plain text reads back from the JSON line");

    const std::string t = text.line(message);
    require(one_line(t), "a text log line is one line");
    for (std::size_t i = 0; i + 1 < t.size(); ++i) {
        const auto c = static_cast<unsigned char>(t[i]);
        require(c >= 0x20 && c != 0x7f, "a text log line holds no control character");
    }
    return 0;
}
