// demo/report.cpp — SVG and HTML rendering of a demo run (no I/O).
#include "demo/report.hpp"

#include "demo/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hpaplus::demo {
namespace {

constexpr double width = 960, height = 420;
constexpr double left = 60, right = 70, top = 50, bottom = 50;
constexpr double plot_w = width - left - right, plot_h = height - top - bottom;

using svg::escape;
using svg::nice_max;
using svg::num;
using svg::short_number;

struct scale {
    double t_max, left_max, right_max;
    double x(double t) const { return left + plot_w * (t_max > 0 ? t / t_max : 0); }
    double y_left(double v) const { return top + plot_h * (1 - v / left_max); }
    double y_right(double v) const { return top + plot_h * (1 - v / right_max); }
};

// A step line (the value holds until the next sample) for replica counts.
std::string step_path(const std::vector<demo_sample>& samples, const scale& s,
                      int demo_sample::*field) {
    std::string d;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const double x = s.x(samples[i].seconds);
        const double y = s.y_left(samples[i].*field);
        if (i == 0)
            d += "M" + num(x) + " " + num(y);
        else
            d += " H" + num(x) + " V" + num(y);
    }
    return d;
}

std::string svg_body(const std::vector<demo_sample>& samples, const std::vector<demo_event>& events,
                     const std::string& title) {
    double t_max = 1, replicas_max = 1, load_max = 0.1;
    for (const auto& p : samples) {
        t_max = std::max(t_max, p.seconds);
        replicas_max = std::max<double>(replicas_max, std::max(p.replicas, p.ready));
        load_max = std::max(load_max, p.load_cores);
    }
    const scale s{t_max, nice_max(replicas_max + 1), nice_max(load_max * 1.1)};
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(width) +
                      " " + num(height) + "\" width=\"" + num(width) + "\" height=\"" +
                      num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    out += "<text x=\"" + num(left) + "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" +
           escape(title) + "</text>\n";
    // Grid and axes: replicas on the left, load on the right, seconds below.
    for (int i = 0; i <= 5; ++i) {
        const double v = s.left_max * i / 5;
        const double y = s.y_left(v);
        out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" + num(y) +
               "\" y2=\"" + num(y) + "\" stroke=\"#e5e5e5\"/>\n";
        out += "<text x=\"" + num(left - 8) + "\" y=\"" + num(y + 4) +
               "\" text-anchor=\"end\" fill=\"#1f77b4\">" + short_number(v) + "</text>\n";
        out += "<text x=\"" + num(left + plot_w + 8) + "\" y=\"" + num(y + 4) +
               "\" fill=\"#d62728\">" + short_number(s.right_max * i / 5) + "</text>\n";
    }
    for (int i = 0; i <= 6; ++i) {
        const double t = t_max * i / 6;
        out += "<text x=\"" + num(s.x(t)) + "\" y=\"" + num(top + plot_h + 18) +
               "\" text-anchor=\"middle\">" + short_number(t) + " s</text>\n";
    }
    out += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(plot_w) +
           "\" height=\"" + num(plot_h) + "\" fill=\"none\" stroke=\"#999\"/>\n";
    out += "<text x=\"16\" y=\"" + num(top + plot_h / 2) + "\" transform=\"rotate(-90 16 " +
           num(top + plot_h / 2) + ")\" text-anchor=\"middle\" fill=\"#1f77b4\">replicas</text>\n";
    out += "<text x=\"" + num(width - 14) + "\" y=\"" + num(top + plot_h / 2) +
           "\" transform=\"rotate(90 " + num(width - 14) + " " + num(top + plot_h / 2) +
           ")\" text-anchor=\"middle\" fill=\"#d62728\">load (CPU cores)</text>\n";
    // Scaling events as faint vertical marks.
    for (const auto& e : events) {
        const double x = s.x(e.seconds);
        out += "<line x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(top) + "\" y2=\"" +
               num(top + plot_h) + "\" stroke=\"#2ca02c\" stroke-dasharray=\"2 4\"><title>" +
               escape(e.text) + "</title></line>\n";
    }
    if (!samples.empty()) {
        std::string load;
        for (std::size_t i = 0; i < samples.size(); ++i)
            load += (i ? " L" : "M") + num(s.x(samples[i].seconds)) + " " +
                    num(s.y_right(samples[i].load_cores));
        out += "<path d=\"" + load + "\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>\n";
        out +=
            "<path d=\"" + step_path(samples, s, &demo_sample::ready) +
            "\" fill=\"none\" stroke=\"#9ecae1\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n";
        out += "<path d=\"" + step_path(samples, s, &demo_sample::replicas) +
               "\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2.5\"/>\n";
    }
    // Legend.
    const double ly = top - 14;
    const std::pair<const char*, const char*> legend[] = {{"#1f77b4", "replicas (spec)"},
                                                          {"#9ecae1", "ready"},
                                                          {"#d62728", "load"},
                                                          {"#2ca02c", "rescale"}};
    double lx = left + plot_w - 500;
    for (const auto& [color, label] : legend) {
        out += "<rect x=\"" + num(lx) + "\" y=\"" + num(ly - 9) +
               "\" width=\"14\" height=\"4\" fill=\"" + color + "\"/>";
        out += "<text x=\"" + num(lx + 20) + "\" y=\"" + num(ly - 4) + "\">" + label + "</text>\n";
        lx += 125;
    }
    return out + "</svg>\n";
}

} // namespace

std::string render_svg(const std::vector<demo_sample>& samples,
                       const std::vector<demo_event>& events, const std::string& title) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg_body(samples, events, title);
}

std::string render_html(const std::vector<demo_sample>& samples,
                        const std::vector<demo_event>& events, const demo_summary& summary,
                        const std::string& title) {
    std::string out = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" +
                      escape(title) +
                      "</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222}"
                      "table{border-collapse:collapse}td,th{padding:4px 12px;border-bottom:1px "
                      "solid #ddd;text-align:left}</style></head><body>\n";
    out += "<h1>" + escape(title) + "</h1>\n" + svg_body(samples, events, title);
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
    out += "</table>\n<h2>Scaling events</h2>\n<table>\n<tr><th>At</th><th>What</th></tr>\n";
    for (const auto& e : events)
        out += "<tr><td>" + num(e.seconds) + " s</td><td>" + escape(e.text) + "</td></tr>\n";
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
           ",\"verticalResizes\":" + std::to_string(s.vertical_resizes) + "}\n";
}

} // namespace hpaplus::demo
