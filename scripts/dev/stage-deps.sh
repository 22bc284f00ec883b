#!/usr/bin/env bash
# Stages every build dependency of gemmbench from this machine's Debian packages into one folder,
# so that a GPU host with the CUDA Toolkit but no package access configures with that folder alone:
#
#   scripts/dev/stage-deps.sh .deps                       # here, once (installs missing packages)
#   cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.deps   # there, after copying .deps along
#
# CLI11, fmt, nlohmann/json and GoogleTest come from the project's shared staging tool
# (../shared/tools/stage-offline-deps.sh beside the checkout, or $STAGE_OFFLINE_DEPS); zlib
# (zlib1g-dev: zlib.h, zconf.h, libz.a, pkg-config file), which gemmbench links statically to read
# gzip-compressed reports, is staged here the same way: the folder mirrors /usr, so CMake's FindZLIB
# finds include/zlib.h and lib/<arch>/libz.a under the prefix.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: scripts/dev/stage-deps.sh DEST" >&2
  exit 2
fi
dest=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tool=${STAGE_OFFLINE_DEPS:-$root/../shared/tools/stage-offline-deps.sh}
if [ ! -f "$tool" ]; then
  echo "stage-deps: $tool not found (the shared tools sit beside the checkout; or set STAGE_OFFLINE_DEPS)" >&2
  exit 2
fi
bash "$tool" "$dest"

pkgs=(zlib1g-dev)
if ! dpkg -s "${pkgs[@]}" >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && $sudo apt-get install -y -qq "${pkgs[@]}" >/dev/null
fi
n=0
while read -r f; do
  if [[ -f $f || -L $f ]]; then
    rel=${f#/usr/}
    mkdir -p "$dest/$(dirname "$rel")"
    cp -a "$f" "$dest/$rel"
    n=$((n + 1))
  fi
done < <(dpkg -L "${pkgs[@]}" | grep -v -E '^/usr/share/(doc|lintian)')
if ! find "$dest" -name libz.a | grep -q .; then
  echo "stage-deps: no libz.a staged from ${pkgs[*]}" >&2
  exit 1
fi
echo "stage-deps: zlib staged ($n files); configure with -DCMAKE_PREFIX_PATH=$(cd "$dest" && pwd)"
