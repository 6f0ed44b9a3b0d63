// controller/runtime/worker_slot.hpp — what every per-object worker coroutine has: the object's
// name, a timer it sleeps on, and the flags that stop or wake it early (both cancel the timer).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <string>

namespace hpaplus::controller {

struct worker_slot {
    worker_slot(boost::asio::any_io_executor ex, std::string ns_, std::string name_)
        : ns(std::move(ns_)), name(std::move(name_)), key(ns + "/" + name), timer(std::move(ex)) {}

    void stop() {
        stopped = true;
        timer.cancel();
    }
    void poke() {
        wake = true;
        timer.cancel();
    }

    std::string ns;
    std::string name;
    std::string key; ///< namespace/name
    boost::asio::steady_timer timer;
    bool stopped = false;
    bool wake = false;
};

} // namespace hpaplus::controller
