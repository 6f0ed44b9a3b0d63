// cli/replay/report.cpp — the replay report and summaries (no I/O).
#include "cli/replay/report.hpp"

#include "demo/svg.hpp"

#include <algorithm>
#include <cstdio>

namespace hpaplus::cli {
namespace {

using demo::svg::escape;
using demo::svg::nice_max;
using demo::svg::num;
using demo::svg::short_number;

constexpr double width = 960;
constexpr double left = 70, right = 30;
constexpr double plot_w = width - left - right;
constexpr double load_top = 50, load_h = 200;
constexpr double replicas_top = 290, replicas_h = 180;
constexpr const char* palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#17becf"};

const char* color(std::size_t i) {
    return palette[i % std::size(palette)];
}

bool any_predicts(const std::vector<replayed_variant>& variants) {
    return std::any_of(variants.begin(), variants.end(),
                       [](const replayed_variant& v) { return v.result.summary.predicts; });
}

// The metric the load panel shows: the first with a recorded series that votes in the first
// variant (or just the first with a series).
std::optional<std::size_t> charted_metric(const policy::recorded_load& load,
                                          const std::vector<replayed_variant>& variants) {
    std::optional<std::size_t> first;
    for (const auto& [index, values] : load.series) {
        if (values.empty()) continue;
        if (!first) first = index;
        const auto& metrics = variants.front().hpa.spec.metrics;
        if (index < metrics.size() && metrics[index].target_set) return index;
    }
    return first;
}

// Capacity at the target for `replicas` pods, in the metric's units, when it has one.
std::optional<double> capacity(const policy::metric_spec& m, const policy::recorded_load& load,
                               std::int32_t replicas) {
    using policy::metric_target_type;
    if (!m.target_set) return std::nullopt;
    const auto& t = m.target;
    if (t.type == metric_target_type::utilization && t.average_utilization) {
        const auto& basis = m.basis == policy::usage_basis::limits ? load.limits : load.requests;
        const core::quantity* request = core::find_resource(basis, m.resource_name);
        if (!request) return std::nullopt;
        return replicas * request->as_double() * *t.average_utilization / 100.0;
    }
    if (t.type == metric_target_type::average_value && t.average_value)
        return replicas * t.average_value->as_double();
    if (t.type == metric_target_type::value && t.value) return t.value->as_double();
    return std::nullopt;
}

std::string clock_label(core::time_point start, double seconds) {
    const std::string text =
        core::format_rfc3339(start + std::chrono::seconds(static_cast<std::int64_t>(seconds)));
    return text.size() >= 16 ? text.substr(11, 5) : text; // HH:MM (UTC)
}

std::string axis(double top, double h, double max, const std::string& label, double x_label) {
    std::string out;
    for (int i = 0; i <= 5; ++i) { // nice_max() maxima divide into five round steps
        const double v = max * i / 5;
        const double y = top + h * (1 - v / max);
        out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" + num(y) +
               "\" y2=\"" + num(y) + "\" stroke=\"#e5e5e5\"/>\n";
        out += "<text x=\"" + num(left - 8) + "\" y=\"" + num(y + 4) + "\" text-anchor=\"end\">" +
               short_number(v) + "</text>\n";
    }
    out += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(plot_w) +
           "\" height=\"" + num(h) + "\" fill=\"none\" stroke=\"#999\"/>\n";
    out += "<text x=\"" + num(x_label) + "\" y=\"" + num(top + h / 2) +
           "\" transform=\"rotate(-90 " + num(x_label) + " " + num(top + h / 2) +
           ")\" text-anchor=\"middle\">" + escape(label) + "</text>\n";
    return out;
}

std::string svg_body(const policy::recorded_load& load,
                     const std::vector<replayed_variant>& variants) {
    const double total = std::max(1.0, std::chrono::duration<double>(load.duration()).count());
    const auto x = [&](double seconds) { return left + plot_w * seconds / total; };
    const double legend_top = replicas_top + replicas_h + 40;
    const double height = legend_top + 20.0 * static_cast<double>(variants.size() + 1) + 10;
    const auto charted = charted_metric(load, variants);

    // Scales: the load panel holds the load and every capacity line; replicas their maximum.
    double load_max = 0, replicas_max = 1;
    if (charted) {
        for (const auto& v : load.series.at(*charted))
            if (v) load_max = std::max(load_max, *v);
    }
    for (const auto& v : variants) {
        replicas_max = std::max<double>(replicas_max, v.result.summary.max_replicas);
        if (charted && *charted < v.hpa.spec.metrics.size())
            if (auto c =
                    capacity(v.hpa.spec.metrics[*charted], load, v.result.summary.max_replicas))
                load_max = std::max(load_max, *c);
    }
    load_max = nice_max(load_max * 1.05);
    replicas_max = nice_max(replicas_max + 1);

    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(width) +
                      " " + num(height) + "\" width=\"" + num(width) + "\" height=\"" +
                      num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    out += "<text x=\"" + num(left) + "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" +
           "Replay from " + escape(core::format_rfc3339(load.start)) + " (" +
           short_number(total / 3600.0) + " h, UTC)</text>\n";
    std::string load_label = "load";
    if (charted) load_label += " (spec.metrics[" + std::to_string(*charted) + "])";
    out += axis(load_top, load_h, load_max, load_label, 18);
    out += axis(replicas_top, replicas_h, replicas_max, "replicas", 18);
    for (int i = 0; i <= 6; ++i) {
        const double t = total * i / 6;
        out += "<text x=\"" + num(x(t)) + "\" y=\"" + num(replicas_top + replicas_h + 18) +
               "\" text-anchor=\"middle\">" + clock_label(load.start, t) + "</text>\n";
    }

    // The recorded load: a step per sample, gaps left open.
    if (charted) {
        const auto& values = load.series.at(*charted);
        const double step = std::chrono::duration<double>(load.step).count();
        std::string d;
        bool open = false;
        for (std::size_t k = 0; k < values.size(); ++k) {
            if (!values[k]) {
                open = false;
                continue;
            }
            const double y = load_top + load_h * (1 - *values[k] / load_max);
            d += (open ? " H" + num(x(k * step)) + " V" : " M" + num(x(k * step)) + " ") + num(y);
            d += " H" + num(x((k + 1) * step));
            open = true;
        }
        out += "<path d=\"" + d + "\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\"/>\n";
    }
    // Per variant: replicas, and the capacity those replicas have at the target.
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const auto& v = variants[i];
        std::string replicas_path, capacity_path;
        std::int32_t n = load.initial_replicas;
        auto point = [&](double seconds, bool first) {
            const double y = replicas_top + replicas_h * (1 - n / replicas_max);
            replicas_path +=
                (first ? "M" + num(x(seconds)) + " " : " H" + num(x(seconds)) + " V") + num(y);
            if (!charted || *charted >= v.hpa.spec.metrics.size()) return;
            if (auto c = capacity(v.hpa.spec.metrics[*charted], load, n)) {
                const double yc = load_top + load_h * (1 - std::min(*c, load_max) / load_max);
                capacity_path += (capacity_path.empty() ? "M" + num(x(seconds)) + " "
                                                        : " H" + num(x(seconds)) + " V") +
                                 num(yc);
            }
        };
        point(0, true);
        for (const auto& d : v.result.decisions) {
            if (d.replicas == n) continue;
            n = d.replicas;
            point(std::chrono::duration<double>(d.time - load.start).count(), false);
        }
        replicas_path += " H" + num(x(total));
        out += "<path d=\"" + replicas_path + "\" fill=\"none\" stroke=\"" + color(i) +
               "\" stroke-width=\"2\"/>\n";
        for (const auto& d : v.result.decisions) { // a triangle where the forecast scaled up
            if (!d.forecast) continue;
            const double mx = x(std::chrono::duration<double>(d.time - load.start).count());
            const double my = replicas_top + replicas_h * (1 - d.replicas / replicas_max);
            out += "<path d=\"M" + num(mx) + " " + num(my - 9) + " l-4 -7 h8 z\" fill=\"" +
                   color(i) + "\"><title>" + escape(v.result.summary.name) +
                   ": the forecast raised the replicas to " + std::to_string(d.replicas) +
                   "</title></path>\n";
        }
        if (!capacity_path.empty()) {
            capacity_path += " H" + num(x(total));
            out += "<path d=\"" + capacity_path + "\" fill=\"none\" stroke=\"" + color(i) +
                   "\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n";
        }
    }
    // Legend, below both panels.
    double y = legend_top;
    out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + 24) + "\" y1=\"" + num(y - 4) +
           "\" y2=\"" + num(y - 4) + "\" stroke=\"#d62728\" stroke-width=\"1.5\"/>";
    out += "<text x=\"" + num(left + 32) + "\" y=\"" + num(y) +
           "\">recorded load (workload total, or the metric)</text>\n";
    for (std::size_t i = 0; i < variants.size(); ++i) {
        y += 20;
        const auto& s = variants[i].result.summary;
        out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + 24) + "\" y1=\"" + num(y - 4) +
               "\" y2=\"" + num(y - 4) + "\" stroke=\"" + color(i) + "\" stroke-width=\"2\"/>";
        out += "<text x=\"" + num(left + 32) + "\" y=\"" + num(y) + "\">" + escape(s.name) +
               ": replicas (solid), capacity at its target (dashed) — " +
               std::to_string(s.rescales) + " rescales, " + std::to_string(s.replica_seconds) +
               " replica-seconds, " + std::to_string(s.seconds_above_target) + " s above target" +
               (s.predicts ? ", ▼ " + std::to_string(s.forecast_ups) + " scale-ups by the forecast"
                           : "") +
               "</text>\n";
    }
    return out + "</svg>\n";
}

} // namespace

