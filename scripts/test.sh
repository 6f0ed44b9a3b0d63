#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite: first the normal build (warnings are errors), then
# the image check (the Dockerfile's runtime packages in a minimal bookworm root run the binary),
# then the same tests under AddressSanitizer + UndefinedBehaviorSanitizer, then the controller's
# integration tests with every controller on two lanes (--threads 2) under ThreadSanitizer, then
# every fuzz harness over its corpus and for 20 s on new inputs (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

HPAPLUS_CMAKE_ARGS="-DHPAPLUS_WERROR=ON" ./scripts/setup.sh
ctest --test-dir build --output-on-failure -j2

echo "== the image: the Dockerfile's runtime packages run the binary (scripts/image-check.sh)"
./scripts/image-check.sh build/hpaplus

echo "== the same tests under ASan + UBSan"
HPAPLUS_BUILD_DIR=build-asan HPAPLUS_CMAKE_ARGS="-DHPAPLUS_WERROR=ON -DHPAPLUS_SANITIZE=ON" ./scripts/setup.sh
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j2

echo "== the controller's integration tests on two lanes (--threads 2) under ThreadSanitizer"
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHPAPLUS_TSAN=ON \
  -DHPAPLUS_WERROR=ON >/dev/null
cmake --build build-tsan -j2 --target controller_integration_test
HPAPLUS_TEST_THREADS=2 TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 \
  build-tsan/tests/controller_integration_test
echo "== the fuzz harnesses"
./scripts/fuzz.sh "${HPAPLUS_FUZZ_SECONDS:-20}"
