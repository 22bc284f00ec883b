// hgemm_nn / hgemm_nt / hgemm_tt — HGEMM ladder, rung 4: the Ampere kernel in the other layouts.
//
// Rung 3 (hgemm_tn) needs both operands K-contiguous, as mma.sync's row.col operands are. Rung 4
// takes MN-major operands (A M-contiguous in NN/NT, B N-contiguous in NT/TT) as stored: 16-byte
// cp.async pieces along M (or N) into 128-byte swizzled k-rows (Swizzle<3,3,3> regardless of BK),
// read with ldmatrix.x4.trans, which hands every thread the same (row g, k 2t..2t+1) pairs the
// plain ldmatrix gives from a K-major tile (seed 002). The mma, pipeline and epilogue are rung 3's,
// and no layout pays for a transpose pass. Kernels: hgemm/ampere/ (kernel.cuh).
// Tile: AmpereDefault 128x256x64, 2x4 warps of 64x64, 3 stages, persistent (212 KB; one CTA per
// tile where that does not fit, see ampere_run).
// Constraints (16-byte pieces along each contiguous dimension): nn M % 8 == 0 and K % 8 == 0; nt
// M % 8 == 0 and N % 8 == 0 (any K); tt K % 8 == 0 and N % 8 == 0; any alpha, beta.
// Measured (H100, 2026-11-24, 5120x4096x4096 vs cuBLAS in the same layout, 3 runs): f16 acc nn
// 0.747-0.752x, nt 0.757-0.760x, tt 0.760-0.765x; f32 0.606-0.619x, as hgemm_tn's (bench_results/
// h100/2026-11-24_ampere_acceptance{,_final}.json.gz, 2026-11-24_hgemm_ladder_5120.json.gz).
// History: docs/hgemm-ampere.md.
#include "hgemm/ampere/launch.cuh"

namespace gemmbench::hgemm {

GEMMBENCH_REGISTER_KERNEL(ampere_kernel_info<AmpereDefault, Layout::nn>(
    "hgemm_nn", 4, "Ampere NN: A M-major via ldmatrix.trans, 128x256x64 s3, persistent"));
GEMMBENCH_REGISTER_KERNEL(ampere_kernel_info<AmpereDefault, Layout::nt>(
    "hgemm_nt", 4, "Ampere NT: A and B MN-major via ldmatrix.trans, 128x256x64 s3, persistent"));
GEMMBENCH_REGISTER_KERNEL(ampere_kernel_info<AmpereDefault, Layout::tt>(
    "hgemm_tt", 4, "Ampere TT: B N-major via ldmatrix.trans, 128x256x64 s3, persistent"));

}  // namespace gemmbench::hgemm
