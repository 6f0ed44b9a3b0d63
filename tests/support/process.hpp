// tests/support/process.hpp — child processes for end-to-end tests: spawn with stdout captured,
// wait for a line (stdout and stderr together) with a deadline, and always terminate (SIGTERM, then
// SIGKILL) at destruction.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace hpaplus::test {

class child_process {
  public:
    explicit child_process(const std::vector<std::string>& argv);
    ~child_process();
    child_process(const child_process&) = delete;
    child_process& operator=(const child_process&) = delete;

    /// Reads stdout until a line containing `needle` (returned) or the deadline ("" then).
    std::string wait_for_line(const std::string& needle, std::chrono::milliseconds deadline);
    /// The lines it wrote (stdout and stderr together) that were not read yet, waiting up to
    /// `wait` for output when there is none.
    std::vector<std::string> read_lines(std::chrono::milliseconds wait);
    /// SIGTERM and wait; returns the exit status (-1 if it had to be killed).
    int terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(5000));
    /// SIGKILL at once (a crashed or killed process: nothing gets cleaned up).
    void kill_now();
    int pid() const { return pid_; }

  private:
    int pid_ = -1;
    int out_fd_ = -1;
    std::string buffered_;
    bool reaped_ = false;
    int status_ = 0;
};

struct command_result {
    int exit_code = -1;
    std::string output; ///< stdout and stderr together
};

/// Runs a shell command with a time limit (`timeout`), capturing its output.
command_result run_command(const std::string& command, int timeout_seconds = 60);

/// The kubectl the end-to-end tests run: $HPAPLUS_KUBECTL when set (the tests are registered once
/// per kubectl that scripts/setup.sh provides), otherwise `kubectl` from PATH.
std::string kubectl_program();

/// Runs kubectl against the kubeconfig `DIR/kubeconfig`, with its cache in `DIR/cache`.
command_result run_kubectl(const std::string& dir, const std::string& args,
                           int timeout_seconds = 60);

/// Polls `condition` every `poll` until it holds or `limit` has passed, then tries once more;
/// returns whether it held.
bool eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds limit = std::chrono::seconds(20),
                std::chrono::milliseconds poll = std::chrono::milliseconds(50));

/// The URL in a log line such as "… serving /healthz, /readyz and /metrics on URL" (from its
/// "http" to the next blank), "" when there is none.
std::string url_in(const std::string& line);

/// A loopback TCP port for a server that takes a port number, not 0: free now, outside the
/// kernel's ephemeral range (so no connection or bind(0) takes it meanwhile) and held for this
/// process until it exits (so no test process beside it is given the same one).
int free_port();

/// A fresh temporary directory, removed with everything in it at destruction.
class temp_dir {
  public:
    temp_dir();
    ~temp_dir();
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

} // namespace hpaplus::test
