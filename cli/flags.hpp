// cli/flags.hpp — the one command-line parser of every subcommand: a table of flags, each bound to
// the field it sets, so parsing, the errors and the --help text cannot disagree. A field's value
// when its flag is added is the default the help shows.
#pragma once

#include "core/outcome.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::cli {

class flag_table {
  public:
    /// A custom setter returns what was wrong with the value ("want ..."), or nothing.
    using setter = std::function<std::optional<std::string>(std::string_view)>;

    /// `command` names the subcommand in messages ("hpaplus controller").
    explicit flag_table(std::string command);

    /// Any text; `show_default` false for paths and names whose default is "not set".
    void text(const char* name, const char* help, std::string& field, bool show_default = true);
    /// ADDR:PORT such as `example`; "" (off) only when `allow_off`.
    void listen(const char* name, const char* help, std::string& field, const char* example,
                bool allow_off);
    /// `--name` alone means true; otherwise `--name=true|false`.
    void boolean(const char* name, const char* help, bool& field);
    /// A finite number >= 0, or > 0 when `positive`.
    void number(const char* name, const char* help, double& field, bool positive = false);
    void integer(const char* name, const char* help, int& field, int min, int max);
    /// A Go duration (15s, 1m30s) of at least `min`, rounded up to the field's unit.
    template <class Rep, class Period>
    void duration(const char* name, const char* help, std::chrono::duration<Rep, Period>& field,
                  std::chrono::nanoseconds min = std::chrono::nanoseconds(1)) {
        add_duration(name, help, min, format_duration(field), [&field](std::chrono::nanoseconds d) {
            field = std::chrono::ceil<std::chrono::duration<Rep, Period>>(d);
        });
    }
    /// A value only `set` understands; `default_text` "" shows no default.
    void custom(const char* name, const char* help, std::string default_text, setter set);
    /// The flags added after this are listed under `title` in the help.
    void section(std::string title) { next_section_ = std::move(title); }

    /// Parses `args` (args[0] is the subcommand). Returns true when --help or -h was given.
    /// Arguments without dashes go to `positional`; without it they are an error.
    core::outcome<bool> parse(const std::vector<std::string>& args,
                              std::vector<std::string>* positional = nullptr);

    /// Whether the last parse set `name`.
    bool given(std::string_view name) const;

    /// One entry per flag: `  --name=VALUE` and its help with the default.
    std::string help() const;

  private:
    struct flag {
        std::string name;
        std::string help;
        std::string default_text;
        setter set;
        std::string section; ///< a heading the help prints before this flag
        bool boolean = false;
        bool given = false;
    };
    static std::string format_duration(std::chrono::nanoseconds d);
    void add_duration(const char* name, const char* help, std::chrono::nanoseconds min,
                      std::string default_text, std::function<void(std::chrono::nanoseconds)> set);
    flag* find(std::string_view name);

    std::string command_;
    std::vector<flag> flags_;
    std::string next_section_;
};

/// Prints "COMMAND: message" on stderr and returns 2, the exit code of bad usage.
int usage_error(std::string_view command, std::string_view message);

} // namespace hpaplus::cli
