// cli/flags.cpp — the flag table: typed setters, one message per kind of mistake, the help text.
#include "cli/flags.hpp"

#include "core/duration.hpp"
#include "net/listen_address.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace hpaplus::cli {
namespace {

template <class Number> bool parse_number(std::string_view text, Number& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && end == text.data() + text.size();
}

std::string want(const std::string& what, std::string_view value) {
    return "want " + what + ", got \"" + std::string(value) + "\"";
}

std::string show_number(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s;
}

} // namespace

flag_table::flag_table(std::string command) : command_(std::move(command)) {}

std::string flag_table::format_duration(std::chrono::nanoseconds d) {
    return core::format_go_duration(d);
}

void flag_table::text(const char* name, const char* help, std::string& field, bool show_default) {
    custom(name, help, show_default ? field : std::string(),
           [&field](std::string_view v) -> std::optional<std::string> {
               field = std::string(v);
               return std::nullopt;
           });
}

void flag_table::listen(const char* name, const char* help, std::string& field, const char* example,
                        bool allow_off) {
    custom(name, help, field,
           [&field, example, allow_off](std::string_view v) -> std::optional<std::string> {
               std::string address;
               unsigned short port = 0;
               if ((v.empty() && !allow_off) ||
                   (!v.empty() && !net::split_listen(v, address, port)))
                   return want(std::string("ADDR:PORT such as ") + example, v);
               field = std::string(v);
               return std::nullopt;
           });
}

void flag_table::boolean(const char* name, const char* help, bool& field) {
    custom(name, help, field ? "true" : "false",
           [&field](std::string_view v) -> std::optional<std::string> {
               if (v != "true" && v != "false") return want("true or false", v);
               field = v == "true";
               return std::nullopt;
           });
    flags_.back().boolean = true;
}

void flag_table::number(const char* name, const char* help, double& field, bool positive) {
    custom(name, help, show_number(field),
           [&field, positive](std::string_view v) -> std::optional<std::string> {
               double x = 0;
               if (!parse_number(v, x) || !std::isfinite(x) || x < 0 || (positive && x == 0))
                   return want(positive ? "a number > 0" : "a number >= 0", v);
               field = x;
               return std::nullopt;
           });
}

void flag_table::integer(const char* name, const char* help, int& field, int min, int max) {
    custom(name, help, std::to_string(field),
           [&field, min, max](std::string_view v) -> std::optional<std::string> {
               int n = 0;
               if (!parse_number(v, n) || n < min || n > max)
                   return want(
                       "an integer from " + std::to_string(min) + " to " + std::to_string(max), v);
               field = n;
               return std::nullopt;
           });
}

void flag_table::add_duration(const char* name, const char* help, std::chrono::nanoseconds min,
                              std::string default_text,
                              std::function<void(std::chrono::nanoseconds)> set) {
    custom(name, help, std::move(default_text),
           [min, set = std::move(set)](std::string_view v) -> std::optional<std::string> {
               const auto d = core::parse_go_duration(v);
               if (!d || *d < min) {
                   const std::string what =
                       min == std::chrono::nanoseconds(1) ? "a positive duration"
                       : min.count() <= 0                 ? "a duration"
                                          : "a duration of at least " + format_duration(min);
                   return want(what + " such as 15s", v);
               }
               set(*d);
               return std::nullopt;
           });
}

void flag_table::custom(const char* name, const char* help, std::string default_text, setter set) {
    flags_.push_back(
        {name, help, std::move(default_text), std::move(set), std::move(next_section_)});
    next_section_.clear();
}

flag_table::flag* flag_table::find(std::string_view name) {
    for (auto& f : flags_)
        if (f.name == name) return &f;
    return nullptr;
}

core::outcome<bool> flag_table::parse(const std::vector<std::string>& args,
                                      std::vector<std::string>* positional) {
    const auto see_help = " (see '" + command_ + " --help')";
    for (auto& f : flags_)
        f.given = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (arg == "--help" || arg == "-h") return true;
        // klog's `-v=N`, as kube-controller-manager takes it, for a table that has --v.
        std::string dashed;
        if ((arg == "-v" || arg.starts_with("-v=")) && find("v")) {
            dashed = "-" + std::string(arg);
            arg = dashed;
        }
        if (arg.substr(0, 2) != "--") {
            if (!positional)
                return core::error_message("unexpected argument '" + std::string(arg) + "'" +
                                           see_help);
            positional->emplace_back(arg);
            continue;
        }
        arg.remove_prefix(2);
        std::string_view name = arg;
        std::optional<std::string_view> value;
        if (const auto eq = arg.find('='); eq != std::string_view::npos) {
            name = arg.substr(0, eq);
            value = arg.substr(eq + 1);
        }
        flag* f = find(name);
        if (!f) return core::error_message("unknown flag --" + std::string(name) + see_help);
        if (!value) {
            const bool next_is_value =
                i + 1 < args.size() && std::string_view(args[i + 1]).substr(0, 2) != "--";
            if (f->boolean && !next_is_value)
                value = "true";
            else if (i + 1 < args.size())
                value = args[++i];
            else
                return core::error_message("--" + f->name + ": a value is required");
        }
        if (auto wrong = f->set(*value)) return core::error_message("--" + f->name + ": " + *wrong);
        f->given = true;
    }
    return false;
}

bool flag_table::given(std::string_view name) const {
    for (const auto& f : flags_)
        if (f.name == name) return f.given;
    return false;
}

std::string flag_table::help() const {
    std::string out;
    for (const auto& f : flags_) {
        if (!f.section.empty()) out += "\n" + f.section + ":\n";
        out += "  --" + f.name + "=VALUE\n        " + f.help;
        if (!f.default_text.empty()) out += " (default " + f.default_text + ")";
        out += "\n";
    }
    return out;
}

int usage_error(std::string_view command, std::string_view message) {
    std::fprintf(stderr, "%.*s: %.*s\n", static_cast<int>(command.size()), command.data(),
                 static_cast<int>(message.size()), message.data());
    return 2;
}

} // namespace hpaplus::cli
