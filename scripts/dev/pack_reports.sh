#!/usr/bin/env bash
# Packs what a device call left under DIR into DIR/reports.tar.gz and removes the packed files:
# every file but the call's own (all_logs.tar.gz, boards.txt, *_session.txt). Used by
# scripts/dev/gpu_lanes.sh at the end of a call; tests/cli/pack_reports.sh checks it.
#
# The archive is named out of find's list: find still walks DIR when tar creates the archive, and an
# archive that lists itself is removed by --remove-files. On 2026-11-30 (twelfth session, call 2)
# that lost a call's reports: they came back only as the tables in its logs.
#
#   scripts/dev/pack_reports.sh DIR
set -euo pipefail
dir=${1:?usage: pack_reports.sh DIR}
cd "$dir"
find . -type f ! -name all_logs.tar.gz ! -name reports.tar.gz ! -name boards.txt \
  ! -name '*_session.txt' -print0 | tar --null -czf reports.tar.gz -T - --remove-files
find . -mindepth 1 -type d -empty -delete
