// controller/cron_scheduler.cpp — CronHPA workers and their wake-ups.
#include "controller/cron_scheduler.hpp"

#include "controller/cronhpa_object.hpp"
#include "controller/manager.hpp"
#include "controller/worker_slot.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

namespace hpaplus::controller {
namespace {

namespace asio = boost::asio;

// What of a cached CronHPA decides a floor: its target and the job in force.
struct floor_view {
    policy::object_reference target;
    std::optional<cron_active> active;
};

std::optional<floor_view> floor_of(const kube::object_cptr& o) {
    if (!o) return std::nullopt;
    rapidjson::Document doc;
    doc.Parse(o->json.data(), o->json.size());
    if (doc.HasParseError()) return std::nullopt;
    kube::json_decoder d;
    cronhpa c = decode_cronhpa(d, {&doc, ""});
    return floor_view{std::move(c.spec.target), std::move(c.status.active)};
}

bool same_floor(const std::optional<floor_view>& a, const std::optional<floor_view>& b) {
    const auto key = [](const std::optional<floor_view>& f) {
        if (!f) return std::string();
        std::string k = f->target.kind + "/" + f->target.name;
        if (f->active)
            k += "|" + f->active->job + "|" + std::to_string(f->active->target_size) + "|" +
                 std::to_string(f->active->schedule_time.time_since_epoch().count());
        return k;
    };
    return key(a) == key(b);
}

} // namespace

struct cron_scheduler::worker : worker_slot {
    using worker_slot::worker_slot;
    cron_memory memory;
};

cron_scheduler::cron_scheduler(cron_env env, floor_handler floor_changed)
    : env_(env), floor_changed_(std::move(floor_changed)) {}

cron_scheduler::~cron_scheduler() {
    stop();
}

void cron_scheduler::start(asio::any_io_executor ex, std::size_t& running) {
    if (acting_) return;
    executor_ = std::move(ex);
    running_ = &running;
    acting_ = true;
    for (const auto& [key, object] : *env_.cronhpas.items())
        spawn(object->namespace_, object->name);
    spdlog::info("running {} CronHPA objects", workers_.size());
}

void cron_scheduler::stop() {
    acting_ = false;
    for (auto& [key, w] : workers_)
        w->stop();
    workers_.clear();
}

void cron_scheduler::spawn(const std::string& ns, const std::string& name) {
    std::string key = ns + "/" + name;
    if (!acting_ || workers_.count(key)) return;
    auto w = std::make_shared<worker>(executor_, ns, name);
    workers_.emplace(std::move(key), w);
    ++*running_;
    std::size_t* running = running_;
    asio::co_spawn(executor_, run_worker(w), [running, w](std::exception_ptr e) {
        --*running;
        log_failure(w->key + ": CronHPA worker ended", e);
    });
}

void cron_scheduler::on_change(const char* type, const kube::object_cptr& object,
                               const kube::object_cptr& previous) {
    if (!acting_) return;
    const std::string_view t = type;
    if (t == "DELETED") {
        if (const auto it = workers_.find(object->key); it != workers_.end()) {
            it->second->stop();
            workers_.erase(it);
        }
    } else if (!workers_.count(object->key)) {
        spawn(object->namespace_, object->name);
    } else if (!previous || object->generation != previous->generation) {
        workers_.at(object->key)->poke();
    }
    // A floor that appears, moves or goes: the HPAPlus it is aimed at decides again now.
    const auto before = floor_of(previous);
    const auto after = t == "DELETED" ? std::nullopt : floor_of(object);
    if (same_floor(before, after)) return;
    if (before) floor_changed_(object->namespace_, before->target);
    if (after && (!before || after->target.kind != before->target.kind ||
                  after->target.name != before->target.name))
        floor_changed_(object->namespace_, after->target);
}

asio::awaitable<void> cron_scheduler::run_worker(std::shared_ptr<worker> w) {
    while (!w->stopped) {
        w->wake = false;
        cron_outcome outcome;
        try {
            outcome = co_await run_cronhpa(env_, w->ns, w->name, w->memory);
        } catch (const std::exception& e) {
            spdlog::error("{}: CronHPA run failed unexpectedly: {}", w->key, e.what());
        }
        if (!outcome.exists) break;
        ++runs_;
        if (outcome.error) spdlog::warn("{}: {}", w->key, *outcome.error);
        if (w->wake) continue; // changed while we ran
        auto delay =
            std::chrono::duration_cast<std::chrono::milliseconds>(env_.options.cron_max_sleep);
        if (outcome.wake) {
            // Fire times are whole seconds; a few ms past one makes sure it is due on waking.
            const auto until =
                *outcome.wake - std::chrono::system_clock::now() + std::chrono::milliseconds(5);
            delay = std::min(
                delay, std::max(std::chrono::milliseconds(0),
                                std::chrono::duration_cast<std::chrono::milliseconds>(until)));
        }
        w->timer.expires_after(delay);
        boost::system::error_code ec;
        co_await w->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

} // namespace hpaplus::controller
