// controller/runtime/debug_snapshots.hpp — /debug/objects/NAMESPACE/NAME: the ops server asks for
// the input an object's next pass decides from; the worker of that object, on whichever lane,
// answers with it (as an `evaluate` document). Nothing is kept or copied while nobody asks.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpaplus::controller {

class debug_snapshots {
  public:
    /// Requests waiting at once, at most (more are refused: a caller cannot pile them up).
    static constexpr std::size_t max_waiting = 32;

    /// Asks for the next pass of `kind` ("" = any kind) `ns`/`name`; 0 when too many wait.
    /// Any thread.
    std::uint64_t ask(std::string kind, std::string ns, std::string name);
    /// The answer once a pass gave one (the request is then done). Any thread.
    std::optional<std::string> take(std::uint64_t ticket);
    /// Gives up waiting. Any thread.
    void cancel(std::uint64_t ticket);

    /// Whether a pass of this object should write its input down: one atomic load while nobody
    /// asks. Any thread.
    bool wanted(std::string_view kind, std::string_view ns, std::string_view name) const;
    /// Answers every request for this object with `document`. Any thread.
    void answer(std::string_view kind, std::string_view ns, std::string_view name,
                const std::string& document);

  private:
    struct request {
        std::uint64_t ticket = 0;
        std::string kind, ns, name;
        std::optional<std::string> answer;
        bool matches(std::string_view k, std::string_view n, std::string_view o) const {
            return !answer && (kind.empty() || kind == k) && ns == n && name == o;
        }
    };
    std::atomic<std::size_t> waiting_{0};
    mutable std::mutex mutex_;
    std::vector<request> requests_;
    std::uint64_t next_ticket_ = 1;
};

} // namespace hpaplus::controller