std::string render_replay_svg(const policy::recorded_load& load,
                              const std::vector<replayed_variant>& variants) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg_body(load, variants);
}

std::string render_replay_html(const policy::recorded_load& load,
                               const std::vector<replayed_variant>& variants,
                               const requests_replay* requests) {
    std::string out = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hpaplus "
                      "replay</title>\n<style>body{font-family:sans-serif;margin:24px}"
                      "td,th{padding:2px 10px;text-align:right}th{border-bottom:1px solid #999}"
                      "td:first-child,th:first-child{text-align:left}</style></head><body>\n";
    out += "<h1>hpaplus replay</h1>\n";
    if (variants.empty())
        return out + (requests ? requests_html(*requests) : "") + "</body></html>\n";
    const bool predicting = any_predicts(variants);
    out += "<table><tr><th>variant</th><th>rescales</th><th>scale-ups"
           "</th><th>scale-downs</th><th>max replicas</th><th>replica-seconds (cost)</th>"
           "<th>seconds above target (risk)</th>" +
           std::string(predicting ? "<th>scale-ups by the forecast</th>" : "") + "</tr>\n";
    for (const auto& v : variants) {
        const auto& s = v.result.summary;
        out += "<tr><td>" + escape(s.name) + "</td><td>" + std::to_string(s.rescales) +
               "</td><td>" + std::to_string(s.scale_ups) + "</td><td>" +
               std::to_string(s.scale_downs) + "</td><td>" + std::to_string(s.max_replicas) +
               "</td><td>" + std::to_string(s.replica_seconds) + "</td><td>" +
               std::to_string(s.seconds_above_target) + "</td>" +
               (predicting ? "<td>" + (s.predicts ? std::to_string(s.forecast_ups) : "–") + "</td>"
                           : "") +
               "</tr>\n";
    }
    out += "</table>\n";
    if (const std::string said = prediction_comparison(variants); !said.empty())
        out += "<p>" + escape(said) + "</p>\n";
    out += svg_body(load, variants);
    if (requests) out += requests_html(*requests);
    return out + "</body></html>\n";
}

