// End-to-end: three `hpaplus controller --shards 3` processes against `hpaplus sim` share the
// objects out; one is killed, its shard moves to the others and every object keeps scaling.
#include "../support/build_paths.hpp"
#include "../support/process.hpp"
#include "../support/shipped_identity.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

namespace hpaplus {
namespace {

using namespace std::chrono_literals;

const std::string source = HPAPLUS_SOURCE_DIR;
// examples/shards-on-sim/apps.yaml: app-a … app-f.
const std::vector<std::string> apps{"app-a", "app-b", "app-c", "app-d", "app-e", "app-f"};

class Shards : public ::testing::Test {
  protected:
    void SetUp() override {
        sim = std::make_unique<test::child_process>(std::vector<std::string>{
            HPAPLUS_BINARY, "sim", "--kubeconfig-out", dir.path() + "/kubeconfig"});
        ASSERT_FALSE(sim->wait_for_line("listening on", 20s).empty());
        ASSERT_EQ(kubectl("apply -f " + source + "/crds/").exit_code, 0);
    }
    void TearDown() override {
        for (auto& [name, p] : replicas) {
            EXPECT_EQ(p->terminate(10000ms), 0) << name << " did not stop on SIGTERM";
        }
        if (sim) {
            // Under deploy/'s RBAC, nothing the components did was refused.
            test::record_rbac_usage_of(dir.path());
            for (const auto* account : {&test::controller_account, &test::adapter_account})
                EXPECT_EQ(test::shipped_refusals(dir.path(), *account), "") << *account;
            EXPECT_EQ(sim->terminate(), 0);
        }
    }
    test::command_result kubectl(const std::string& args) {
        return test::run_kubectl(dir.path(), args);
    }
    bool eventually(const std::function<bool()>& f, std::chrono::seconds limit = 30s) {
        return test::eventually(f, limit, 200ms);
    }
    void start(const std::string& identity) {
        auto p = std::make_unique<test::child_process>(std::vector<std::string>{
            HPAPLUS_BINARY, "controller", "--kubeconfig",
            test::shipped_kubeconfig(dir.path(), test::controller_account, "sharded"), "--shards=3",
            "--ops-listen=127.0.0.1:0", "--leader-elect-identity=" + identity,
            "--leader-elect-lease-duration=2s", "--leader-elect-renew-deadline=1500ms",
            "--leader-elect-retry-period=200ms",
            "--horizontal-pod-autoscaler-cpu-initialization-period=1s", "--cronhpa=false",
            "--default-sync-period=1s"});
        ops[identity] = test::url_in(p->wait_for_line("serving /healthz", 20s));
        ASSERT_FALSE(ops[identity].empty()) << identity << " did not serve /metrics";
        replicas[identity] = std::move(p);
    }
    // Shard i's holder, from its Lease.
    std::string holder(int shard) {
        return kubectl("-n hpaplus-system get lease hpaplus-controller-shard-" +
                       std::to_string(shard) + " -o jsonpath={.spec.holderIdentity}")
            .output;
    }
    // The value of the gauge `name` (with `labels`, as written in the exposition) at `identity`.
    std::string gauge(const std::string& identity, const std::string& series) {
        const auto r = test::run_command("curl -s --max-time 2 '" + ops[identity] + "/metrics'", 5);
        std::istringstream lines(r.output);
        for (std::string line; std::getline(lines, line);)
            if (line.rfind(series + " ", 0) == 0) return line.substr(series.size() + 1);
        return "";
    }
    int replicas_of(const std::string& app) {
        const auto r = kubectl("get deployment " + app + " -o jsonpath={.spec.replicas}");
        return r.exit_code == 0 && !r.output.empty() ? std::stoi(r.output) : -1;
    }
    bool all_at(int want) {
        for (const auto& app : apps)
            if (replicas_of(app) != want) return false;
        return true;
    }
    std::string report() {
        std::string out;
        for (const auto& app : apps)
            out += app + ": " + std::to_string(replicas_of(app)) + "\n";
        for (int s = 0; s < 3; ++s)
            out += "shard " + std::to_string(s) + ": " + holder(s) + "\n";
        return out;
    }

