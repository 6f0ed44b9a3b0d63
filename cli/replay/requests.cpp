// cli/replay/requests.cpp — the requests view of `hpaplus replay`: recommendations over the
// recording, requests' cost, and its table, JSON and chart.
#include "cli/replay/requests.hpp"

#include "demo/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace hpaplus::cli {
namespace {

using demo::svg::escape;
using demo::svg::nice_max;
using demo::svg::num;
using demo::svg::short_number;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double gib = 1024.0 * 1024 * 1024;
constexpr auto longest_sample = std::chrono::hours(1); // a gap is not usage

double seconds(core::time_point::duration d) {
    return std::chrono::duration<double>(d).count();
}

// How long each fed entry counts: until its pod's container is sampled again (at most an hour);
// the last sample of each counts as long as the one before it.
std::vector<double> sample_durations(const std::vector<recorded_usage>& feed) {
    std::vector<double> out(feed.size(), 0);
    std::map<std::string, std::size_t> last; // pod/container → index of its latest sample
    for (std::size_t i = 0; i < feed.size(); ++i) {
        if (feed[i].oom) continue;
        const std::string key = feed[i].pod + "/" + feed[i].container;
        if (const auto it = last.find(key); it != last.end()) {
            out[it->second] = seconds(std::min<core::time_point::duration>(
                feed[i].time - feed[it->second].time, longest_sample));
            out[i] = out[it->second];
        }
        last[key] = i;
    }
    return out;
}

container_requests& container(requests_replay& r, std::map<std::string, std::size_t>& index,
                              const std::string& name) {
    const auto [it, added] = index.try_emplace(name, r.containers.size());
    if (added) {
        r.containers.emplace_back();
        r.containers.back().container = name;
    }
    return r.containers[it->second];
}

} // namespace

requests_replay replay_requests(const recorded_history& history, std::chrono::seconds step) {
    requests_replay r;
    r.step = step;
    if (history.feed.empty()) return r;
    r.from = history.feed.front().time;
    r.to = history.feed.back().time;
    const auto durations = sample_durations(history.feed);
    std::map<std::string, std::size_t> index;
    std::map<std::string, vertical::container_recommendation> in_force;
    usage_histories histories;
    core::time_point next = r.from + step;
    const auto recommend_at = [&](core::time_point at) {
        in_force.clear();
        for (auto& rec : histories.recommend(at, history.vpa.policies)) {
            container(r, index, rec.container)
                .targets.push_back({at, rec.cpu ? rec.target.cpu_milli : 0,
                                    rec.memory ? rec.target.memory_bytes : 0});
            in_force.emplace(rec.container, std::move(rec));
        }
    };
    for (std::size_t i = 0; i < history.feed.size(); ++i) {
        const recorded_usage& u = history.feed[i];
        if (u.time >= next) {
            // A long gap is one recommendation at its last step, not one per step.
            if (u.time - next > 100 * step) next += ((u.time - next) / step) * step;
            for (; next <= u.time; next += step)
                recommend_at(next);
        }
        histories.feed(u);
        if (u.oom) continue;
        container_requests& c = container(r, index, u.container);
        const double dt = durations[i] / 3600.0;
        const double cpu = u.cpu_milli ? static_cast<double>(*u.cpu_milli) / 1000.0 : nan;
        const double memory = u.memory_bytes ? static_cast<double>(*u.memory_bytes) : nan;
        const double cpu_request =
            u.cpu_request_milli ? static_cast<double>(*u.cpu_request_milli) / 1000.0 : nan;
        const double memory_request =
            u.memory_request_bytes ? static_cast<double>(*u.memory_request_bytes) : nan;
        c.usage.push_back({u.time, cpu, memory, cpu_request, memory_request});
        if (!std::isnan(cpu)) c.cpu_used += cpu * dt;
        if (!std::isnan(memory)) c.memory_used += memory / gib * dt;
        // Without VPAPlus: the request the pod had; with it: the target, once there is one.
        const auto rec = in_force.find(u.container);
        const bool cpu_set = rec != in_force.end() && rec->second.cpu;
        const bool memory_set = rec != in_force.end() && rec->second.memory;
        if (!std::isnan(cpu_request)) {
            c.cpu_requests_known = true;
            c.cpu_requested += cpu_request * dt;
        }
        if (!std::isnan(memory_request)) {
            c.memory_requests_known = true;
            c.memory_requested += memory_request / gib * dt;
        }
        const double cpu_with =
            cpu_set ? static_cast<double>(rec->second.target.cpu_milli) / 1000.0 : cpu_request;
        const double memory_with =
            memory_set ? static_cast<double>(rec->second.target.memory_bytes) : memory_request;
        if (!std::isnan(cpu_with)) {
            c.cpu_recommended_known = true;
            c.cpu_recommended += cpu_with * dt;
        }
        if (!std::isnan(memory_with)) {
            c.memory_recommended_known = true;
            c.memory_recommended += memory_with / gib * dt;
        }
    }
    std::sort(r.containers.begin(), r.containers.end(),
              [](const auto& a, const auto& b) { return a.container < b.container; });
    return r;
}

