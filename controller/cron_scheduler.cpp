// controller/cron_scheduler.cpp — CronHPA workers and their wake-ups.
#include "controller/cron_scheduler.hpp"

#include "controller/cronhpa_object.hpp"
#include "controller/manager.hpp"
#include "controller/worker_slot.hpp"

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
    : env_(env), floor_changed_(std::move(floor_changed)),
      workers_(
          "CronHPA",
          [](asio::any_io_executor ex, const std::string& ns, const std::string& name) {
              return std::make_shared<worker>(std::move(ex), ns, name);
          },
          [this](std::shared_ptr<worker_slot> w) { return run_worker(std::move(w)); }) {}

cron_scheduler::~cron_scheduler() = default;

void cron_scheduler::start(asio::any_io_executor ex, std::size_t& running) {
    workers_.start(std::move(ex), running, *env_.cronhpas.items());
}

void cron_scheduler::stop() {
    workers_.stop();
}

void cron_scheduler::on_change(const char* type, const kube::object_cptr& object,
                               const kube::object_cptr& previous) {
    if (!workers_.acting()) return;
    workers_.on_change(type, object, previous);
    const std::string_view t = type;
    // A floor that appears, moves or goes: the HPAPlus it is aimed at decides again now.
    const auto before = floor_of(previous);
    const auto after = t == "DELETED" ? std::nullopt : floor_of(object);
    if (same_floor(before, after)) return;
    if (before) floor_changed_(object->namespace_, before->target);
    if (after && (!before || after->target.kind != before->target.kind ||
                  after->target.name != before->target.name))
        floor_changed_(object->namespace_, after->target);
}

asio::awaitable<void> cron_scheduler::run_worker(std::shared_ptr<worker_slot> slot) {
    const auto w = std::static_pointer_cast<worker>(slot);
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