    test::temp_dir dir;
    std::unique_ptr<test::child_process> sim;
    std::map<std::string, std::unique_ptr<test::child_process>> replicas;
    std::map<std::string, std::string> ops;
};

TEST_F(Shards, ThreeReplicasShareTheShardsAndTheSurvivorsTakeOverAKilledOnesShard) {
    // The example's apps: 1.2 cores over 500m requests at 50 %, five replicas each.
    const auto applied = kubectl("apply -f " + source + "/examples/shards-on-sim/apps.yaml");
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
    for (const char* identity : {"alpha", "beta", "gamma"})
        start(identity);

    // One shard each, every Lease held by a different replica, and /metrics says so.
    ASSERT_TRUE(eventually([&] {
        std::set<std::string> holders;
        for (int s = 0; s < 3; ++s)
            holders.insert(holder(s));
        return holders == std::set<std::string>{"alpha", "beta", "gamma"};
    })) << report();
    // Each object has exactly one worker, at the replica that holds its shard.
    const std::string workers = "hpaplus_kind_workers{kind=\"HPAPlus\"}";
    EXPECT_TRUE(eventually([&] {
        int total = 0;
        for (const char* identity : {"alpha", "beta", "gamma"}) {
            const std::string n = gauge(identity, workers);
            if (n.empty() || gauge(identity, "hpaplus_shards_held") != "1" ||
                gauge(identity, "hpaplus_shard_replicas") != "3")
                return false;
            total += std::stoi(n);
        }
        return total == static_cast<int>(apps.size());
    })) << report();
    ASSERT_TRUE(eventually([&] { return all_at(5); }, 60s)) << report();

    // A replica that dies (SIGKILL: nothing released) loses its shard to the others within a
    // lease duration or two.
    int killed_shard = -1;
    for (int s = 0; s < 3; ++s)
        if (holder(s) == "beta") killed_shard = s;
    ASSERT_GE(killed_shard, 0) << report();
    replicas["beta"]->kill_now();
    replicas.erase("beta");
    ASSERT_TRUE(eventually([&] {
        const std::string h = holder(killed_shard);
        return h == "alpha" || h == "gamma";
    })) << report();
    EXPECT_TRUE(eventually([&] {
        return gauge("alpha", "hpaplus_shard_replicas") == "2" &&
               gauge("gamma", "hpaplus_shard_replicas") == "2";
    })) << report();
    EXPECT_TRUE(eventually([&] {
        const std::string a = gauge("alpha", "hpaplus_shards_held");
        const std::string g = gauge("gamma", "hpaplus_shards_held");
        return (a == "1" && g == "2") || (a == "2" && g == "1");
    })) << report();
    const std::string shard_series =
        "hpaplus_shard_held{shard=\"" + std::to_string(killed_shard) + "\"}";
    EXPECT_TRUE(gauge("alpha", shard_series) == "1" || gauge("gamma", shard_series) == "1")
        << report();
    EXPECT_TRUE(eventually([&] {
        const std::string a = gauge("alpha", workers);
        const std::string g = gauge("gamma", workers);
        return !a.empty() && !g.empty() &&
               std::stoi(a) + std::stoi(g) == static_cast<int>(apps.size());
    })) << report();

    // Every object keeps scaling, the killed replica's too: 2 cores over five 500m pods is 80 %,
    // eight replicas (the maximum).
    std::string names;
    for (const auto& app : apps)
        names += " " + app;
    const auto annotated =
        kubectl("annotate deployment" + names + " sim.hpaplus.io/cpu-load=2000m --overwrite");
    ASSERT_EQ(annotated.exit_code, 0) << annotated.output;
    EXPECT_TRUE(eventually([&] { return all_at(8); }, 60s)) << report();
}

} // namespace
} // namespace hpaplus
