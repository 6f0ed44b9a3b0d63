// demo/report.cpp — SVG and HTML rendering of a demo run (no I/O).
#include "demo/report.hpp"

#include "demo/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <utility>

namespace hpaplus::demo {
namespace {

constexpr double width = 960;
constexpr double left = 60, right = 70, top = 50;
constexpr double plot_w = width - left - right;
constexpr double plot_h = 300;                 // replicas and load
constexpr double util_top = top + plot_h + 40; // the metric against its target
constexpr double util_h = 110;
constexpr double pod_h = 100;  // --vertical: CPU, then memory, per pod
constexpr double shop_h = 140; // --predictive: shop's load, replicas and forecast

// Where the panels below the first one go: the utilization panel, then with --predictive shop's
// panel, then with --vertical the pods' CPU and memory panels, then the time axis and the legend.
struct layout {
    double shop_top, cpu_top, memory_top, bottom, legend_top, height;
    layout(bool vertical, bool predictive) {
        shop_top = util_top + util_h + 30;
        cpu_top = predictive ? shop_top + shop_h + 30 : shop_top;
        memory_top = cpu_top + pod_h + 30;
        bottom = vertical ? memory_top + pod_h : predictive ? shop_top + shop_h : util_top + util_h;
        legend_top = bottom + 40;
        height = legend_top + (vertical ? 70 : 50) + (predictive ? 20 : 0);
    }
};

using svg::escape;
using svg::nice_max;
using svg::num;
using svg::short_number;

struct scale {
    double t_max, left_max, right_max, util_max;
    double x(double t) const { return left + plot_w * (t_max > 0 ? t / t_max : 0); }
    double y_left(double v) const { return top + plot_h * (1 - v / left_max); }
    double y_right(double v) const { return top + plot_h * (1 - v / right_max); }
    double y_util(double v) const {
        return util_top + util_h * (1 - std::min(v, util_max) / util_max);
    }
};

// A step line (the value holds until the next sample) of a replica count; samples without the
// value leave a gap.
template <class Field>
std::string step_path(const std::vector<demo_sample>& samples, const scale& s, Field field) {
    std::string d;
    bool open = false;
    for (const auto& sample : samples) {
        const std::optional<int> v = field(sample);
        if (!v) {
            open = false;
            continue;
        }
        const double x = s.x(sample.seconds);
        const double y = s.y_left(*v);
        d += open ? " H" + num(x) + " V" + num(y) : " M" + num(x) + " " + num(y);
        open = true;
    }
    return d;
}

std::string horizontal_grid(double y, const std::string& left_label, const std::string& right_label,
                            const char* left_color, const char* right_color) {
    std::string out = "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" +
                      num(y) + "\" y2=\"" + num(y) + "\" stroke=\"#e5e5e5\"/>\n";
    out += "<text x=\"" + num(left - 8) + "\" y=\"" + num(y + 4) +
           "\" text-anchor=\"end\" fill=\"" + left_color + "\">" + left_label + "</text>\n";
    if (!right_label.empty())
        out += "<text x=\"" + num(left + plot_w + 8) + "\" y=\"" + num(y + 4) + "\" fill=\"" +
               right_color + "\">" + right_label + "</text>\n";
    return out;
}

std::string vertical_label(double x, double y, int angle, const char* color, const char* text) {
    return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" transform=\"rotate(" +
           std::to_string(angle) + " " + num(x) + " " + num(y) +
           ")\" text-anchor=\"middle\" fill=\"" + color + "\">" + text + "</text>\n";
}

// One colour per pod of the --vertical panels, by order of first appearance.
constexpr const char* pod_colors[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a",
                                      "#66a61e", "#e6ab02", "#a6761d", "#666666"};

// A --vertical panel at `panel_top`: each pod's request (solid step line) and usage (dashed), in
// the unit `field` returns (request, usage), with `axis` as its label.
template <class Field>
std::string pod_panel(const std::vector<demo_sample>& samples, const std::vector<std::string>& pods,
                      double t_max, double panel_top, const char* axis, Field field) {
    double max = 1;
    for (const auto& sample : samples)
        for (const auto& p : sample.vertical) {
            const auto [request, usage] = field(p);
            max = std::max({max, request, usage.value_or(0.0)});
        }
    max = nice_max(max * 1.1);
    auto x = [&](double t) { return left + plot_w * (t_max > 0 ? t / t_max : 0); };
    auto y = [&](double v) { return panel_top + pod_h * (1 - std::min(v, max) / max); };
    std::string out;
    for (int i = 0; i <= 2; ++i)
        out += horizontal_grid(y(max * i / 2), short_number(max * i / 2), "", "#555", "");
    out += "<rect x=\"" + num(left) + "\" y=\"" + num(panel_top) + "\" width=\"" + num(plot_w) +
           "\" height=\"" + num(pod_h) + "\" fill=\"none\" stroke=\"#999\"/>\n";
    out += vertical_label(12, panel_top + pod_h / 2, -90, "#555", axis);
    for (std::size_t k = 0; k < pods.size(); ++k) {
        const char* color = pod_colors[k % std::size(pod_colors)];
        std::string request, usage;
        bool request_open = false, usage_open = false;
        for (const auto& sample : samples) {
            const auto it = std::find_if(sample.vertical.begin(), sample.vertical.end(),
                                         [&](const pod_resources& p) { return p.name == pods[k]; });
            const bool present = it != sample.vertical.end();
            const auto values = present ? field(*it) : std::pair{0.0, std::optional<double>()};
            if (present) {
                request += (request_open ? " H" + num(x(sample.seconds)) + " V"
                                         : " M" + num(x(sample.seconds)) + " ") +
                           num(y(values.first));
            }
            request_open = present;
            if (present && values.second)
                usage += (usage_open ? " L" : " M") + num(x(sample.seconds)) + " " +
                         num(y(*values.second));
            usage_open = present && values.second;
        }
        out += "<path d=\"" + request + "\" fill=\"none\" stroke=\"" + color +
               "\" stroke-width=\"2\"><title>" + escape(pods[k]) + " request</title></path>\n";
        out += "<path d=\"" + usage + "\" fill=\"none\" stroke=\"" + color +
               "\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"><title>" + escape(pods[k]) +
               " usage</title></path>\n";
    }
    return out;
}

// The --predictive panel at `panel_top`: shop's load (red, right axis), its replicas (blue) and
// the replicas its forecast asks for (dashed), a triangle where it scaled up ahead of its load.
std::string shop_panel(const std::vector<demo_sample>& samples, double t_max, double panel_top) {
    double replicas_max = 1, load_max = 0.1;
    for (const auto& sample : samples)
        if (const auto& p = sample.shop) {
            replicas_max =
                std::max<double>({replicas_max, static_cast<double>(p->replicas),
                                  static_cast<double>(p->forecast_replicas.value_or(0))});
            load_max = std::max(load_max, p->load_cores);
        }
    replicas_max = nice_max(replicas_max + 1);
    load_max = nice_max(load_max * 1.1);
    auto x = [&](double t) { return left + plot_w * (t_max > 0 ? t / t_max : 0); };
    auto y = [&](double v, double max) {
        return panel_top + shop_h * (1 - std::min(v, max) / max);
    };
    std::string out;
    for (int i = 0; i <= 2; ++i)
        out += horizontal_grid(y(replicas_max * i / 2, replicas_max),
                               short_number(replicas_max * i / 2), short_number(load_max * i / 2),
                               "#1f77b4", "#d62728");
    out += "<rect x=\"" + num(left) + "\" y=\"" + num(panel_top) + "\" width=\"" + num(plot_w) +
           "\" height=\"" + num(shop_h) + "\" fill=\"none\" stroke=\"#999\"/>\n";
    out += vertical_label(16, panel_top + shop_h / 2, -90, "#1f77b4", "shop replicas");
    out += "<text x=\"" + num(left + 6) + "\" y=\"" + num(panel_top + 14) +
           "\">shop: a predictive HPAPlus on a 20 s rhythm</text>\n";
    std::string load, replicas, forecast, marks;
    bool forecast_open = false;
    for (const auto& sample : samples) {
        const auto& p = sample.shop;
        if (!p) continue;
        const double sx = x(sample.seconds);
        load += (load.empty() ? "M" : " L") + num(sx) + " " + num(y(p->load_cores, load_max));
        replicas += (replicas.empty() ? "M" + num(sx) + " " : " H" + num(sx) + " V") +
                    num(y(p->replicas, replicas_max));
        if (p->forecast_replicas)
            forecast += (forecast_open ? " H" + num(sx) + " V" : " M" + num(sx) + " ") +
                        num(y(*p->forecast_replicas, replicas_max));
        forecast_open = p->forecast_replicas.has_value();
        if (p->ahead)
            marks += "<path d=\"M" + num(sx) + " " + num(y(p->replicas, replicas_max) - 4) +
                     " l-5 -8 h10 z\" fill=\"#2ca02c\"><title>scaled up to " +
                     std::to_string(p->replicas) +
                     " ahead of the load (the forecast)</title></path>\n";
    }
    out += "<path d=\"" + load + "\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\"/>\n";
    out += "<path d=\"" + forecast +
           "\" fill=\"none\" stroke=\"#ff7f0e\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n";
    out += "<path d=\"" + replicas + "\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n";
    return out + marks;
}

std::string svg_body(const std::vector<demo_sample>& samples, const std::vector<demo_event>& events,
                     const std::string& title, int target_utilization) {
    std::vector<std::string> pods; // --vertical: every pod seen, in order of appearance
    for (const auto& sample : samples)
        for (const auto& p : sample.vertical)
            if (std::find(pods.begin(), pods.end(), p.name) == pods.end()) pods.push_back(p.name);
    const bool predictive = std::any_of(samples.begin(), samples.end(),
                                        [](const demo_sample& p) { return p.shop.has_value(); });
    const layout at(!pods.empty(), predictive);
    const double height = at.height;
    double t_max = 1, replicas_max = 1, load_max = 0.1, util_max = target_utilization * 2.0;
    for (const auto& p : samples) {
        t_max = std::max(t_max, p.seconds);
        replicas_max = std::max<double>({replicas_max, static_cast<double>(p.replicas),
                                         static_cast<double>(p.ready),
                                         static_cast<double>(p.desired.value_or(0)),
                                         static_cast<double>(p.cron_floor.value_or(0))});
        load_max = std::max(load_max, p.load_cores);
        if (p.utilization) util_max = std::max<double>(util_max, *p.utilization);
    }
    const scale s{t_max, nice_max(replicas_max + 1), nice_max(load_max * 1.1),
                  nice_max(util_max * 1.05)};
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(width) +
                      " " + num(height) + "\" width=\"" + num(width) + "\" height=\"" +
                      num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    if (!title.empty()) // the HTML page has the title as its heading
        out += "<text x=\"" + num(left) + "\" y=\"28\" font-size=\"16\" font-weight=\"bold\">" +
               escape(title) + "</text>\n";

    // Panel 1: replicas (left axis) and load (right axis); panel 2: CPU utilization and target.
    for (int i = 0; i <= 5; ++i)
        out += horizontal_grid(s.y_left(s.left_max * i / 5), short_number(s.left_max * i / 5),
                               short_number(s.right_max * i / 5), "#1f77b4", "#d62728");
    for (int i = 0; i <= 2; ++i)
        out += horizontal_grid(s.y_util(s.util_max * i / 2),
                               short_number(s.util_max * i / 2) + " %", "", "#555", "");
    for (int i = 0; i <= 6; ++i) {
        const double t = t_max * i / 6;
        out += "<text x=\"" + num(s.x(t)) + "\" y=\"" + num(at.bottom + 18) +
               "\" text-anchor=\"middle\">" + short_number(t) + " s</text>\n";
    }
    for (const auto& [y, h] : {std::pair{top, plot_h}, std::pair{util_top, util_h}})
        out += "<rect x=\"" + num(left) + "\" y=\"" + num(y) + "\" width=\"" + num(plot_w) +
               "\" height=\"" + num(h) + "\" fill=\"none\" stroke=\"#999\"/>\n";
    out += vertical_label(16, top + plot_h / 2, -90, "#1f77b4", "replicas");
    out += vertical_label(width - 14, top + plot_h / 2, 90, "#d62728", "load (CPU cores)");
    out += vertical_label(12, util_top + util_h / 2, -90, "#555", "CPU");

    // The cron floor as a band from 0 to the floor while it holds.
    for (std::size_t i = 0; i < samples.size(); ++i) {
        if (!samples[i].cron_floor) continue;
        const double x0 = s.x(samples[i].seconds);
        const double x1 = i + 1 < samples.size() ? s.x(samples[i + 1].seconds) : s.x(t_max);
        const double y = s.y_left(*samples[i].cron_floor);
        out += "<rect x=\"" + num(x0) + "\" y=\"" + num(y) + "\" width=\"" + num(x1 - x0) +
               "\" height=\"" + num(top + plot_h - y) + "\" fill=\"#ff7f0e\" opacity=\"0.15\"/>\n";
    }
    // Rescales: a mark across both panels, its reason on hover and numbered in the page's table.
    int n = 0;
    for (const auto& e : events) {
        if (e.text.rfind("scaled ", 0) != 0) continue;
        const double x = s.x(e.seconds);
        out += "<line x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(top) + "\" y2=\"" +
               num(at.bottom) + "\" stroke=\"#2ca02c\" stroke-dasharray=\"2 4\"><title>" +
               escape(e.text) + "</title></line>\n";
        out += "<text x=\"" + num(x + 3) + "\" y=\"" + num(top + 12) +
               "\" fill=\"#2ca02c\" font-size=\"10\">" + std::to_string(++n) + "</text>\n";
    }
    if (!samples.empty()) {
        std::string load;
        for (std::size_t i = 0; i < samples.size(); ++i)
            load += (i ? " L" : "M") + num(s.x(samples[i].seconds)) + " " +
                    num(s.y_right(samples[i].load_cores));
        out += "<path d=\"" + load + "\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>\n";
        out +=
            "<path d=\"" +
            step_path(samples, s, [](const demo_sample& p) { return std::optional(p.ready); }) +
            "\" fill=\"none\" stroke=\"#9ecae1\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n";
        out +=
            "<path d=\"" +
            step_path(samples, s, [](const demo_sample& p) { return std::optional(p.replicas); }) +
            "\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2.5\"/>\n";
        out +=
            "<path d=\"" + step_path(samples, s, [](const demo_sample& p) { return p.desired; }) +
            "\" fill=\"none\" stroke=\"#08306b\" stroke-width=\"2\" stroke-dasharray=\"2 3\"/>\n";
        // The metric against its target.
        const double ty = s.y_util(target_utilization);
        out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" + num(ty) +
               "\" y2=\"" + num(ty) + "\" stroke=\"#555\" stroke-dasharray=\"5 3\"/>\n";
        std::string util;
        bool open = false;
        for (const auto& p : samples) {
            if (!p.utilization) {
                open = false;
                continue;
            }
            util +=
                (open ? " L" : " M") + num(s.x(p.seconds)) + " " + num(s.y_util(*p.utilization));
            open = true;
        }
        out += "<path d=\"" + util + "\" fill=\"none\" stroke=\"#7b3294\" stroke-width=\"2\"/>\n";
    }
    if (predictive) out += shop_panel(samples, t_max, at.shop_top);
    if (!pods.empty()) {
        out += pod_panel(samples, pods, t_max, at.cpu_top, "CPU (m)", [](const pod_resources& p) {
            return std::pair{static_cast<double>(p.cpu_request_milli),
                             p.cpu_usage_milli ? std::optional<double>(*p.cpu_usage_milli)
                                               : std::nullopt};
        });
        constexpr double mib = 1024.0 * 1024.0;
        out += pod_panel(
            samples, pods, t_max, at.memory_top, "memory (Mi)", [](const pod_resources& p) {
                return std::pair{
                    static_cast<double>(p.memory_request_bytes) / mib,
                    p.memory_usage_bytes
                        ? std::optional<double>(static_cast<double>(*p.memory_usage_bytes) / mib)
                        : std::nullopt};
            });
    }
    // Legend, below the panels.
    const std::pair<const char*, std::string> legend[] = {
        {"#1f77b4", "replicas (spec)"},
        {"#9ecae1", "ready"},
        {"#08306b", "desired (HPAPlus status)"},
        {"#ff7f0e", "cron floor"},
        {"#d62728", "load"},
        {"#7b3294", "CPU utilization"},
        {"#555", "target " + std::to_string(target_utilization) + " %"},
        {"#2ca02c", "rescale (hover: reason)"}};
    double lx = left;
    double ly = at.legend_top;
    for (const auto& [color, label] : legend) {
        if (lx > left + plot_w - 180) {
            lx = left;
            ly += 20;
        }
        out += "<rect x=\"" + num(lx) + "\" y=\"" + num(ly - 7) +
               "\" width=\"14\" height=\"5\" fill=\"" + color + "\"/>";
        out += "<text x=\"" + num(lx + 20) + "\" y=\"" + num(ly - 2) + "\">" + escape(label) +
               "</text>\n";
        lx += 210;
    }
    if (!pods.empty()) {
        ly += 24;
        out += "<text x=\"" + num(left) + "\" y=\"" + num(ly) +
               "\">VPAPlus pods (one colour each): request solid, usage dashed</text>\n";
    }
    if (predictive)
        out += "<text x=\"" + num(left) + "\" y=\"" + num(ly + 24) +
               "\">shop: load (red), replicas (blue), the forecast's replicas (orange, dashed), "
               "▼ a scale-up ahead of the load</text>\n";
    return out + "</svg>\n";
}

} // namespace

std::string render_svg(const std::vector<demo_sample>& samples,
                       const std::vector<demo_event>& events, const std::string& title,
                       int target_utilization) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
           svg_body(samples, events, title, target_utilization);
}

