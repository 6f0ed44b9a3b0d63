#!/usr/bin/env bash
# The README's test command (and CI's): sets up, builds and runs every check, printing the wall time
# of each stage as it goes and a table of them at the end (also when a stage fails).
#
#   ./scripts/test.sh            everything (docs/testing.md says what each stage checks and costs)
#   ./scripts/test.sh --quick    the inner loop: incremental build/, unit + integration tests
#
# Three builds, each serving what only it can show:
#   build/        GCC 12, warnings as errors, RelWithDebInfo: the binary we ship. It compiles
#                 everything (tests and bench too) and runs the unit tests, the image build and a
#                 demo smoke run; its other tests would only repeat the sanitizer build's.
#   build-asan/   Clang 14, ASan + UBSan (float-cast-overflow included) + libFuzzer's coverage,
#                 warnings as errors: every test (unit, integration, end-to-end) and every fuzz
#                 harness over its corpus and for $HPAPLUS_FUZZ_SECONDS (default 14) on new inputs.
#   build-tsan/   GCC 12, ThreadSanitizer, only controller_integration_test and what it links: every
#                 controller on two lanes (--threads 2).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case ${1:-} in
  --quick) quick=1 ;;
  "") ;;
  -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
  *) echo "test.sh: unknown argument $1 (--quick or nothing)" >&2; exit 2 ;;
esac

# ---- stage timing: `stage NAME COMMAND...` runs one stage; the table is printed on any exit.
stage_names=()
stage_seconds=()
current_stage=""
current_start=0
fmt_seconds() { printf '%dm %02ds' $(($1 / 60)) $(($1 % 60)); }
stage() {
  current_stage=$1
  shift
  current_start=$SECONDS
  printf '\n== %s (%s)\n' "$current_stage" "$(date -u +%H:%M:%S)"
  "$@"
  local took=$((SECONDS - current_start))
  stage_names+=("$current_stage")
  stage_seconds+=("$took")
  current_stage=""
  printf -- '-- %s: %s\n' "${stage_names[-1]}" "$(fmt_seconds "$took")"
}
summary() {
  local status=$?
  if [[ -n $current_stage ]]; then
    stage_names+=("$current_stage (FAILED)")
    stage_seconds+=($((SECONDS - current_start)))
  fi
  printf '\n== time per stage\n'
  local i
  for i in "${!stage_names[@]}"; do
    printf '| %-58s | %9s |\n' "${stage_names[i]}" "$(fmt_seconds "${stage_seconds[i]}")"
  done
  printf '| %-58s | %9s |\n' "total (exit $status)" "$(fmt_seconds "$SECONDS")"
  if command -v ccache >/dev/null; then
    ccache --print-stats 2>/dev/null | awk -F'\t' '
      $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hits += $2 }
      $1 == "cache_miss" { misses = $2 }
      END { if (hits + misses) printf "ccache (since its statistics were zeroed): %d hits, %d misses\n", hits, misses }'
  fi
}
trap summary EXIT

# ---- what the stages run
ccache --zero-stats >/dev/null 2>&1 || true
sanitizer_env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
# The integration and end-to-end tests mostly wait on sockets, timers and child processes: run more
# of them than there are cores (the few that time themselves run alone: RUN_SERIAL, tests/CMakeLists.txt).
test_jobs=${HPAPLUS_TEST_JOBS:-10}