std::string prediction_comparison(const std::vector<replayed_variant>& variants) {
    if (variants.empty() || variants.front().result.summary.predicts) return "";
    const auto& base = variants.front().result.summary;
    std::string out;
    for (const auto& v : variants) {
        const auto& s = v.result.summary;
        if (!s.predicts) continue;
        const std::int64_t fewer = base.seconds_above_target - s.seconds_above_target;
        const std::int64_t paid = s.replica_seconds - base.replica_seconds;
        char percent[32] = "";
        if (base.replica_seconds > 0)
            std::snprintf(percent, sizeof percent, " (%+.1f %%)",
                          100.0 * static_cast<double>(paid) /
                              static_cast<double>(base.replica_seconds));
        out += std::string(out.empty() ? "" : "\n") + s.name + ": " +
               std::to_string(fewer < 0 ? -fewer : fewer) + " seconds " +
               (fewer < 0 ? "more" : "fewer") + " above target than " + base.name + ", for " +
               std::to_string(paid < 0 ? -paid : paid) + " replica-seconds " +
               (paid < 0 ? "less" : "more") + percent + "; the forecast scaled up " +
               std::to_string(s.forecast_ups) + " times";
    }
    return out;
}

std::string summary_table(const std::vector<replayed_variant>& variants) {
    std::size_t name_width = 7;
    for (const auto& v : variants)
        name_width = std::max(name_width, v.result.summary.name.size());
    const bool predicting = any_predicts(variants);
    auto row = [&](const std::string& name, const std::string& a, const std::string& b,
                   const std::string& c, const std::string& d, const std::string& e,
                   const std::string& f, const std::string& g) {
        char buffer[320];
        std::snprintf(buffer, sizeof buffer, "%-*s  %8s  %8s  %10s  %11s  %15s  %19s", //
                      static_cast<int>(name_width), name.c_str(), a.c_str(), b.c_str(), c.c_str(),
                      d.c_str(), e.c_str(), f.c_str());
        std::string line = buffer;
        if (predicting) {
            std::snprintf(buffer, sizeof buffer, "  %11s", g.c_str());
            line += buffer;
        }
        return line + "\n";
    };
    std::string out = row("VARIANT", "RESCALES", "UPS", "DOWNS", "MAXREPLICAS", "REPLICASECONDS",
                          "SECONDSABOVETARGET", "FORECASTUPS");
    for (const auto& v : variants) {
        const auto& s = v.result.summary;
        out += row(s.name, std::to_string(s.rescales), std::to_string(s.scale_ups),
                   std::to_string(s.scale_downs), std::to_string(s.max_replicas),
                   std::to_string(s.replica_seconds), std::to_string(s.seconds_above_target),
                   s.predicts ? std::to_string(s.forecast_ups) : "-");
    }
    if (const std::string said = prediction_comparison(variants); !said.empty()) out += said + "\n";
    return out;
}

