// vertical/updater/pod.cpp — the updater's reading of a pod and the patches it writes.
#include "vertical/updater/pod.hpp"

#include "core/quantity.hpp"

#include <cstdio>

namespace hpaplus::vertical {
namespace {

// boost_annotation as a JSON pointer ("/" escaped as "~1").
constexpr const char* boost_annotation_path =
    "/metadata/annotations/vpaplus.hpaplus.io~1startup-boost";

const container_resources* find_container(const std::vector<container_resources>& list,
                                          const std::string& name) {
    for (const auto& c : list)
        if (c.name == name) return &c;
    return nullptr;
}

// A JSON string literal of `s`.
std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (const char ch : s) {
        const auto u = static_cast<unsigned char>(ch);
        if (ch == '"' || ch == '\\') {
            out += '\\';
            out += ch;
        } else if (u < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", u);
            out += escaped;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

// RFC 6902 operations, all "add" (which replaces an existing member); a value is a string or,
// when absent, an empty object.
class patch_builder {
  public:
    void add(const std::string& path, const std::optional<std::string>& text = std::nullopt) {
        text_ += text_.empty() ? "[" : ",";
        text_ += R"({"op":"add","path":)" + quoted(path) + R"(,"value":)" +
                 (text ? quoted(*text) : std::string("{}")) + "}";
    }
    std::string done() const { return text_.empty() ? "[]" : text_ + "]"; }

  private:
    std::string text_;
};

void add_resource_operations(patch_builder& patch, const pod_view& p,
                             const std::vector<container_resources>& to) {
    for (std::size_t i = 0; i < p.desired.size(); ++i) {
        const container_resources* next = find_container(to, p.desired[i].name);
        if (!next || *next == p.desired[i]) continue;
        const std::string base = "/spec/containers/" + std::to_string(i) + "/resources";
        const auto maps = i < p.maps.size() ? p.maps[i] : pod_view::resource_maps{};
        if (!maps.resources) patch.add(base);
        if (!maps.requests && (next->cpu_request_milli || next->memory_request_bytes))
            patch.add(base + "/requests");
        if (!maps.limits && (next->cpu_limit_milli || next->memory_limit_bytes))
            patch.add(base + "/limits");
        if (next->cpu_request_milli)
            patch.add(base + "/requests/cpu", cpu_text(*next->cpu_request_milli));
        if (next->memory_request_bytes)
            patch.add(base + "/requests/memory", memory_text(*next->memory_request_bytes));
        if (next->cpu_limit_milli)
            patch.add(base + "/limits/cpu", cpu_text(*next->cpu_limit_milli));
        if (next->memory_limit_bytes)
            patch.add(base + "/limits/memory", memory_text(*next->memory_limit_bytes));
    }
}

} // namespace

bool resizing(const pod_view& p) {
    if (!p.resize_pending.empty() || p.resize_in_progress) return true;
    for (const auto& want : p.desired)
        for (const auto& have : p.applied)
            if (have.name == want.name && !(have == want)) return true;
    return false;
}

bool under_way(const pod_view& p, core::time_point asked_at,
               const std::vector<container_resources>& asked, core::time_point now,
               const updater_config& config) {
    return resizing(p) || (p.desired != asked && now - asked_at < config.in_progress_timeout);
}

std::string fallback_reason(const pod_view& p, core::time_point asked_at, core::time_point now,
                            const updater_config& config) {
    if (p.resize_pending == "Infeasible") return "in-place resize is Infeasible";
    if (p.resize_pending == "Deferred" && now - asked_at > config.deferred_timeout)
        return "in-place resize Deferred for longer than " +
               std::to_string(
                   std::chrono::duration_cast<std::chrono::seconds>(config.deferred_timeout)
                       .count()) +
               "s";
    if (p.resize_in_progress && p.in_progress_reason == "Error")
        return "in-place resize failed (PodResizeInProgress reason Error)";
    if (p.resize_in_progress && now - asked_at > config.in_progress_timeout)
        return "in-place resize in progress for too long";
    return "";
}

std::string resources_key(const std::vector<container_resources>& to) {
    std::string k;
    for (const auto& c : to)
        k += c.name + ":" + std::to_string(c.cpu_request_milli.value_or(-1)) + "/" +
             std::to_string(c.memory_request_bytes.value_or(-1)) + "/" +
             std::to_string(c.cpu_limit_milli.value_or(-1)) + "/" +
             std::to_string(c.memory_limit_bytes.value_or(-1)) + ";";
    return k;
}

std::string describe_change(const pod_view& p, const std::vector<container_resources>& to) {
    std::string out;
    const auto part = [&](const char* what, const std::optional<std::int64_t>& a,
                          const std::optional<std::int64_t>& b, bool cpu) {
        if (a == b || !b) return;
        const auto text = [&](const std::optional<std::int64_t>& v) {
            return v ? (cpu ? cpu_text(*v) : memory_text(*v)) : std::string("none");
        };
        out += std::string(out.empty() ? "" : ", ") + what + " " + text(a) + "→" + text(b);
    };
    for (const auto& next : to) {
        const auto* before = find_container(p.desired, next.name);
        if (!before) continue;
        const std::size_t mark = out.size();
        part("cpu", before->cpu_request_milli, next.cpu_request_milli, true);
        part("memory", before->memory_request_bytes, next.memory_request_bytes, false);
        if (out.size() != mark) out.insert(mark + (mark ? 2 : 0), next.name + ": ");
    }
    return out;
}

std::string resize_patch(const pod_view& p, const std::vector<container_resources>& to) {
    patch_builder patch;
    add_resource_operations(patch, p, to);
    return patch.done();
}

std::string admission_patch(const pod_view& p, const std::vector<container_resources>& to,
                            const std::string& vpaplus, const std::string& boost) {
    patch_builder patch;
    add_resource_operations(patch, p, to);
    std::string what;
    for (const auto& next : to) {
        std::string parts;
        const auto add = [&](const std::optional<std::int64_t>& v, const char* name, bool cpu) {
            if (!v) return;
            parts += (parts.empty() ? "" : ", ") + std::string(name) + " " +
                     (cpu ? cpu_text(*v) : memory_text(*v));
        };
        add(next.cpu_request_milli, "cpu request", true);
        add(next.memory_request_bytes, "memory request", false);
        add(next.cpu_limit_milli, "cpu limit", true);
        add(next.memory_limit_bytes, "memory limit", false);
        if (!parts.empty()) what += (what.empty() ? "" : "; ") + next.name + ": " + parts;
    }
    if (!p.has_annotations) patch.add("/metadata/annotations");
    patch.add("/metadata/annotations/vpaplus.hpaplus.io~1updates",
              "Pod resources set by VPAPlus " + vpaplus + " at creation: " + what);
    if (!boost.empty()) patch.add(boost_annotation_path, boost);
    return patch.done();
}

std::string cpu_text(std::int64_t milli) {
    return core::quantity::from_milli(milli, core::quantity_format::decimal_si).to_string();
}

std::string memory_text(std::int64_t bytes) {
    return core::quantity::from_value(bytes, core::quantity_format::binary_si).to_string();
}

} // namespace hpaplus::vertical
