#!/usr/bin/env bash
# Installs every Debian bookworm package HPAPlus and its tests need (only what is missing; apt-get
# update first when something is), then configures and builds into build/ (or $HPAPLUS_BUILD_DIR).
# Extra CMake arguments can be passed in $HPAPLUS_CMAKE_ARGS, a configure preset of
# CMakePresets.json in $HPAPLUS_PRESET (instead of the default RelWithDebInfo), the targets to build
# in $HPAPLUS_BUILD_TARGETS (default: all).
# With HPAPLUS_SETUP=demo it installs only what building needs and builds only `hpaplus` (what
# scripts/demo.sh runs): no Prometheus, InfluxDB, Clang or kubectl, no test binaries.
# With HPAPLUS_SETUP=packages it installs everything and builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

demo_only=0
[[ ${HPAPLUS_SETUP:-} == demo ]] && demo_only=1
packages_only=0
[[ ${HPAPLUS_SETUP:-} == packages ]] && packages_only=1
packages=(
  build-essential cmake ninja-build ccache pkg-config git curl
  libboost1.81-dev libssl-dev rapidjson-dev libspdlog-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libhowardhinnant-date-dev tzdata prometheus-cpp-dev libfftw3-dev
)
# What only the tests use: real Prometheus and InfluxDB, Clang for the fuzzers, buildah and
# debootstrap for the image build (scripts/image-build.sh), the official Python Kubernetes client as
# a typed client of the sim (and kubectl below), and Ruby's kubeclient as another.
((demo_only)) || packages+=(prometheus influxdb clang libclang-rt-14-dev libfuzzer-14-dev debootstrap
  buildah python3-kubernetes ruby-kubeclient)

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

kubectl_args=()
extra_kubectls=()
if ((!demo_only)); then
  # kubectl for the end-to-end tests: the machine image's kubectl package when its repository is
  # configured, otherwise Debian's kubernetes-client (kubectl 1.20).
  if ! command -v kubectl >/dev/null; then
    echo "setup: installing kubectl"
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq kubectl >/dev/null 2>&1 ||
      DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq kubernetes-client >/dev/null
  fi
  kubectl_version() { "$1" version --client 2>/dev/null | grep -o -m1 'v[0-9][0-9.]*' | head -n1; }
  echo "setup: kubectl $(kubectl_version kubectl) at $(command -v kubectl)"

  # The end-to-end tests also run with Debian's kubectl 1.20 (the oldest client we support) when the
  # kubectl on PATH is another version: it is unpacked, not installed, under .cache/kubectl-debian.
  if [[ $(kubectl_version kubectl) != v1.20.* ]]; then
    debian_kubectl=$PWD/.cache/kubectl-debian/usr/bin/kubectl
    if [[ ! -x $debian_kubectl ]]; then
      download=$(mktemp -d)
      chmod 755 "$download" # apt-get download runs as _apt where it can
      if (cd "$download" && apt-get download -qq kubernetes-client >/dev/null 2>&1 ||
          { "${sudo_cmd[@]}" apt-get update -qq && apt-get download -qq kubernetes-client >/dev/null 2>&1; }); then
        rm -rf .cache/kubectl-debian && mkdir -p .cache/kubectl-debian
        dpkg-deb -x "$download"/kubernetes-client_*.deb .cache/kubectl-debian
      fi
      rm -rf "$download"
    fi
    [[ -x $debian_kubectl ]] || { echo "setup: could not fetch Debian's kubernetes-client" >&2; exit 1; }
    echo "setup: the end-to-end tests also run with Debian's kubectl $(kubectl_version "$debian_kubectl") ($debian_kubectl)"
    extra_kubectls+=("$debian_kubectl")
  fi
  kubectl_args=("-DHPAPLUS_EXTRA_KUBECTLS=$(IFS=';'; echo "${extra_kubectls[*]}")")

  # The official JavaScript Kubernetes client, a typed client of the sim in the end-to-end tests:
  # Debian's Node.js and npm (when no node is installed), the package from the npm registry at the
  # versions tests/e2e/js/package-lock.json pins, into tests/e2e/js/node_modules.
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "setup: installing nodejs npm"
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  fi
  js=tests/e2e/js
  if [[ ! -e $js/node_modules/.installed || $js/package-lock.json -nt $js/node_modules/.installed ]]; then
    echo "setup: installing the JavaScript Kubernetes client (npm ci in $js)"
    (cd "$js" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    touch "$js/node_modules/.installed"
  fi
fi

((packages_only)) && exit 0

build_dir=${HPAPLUS_BUILD_DIR:-build}
# (CMakeLists.txt runs the compiler through ccache with the settings that let a fresh clone hit.)
configuration=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
[[ -n ${HPAPLUS_PRESET:-} ]] && configuration=(--preset "$HPAPLUS_PRESET")
# shellcheck disable=SC2086 # HPAPLUS_CMAKE_ARGS is a list of arguments
cmake -S . -B "$build_dir" -G Ninja "${configuration[@]}" "${kubectl_args[@]}" ${HPAPLUS_CMAKE_ARGS:-} >/dev/null
targets=()
((demo_only)) && targets=(--target hpaplus)
# shellcheck disable=SC2206 # HPAPLUS_BUILD_TARGETS is a list of targets
[[ -n ${HPAPLUS_BUILD_TARGETS:-} ]] && targets=(--target $HPAPLUS_BUILD_TARGETS)
cmake --build "$build_dir" -j2 "${targets[@]}"
