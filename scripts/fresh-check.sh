#!/usr/bin/env bash
# Checks the README's promise on a literally fresh machine: builds a Debian bookworm root file system
# with debootstrap, clones this repository (its committed HEAD) into it, and runs the README's test
# command there as root, the way a new user would. Not part of .ci/run (it needs root and ~1 hour).
#
#   sudo ./scripts/fresh-check.sh [--keep] [--command "./scripts/demo.sh --duration 30"] [ROOT_DIR]
#
# --command runs something else in the fresh root (default: ./scripts/test.sh); --keep leaves the
# root file system in place afterwards (it is removed otherwise). Prints how long each step took and
# exits with the command's exit code.
set -euo pipefail
cd "$(dirname "$0")/.."

command_in_root="./scripts/test.sh"
keep=0
root=""
while (($#)); do
  case $1 in
    --command) command_in_root=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    -*) echo "fresh-check: unknown flag $1" >&2; exit 2 ;;
    *) root=$1; shift ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "fresh-check: run as root (debootstrap and chroot need it)" >&2; exit 2; }
if ! command -v debootstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi
root=${root:-$(mktemp -d /var/tmp/hpaplus-fresh.XXXXXX)}
repo=$PWD

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  if ((!keep)); then rm -rf "$root"; else echo "fresh-check: the root file system stays in $root"; fi
}
trap cleanup EXIT

step() { printf '\nfresh-check: %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }
start=$(date +%s)

step "debootstrap bookworm into $root"
debootstrap bookworm "$root" >"$root.debootstrap.log" 2>&1 ||
  { tail -20 "$root.debootstrap.log" >&2; exit 1; }
rm -f "$root.debootstrap.log"
bootstrapped=$(date +%s)

# What a booted machine has: /proc, /sys, /dev, name resolution; no services are started by
# package scripts (nothing runs an init system in a chroot).
for fs in proc sys dev dev/pts; do
  mkdir -p "$root/$fs"
  mount --bind "/$fs" "$root/$fs"
  mounted+=("$root/$fs")
done
mkdir -p "$root/dev/shm" && mount -t tmpfs tmpfs "$root/dev/shm" && mounted+=("$root/dev/shm")
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The network's trust, like its name servers: where egress goes through a TLS proxy, the host's CA
# bundle, which Node.js (npm) reads through NODE_EXTRA_CA_CERTS as on the host. The machine's own
# CA store stays Debian's.
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/network-ca.crt" 2>/dev/null || : >"$root/etc/network-ca.crt"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"

step "clone the repository (HEAD $(git rev-parse --short HEAD)) into /root/hpaplus"
git clone -q "$repo" "$root/root/hpaplus"

step "run '$command_in_root' in the fresh root"
set +e
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb CI=true LANG=C.UTF-8 \
  NODE_EXTRA_CA_CERTS=/etc/network-ca.crt \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c "cd /root/hpaplus && $command_in_root"
status=$?
set -e
end=$(date +%s)
printf '\nfresh-check: exit %d; debootstrap %ds, command %ds, total %ds\n' \
  "$status" $((bootstrapped - start)) $((end - bootstrapped)) $((end - start))
exit "$status"
