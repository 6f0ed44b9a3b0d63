#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ (Clang, ASan + UBSan) into build-asan/ and runs each one:
# over its corpus fuzz/corpus/NAME (seeds and every past finding, which must all pass), then for
# SECONDS on new inputs, $HPAPLUS_FUZZ_JOBS (default 2) harnesses at a time. Exits non-zero after a
# finding and prints how to reproduce it.
# Usage: scripts/fuzz.sh [SECONDS per harness, default 20] [NAME...]   (names: ls fuzz/*.cpp)
# A finding becomes a regression input: copy it into fuzz/corpus/NAME/ with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
shift || true
# The harnesses live in the sanitizer build (Clang, ASan + UBSan + libFuzzer's coverage), the same
# build that runs the tests under the sanitizers (CMakePresets.json `asan-ubsan`); setup.sh installs
# Clang and libFuzzer when they are missing.
HPAPLUS_BUILD_DIR=build-asan HPAPLUS_PRESET=asan-ubsan HPAPLUS_BUILD_TARGETS=fuzzers ./scripts/setup.sh
jobs=${HPAPLUS_FUZZ_JOBS:-2} # harnesses fuzzed at once: each is one process on one core

names=("$@")
if ((${#names[@]} == 0)); then
  for f in fuzz/*.cpp; do names+=("$(basename "$f" .cpp)"); done
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fuzz_one() { # fuzz_one NAME: prints its report; fails on a finding
  local name=$1 corpus=fuzz/corpus/$1
  [[ -d $corpus ]] || { echo "fuzz: no corpus $corpus" >&2; return 1; }
  mkdir -p "$work/$name" "$work/$name.artifacts"
  echo "== fuzz $name: $(find "$corpus" -type f | wc -l) corpus inputs, then ${seconds} s"
  # New inputs go to the scratch directory (first); the repository's corpus is only read.
  if ! "build-asan/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/$name.artifacts/" \
      "$work/$name" "$corpus" >"$work/$name.log" 2>&1; then
    tail -n 60 "$work/$name.log"
    local artifact
    for artifact in "$work/$name.artifacts"/*; do
      [[ -e $artifact ]] || continue
      mkdir -p fuzz-findings && cp "$artifact" "fuzz-findings/$name-$(basename "$artifact")"
      echo "fuzz: $name found fuzz-findings/$name-$(basename "$artifact");" \
        "reproduce: build-asan/fuzz/fuzz_$name fuzz-findings/$name-$(basename "$artifact")" >&2
    done
    return 1
  fi
  echo "   $name: $(grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$work/$name.log" |
    tr '\n' ' ')"
}
# Up to $jobs harnesses at once; each prints its report when it ends. Every harness runs to its
# end; the exit status says whether any found something.
failed=0
running=0
for name in "${names[@]}"; do
  if ((running >= jobs)); then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$name" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
