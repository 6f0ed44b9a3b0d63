// sim/workload/prometheus.cpp — the Prometheus exposition of simulated pods.
#include "sim/workload/prometheus.hpp"

#include "sim/apiserver/custom_metrics.hpp"
#include "sim/pod_state.hpp"

#include <cstdio>

namespace hpaplus::sim {
namespace {

std::string escape(const std::string& v) {
    std::string out;
    for (char c : v) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

} // namespace

std::string prometheus_text(object_store& store, const workload_model& workload) {
    collection* pods = store.find("", "v1", "pods");
    std::string cpu, seconds, memory, custom, container_seconds, container_memory;
    for (const auto& [k, p] : pods->objects) {
        const auto usage = workload.usage_of(*p);
        if (!usage) continue;
        // The workload's name: the Deployment above the pod's ReplicaSet, or its StatefulSet.
        const object_ptr owner = workload_of(store, *p);
        const std::string deployment = owner ? owner->name : std::string();
        const std::string labels = "namespace=\"" + escape(p->namespace_) + "\",pod=\"" +
                                   escape(p->name) + "\",deployment=\"" + escape(deployment) + "\"";
        cpu += "sim_pod_cpu_usage_cores{" + labels + "} " +
               number(static_cast<double>(usage->cpu_milli) / 1000.0) + "\n";
        seconds += "sim_pod_cpu_seconds_total{" + labels + "} " +
                   number(workload.cpu_seconds_of(*p)) + "\n";
        memory += "sim_pod_memory_usage_bytes{" + labels + "} " +
                  number(static_cast<double>(usage->memory_bytes)) + "\n";
        // cAdvisor's per-container series (what VPA's Prometheus history reads): the pod's
        // usage split evenly over its containers, as the simulated metrics API splits it.
        const json* containers = find_path(p->doc, "spec.containers");
        const auto count =
            containers && containers->IsArray() && !containers->Empty() ? containers->Size() : 1u;
        for (rapidjson::SizeType i = 0; i < count; ++i) {
            const std::string name =
                count == 1 && !(containers && containers->IsArray() && !containers->Empty())
                    ? std::string("app")
                    : string_at((*containers)[i], "name");
            const std::string c = "namespace=\"" + escape(p->namespace_) + "\",pod=\"" +
                                  escape(p->name) + "\",container=\"" + escape(name) + "\"";
            container_seconds += "container_cpu_usage_seconds_total{" + c + "} " +
                                 number(workload.cpu_seconds_of(*p) / count) + "\n";
            container_memory += "container_memory_working_set_bytes{" + c + "} " +
                                number(static_cast<double>(usage->memory_bytes) / count) + "\n";
        }
        for (const auto& [name, value] : pod_custom_metrics(store, *p))
            custom += "sim_pod_metric{" + labels + ",metric=\"" + escape(name) + "\"} " +
                      number(value) + "\n";
    }
    return "# HELP sim_pod_cpu_usage_cores CPU a simulated pod uses now, in cores.\n"
           "# TYPE sim_pod_cpu_usage_cores gauge\n" +
           cpu +
           "# HELP sim_pod_cpu_seconds_total CPU seconds a simulated pod has used.\n"
           "# TYPE sim_pod_cpu_seconds_total counter\n" +
           seconds +
           "# HELP sim_pod_memory_usage_bytes Memory a simulated pod uses now.\n"
           "# TYPE sim_pod_memory_usage_bytes gauge\n" +
           memory +
           "# HELP sim_pod_metric A custom per-pod metric of a simulated pod.\n"
           "# TYPE sim_pod_metric gauge\n" +
           custom +
           "# HELP container_cpu_usage_seconds_total CPU seconds a container has used.\n"
           "# TYPE container_cpu_usage_seconds_total counter\n" +
           container_seconds +
           "# HELP container_memory_working_set_bytes A container's working set.\n"
           "# TYPE container_memory_working_set_bytes gauge\n" +
           container_memory;
}

} // namespace hpaplus::sim