std::string render_html(const std::vector<demo_sample>& samples,
                        const std::vector<demo_event>& events, const demo_summary& summary,
                        const std::string& title) {
    std::string out = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" +
                      escape(title) +
                      "</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222}"
                      "table{border-collapse:collapse}td,th{padding:4px 12px;border-bottom:1px "
                      "solid #ddd;text-align:left}</style></head><body>\n";
    out += "<h1>" + escape(title) + "</h1>\n" +
           svg_body(samples, events, "", summary.target_utilization);
    out += "<h2>Summary</h2>\n<table>\n";
    const std::pair<const char*, std::string> rows[] = {
        {"Duration", num(summary.duration_seconds) + " s"},
        {"Scale-ups", std::to_string(summary.scale_ups)},
        {"Scale-downs", std::to_string(summary.scale_downs)},
        {"Most replicas", std::to_string(summary.max_replicas)},
        {"Final replicas", std::to_string(summary.final_replicas)},
        {"Reconciles", std::to_string(summary.reconciles)},
        {"Reconcile errors", std::to_string(summary.errors)},
        {"CPU target", std::to_string(summary.target_utilization) + " % of requests"}};
    for (const auto& [name, value] : rows)
        out += "<tr><th>" + std::string(name) + "</th><td>" + escape(value) + "</td></tr>\n";
    if (summary.predictive)
        out += "<tr><th>shop (predictive) scale-ups</th><td>" +
               std::to_string(summary.shop_scale_ups) + ", " +
               std::to_string(summary.shop_scale_ups_ahead) +
               " of them ahead of its load</td></tr>\n";
    out +=
        "</table>\n<h2>Scaling events</h2>\n<table>\n<tr><th>#</th><th>At</th><th>What</th></tr>\n";
    int n = 0;
    for (const auto& e : events) {
        const bool rescale = e.text.rfind("scaled ", 0) == 0;
        out += "<tr><td>" + (rescale ? std::to_string(++n) : std::string()) + "</td><td>" +
               num(e.seconds) + " s</td><td>" + escape(e.text) + "</td></tr>\n";
    }
    return out + "</table>\n</body></html>\n";
}

std::string summary_json(const demo_summary& s) {
    return "{\"scaleUps\":" + std::to_string(s.scale_ups) +
           ",\"scaleDowns\":" + std::to_string(s.scale_downs) +
           ",\"maxReplicas\":" + std::to_string(s.max_replicas) +
           ",\"finalReplicas\":" + std::to_string(s.final_replicas) +
           ",\"reconciles\":" + std::to_string(s.reconciles) +
           ",\"errors\":" + std::to_string(s.errors) +
           ",\"durationSeconds\":" + num(s.duration_seconds) +
           ",\"verticalResizes\":" + std::to_string(s.vertical_resizes) +
           (s.predictive
                ? ",\"predictiveScaleUps\":" + std::to_string(s.shop_scale_ups) +
                      ",\"predictiveScaleUpsAhead\":" + std::to_string(s.shop_scale_ups_ahead)
                : "") +
           "}\n";
}

} // namespace hpaplus::demo
