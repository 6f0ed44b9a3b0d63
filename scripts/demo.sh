#!/usr/bin/env bash
# The main job on the embedded default: install what building needs, build the `hpaplus` binary
# only, then `hpaplus demo` — the simulated cluster and the real controller over HTTP, a load that
# rises and falls, live progress, and a report.
# Extra arguments go to `hpaplus demo` (e.g. --duration 60, --report out.svg).
set -euo pipefail
cd "$(dirname "$0")/.."
HPAPLUS_SETUP=demo ./scripts/setup.sh   # build deps and the hpaplus binary only
echo
exec ./build/hpaplus demo --summary-json hpaplus-demo-summary.json "$@"
