#!/usr/bin/env bash
# Builds the course's images from docker/*.Dockerfile: the grader (this copy of torchlab) and the
# student image (`torchlab release` of it, with JupyterLab).
#
#   scripts/build_images.sh                 # both
#   scripts/build_images.sh grader          # or: student
#
# Prints one line per image on stdout, "grader localhost/torchlab-grader:h-<hash>" (also tagged
# :latest); everything else goes to stderr.
#
# The base: where a registry answers, the Dockerfiles' own (python:3.11-slim-bookworm). Where
# none does, a Debian bookworm root file system made by debootstrap from Debian's archive
# (needs root and `apt-get install debootstrap`), imported as localhost/torchlab-base:h-<hash>.
# torch: the pinned CPU wheel, from download.pytorch.org where it answers, else from a local
# folder holding torch-2.13.0+cpu's wheel (pip's find-links, e.g. /opt/wheels), mounted into
# the build (podman only), with torch's dependencies from PyPI.
#
# Caching, by the hash of the inputs: the base tarball by the hash of its recipe (this file's
# make_base), each image by the hash of its Dockerfile, base, torch source and build context;
# an image whose tag already exists is not rebuilt, and a rebuild reuses the engine's layers.
#
# Environment: TORCHLAB_ENGINE (podman|docker; default podman where installed),
# TORCHLAB_IMAGE_BASE (a base image to use as is), TORCHLAB_WHEELS (a folder holding the torch
# wheel), TORCHLAB_IMAGE_CACHE (where the base tarball is kept; default
# ~/.cache/torchlab/images), DEBIAN_MIRROR, TORCHLAB_BUILD_ISOLATION (podman's --isolation;
# default chroot, which builds where containers themselves cannot run).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

BASE_ROOT=""
trap 'rm -rf "$BASE_ROOT"' EXIT

say() { echo "== $*" >&2; }
die() {
  echo "build_images.sh: $*" >&2
  exit 1
}

WANT=("$@")
[ ${#WANT[@]} -eq 0 ] && WANT=(grader student)
for w in "${WANT[@]}"; do
  case "$w" in grader | student) ;; *) die "no image called '$w' (grader, student)" ;; esac
done

ENGINE=${TORCHLAB_ENGINE:-}
if [ -z "$ENGINE" ]; then
  if command -v podman >/dev/null 2>&1; then ENGINE=podman
  elif command -v docker >/dev/null 2>&1; then ENGINE=docker
  else die "neither podman nor docker is installed (apt-get install podman)"
  fi
fi
CACHE=${TORCHLAB_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/torchlab/images}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
TORCH_PIN=torch==2.13.0+cpu
TORCH_WHEEL_GLOB="torch-2.13.0+cpu-cp311-cp311-*linux*x86_64.whl"
PYTORCH_CPU=https://download.pytorch.org/whl/cpu

sha() { sha256sum | cut -c1-16; }

# Debian's own slim images leave out documentation, manuals and translations; so does ours.
SLIM_DPKG='path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*'

