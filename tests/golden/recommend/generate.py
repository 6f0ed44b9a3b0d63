#!/usr/bin/env python3
"""Writes the inputs of the `hpaplus recommend` golden cases (NAME.input.json). Deterministic;
run it again after changing a case, then record the outputs with HPAPLUS_UPDATE_GOLDEN=1 and check
them by hand (README.md says what each case must show)."""
import json
import math
from datetime import datetime, timedelta, timezone

START = datetime(2026, 3, 2, tzinfo=timezone.utc)  # a Monday, 00:00 UTC


def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def vpa(policies=None):
    spec = {"targetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "updatePolicy": {"updateMode": "Off"}}
    if policies:
        spec["resourcePolicy"] = {"containerPolicies": policies}
    return {"apiVersion": "autoscaling.hpaplus.io/v1alpha1", "kind": "VPAPlus",
            "metadata": {"name": "web", "namespace": "shop"}, "spec": spec}


def series(days, every_minutes, cpu_m, memory_mi, container="app", pods=("web-1",), extra=None):
    """cpu_m(minutes) and memory_mi(minutes) give millicores and MiB at that minute."""
    out = []
    steps = int(days * 24 * 60 / every_minutes)
    for i in range(steps + 1):
        minute = i * every_minutes
        for pod in pods:
            s = {"time": ts(START + timedelta(minutes=minute)), "pod": pod,
                 "container": container, "cpu": "%dm" % cpu_m(minute),
                 "memory": "%dMi" % memory_mi(minute)}
            if extra:
                s.update(extra(minute))
            out.append(s)
    return out


def case(name, samples, policies=None, ooms=None, now_days=8):
    doc = {"now": ts(START + timedelta(days=now_days)), "vpa": vpa(policies), "samples": samples}
    if ooms:
        doc["ooms"] = ooms
    # One sample a line, so a diff shows what changed.
    lines = ["{", '  "now": %s,' % json.dumps(doc["now"]), '  "vpa": %s,' % json.dumps(doc["vpa"])]
    for key in ("ooms", "samples"):
        if key not in doc:
            continue
        items = [json.dumps(x, separators=(",", ":")) for x in doc[key]]
        body = ",\n    ".join(items)
        lines.append('  "%s": [\n    %s\n  ]%s' % (key, body, "," if key == "ooms" else ""))
    with open(name + ".input.json", "w") as f:
        f.write("\n".join(lines) + "\n}\n")


def wave(minute):  # a daily rhythm: 100m at night, 900m at 14:00
    return 500 - 400 * math.cos(2 * math.pi * ((minute / 60 - 2) % 24) / 24)


case("steady-eight-days", series(8, 20, lambda m: 300, lambda m: 400, pods=("web-1", "web-2", "web-3")))
case("daily-wave", series(7, 20, wave, lambda m: 300 + wave(m) / 10))
case("spike", series(3, 10, lambda m: 2000 if 1800 <= m < 1830 else 200, lambda m: 256),
     now_days=3)
case("request-changed",
     series(4, 20, lambda m: 400, lambda m: 500,
            extra=lambda m: {"cpuRequest": "100m" if m < 2 * 24 * 60 else "800m"}), now_days=4)
case("oom-killed", series(2, 20, lambda m: 250, lambda m: 900),
     ooms=[{"time": ts(START + timedelta(hours=30)), "pod": "web-1", "container": "app",
            "memory": "1Gi"}], now_days=2)
case("two-containers-share-minimum",
     series(2, 20, lambda m: 5, lambda m: 20) +
     series(2, 20, lambda m: 3, lambda m: 10, container="sidecar"), now_days=2)
case("policy-bounds-cpu-only", series(2, 20, lambda m: 1500, lambda m: 3000),
     policies=[{"containerName": "*", "minAllowed": {"memory": "4Gi"},
                "maxAllowed": {"cpu": "1"}, "controlledResources": ["cpu"]}], now_days=2)
case("container-mode-off",
     series(2, 20, lambda m: 400, lambda m: 500) +
     series(2, 20, lambda m: 50, lambda m: 64, container="istio-proxy"),
     policies=[{"containerName": "istio-proxy", "mode": "Off"}], now_days=2)
case("young-container", series(30 / (24 * 60), 1, lambda m: 700, lambda m: 600), now_days=1)
case("empty-history", [], now_days=1)
