// demo/demo.hpp — `hpaplus demo` (DESIGN §4.4): the simulated cluster and the real controller in
// one process, a load scenario, a live view and the report. cli/demo_command reads the flags.
#pragma once

#include <string>

namespace hpaplus::demo {

struct demo_options {
    int duration = 120;                              ///< seconds of the scenario, 30 to 86400
    std::string report = "hpaplus-demo-report.html"; ///< .svg: the chart alone; otherwise HTML
    std::string summary_json;                        ///< "" = none
    std::string address = "127.0.0.1";               ///< of the simulated API server
    unsigned short port = 0;                         ///< 0 = any free port
    bool vertical = false;                           ///< also run VPAPlus on Deployment api
    bool predictive = false; ///< also run a predictive HPAPlus on Deployment shop's rhythm
};

/// Runs the scenario and writes the report. Exit code: 0 completed, 1 runtime failure.
int run_demo(const demo_options& options);

} // namespace hpaplus::demo
