#!/usr/bin/env bash
# Packs DeepGEMM v1 for a GPU host that cannot fetch anything: build-ab/deepgemm.tar.gz (build-ab/
# is git-ignored and travels with a device call's `carry`). Run it where the two git repositories
# are; the GPU host only unpacks it (scripts/dev/reference/README.md, "DeepGEMM").
#
# What DeepGEMM's JIT reads at run time, laid out as its setup.py's build_py step lays it out:
#   deep_gemm/                         the Python package at DEEPGEMM_REF (the JIT, the wrappers)
#   deep_gemm/include/deep_gemm/       its kernel headers, with the CUDA 13 fix below
#   deep_gemm/include/{cute,cutlass}/  CUTLASS's include/ at the commit DeepGEMM pins (submodule)
# (deep_gemm/jit/compiler.py: get_jit_include_dir() is deep_gemm/include, the only -I it passes.)
#
# The CUDA 13 fix: CUDA 13's cudaTypedefs.h has only the versioned PFN_cuTensorMapEncodeTiled_v12000
# (CUDA 12 also defined the unversioned name, as a macro for it), and tma_utils.cuh uses the
# unversioned one; it is defined back to the _v12000 type, the version the header asks the driver
# for (cudaGetDriverEntryPointByVersion(..., 12000, ...)). Under CUDA 12 the guard leaves it alone.
#
#   scripts/dev/reference/deepgemm_pack.sh [OUT.tar.gz]
#   DEEPGEMM_GIT=DeepGEMM/.git CUTLASS_GIT=cutlass/.git scripts/dev/reference/deepgemm_pack.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$root/build-ab/deepgemm.tar.gz}
deepgemm_git=${DEEPGEMM_GIT:-/work/.mirror/deepseek-ai+DeepGEMM/repo}
cutlass_git=${CUTLASS_GIT:-/work/.mirror/NVIDIA+cutlass/repo}
deepgemm_ref=${DEEPGEMM_REF:-677143be64c7e358106789fe0f7f234627762414}  # 2025-04-09, v1 API
die() { echo "deepgemm_pack: $*" >&2; exit 1; }

for g in "$deepgemm_git" "$cutlass_git"; do
  git --git-dir="$g" rev-parse --git-dir >/dev/null 2>&1 ||
    die "no git repository at $g (set DEEPGEMM_GIT / CUTLASS_GIT to a 'git clone --bare' of" \
      "github.com/deepseek-ai/DeepGEMM / github.com/NVIDIA/cutlass)"
done
deepgemm_commit=$(git --git-dir="$deepgemm_git" rev-parse --verify "$deepgemm_ref^{commit}")
# The submodule pin is the gitlink in DeepGEMM's tree, not whatever CUTLASS's HEAD is.
cutlass_commit=$(git --git-dir="$deepgemm_git" ls-tree "$deepgemm_commit" third-party/cutlass |
  awk '$2 == "commit" {print $3}')
[ -n "$cutlass_commit" ] || die "$deepgemm_commit pins no third-party/cutlass"
git --git-dir="$cutlass_git" cat-file -e "$cutlass_commit^{commit}" 2>/dev/null ||
  die "CUTLASS $cutlass_commit (DeepGEMM's pin) is not in $cutlass_git"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
git --git-dir="$deepgemm_git" archive "$deepgemm_commit" deep_gemm LICENSE | tar -x -C "$stage"
mv "$stage/LICENSE" "$stage/deep_gemm/LICENSE.DeepGEMM"
git --git-dir="$cutlass_git" archive --prefix=cutlass/ "$cutlass_commit" \
  include/cute include/cutlass LICENSE.txt | tar -x -C "$stage"
mv "$stage/cutlass/include/cute" "$stage/cutlass/include/cutlass" "$stage/deep_gemm/include/"
mv "$stage/cutlass/LICENSE.txt" "$stage/deep_gemm/include/LICENSE.cutlass"
rm -rf "$stage/cutlass"

tma=$stage/deep_gemm/include/deep_gemm/tma_utils.cuh
grep -q 'PFN_cuTensorMapEncodeTiled\b' "$tma" ||
  die "$tma no longer uses PFN_cuTensorMapEncodeTiled: check whether the fix is still needed"
sed -i 's|^#include <cudaTypedefs.h>$|&\
// gemmbench deepgemm_pack.sh: CUDA 13 has only the versioned typedef.\
#ifndef PFN_cuTensorMapEncodeTiled\
#define PFN_cuTensorMapEncodeTiled PFN_cuTensorMapEncodeTiled_v12000\
#endif|' "$tma"
grep -q '^#define PFN_cuTensorMapEncodeTiled PFN_cuTensorMapEncodeTiled_v12000$' "$tma" ||
  die "the fix did not apply to $tma (no '#include <cudaTypedefs.h>' line)"

subject=$(git --git-dir="$deepgemm_git" show -s --format='%ad %s' --date=short "$deepgemm_commit")
cat >"$stage/deep_gemm/PACKED_FROM" <<EOF
DeepGEMM $deepgemm_commit ($subject)
CUTLASS  $cutlass_commit (DeepGEMM's third-party/cutlass pin; include/cute, include/cutlass)
patched  include/deep_gemm/tma_utils.cuh: PFN_cuTensorMapEncodeTiled as the _v12000 type (CUDA 13)
packed   $(date -u +%Y-%m-%dT%H:%M:%SZ) by scripts/dev/reference/deepgemm_pack.sh
EOF

mkdir -p "$(dirname "$out")"
tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$out" deep_gemm
echo "deepgemm_pack: $out, $(stat -c %s "$out") bytes, $(tar -tzf "$out" | grep -vc '/$') files"
sed 's/^/  /' "$stage/deep_gemm/PACKED_FROM"
