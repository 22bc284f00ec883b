#!/usr/bin/env bash
# Compares the machine code of the kernels between a base commit and the working tree, kernel by
# kernel: a refactoring that claims "speed does not move" shows it here, on a host without a GPU.
#
#   scripts/dev/sass_diff.sh BASE_COMMIT [TU.cu ...]
#   e.g. scripts/dev/sass_diff.sh 1f8f1ea                  # every TU that the change reaches
#        scripts/dev/sass_diff.sh HEAD~2 kernels/hgemm/decode.cu
#
# Without TUs it takes every kernels/**/*.cu whose include closure (nvcc -M) holds a file that
# differs from BASE_COMMIT (committed or not). Each TU is compiled to a cubin for sm_80 and sm_90a
# with the build's flags (CMakeLists.txt: -std=c++17 -O3 -DNDEBUG -lineinfo
# --expt-relaxed-constexpr -I core/include -I src -I kernels; a base from before core/ moved out of
# src/ finds its headers through -I src), the base from `git archive BASE_COMMIT` (nothing in
# the repository's git state changes). Every function's SASS (cuobjdump -sass, addresses dropped,
# instruction and control words kept: the schedule counts) and resources (cuobjdump -res-usage)
# are compared. Prints one line per TU and arch, then every function that differs with its
# instruction and register counts; exit 0 when all are identical, 1 when one differs, 2 on error.
#
# Needs cuobjdump and nvdisasm (not in the pip-installed nvcc: pip install nvidia-cuda-cuobjdump
# nvidia-cuda-nvdisasm, then put their nvidia/cu13/bin on PATH or set CUDA_TOOLS_BIN to it).
# SASS_DIFF_DIR (default build/sass_diff) keeps the cubins and dumps; the base's cubins are reused
# on the next run against the same commit. SASS_DIFF_ARCHS overrides "sm_80 sm_90a".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
[ $# -ge 1 ] || { sed -n '4,6p' "$0" >&2; exit 2; }
base=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "sass_diff: '$1' is not a commit" >&2; exit 2; }
shift
export PATH=${CUDA_TOOLS_BIN:+$CUDA_TOOLS_BIN:}/usr/local/cuda/bin:$PATH
for tool in nvcc cuobjdump nvdisasm; do
  command -v $tool >/dev/null || { echo "sass_diff: $tool not found (see the header of $0)" >&2; exit 2; }
done
archs=${SASS_DIFF_ARCHS:-sm_80 sm_90a}
flags=(-std=c++17 -O3 -DNDEBUG -lineinfo --expt-relaxed-constexpr -I core/include -I src -I kernels)
work=${SASS_DIFF_DIR:-$root/build/sass_diff}
base_src=$work/base-${base:0:12}/src
new_out=$work/new
mkdir -p "$work" "$new_out"
if [ ! -d "$base_src" ]; then
  mkdir -p "$base_src" && git archive "$base" | tar -x -C "$base_src" || exit 2
fi

