#!/usr/bin/env bash
# Regenerates the current numbers: one report per shipped config (configs/*.json, not
# configs/dev) into bench_results/<gpu>/latest/<config>.json.gz, and latest/README.md listing them
# (config, commit, date, GPU, driver, rows and their statuses, the command). Then, where OUTDIR is
# a bench_results/<gpu>/latest, scripts/results_tables.py rewrites docs/results.md and README.md's
# headline table from the reports there (commit them with the reports). The charts README.md
# shows are drawn from these reports too. Run it on a GPU host from the repository root after
# `cmake --build build`:
#
#   scripts/update_latest.sh                    # every shipped config -> bench_results/<gpu>/latest
#   scripts/update_latest.sh --only llm_decode,default [OUTDIR]    # some (a long set in parts)
#   scripts/update_latest.sh --dry-run [OUTDIR] # plan every config (gemmbench --dry-run), run none
#   scripts/update_latest.sh --index [OUTDIR]   # only rewrite OUTDIR/README.md from the reports there
#                                               # (after copying in reports run elsewhere)
#
# <gpu> is a short slug of the device name (NVIDIA H100 80GB HBM3 -> h100, NVIDIA H200 -> h200).
# Environment: GEMMBENCH (default build/gemmbench), DEVICE (default 0), DEVICES (instead of DEVICE:
# every GPU of the node at once, e.g. all or 0,1,3, passed as --devices: the plan dealt out over
# them, one merged report, each row naming its GPU), GPU_NAME (the device name, else asked of
# nvidia-smi), GEMMBENCH_ARGS (extra arguments for every run, e.g. --max-time 3).
# A config whose run exits non-zero (a FAILED row, a CUDA error, no GPU) is named on stderr and the
# script goes on with the next; it exits 1 at the end if any did. Each report's summary (rows ok,
# FAILED, skipped, error; complete or not) is in latest/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/update_latest.sh [--dry-run | --index] [--only NAME[,NAME...]] [OUTDIR]" >&2
  exit 2
}

dry_run=0
index_only=0
only=""
outdir=""
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry_run=1 ;;
    --index) index_only=1 ;;
    --only)
      [ $# -ge 2 ] || usage
      only=$2
      shift
      ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*) usage ;;
    *)
      [ -z "$outdir" ] || usage
      outdir=$1
      ;;
  esac
  shift
done

gemmbench=${GEMMBENCH:-build/gemmbench}
device=${DEVICE:-0}
if [ "$index_only" = 0 ] && [ ! -x "$gemmbench" ]; then
  echo "update_latest: $gemmbench not found: build first (cmake --build build) or set GEMMBENCH" >&2
  exit 2
fi

# The shipped configs, by name, in a stable order.
shipped=()
for c in configs/*.json; do shipped+=("$(basename "$c" .json)"); done
configs=()
for name in "${shipped[@]}"; do
  if [ -z "$only" ] || [[ ",$only," == *",$name,"* ]]; then configs+=("$name"); fi
done
if [ -n "$only" ]; then
  IFS=, read -r -a wanted <<<"$only"
  for w in "${wanted[@]}"; do
    if [[ " ${shipped[*]} " != *" $w "* ]]; then
      echo "update_latest: --only: '$w' is not a shipped config (configs/$w.json); shipped: ${shipped[*]}" >&2
      exit 2
    fi
  done
fi

# The slug of a device name: the model number (h100, h200, a100, b200, l40s...), else the name
# in lower case with every run of other characters as one '-'.
gpu_slug() {
  local name
  name=$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')
  if [[ $name =~ (^|[^a-z0-9])([a-z]{1,2}[0-9]{2,3}[a-z]?)([^a-z0-9]|$) ]]; then
    printf '%s\n' "${BASH_REMATCH[2]}"
  else
    printf '%s\n' "$name" | sed -E 's/^nvidia[^a-z0-9]*//; s/[^a-z0-9]+/-/g; s/^-|-$//g'
  fi
}

gpu_name=${GPU_NAME:-}
if [ -z "$gpu_name" ] && [ "$index_only" = 1 ] && [ -n "$outdir" ]; then
  # --index without a GPU: the device name of the folder's reports.
  gpu_name=$(python3 -c "
import glob, os, sys
sys.path.insert(0, 'scripts')
from report_file import load_json
for p in sorted(glob.glob(os.path.join(sys.argv[1], '*.json.gz'))):
    print(load_json(p)['metadata']['device']['name']); break" "$outdir" 2>/dev/null || true)
fi
if [ -z "$gpu_name" ] && command -v nvidia-smi >/dev/null; then
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader --id="$device" 2>/dev/null | head -1 || true)
fi
if [ -z "$gpu_name" ]; then
  echo "update_latest: no GPU name (nvidia-smi found none at device $device); set GPU_NAME to name the folder" >&2
  exit 3
