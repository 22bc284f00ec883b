// hgemm_nn / hgemm_nt / hgemm_tt — HGEMM ladder, rung 4: the Ampere kernel in the other layouts.
//
// Rung 3 (hgemm_tn) needs both operands K-contiguous, which is what mma.sync's row.col operands
// are. Rung 4 takes the MN-major operands (A M-contiguous in NN/NT, B N-contiguous in NT/TT) as
// they are stored: their tiles are copied into shared memory with 16-byte cp.async pieces along
// M (or N), as 64-element (128-byte) swizzled blocks of k-rows, and read with
// ldmatrix.x4.trans. The transposing load hands every thread the same (row g, k 2t..2t+1) pairs
// that the plain ldmatrix gives from a K-major tile (seed 002's experiment), so the mma, the
// pipeline and the epilogue are rung 3's unchanged, and no layout pays for a transpose pass
// over global memory. Every f16 layout thus has an Ampere-class kernel; the kernel template is
// in ampere.cuh, the index math in ampere_index.hpp.
//
// Tile: AmpereDefault, 128x256x64 CTA tile, 2x4 warps of 64x64, 3 stages, persistent (212 KB
// shared memory; one CTA per tile where that does not fit, see ampere_run). MN-major tiles use
// Swizzle<3,3,3> on 128-byte k-rows regardless of BK.
// Constraints (16-byte pieces along each operand's contiguous dimension):
//   hgemm_nn: M % 8 == 0 (A is M-contiguous) and K % 8 == 0 (B is K-contiguous).
//   hgemm_nt: M % 8 == 0 and N % 8 == 0; any K (the K tail is zero-filled per k-row).
//   hgemm_tt: K % 8 == 0 (A is K-contiguous) and N % 8 == 0 (B is N-contiguous).
// Any M, N, K >= 1 otherwise, any alpha, beta.
// Measured on an H100 80GB HBM3, 2026-11-24, 5120x4096x4096, cold L2, vs cuBLAS in the same
// layout, three runs (bench_results/h100/2026-11-24_ampere_acceptance{,_final}.json and
// 2026-11-24_hgemm_ladder_5120.json):
//   f16 accumulate: hgemm_nn 0.747-0.752x, hgemm_nt 0.757-0.760x, hgemm_tt 0.760-0.765x
//   f32 accumulate: hgemm_nn 0.614-0.619x, hgemm_nt 0.607-0.610x, hgemm_tt 0.606-0.612x
// against hgemm_tn's 0.747-0.751x / 0.607-0.617x: the .trans paths cost nothing measurable.
// (With the earlier binding, 128x256x32 s4 one CTA per tile, 2026-11-22: nn 0.705x / 0.585x, nt
// 0.697x / 0.535x, tt 0.711x / 0.587x, bench_results/h100/2026-11-22_hgemm_ladder.json.)
#include "hgemm/ampere.cuh"

namespace gemmbench::hgemm {

GEMMBENCH_REGISTER_KERNEL(ampere_kernel_info<AmpereDefault, Layout::nn>(
    "hgemm_nn", 4,
    "Ampere NN: A M-major via ldmatrix.trans, 128x256x64 s3, persistent (seeds 000, 002)"));
GEMMBENCH_REGISTER_KERNEL(ampere_kernel_info<AmpereDefault, Layout::nt>(
    "hgemm_nt", 4, "Ampere NT: A and B MN-major via ldmatrix.trans, 128x256x64 s3, persistent"));
GEMMBENCH_REGISTER_KERNEL(ampere_kernel_info<AmpereDefault, Layout::tt>(
    "hgemm_tt", 4, "Ampere TT: B N-major via ldmatrix.trans, 128x256x64 s3, persistent"));

}  // namespace gemmbench::hgemm