std::string requests_table(const requests_replay& r) {
    std::string out = "\nREQUESTS (VPAPlus replayed every " + short_number(r.step.count() / 60.0) +
                      " min; core-hours and GiB-hours over the recording)\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-20s  %9s  %9s  %11s  %9s  %9s  %11s\n", "CONTAINER",
                  "CPU-USED", "CPU-HAD", "CPU-VPAPLUS", "MEM-USED", "MEM-HAD", "MEM-VPAPLUS");
    out += line;
    const auto value = [](double v, bool known) {
        char text[32];
        std::snprintf(text, sizeof text, "%.2f", v);
        return known ? std::string(text) : std::string("-");
    };
    for (const auto& c : r.containers) {
        std::snprintf(line, sizeof line, "%-20s  %9s  %9s  %11s  %9s  %9s  %11s\n",
                      c.container.c_str(), value(c.cpu_used, true).c_str(),
                      value(c.cpu_requested, c.cpu_requests_known).c_str(),
                      value(c.cpu_recommended, c.cpu_recommended_known).c_str(),
                      value(c.memory_used, true).c_str(),
                      value(c.memory_requested, c.memory_requests_known).c_str(),
                      value(c.memory_recommended, c.memory_recommended_known).c_str());
        out += line;
    }
    return out;
}

std::string requests_json(const requests_replay& r) {
    const auto number = [](double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%.6g", v);
        return std::string(text);
    };
    const auto known = [&](double v, bool is_known) { return is_known ? number(v) : "null"; };
    std::string out = "{\"stepSeconds\": " + std::to_string(r.step.count()) + ", \"containers\": [";
    for (std::size_t i = 0; i < r.containers.size(); ++i) {
        const auto& c = r.containers[i];
        out +=
            std::string(i ? ",\n  " : "\n  ") + "{\"name\": \"" + escape(c.container) +
            "\", \"cpuCoreHoursUsed\": " + number(c.cpu_used) +
            ", \"cpuCoreHoursRequested\": " + known(c.cpu_requested, c.cpu_requests_known) +
            ", \"cpuCoreHoursRecommended\": " + known(c.cpu_recommended, c.cpu_recommended_known) +
            ", \"memoryGiBHoursUsed\": " + number(c.memory_used) +
            ", \"memoryGiBHoursRequested\": " + known(c.memory_requested, c.memory_requests_known) +
            ", \"memoryGiBHoursRecommended\": " +
            known(c.memory_recommended, c.memory_recommended_known) +
            ", \"recommendations\": " + std::to_string(c.targets.size());
        if (!c.targets.empty()) {
            const auto& last = c.targets.back();
            out += ", \"lastTarget\": {\"cpuMilli\": " + std::to_string(last.cpu_milli) +
                   ", \"memoryBytes\": " + std::to_string(last.memory_bytes) + "}";
        }
        out += "}";
    }
    return out + "\n]}";
}

