// kube/json_shape.cpp — writing the kept part of a JSON value.
#include "kube/json_shape.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <initializer_list>
#include <string_view>

namespace hpaplus::kube {
namespace {

using writer = rapidjson::Writer<rapidjson::StringBuffer>;

// The shape tree is a few levels deep, so this recursion is bounded by it, not by the input.
void write(writer& w, const rapidjson::Value& v, const json_shape* shape) {
    if (!shape) {
        v.Accept(w);
        return;
    }
    if (v.IsArray()) {
        w.StartArray();
        for (const auto& element : v.GetArray())
            write(w, element, shape);
        w.EndArray();
        return;
    }
    if (!v.IsObject()) {
        v.Accept(w);
        return;
    }
    w.StartObject();
    if (shape->keep_others) {
        for (const auto& m : v.GetObject()) {
            const std::string_view name(m.name.GetString(), m.name.GetStringLength());
            if (std::find(shape->dropped.begin(), shape->dropped.end(), name) !=
                shape->dropped.end())
                continue;
            const auto own = std::find_if(shape->members.begin(), shape->members.end(),
                                          [&](const auto& kept) { return kept.first == name; });
            w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
            write(w, m.value, own == shape->members.end() ? nullptr : own->second.get());
        }
    } else if (!shape->presence_only)
        for (const auto& [name, inner] : shape->members) {
            const auto m = v.FindMember(name.c_str());
            if (m == v.MemberEnd()) continue;
            w.Key(name.c_str(), static_cast<rapidjson::SizeType>(name.size()));
            write(w, m->value, inner.get());
        }
    w.EndObject();
}

using member_list = std::initializer_list<std::pair<const char*, json_shape_cptr>>;

json_shape_cptr keep(member_list members) {
    auto s = std::make_shared<json_shape>();
    for (const auto& [name, inner] : members)
        s->members.emplace_back(name, inner);
    return s;
}

// An object's identity — name, namespace, uid, resourceVersion, generation, labels — and `more`.
json_shape_cptr metadata_keeping(member_list more) {
    auto s = std::make_shared<json_shape>();
    for (const char* name : {"name", "namespace", "uid", "resourceVersion", "generation", "labels"})
        s->members.emplace_back(name, nullptr);
    for (const auto& [name, inner] : more)
        s->members.emplace_back(name, inner);
    return s;
}

} // namespace

std::string shaped_json(const rapidjson::Value& value, const json_shape& shape) {
    rapidjson::StringBuffer b;
    writer w(b);
    write(w, value, &shape);
    return {b.GetString(), b.GetSize()};
}

json_shape_cptr pod_shape() {
    static const json_shape_cptr shape = [] {
        const json_shape_cptr whole = nullptr;
        auto presence = std::make_shared<json_shape>();
        presence->presence_only = true;
        const auto container =
            keep({{"name", whole}, {"resources", whole}, {"restartPolicy", whole}});
        return keep({
            {"apiVersion", whole},
            {"kind", whole},
            {"metadata", metadata_keeping({{"annotations", presence},
                                           {"deletionTimestamp", whole},
                                           {"ownerReferences", keep({{"controller", whole}})}})},
            {"spec",
             keep(
                 {{"containers", container}, {"initContainers", container}, {"resources", whole}})},
            {"status", keep({{"phase", whole},
                             {"startTime", whole},
                             {"resize", whole},
                             {"conditions", keep({{"type", whole},
                                                  {"status", whole},
                                                  {"reason", whole},
                                                  {"lastTransitionTime", whole}})},
                             {"containerStatuses",
                              keep({{"name", whole},
                                    {"resources", whole},
                                    {"lastState",
                                     keep({{"terminated", keep({{"reason", whole},
                                                                {"startedAt", whole},
                                                                {"finishedAt", whole}})}})}})}})},
        });
    }();
    return shape;
}

json_shape_cptr deployment_shape() {
    static const json_shape_cptr shape = [] {
        const json_shape_cptr whole = nullptr;
        return keep({
            {"apiVersion", whole},
            {"kind", whole},
            {"metadata", metadata_keeping({})},
            {"spec", keep({{"replicas", whole}, {"selector", whole}})},
            {"status", whole},
        });
    }();
    return shape;
}

json_shape_cptr custom_resource_shape() {
    static const json_shape_cptr shape = [] {
        auto metadata = std::make_shared<json_shape>();
        metadata->keep_others = true;
        metadata->dropped = {"managedFields"};
        auto whole = std::make_shared<json_shape>();
        whole->keep_others = true;
        whole->members = {{"metadata", metadata}};
        return whole;
    }();
    return shape;
}

} // namespace hpaplus::kube