# The tests that measure memory (label `memory`) run here, on the production allocator, not under ASan.
unit_tests() { ctest --test-dir build --output-on-failure -j2 -L 'unit|memory'; }
demo_smoke() {
  local dir
  dir=$(mktemp -d)
  build/hpaplus demo --duration 30 --summary-json "$dir/summary.json" --report "$dir/report.html" \
    >"$dir/demo.log" 2>&1 || { tail -40 "$dir/demo.log"; rm -rf "$dir"; return 1; }
  grep -q '"scaleUps": *[1-9]' "$dir/summary.json" && grep -q '"errors": *0[,}]' "$dir/summary.json" ||
    { echo "demo: no scale-up, or errors: $(cat "$dir/summary.json")" >&2; rm -rf "$dir"; return 1; }
  echo "demo: $(tr -d '\n ' <"$dir/summary.json" | cut -c1-200)"
  rm -rf "$dir"
}
# The sanitized run also records what RBAC let each simulated cluster's callers do
# (tests/support/shipped_identity.hpp); rbac_usage_check then shows every rule deploy/ ships is needed.
rbac_usage=$(mktemp -d)
trap 'summary; rm -rf "$rbac_usage"' EXIT
sanitized_tests() {
  env "${sanitizer_env[@]}" HPAPLUS_RBAC_USAGE_DIR="$rbac_usage" \
    ctest --test-dir build-asan --output-on-failure -j"$test_jobs" "$@"
}
# The controller's integration tests spend their time waiting on the simulated cluster: they run as
# $tsan_shards gtest shards at once, each a process of its own with its own simulated cluster.
tsan_shards=${HPAPLUS_TSAN_SHARDS:-6}
tsan_tests() {
  local logs i failed=0
  logs=$(mktemp -d)
  for ((i = 0; i < tsan_shards; i++)); do
    HPAPLUS_TEST_THREADS=2 TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 \
      GTEST_TOTAL_SHARDS=$tsan_shards GTEST_SHARD_INDEX=$i \
      build-tsan/tests/controller_integration_test >"$logs/$i.log" 2>&1 &
  done
  for ((i = 0; i < tsan_shards; i++)); do
    if wait -n; then :; else failed=1; fi
  done
  for ((i = 0; i < tsan_shards; i++)); do
    if grep -q '^\[  PASSED  \]' "$logs/$i.log" && ! grep -q '^\[  FAILED  \]' "$logs/$i.log"; then
      echo "shard $i: $(grep -E '^\[==========\] .* ran' "$logs/$i.log")"
    else
      failed=1
      echo "shard $i failed:" && tail -n 80 "$logs/$i.log"
    fi
  done
  rm -rf "$logs"
  return "$failed"
}

if ((quick)); then
  stage "set-up and build build/ (GCC, incremental)" ./scripts/setup.sh
  stage "unit + integration tests (build/)" \
    ctest --test-dir build --output-on-failure -j"$test_jobs" -L 'unit|integration'
  exit 0
fi

stage "set-up: packages, kubectl" env HPAPLUS_SETUP=packages ./scripts/setup.sh
stage "build build/: GCC, -Werror, everything" env HPAPLUS_CMAKE_ARGS="-DHPAPLUS_WERROR=ON" ./scripts/setup.sh
stage "unit tests and memory figures (build/)" unit_tests
stage "image built from the Dockerfile with buildah and run (scripts/image-build.sh --prebuilt build/hpaplus)" \
  ./scripts/image-build.sh --prebuilt build/hpaplus
stage "demo smoke run (build/hpaplus demo --duration 30)" demo_smoke
stage "build build-asan/: Clang, ASan+UBSan+fuzzer coverage, -Werror, everything" \
  env HPAPLUS_BUILD_DIR=build-asan HPAPLUS_PRESET=asan-ubsan ./scripts/setup.sh
stage "every test under ASan+UBSan (build-asan/), but the memory figures" sanitized_tests -LE memory
stage "every RBAC rule deploy/ ships is needed by a test (build/tests/rbac_usage_check)" \
  build/tests/rbac_usage_check "$rbac_usage"
# 14 s each keeps the whole command within its 15 minutes with 20 harnesses (longer runs by hand:
# scripts/fuzz.sh 300).
stage "fuzz: $(ls fuzz/*.cpp | wc -l) harnesses, corpus + ${HPAPLUS_FUZZ_SECONDS:-14} s each, 2 at a time" \
  ./scripts/fuzz.sh "${HPAPLUS_FUZZ_SECONDS:-14}"
stage "build build-tsan/: GCC, TSan, controller_integration_test" \
  env HPAPLUS_BUILD_DIR=build-tsan HPAPLUS_PRESET=tsan HPAPLUS_BUILD_TARGETS=controller_integration_test \
  ./scripts/setup.sh
stage "the controller on two lanes under TSan, $tsan_shards shards at once" tsan_tests
