// tests/support/controller_fixture.hpp — the real controller (controller_process) on its own
// thread and io_context against a simulated cluster, plus helpers to apply manifests and wait for
// a condition with a deadline.
#pragma once

#include "controller/runtime/options.hpp"
#include "sim_fixture.hpp"

#include <rapidjson/document.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace hpaplus::controller {
class controller_process;
}

namespace hpaplus::test {

/// Options for tests: no ops port, short periods and timeouts.
controller::controller_options test_controller_options();

/// A wall clock the tests step (controller_options::wall_clock): the real one plus an offset that
/// step_test_clock moves, as an NTP step or a resumed VM moves the host's, while the steady clock
/// and the simulated server's clock go on. reset_test_clock puts it back.
core::time_point test_clock();
void step_test_clock(std::chrono::nanoseconds by);
void reset_test_clock();

/// The controller runs as deployed: under ServiceAccount hpaplus-system/hpaplus-controller with
/// the RBAC of deploy/ (deploy/sharded's with options.shards > 1), installed before it starts; a
/// request that RBAC refuses fails the test when the runner ends.
class controller_runner {
  public:
    /// `through_port`: a proxy's port on 127.0.0.1 to reach the server by (0: straight to it).
    controller_runner(sim_fixture& sim, controller::controller_options options,
                      std::uint16_t through_port = 0);
    ~controller_runner();
    /// Graceful stop (SIGTERM's path); returns the exit code.
    int shutdown();
    /// An abrupt end: the thread stops with nothing released (a killed process).
    void kill();
    /// Blocks the controller's thread for `d`, as a SIGSTOP would stop the process: nothing of it
    /// runs meanwhile and its timers are late when it resumes. Returns at once.
    void freeze(std::chrono::milliseconds d);
    bool leading();
    /// The caches are synced and the controller acts (without election: at once).
    bool acting();
    std::uint64_t reconciles();
    std::uint64_t status_writes();
    std::uint64_t pod_metrics_lists();
    std::size_t workers();
    std::string ops_url();
    std::string webhook_url();
    /// The test means the controller to meet refusals (a Lease where its Role grants nothing):
    /// the runner does not fail it for them.
    void expect_refusals() { refusals_expected_ = true; }

  private:
    template <class T> T on_thread(std::function<T()> f);
    sim_fixture& sim_;
    boost::asio::io_context io_;
    std::unique_ptr<controller::controller_process> process_;
    std::thread thread_;
    int exit_code_ = -1;
    bool ended_ = false;
    bool refusals_expected_ = false;
};

/// POSTs every document of a YAML manifest (a path under the source tree, or text) to the
/// collection its apiVersion/kind/namespace name; fails the test on an error.
void apply_manifest(sim_fixture& sim, const std::string& yaml);
std::string read_source_file(const std::string& relative_path);

/// A plain-HTTP GET of `url` (http://HOST:PORT/path) on a fresh connection, with a 10 s deadline.
http_result http_get(const std::string& url);

/// GETs `path` and parses it (an empty document on failure).
rapidjson::Document get_json(sim_fixture& sim, const std::string& path);

} // namespace hpaplus::test
