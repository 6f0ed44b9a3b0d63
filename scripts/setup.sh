#!/usr/bin/env bash
# Installs every Debian bookworm package HPAPlus and its tests need (only what is missing; apt-get
# update first when something is), then configures and builds into build/ (or $HPAPLUS_BUILD_DIR).
# Extra CMake arguments can be passed in $HPAPLUS_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build ccache pkg-config git curl
  libboost1.81-dev libssl-dev rapidjson-dev libspdlog-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libhowardhinnant-date-dev tzdata prometheus-cpp-dev
  prometheus influxdb
)

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if ((${#sudo_cmd[@]})) && ! command -v sudo >/dev/null; then
    echo "setup: run as root (apt-get needs it) or install sudo" >&2
    exit 1
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# kubectl for the end-to-end tests: the machine image's kubectl package when its repository is
# configured, otherwise Debian's kubernetes-client.
if ! command -v kubectl >/dev/null; then
  echo "setup: installing kubectl"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq kubectl >/dev/null 2>&1 ||
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq kubernetes-client >/dev/null
fi

build_dir=${HPAPLUS_BUILD_DIR:-build}
# shellcheck disable=SC2086 # HPAPLUS_CMAKE_ARGS is a list of arguments
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${HPAPLUS_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j2
