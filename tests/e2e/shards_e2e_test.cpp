// End-to-end: three `hpaplus controller --shards 3` processes against `hpaplus sim` share the
// objects out; one is killed, its shard moves to the others and every object keeps scaling. And
// three replicas rolled from 4 to 6 to 1 to 3 shards never write one object from two replicas,
// counted from the sim's audit log.
#include "../support/build_paths.hpp"
#include "../support/json_access.hpp"
#include "../support/process.hpp"
#include "../support/shipped_identity.hpp"
#include "core/time.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <sstream>
#include <thread>

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
    // A replica: `identity` is also the name of the pod its token is bound to (as a Deployment's
    // pods each have their own projected token), so the audit log names the writer.
    void start(const std::string& identity, int shards = 3, const std::string& lease = "2s",
               const std::string& renew = "1500ms", const std::string& retry = "200ms") {
        auto p = std::make_unique<test::child_process>(std::vector<std::string>{
            HPAPLUS_BINARY, "controller", "--kubeconfig",
            test::shipped_kubeconfig(dir.path(), test::controller_account, "sharded", identity),
            "--shards=" + std::to_string(shards), "--ops-listen=127.0.0.1:0",
            "--leader-elect-identity=" + identity, "--leader-elect-lease-duration=" + lease,
            "--leader-elect-renew-deadline=" + renew, "--leader-elect-retry-period=" + retry,
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

// One write the sim's audit log recorded: who (the pod its token is bound to), of which object,
// when the server received it.
struct recorded_write {
    std::string writer, object;
    core::time_point at;
};

// Issue 71: three replicas rolled from 4 to 6 to 1 to 3 shards, one at a time with a surge (the
// new pod starts, then the old one stops, as a Deployment's rolling update does), while the load
// of every app changes every half second, so that every pass of an object writes its status. The
// sim's audit log gives every status and /scale write with its writer; per object:
// - never two writers: the writers' runs may go A → B (a hand-over), but A does not come back
//   within two periods (2 s) of its last write: two replicas acting at once write in turns,
//   A B A B … a period apart;
// - never unreconciled: from the first hand-over on, no gap between two writes longer than the
//   lease duration (4 s) plus the period (1 s), the churn's step (0.5 s) and 1 s for timing under
//   a loaded sanitizer run. (Before it, while the first three replicas still share out, a loaded
//   ASan run has shown gaps of 8.5 s: that start-up is not what this test is about.)
// Leases of 4 s (renew deadline 3 s, retry 0.5 s) rather than the other test's 2 s: under ASan
// on two busy cores a 2 s lease missed renewals and shards moved between healthy replicas.
TEST_F(Shards, RollingTheShardCountFrom4To6To1To3NeverGivesAnObjectTwoWriters) {
    const auto applied = kubectl("apply -f " + source + "/examples/shards-on-sim/apps.yaml");
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
    std::string names;
    for (const auto& app : apps)
        names += " " + app;

    int generation = 0;
    std::vector<std::string> live;
    for (int i = 0; i < 3; ++i) {
        live.push_back("n4-" + std::to_string(generation++));
        start(live.back(), 4, "4s", "3s", "500ms");
    }
    // Every app settles at 5 replicas (1.2 cores over 500m requests at 50 %).
    ASSERT_TRUE(eventually([&] { return all_at(5); }, 60s)) << report();

    // The churn: a new load every 0.5 s, seven values 50m apart (2 % of utilization each).
    std::atomic<bool> churning{true};
    std::thread churn([&] {
        for (int step = 0; churning; ++step) {
            const int milli = 1050 + 50 * (step % 7);
            (void)kubectl("annotate deployment" + names +
                          " sim.hpaplus.io/cpu-load=" + std::to_string(milli) + "m --overwrite");
            std::this_thread::sleep_for(500ms);
        }
    });
    ASSERT_EQ(kubectl("get --raw /sim/v1/audit").exit_code, 0);
    const auto first_id = [&] {
        const auto all = test::parse(kubectl("get --raw /sim/v1/audit").output);
        const auto& items = all["items"];
        return items.Size() ? test::str(items[items.Size() - 1], "/auditID") : std::string("0");
    }();
    std::this_thread::sleep_for(3s);

    std::string failure;
    // The hand-overs start here; before it the three replicas of 4 were still sharing out.
    const core::time_point rollout_start = core::wall_now();
    for (const int shards : {6, 1, 3}) {
        for (int i = 0; i < 3 && failure.empty(); ++i) {
            const std::string identity =
                "n" + std::to_string(shards) + "-" + std::to_string(generation++);
            start(identity, shards, "4s", "3s", "500ms");
            std::this_thread::sleep_for(1500ms);
            const std::string old = live.front();
            live.erase(live.begin());
            if (replicas[old]->terminate(10000ms) != 0) failure = old + " did not stop on SIGTERM";
            replicas.erase(old);
            live.push_back(identity);
            std::this_thread::sleep_for(2500ms);
        }
    }
    std::this_thread::sleep_for(3s);
    churning = false;
    churn.join();
    ASSERT_EQ(failure, "");

    // Every status and /scale write since the churn began, in the order the server took them.
    std::vector<recorded_write> writes;
    for (const char* resource : {"hpapluses", "deployments"}) {
        const auto r = kubectl(std::string("get --raw /sim/v1/audit?resource=") + resource +
                               "&after=" + first_id);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const auto list = test::parse(r.output);
        for (const auto& e : list["items"].GetArray()) {
            const std::string sub = test::str(e, "/objectRef/subresource");
            if (sub != "status" && sub != "scale") continue;
            if (std::stoi(test::str(e, "/responseStatus/code")) >= 300) continue;
            const std::string writer =
                test::str(e, "/user/extra/authentication.kubernetes.io~1pod-name/0");
            ASSERT_NE(writer, "<missing>") << test::json_text(e);
            const auto at = core::parse_rfc3339(test::str(e, "/requestReceivedTimestamp"));
            ASSERT_TRUE(at) << test::json_text(e);
            writes.push_back({writer, test::str(e, "/objectRef/name"), *at});
        }
    }
    std::map<std::string, std::vector<recorded_write>> by_object;
    for (const auto& w : writes)
        by_object[w.object].push_back(w);
    ASSERT_EQ(by_object.size(), apps.size());
    std::set<std::string> writers_seen;
    for (auto& [object, list] : by_object) {
        std::sort(list.begin(), list.end(),
                  [](const auto& a, const auto& b) { return a.at < b.at; });
        // Runs of one writer: writer, first and last write.
        struct run {
            std::string writer;
            core::time_point first, last;
        };
        std::vector<run> runs;
        for (const auto& w : list) {
            writers_seen.insert(w.writer);
            if (runs.empty() || runs.back().writer != w.writer)
                runs.push_back({w.writer, w.at, w.at});
            runs.back().last = w.at;
        }
        std::string story;
        for (const auto& r : runs)
            story += " " + r.writer + "[" + core::format_rfc3339_nano(r.first).substr(11, 12) +
                     "…" + core::format_rfc3339_nano(r.last).substr(11, 12) + "]";
        for (std::size_t i = 0; i + 2 < runs.size(); ++i) {
            if (runs[i].writer == runs[i + 2].writer) {
                EXPECT_GE(runs[i + 2].first - runs[i].last, 2s)
                    << object << ": " << runs[i].writer << " wrote again while "
                    << runs[i + 1].writer << " did:" << story;
            }
        }
        for (std::size_t i = 1; i < list.size(); ++i) {
            if (list[i - 1].at < rollout_start) continue;
            EXPECT_LE(list[i].at - list[i - 1].at, 6500ms)
                << object << " unwritten for "
                << std::chrono::duration_cast<std::chrono::milliseconds>(list[i].at -
                                                                         list[i - 1].at)
                       .count()
                << " ms from " << core::format_rfc3339_nano(list[i - 1].at) << ":" << story;
        }
        // The last count's replicas write it in the end.
        EXPECT_EQ(runs.back().writer.rfind("n3-", 0), 0u) << object << ":" << story;
        EXPECT_GE(list.size(), 30u) << object << ":" << story;
    }
    // The objects were handed from replica to replica: writers of every count wrote.
    for (const char* count : {"n4-", "n6-", "n1-", "n3-"})
        EXPECT_TRUE(std::any_of(writers_seen.begin(), writers_seen.end(),
                                [&](const std::string& w) { return w.rfind(count, 0) == 0; }))
            << count;
}

} // namespace
} // namespace hpaplus
