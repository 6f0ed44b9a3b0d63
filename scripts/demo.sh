#!/usr/bin/env bash
# The main job on the embedded default: set up, build, and explain one autoscaling decision.
# (Until `hpaplus demo` and the simulated cluster land, this runs `hpaplus evaluate` on the
# bundled example: three pods at 80 % CPU against a 50 % target.)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
example=examples/evaluate/cpu-scale-up.json
echo
echo "== hpaplus evaluate $example"
./build/hpaplus evaluate "$example"
