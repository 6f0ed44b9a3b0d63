#!/usr/bin/env bash
# Checks that the image the Dockerfile describes starts, without a Docker engine: a minimal Debian
# bookworm root (debootstrap --variant=minbase, what bookworm-slim is made of), the runtime stage's
# own apt-get install list, the built binary copied in, then run as the image's user 65532:
# `hpaplus version`, a `cron next` that needs the tz database, and `controller --help`.
#
#   scripts/image-check.sh [BINARY]     (default build/hpaplus; needs root for debootstrap/chroot)
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/hpaplus}
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
command -v debootstrap >/dev/null || {
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq debootstrap >/dev/null
}
# The runtime stage (after the last FROM): the words of its apt-get install up to `&&`.
packages=$(sed -n '/^FROM /h; /^FROM /!H; ${x;p}' Dockerfile | tr '\\\n' '  ' |
  sed -n 's/.*apt-get install \(.*\)/\1/p' | sed 's/&&.*//' | tr ' ' '\n' | grep -v '^-' | grep . |
  tr '\n' ' ')
[[ -n $packages ]] || { echo "image-check: no apt-get install in the Dockerfile's last stage" >&2; exit 1; }
root=$(mktemp -d /var/tmp/hpaplus-image.XXXXXX)
chmod 755 "$root" # the image's user must be able to enter its own root
log=$(mktemp)
trap '"${sudo_cmd[@]}" rm -rf "$root"; rm -f "$log"' EXIT
quietly() { "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "image-check: failed: $*" >&2; exit 1; }; }
echo "image-check: a bookworm minbase root in $root"
quietly "${sudo_cmd[@]}" debootstrap --variant=minbase bookworm "$root"
"${sudo_cmd[@]}" cp /etc/resolv.conf "$root/etc/resolv.conf"
echo "image-check: apt-get install $packages"
quietly "${sudo_cmd[@]}" chroot "$root" bash -c "apt-get update -qq &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages"
"${sudo_cmd[@]}" install -m 755 "$binary" "$root/usr/local/bin/hpaplus"
run() { "${sudo_cmd[@]}" chroot --userspec=65532:65532 "$root" /usr/local/bin/hpaplus "$@"; }
run version
# 02:30 does not exist in Berlin on 2026-03-29: the tz database says it fires at 03:00.
fired=$(run cron next --schedule "30 2 * * *" --time-zone Europe/Berlin --from 2026-03-28T12:00:00Z)
[[ $fired == 2026-03-29T03:00:00+02:00 ]] || { echo "image-check: cron next said '$fired'" >&2; exit 1; }
run controller --help >/dev/null
echo "image-check: the image's binary starts as user 65532 with the runtime stage's packages"