namespace {

constexpr double chart_w = 960, chart_left = 70, chart_plot_w = 860, chart_h = 160;

// One panel: usage (dots), the request the pod had (grey steps) and the target VPAPlus would have
// set (blue steps), for cpu (true) or memory.
std::string panel(const requests_replay& r, const container_requests& c, bool cpu) {
    const double total = std::max(1.0, seconds(r.to - r.from));
    const auto x = [&](core::time_point t) {
        return chart_left + chart_plot_w * seconds(t - r.from) / total;
    };
    const double unit = cpu ? 1.0 : gib;
    double max = 0;
    for (const auto& s : c.usage)
        for (double v : {cpu ? s.cpu_cores : s.memory_bytes / unit,
                         cpu ? s.cpu_request_cores : s.memory_request_bytes / unit})
            if (!std::isnan(v)) max = std::max(max, v);
    for (const auto& t : c.targets)
        max =
            std::max(max, cpu ? t.cpu_milli / 1000.0 : static_cast<double>(t.memory_bytes) / unit);
    max = nice_max(max * 1.05);
    const auto y = [&](double v) { return 20 + chart_h * (1 - std::min(v, max) / max); };
    std::string out =
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(chart_w) + "\" height=\"" +
        num(chart_h + 45) + "\" font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"" +
        num(chart_left) + "\" y=\"14\">" + escape(c.container) + " — " +
        (cpu ? "CPU (cores)" : "memory (GiB)") + ", top " + short_number(max) +
        "</text>\n<rect x=\"" + num(chart_left) + "\" y=\"20\" width=\"" + num(chart_plot_w) +
        "\" height=\"" + num(chart_h) + "\" fill=\"none\" stroke=\"#999\"/>\n";
    for (const auto& s : c.usage) {
        const double v = cpu ? s.cpu_cores : s.memory_bytes / unit;
        if (!std::isnan(v))
            out += "<circle cx=\"" + num(x(s.at)) + "\" cy=\"" + num(y(v)) +
                   "\" r=\"1.2\" fill=\"#d62728\"/>";
    }
    std::string had, vpa;
    for (const auto& s : c.usage) {
        const double v = cpu ? s.cpu_request_cores : s.memory_request_bytes / unit;
        if (!std::isnan(v)) had += (had.empty() ? "M" : " L") + num(x(s.at)) + " " + num(y(v));
    }
    for (const auto& t : c.targets) {
        const double v = cpu ? t.cpu_milli / 1000.0 : static_cast<double>(t.memory_bytes) / unit;
        if (v > 0)
            vpa +=
                (vpa.empty() ? "M" + num(x(t.at)) + " " : " H" + num(x(t.at)) + " V") + num(y(v));
    }
    if (!had.empty())
        out += "\n<path d=\"" + had + "\" fill=\"none\" stroke=\"#7f7f7f\" stroke-width=\"1.5\"/>";
    if (!vpa.empty())
        out += "\n<path d=\"" + vpa + " H" + num(x(r.to)) +
               "\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>";
    out += "\n<text x=\"" + num(chart_left) + "\" y=\"" + num(chart_h + 38) +
           "\">red: usage · grey: the request the pods had · blue: the target VPAPlus would "
           "have set</text>\n</svg>\n";
    return out;
}

} // namespace

std::string requests_html(const requests_replay& r) {
    std::string out = "<h2>Requests with VPAPlus</h2>\n<p>From " +
                      escape(core::format_rfc3339(r.from)) + " to " +
                      escape(core::format_rfc3339(r.to)) + ", the recommendation replayed every " +
                      short_number(r.step.count() / 60.0) +
                      " minutes.</p>\n<table><tr><th>container</th><th>CPU used (core-h)</th>"
                      "<th>CPU requested</th><th>CPU with VPAPlus</th><th>memory used "
                      "(GiB-h)</th><th>memory requested</th><th>memory with VPAPlus</th></tr>\n";
    const auto cell = [](double v, bool known) {
        char text[32];
        std::snprintf(text, sizeof text, "%.2f", v);
        return "<td>" + (known ? std::string(text) : std::string("–")) + "</td>";
    };
    for (const auto& c : r.containers)
        out += "<tr><td>" + escape(c.container) + "</td>" + cell(c.cpu_used, true) +
               cell(c.cpu_requested, c.cpu_requests_known) +
               cell(c.cpu_recommended, c.cpu_recommended_known) + cell(c.memory_used, true) +
               cell(c.memory_requested, c.memory_requests_known) +
               cell(c.memory_recommended, c.memory_recommended_known) + "</tr>\n";
    out += "</table>\n";
    for (const auto& c : r.containers)
        out += panel(r, c, true) + panel(r, c, false);
    return out;
}

} // namespace hpaplus::cli