# The recipe of the debootstrapped base: a minimal bookworm with Debian's sources (the release,
# its updates, security) and no package lists or downloaded packages left in it. Its text is
# part of the cache key, so editing it rebuilds the tarball.
make_base() { # make_base TARBALL
  local root
  root=$(mktemp -d "${TMPDIR:-/tmp}/torchlab-base.XXXXXX")
  BASE_ROOT=$root # removed on exit, whatever happens
  debootstrap --variant=minbase --components=main "$SUITE" "$root" "$MIRROR" >&2
  rm -f "$root/etc/apt/sources.list"
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  printf '%s\n' "$SLIM_DPKG" >"$root/etc/dpkg/dpkg.cfg.d/slim"
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/lintian/*
  find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias \
    -exec rm -rf {} +
  rm -rf "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/var/lib/apt/lists/* "$root"/var/log/*.log "$root"/var/log/apt/*
  tar --numeric-owner --xattrs -C "$root" -cf "$1.part" .
  mv "$1.part" "$1"
  rm -rf "$root"
}

base_image() { # prints the base image to build on
  if [ -n "${TORCHLAB_IMAGE_BASE:-}" ]; then
    echo "$TORCHLAB_IMAGE_BASE"
    return
  fi
  local usual
  usual=$(sed -n 's/^ARG BASE=//p' docker/grader.Dockerfile)
  if "$ENGINE" image inspect "$usual" >/dev/null 2>&1 || "$ENGINE" pull -q "$usual" >&2 2>/dev/null; then
    say "base: $usual"
    echo "$usual"
    return
  fi
  say "no registry answers for $usual: a $SUITE base from Debian's archive ($MIRROR)"
  [ "$ENGINE" = podman ] || die "the debootstrapped base needs podman (docker: set TORCHLAB_IMAGE_BASE)"
  command -v debootstrap >/dev/null 2>&1 || die "debootstrap is not installed (apt-get install debootstrap)"
  [ "$(id -u)" -eq 0 ] || die "debootstrap needs root"
  local key tag tarball
  key=$( (declare -f make_base; echo "$SUITE $MIRROR $SLIM_DPKG") | sha)
  tag=localhost/torchlab-base:h-$key
  if ! podman image exists "$tag"; then
    tarball=$CACHE/$SUITE-minbase-$key.tar
    mkdir -p "$CACHE"
    if [ ! -f "$tarball" ]; then
      say "debootstrap $SUITE (minbase) into $tarball"
      local start=$SECONDS
      make_base "$tarball"
      say "base tarball made in $((SECONDS - start)) s"
    fi
    podman import -q "$tarball" "$tag" >&2
  fi
  say "base: $tag"
  echo "$tag"
}

# Where torch's CPU wheel comes from: build arguments (and, for a local folder, a mount).
TORCH_ARGS=()
TORCH_KEY=$PYTORCH_CPU
torch_source() {
  if curl -fsS -o /dev/null --max-time 20 "$PYTORCH_CPU/torch/" 2>/dev/null; then
    say "torch: $TORCH_PIN from $PYTORCH_CPU"
    return
  fi
  local dirs dir wheel=""
  IFS=' ' read -r -a dirs <<<"${TORCHLAB_WHEELS:-} ${PIP_FIND_LINKS:-} /opt/wheels"
  for dir in "${dirs[@]}"; do
    dir=${dir#file://}
    # shellcheck disable=SC2086
    wheel=$(ls "$dir"/$TORCH_WHEEL_GLOB 2>/dev/null | head -n1) && [ -n "$wheel" ] && break
  done
  [ -n "$wheel" ] || die "$PYTORCH_CPU cannot be reached and no folder holds $TORCH_WHEEL_GLOB (set TORCHLAB_WHEELS)"
  [ "$ENGINE" = podman ] || die "a local torch wheel is mounted into the build by podman only"
  say "torch: $TORCH_PIN from $wheel (torch's dependencies from PyPI)"
  TORCH_ARGS=(-v "$(dirname "$wheel"):/tmp/wheels:ro" --build-arg WHEELS=/tmp/wheels
    --build-arg TORCH_INDEX=https://pypi.org/simple)
  TORCH_KEY="$(basename "$wheel") $(stat -c %s "$wheel")"
}

# Where a proxy re-signs TLS, the host's pip trusts its CA bundle (PIP_CERT, or
# TORCHLAB_BUILD_CA): the build's pip gets the same bundle, mounted, never copied in.
CA_ARGS=()
build_ca() {
  local ca=${TORCHLAB_BUILD_CA:-${PIP_CERT:-}}
  [ -n "$ca" ] && [ -f "$ca" ] && [ "$ENGINE" = podman ] || return 0
  say "pip in the build trusts $ca (as the host's pip does)"
  CA_ARGS=(-v "$ca:/tmp/torchlab-build-ca.pem:ro" --build-arg BUILD_CA=/tmp/torchlab-build-ca.pem)
}

context_hash() { # the files a build context sends, by content (.containerignore's names left out)
  (
    cd "$1"
    find . \( -name .git -o -name __pycache__ -o -name '*.egg-info' -o -name .pytest_cache \
      -o -name .ruff_cache -o -name .ipynb_checkpoints -o -name .hypothesis \
      -o -path ./build -o -path ./out -o -path ./grades -o -path ./release \) -prune \
      -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
  ) | sha
}

build() { # build NAME DOCKERFILE CONTEXT REPOSITORY
  local name=$1 dockerfile=$2 context=$3 repo=$4 key tag start
  key=$( (echo "$BASE $TORCH_KEY"; "$ENGINE" image inspect --format '{{.Id}}' "$BASE"
    cat "$dockerfile"; context_hash "$context") | sha)
  tag=$repo:h-$key
  if "$ENGINE" image inspect "$tag" >/dev/null 2>&1; then
    say "$name: $tag is built already (same inputs)"
  else
    say "$name: building $tag"
    start=$SECONDS
    local args=(build -f "$dockerfile" --build-arg "BASE=$BASE" -t "$tag")
    if [ "$ENGINE" = podman ]; then
      args+=(--isolation "${TORCHLAB_BUILD_ISOLATION:-chroot}" --layers "${TORCH_ARGS[@]}" "${CA_ARGS[@]}")
    fi
    "$ENGINE" "${args[@]}" "$context" >&2
    say "$name: built in $((SECONDS - start)) s"
  fi
  "$ENGINE" tag "$tag" "$repo:latest"
  # One image per repository is kept: earlier trees' images go (their shared layers stay);
  # one still mounted or running is left alone.
  "$ENGINE" images --format '{{.Repository}}:{{.Tag}}' "$repo" | grep ":h-" | grep -vxF "$tag" |
    xargs -r "$ENGINE" rmi >/dev/null 2>&1 || true
  echo "$name $tag"
}

BASE=$(base_image)
torch_source
build_ca
for w in "${WANT[@]}"; do
  if [ "$w" = grader ]; then
    build grader docker/grader.Dockerfile "$ROOT" localhost/torchlab-grader
  else
    # The student copy, as `torchlab release` writes it, is the student image's context.
    release=$CACHE/release
    rm -rf "$release"
    mkdir -p "$CACHE"
    PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" python3 -m autograder.cli release --out "$release" >&2
    build student "$release/docker/student.Dockerfile" "$release" localhost/torchlab-lab
  fi
done