std::string summary_json(const std::vector<replayed_variant>& variants,
                         const requests_replay* requests) {
    std::string out = "{\"variants\": [";
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const auto& s = variants[i].result.summary;
        std::string name;
        for (char c : s.name) { // names are DNS names; escape anyway
            if (c == '"' || c == '\\') name += '\\';
            if (static_cast<unsigned char>(c) >= 0x20) name += c;
        }
        out += std::string(i ? ",\n  " : "\n  ") + "{\"name\": \"" + name +
               "\", \"rescales\": " + std::to_string(s.rescales) +
               ", \"scaleUps\": " + std::to_string(s.scale_ups) +
               ", \"scaleDowns\": " + std::to_string(s.scale_downs) +
               ", \"maxReplicas\": " + std::to_string(s.max_replicas) +
               ", \"replicaSeconds\": " + std::to_string(s.replica_seconds) +
               ", \"secondsAboveTarget\": " + std::to_string(s.seconds_above_target) +
               (s.predicts ? ", \"forecastUps\": " + std::to_string(s.forecast_ups) : "") + "}";
    }
    out += variants.empty() ? "]" : "\n]";
    if (requests) out += ",\n\"requests\": " + requests_json(*requests);
    return out + "}\n";
}

} // namespace hpaplus::cli