if [ $# -gt 0 ]; then
  tus=("$@")
else
  # Changed files (committed since BASE, staged, unstaged, untracked), then the TUs reaching them.
  changed=$({ git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u)
  tus=()
  for tu in $(git ls-files 'kernels/*.cu'; git ls-files --others --exclude-standard 'kernels/*.cu'); do
    deps=$(nvcc -M "${flags[@]}" "$tu" 2>/dev/null | tr -d '\\' | tr ' ' '\n' | sed "s|^$root/||")
    if printf '%s\n%s\n' "$tu" "$deps" | grep -qxF -f <(printf '%s\n' "$changed"); then
      tus+=("$tu")
    fi
  done
  [ ${#tus[@]} -gt 0 ] || { echo "sass_diff: no kernel TU reaches a file changed since ${base:0:12}"; exit 0; }
fi

# Names in an anonymous namespace carry an id that nvcc derives from the source's path and its first
# function (`<len>_GLOBAL__N__<hash>_<len>_<file>_...`): replaced by `12_GLOBAL__N_1` (what g++ writes) so that the
# base, compiled elsewhere, names its kernels alike. The id's length prefix says where it ends (the
# shortest one that fits, as digits of the name before it may precede).
normalize() {
  perl -pe 's{(\d+)(_GLOBAL__N__\w+)}{
    my ($d, $rest) = ($1, $2); my $out;
    for my $i (reverse 0 .. length($d) - 1) {
      my $len = substr($d, $i);
      next if $len =~ /^0/ || $len < 12 || $len > length($rest);
      $out = substr($d, 0, $i) . "12_GLOBAL__N_1" . substr($rest, $len); last;
    }
    defined $out ? $out : "$d$rest" }ge'
}

# cubin -> one file per function (name.sass: "instruction ; control" per line) and name.res.
split_sass() {  # cubin outdir
  local cubin=$1 dir=$2
  rm -rf "$dir" && mkdir -p "$dir"
  cuobjdump -sass "$cubin" | normalize | awk -v dir="$dir" '
    /^[ \t]*Function : / { f = dir "/" $3 ".sass"; next }
    f && /^[ \t]*\/\*[0-9a-f]+\*\// {  # an instruction line: drop the address, keep the words
      sub(/^[ \t]*\/\*[0-9a-f]+\*\/[ \t]*/, ""); gsub(/[ \t]+/, " "); line = $0; next_ctl = 1; next }
    f && next_ctl && /^[ \t]*\/\* 0x[0-9a-f]+ \*\/[ \t]*$/ {
      gsub(/[ \t]+/, " "); print line $0 > f; next_ctl = 0; next }'
  cuobjdump -res-usage "$cubin" | normalize | awk -v dir="$dir" '
    /^ Function / { name = $2; sub(/:$/, "", name); next }
    name && /REG:/ { print > (dir "/" name ".res"); name = "" }'
}

demangle() { if command -v cu++filt >/dev/null; then cu++filt "$1"; elif command -v c++filt >/dev/null; then c++filt "$1"; else echo "$1"; fi; }
count() { [ -f "$1.sass" ] && wc -l <"$1.sass" || echo absent; }
blank() { sed 's| /\* 0x.*||; s/\bU\?R[0-9]\+/R/g; s/\bU\?P[0-9T]/P/g; s/0x[0-9a-f]\+/X/g' "$1"; }
regs() { [ -f "$1.res" ] && sed -n 's/.*REG:\([0-9]*\).*/\1/p' "$1.res" || echo absent; }

status=0
report=$work/report.txt
: >"$report"
for tu in "${tus[@]}"; do
  for arch in $archs; do
    key=$(echo "$tu" | tr '/' '_')_$arch
    base_cubin=$work/base-${base:0:12}/$key.cubin
    new_cubin=$new_out/$key.cubin
    if [ ! -f "$base_src/$tu" ]; then
      echo "$tu $arch: not in ${base:0:12} (new TU)" | tee -a "$report"
      continue
    fi
    if [ ! -s "$base_cubin" ]; then
      (cd "$base_src" && nvcc -cubin -arch=$arch "${flags[@]}" -o "$base_cubin" "$tu") ||
        { echo "sass_diff: base compile of $tu for $arch failed" >&2; exit 2; }
    fi
    nvcc -cubin -arch=$arch "${flags[@]}" -o "$new_cubin" "$tu" ||
      { echo "sass_diff: compile of $tu for $arch failed" >&2; exit 2; }
    split_sass "$base_cubin" "$work/dump/$key/base"
    split_sass "$new_cubin" "$work/dump/$key/new"
    same=0 differ=0
    details=""
    for f in $( (cd "$work/dump/$key/base" && ls; cd "$work/dump/$key/new" && ls) | sed -n 's/\.sass$//p' | sort -u); do
      b=$work/dump/$key/base/$f n=$work/dump/$key/new/$f
      if cmp -s "$b.sass" "$n.sass" && cmp -s "$b.res" "$n.res"; then
        same=$((same + 1))
        continue
      fi
      differ=$((differ + 1))
      text_only=""
      if [ -f "$b.sass" ] && [ -f "$n.sass" ] &&
        cmp -s <(sed 's| /\* 0x.*||' "$b.sass") <(sed 's| /\* 0x.*||' "$n.sass"); then
        text_only=" (same instructions, other control words)"
      fi
      # Lines that differ once register numbers, predicates and addresses are blanked: what
      # moved beyond a renaming.
      moved=absent
      if [ -f "$b.sass" ] && [ -f "$n.sass" ]; then
        moved=$(diff <(blank "$b.sass") <(blank "$n.sass") | grep -c '^<')
      fi
      details+="  $(demangle "$f")"$'\n'
      details+="    instructions $(count "$b") -> $(count "$n"), registers $(regs "$b") -> $(regs "$n")$text_only"
      details+=", lines differing beyond register names: $moved"$'\n'
      details+="    diff -u ${b#$root/}.sass ${n#$root/}.sass"$'\n'
    done
    echo "$tu $arch: $same identical, $differ differ" | tee -a "$report"
    [ -n "$details" ] && printf '%s' "$details" | tee -a "$report"
    [ $differ -eq 0 ] || status=1
  done
done
echo "sass_diff: $([ $status -eq 0 ] && echo "identical SASS in every kernel" || echo "some kernels differ") (base ${base:0:12}; $report)"
exit $status
