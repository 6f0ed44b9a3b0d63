#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ (Clang, ASan + UBSan) into build-fuzz/ and runs each one:
# over its corpus fuzz/corpus/NAME (seeds and every past finding, which must all pass), then for
# SECONDS on new inputs. Exits non-zero on the first finding and prints how to reproduce it.
# Usage: scripts/fuzz.sh [SECONDS per harness, default 20] [NAME...]   (names: ls fuzz/*.cpp)
# A finding becomes a regression input: copy it into fuzz/corpus/NAME/ with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
shift || true
# Clang and libFuzzer (setup.sh installs them too; this script may run on its own).
missing=()
for p in clang libclang-rt-14-dev libfuzzer-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHPAPLUS_FUZZ=ON -DHPAPLUS_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz -j2 --target fuzzers

names=("$@")
if ((${#names[@]} == 0)); then
  for f in fuzz/*.cpp; do names+=("$(basename "$f" .cpp)"); done
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for name in "${names[@]}"; do
  corpus=fuzz/corpus/$name
  [[ -d $corpus ]] || { echo "fuzz: no corpus $corpus" >&2; exit 1; }
  mkdir -p "$work/$name"
  echo "== fuzz $name: $(find "$corpus" -type f | wc -l) corpus inputs, then ${seconds} s"
  # New inputs go to the scratch directory (first); the repository's corpus is only read.
  if ! "build-fuzz/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/" \
      "$work/$name" "$corpus" >"$work/$name.log" 2>&1; then
    tail -n 60 "$work/$name.log"
    for artifact in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
      [[ -e $artifact ]] || continue
      mkdir -p fuzz-findings && cp "$artifact" "fuzz-findings/$name-$(basename "$artifact")"
      echo "fuzz: $name found fuzz-findings/$name-$(basename "$artifact");" \
        "reproduce: build-fuzz/fuzz/fuzz_$name fuzz-findings/$name-$(basename "$artifact")" >&2
    done
    exit 1
  fi
  grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$work/$name.log" |
    tr '\n' ' ' && echo
done
