#!/usr/bin/env bash
# The files a commit (or branch) changes against HEAD, copied into DIR with their paths, so a GPU
# call can build the tree with them laid over it and time both binaries in one session
# (scripts/dev/gpu_session.sh build-overlay:DIR, then use-build:build-gpu-alt; docs/development.md,
# "A change that must not move speed"). DIR goes under an ignored folder (build-ab/ by default)
# and travels with the call's `carry`. Files the change deletes are listed in DIR/.deleted.
#
#   scripts/dev/ab_overlay.sh REF [DIR]     e.g. scripts/dev/ab_overlay.sh wip-sm90split build-ab/overlay
set -euo pipefail
ref=${1:?usage: ab_overlay.sh REF [DIR]}
root=$(git rev-parse --show-toplevel)
dir=${2:-build-ab/overlay}
cd "$root"
rm -rf "$dir" && mkdir -p "$dir"
: >"$dir/.deleted"
git diff --name-status HEAD "$ref" | while read -r status path rest; do
  case $status in
    D) echo "$path" >>"$dir/.deleted" ;;
    R*) echo "$path" >>"$dir/.deleted"; mkdir -p "$dir/$(dirname "$rest")"; git show "$ref:$rest" >"$dir/$rest" ;;
    *) mkdir -p "$dir/$(dirname "$path")"; git show "$ref:$path" >"$dir/$path" ;;
  esac
done
echo "$(git rev-parse --short=12 "$ref")" >"$dir/.ref"
echo "ab_overlay: $(find "$dir" -type f ! -name '.*' | wc -l) files of $ref in $dir"