fi
slug=$(gpu_slug "$gpu_name")
where=(--device "$device")
[ -n "${DEVICES:-}" ] && where=(--devices "$DEVICES")
outdir=${outdir:-bench_results/$slug/latest}
echo "update_latest: $gpu_name -> $outdir; configs: ${configs[*]}"

if [ "$dry_run" = 1 ]; then
  for name in "${configs[@]}"; do
    echo "== $name: $gemmbench --config configs/$name.json ${where[*]} ${GEMMBENCH_ARGS:-} --json $outdir/$name.json.gz"
    # shellcheck disable=SC2086
    "$gemmbench" --config "configs/$name.json" "${where[@]}" ${GEMMBENCH_ARGS:-} --dry-run | tail -1
  done
  exit 0
fi

mkdir -p "$outdir"
failed=0
[ "$index_only" = 1 ] && configs=()
for name in "${configs[@]}"; do
  out=$outdir/$name.json.gz
  echo "== $name -> $out"
  rc=0
  # shellcheck disable=SC2086
  "$gemmbench" --config "configs/$name.json" "${where[@]}" ${GEMMBENCH_ARGS:-} --quiet --json "$out" || rc=$?
  if [ "$rc" != 0 ]; then
    echo "update_latest: $name: gemmbench exited $rc" >&2
    failed=1
  fi
done

# latest/README.md, from every report in the folder (so a run with --only keeps the others' lines).
python3 - "$outdir" "$gpu_name" <<'EOF'
import glob, os, sys
sys.path.insert(0, 'scripts')
from report_file import load_json

outdir, gpu = sys.argv[1], sys.argv[2]
rows = []
for path in sorted(glob.glob(os.path.join(outdir, '*.json.gz'))):
    name = os.path.basename(path)[:-len('.json.gz')]
    try:
        doc = load_json(path)
        m, s = doc['metadata'], doc.get('summary', {})
        dev = m.get('device', {})
        # Several boards: --devices (the plan dealt over the node's GPUs, one report), or the parts
        # of a --shard run joined by `gemmbench merge` (each part's board in merged_from).
        n_gpus, how = len(m.get('devices') or []), '--devices'
        if n_gpus <= 1:
            boards = {(p.get('device') or {}).get('serial') or (p.get('device') or {}).get('uuid') or i
                      for i, p in enumerate(m.get('merged_from') or [])}
            n_gpus, how = len(boards), f"{len(m.get('merged_from') or [])} shards merged"
        rows.append(f"| `{name}.json.gz` | `configs/{name}.json` | {m.get('git_commit', '?')} | "
                    f"{m.get('date_utc', '?')} | {dev.get('name', '?')}{f' x{n_gpus} ({how})' if n_gpus > 1 else ''}, driver {dev.get('driver_version', '?')} | "
                    f"{s.get('rows_written', len(doc.get('results', [])))} of {s.get('rows_planned', '?')}: "
                    f"{s.get('ok', '?')} ok, {s.get('failed', '?')} FAILED, {s.get('skipped', '?')} skipped, "
                    f"{s.get('errors', '?')} error{'' if s.get('complete') else ', incomplete'} |")
    except (OSError, ValueError, EOFError, KeyError, TypeError) as e:
        rows.append(f"| `{name}.json.gz` | `configs/{name}.json` | ? | ? | ? | unreadable: {e} |")
with open(os.path.join(outdir, 'README.md'), 'w', encoding='utf-8') as f:
    f.write(f"# Current numbers: {gpu}\n\n"
            "One report per shipped config (`configs/*.json`), written by `scripts/update_latest.sh`\n"
            "(`gemmbench --config configs/NAME.json --json NAME.json.gz`, each config's own measure\n"
            "settings: sustained regime, cold L2, uniform data). Regenerate them all with\n"
            "`scripts/update_latest.sh` from the repository root on this GPU after `cmake --build build`.\n\n"
            "| report | config | commit | date (UTC) | GPU | rows |\n|---|---|---|---|---|---|\n")
    f.write('\n'.join(rows) + '\n')
    commits = sorted({r.split(' | ')[2] for r in rows if r.count(' | ') >= 5} - {'?'})
    if len(commits) > 1:
        f.write(f"\nThe reports come from {len(commits)} commits ({', '.join(commits)}): `git log "
                "--oneline A..B -- kernels/` lists what changed in the kernels between two of them.\n")
print(f"update_latest: wrote {len(rows)} report line(s) to {os.path.join(outdir, 'README.md')}")
EOF

# The tables of docs/results.md and README.md, from every bench_results/*/latest/ (not from a
# folder elsewhere: those reports are not the committed ones).
case $(cd "$outdir" && pwd -P) in
  "$(pwd -P)"/bench_results/*/latest) python3 scripts/results_tables.py ;;
  *) echo "update_latest: $outdir is not a bench_results/<gpu>/latest: docs/results.md left as it is" ;;
esac
exit "$failed"
