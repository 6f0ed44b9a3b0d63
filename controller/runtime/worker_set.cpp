// controller/runtime/worker_set.cpp — spawning, poking and stopping per-object workers.
#include "controller/runtime/worker_set.hpp"

#include "controller/runtime/manager.hpp"

#include <boost/asio/co_spawn.hpp>
#include <spdlog/spdlog.h>

namespace hpaplus::controller {

worker_set::worker_set(std::string kind, make_fn make, run_fn run)
    : kind_(std::move(kind)), make_(std::move(make)), run_(std::move(run)) {}

worker_set::~worker_set() {
    stop();
}

void worker_set::start(boost::asio::any_io_executor ex, std::size_t& running,
                       const kube::snapshot& objects) {
    if (acting_) return;
    executor_ = std::move(ex);
    running_ = &running;
    acting_ = true;
    for (const auto& [key, object] : objects)
        spawn(object->namespace_, object->name);
    spdlog::info("running {} {} objects", workers_.size(), kind_);
}

void worker_set::stop() {
    acting_ = false;
    for (auto& [key, w] : workers_)
        w->stop();
    workers_.clear();
}

void worker_set::spawn(const std::string& ns, const std::string& name) {
    std::string key = ns + "/" + name;
    if (!acting_ || workers_.count(key)) return;
    auto w = make_(executor_, ns, name);
    workers_.emplace(std::move(key), w);
    ++*running_;
    std::size_t* running = running_;
    boost::asio::co_spawn(executor_, run_(w), [running, w, kind = kind_](std::exception_ptr e) {
        --*running;
        log_failure(w->key + ": " + kind + " worker ended", e);
    });
}

void worker_set::on_change(const char* type, const kube::object_cptr& object,
                           const kube::object_cptr& previous) {
    if (!acting_) return;
    if (std::string_view(type) == "DELETED") {
        if (const auto it = workers_.find(object->key); it != workers_.end()) {
            it->second->stop();
            workers_.erase(it);
        }
    } else if (!workers_.count(object->key)) {
        spawn(object->namespace_, object->name);
    } else if (!previous || object->generation != previous->generation) {
        workers_.at(object->key)->poke();
    }
}

} // namespace hpaplus::controller
