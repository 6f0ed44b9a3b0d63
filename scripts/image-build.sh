#!/usr/bin/env bash
# Builds the image from the Dockerfile without a daemon (buildah: vfs storage, chroot isolation,
# nothing pulled), then runs the image's own binary as the image's user: `hpaplus version` (it must
# name this checkout's version and commit), a `cron next` that needs the tz database, and
# `controller --help`; and checks the OCI labels.
#
#   scripts/image-build.sh [--prebuilt BINARY] [--tag NAME] [--keep]
#
# --prebuilt BINARY  the runtime stage around a binary already built on bookworm (what CI does: the
#                    `build` stage would build the whole project again); default: the full build
# --tag NAME         default localhost/hpaplus:VERSION
# --keep             keep the image in the store (a release pushes it: `buildah push NAME ...`)
#
# The base images are made here, not pulled: a debootstrap'd bookworm root (minbase, what
# bookworm-slim is made of) imported once as docker.io/library/debian:bookworm-slim and
# docker.io/library/debian:bookworm, the names the Dockerfile's FROM lines use. The store is
# /var/lib/hpaplus-image (HPAPLUS_IMAGE_STORE), kept between runs, so only the first run on a
# machine debootstraps. Needs root (buildah's chroot isolation, debootstrap).
set -euo pipefail
cd "$(dirname "$0")/.."

prebuilt=""
tag=""
keep=false
while [[ $# -gt 0 ]]; do
  case $1 in
    --prebuilt) prebuilt=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --keep) keep=true; shift ;;
    *) echo "image-build: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "image-build: needs root (buildah's chroot isolation)" >&2; exit 1; }
  exec sudo "$0" ${prebuilt:+--prebuilt "$prebuilt"} ${tag:+--tag "$tag"} $($keep && echo --keep)
fi
for tool in buildah debootstrap; do
  command -v $tool >/dev/null || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      buildah debootstrap >/dev/null
  }
done

store=${HPAPLUS_IMAGE_STORE:-/var/lib/hpaplus-image}
bah() { buildah --root "$store/storage" --runroot "$store/run" --storage-driver vfs "$@"; }
log=$(mktemp)
work=$(mktemp -d /var/tmp/hpaplus-image.XXXXXX)
container=""
cleanup() {
  [[ -n $container ]] && bah rm "$container" >/dev/null 2>&1
  rm -rf "$work" "$log"
}
trap cleanup EXIT
quietly() { "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "image-build: failed: $*" >&2; exit 1; }; }

version=$(sed -n 's/^project(hpaplus VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[[ -n $version ]] || { echo "image-build: no project(hpaplus VERSION ...) in CMakeLists.txt" >&2; exit 1; }
revision=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[[ -z $(git status --porcelain --untracked-files=no 2>/dev/null) ]] || revision="$revision-dirty"
source_url=$(git remote get-url origin 2>/dev/null || echo unknown)
epoch=$(git log -1 --format=%ct HEAD 2>/dev/null || echo 0)
tag=${tag:-localhost/hpaplus:$version}

# The base, once per store.
if ! bah inspect --type image docker.io/library/debian:bookworm-slim >/dev/null 2>&1; then
  echo "image-build: importing a debootstrap'd bookworm root as debian:bookworm-slim and debian:bookworm"
  quietly debootstrap --variant=minbase bookworm "$work/root"
  rm -rf "$work"/root/var/cache/apt/archives/*.deb "$work"/root/var/lib/apt/lists/*
  tar -C "$work/root" -cf "$work/root.tar" .
  rm -rf "$work/root"
  base=$(bah from scratch)
  container=$base
  quietly bah add "$base" "$work/root.tar" /
  quietly bah config --cmd bash "$base"
  quietly bah commit -q "$base" docker.io/library/debian:bookworm-slim
  bah rm "$base" >/dev/null
  container=""
  quietly bah tag docker.io/library/debian:bookworm-slim docker.io/library/debian:bookworm
  rm -f "$work/root.tar"
fi

# The context: the repository (minus .dockerignore), or with --prebuilt only what the runtime stage
# copies.
context=.
args=(--build-arg "HPAPLUS_VERSION=$version" --build-arg "HPAPLUS_REVISION=$revision"
      --build-arg "HPAPLUS_SOURCE=$source_url" --build-arg "SOURCE_DATE_EPOCH=$epoch")
if [[ -n $prebuilt ]]; then
  context=$work/context
  mkdir -p "$context/build"
  cp Dockerfile LICENSE NOTICE "$context/"
  strip -o "$context/build/hpaplus" "$prebuilt"
  args+=(--build-arg HPAPLUS_BINARY_FROM=prebuilt)
fi
echo "image-build: buildah bud $tag (version $version, commit $revision)"
quietly bah bud --isolation chroot --pull=never --layers=false "${args[@]}" -t "$tag" \
  -f "$context/Dockerfile" "$context"

# The image runs its binary as its own user.
container=$(bah from --pull=never "$tag")
run() { bah run --isolation chroot --user 65532:65532 "$container" -- /usr/local/bin/hpaplus "$@"; }
said=$(run version)
echo "image-build: the image says: $said"
[[ $said == "hpaplus $version (commit $revision, "* ]] ||
  { echo "image-build: expected hpaplus $version (commit $revision, ...)" >&2; exit 1; }
# 02:30 does not exist in Berlin on 2026-03-29: the tz database says it fires at 03:00.
fired=$(run cron next --schedule "30 2 * * *" --time-zone Europe/Berlin --from 2026-03-28T12:00:00Z)
[[ $fired == 2026-03-29T03:00:00+02:00 ]] || { echo "image-build: cron next said '$fired'" >&2; exit 1; }
run controller --help >/dev/null
user=$(bah inspect --type image --format '{{.OCIv1.Config.User}} {{index .OCIv1.Config.Entrypoint 0}}' "$tag")
[[ $user == "65532:65532 /usr/local/bin/hpaplus" ]] || { echo "image-build: user/entrypoint '$user'" >&2; exit 1; }
for label in "version=$version" "revision=$revision" "source=$source_url" \
             "licenses=Apache-2.0 AND GPL-2.0-or-later"; do
  key=${label%%=*}
  got=$(bah inspect --type image --format "{{index .OCIv1.Config.Labels \"org.opencontainers.image.$key\"}}" "$tag")
  [[ $got == "${label#*=}" ]] || { echo "image-build: label $key is '$got', not '${label#*=}'" >&2; exit 1; }
done
bah rm "$container" >/dev/null
container=""
if ! $keep; then bah rmi "$tag" >/dev/null; fi
echo "image-build: $tag built from the Dockerfile; its binary runs as user 65532; labels version, revision, source, licenses set"
