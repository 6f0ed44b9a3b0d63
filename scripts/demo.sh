#!/usr/bin/env bash
# The main job on the embedded default: set up, build, then `hpaplus demo` — the simulated cluster
# and the real controller over HTTP, a load that rises and falls, live progress, and a report.
# Extra arguments go to `hpaplus demo` (e.g. --duration 60, --report out.svg).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
echo
exec ./build/hpaplus demo --summary-json hpaplus-demo-summary.json "$@"
