// hgemm_tn — HGEMM ladder, rung 3: the seed's full Ampere kernel (seed 000), TN layout.
//
// Adds to hgemm_mma (rung 2) what seed 000 takes from CuTe's sgemm_sm80 tutorial: 16-byte
// cp.async copies into a STAGES-deep shared ring, register double-buffering across k-steps, an
// XOR-swizzled shared layout that keeps cp.async and ldmatrix bank-conflict free, threadblock
// rasterization for L2 reuse (seed 003), C staged through shared memory and stored along M in
// 16-byte pieces, and (the default binding) a persistent grid whose ring runs on across tiles
// while C drains under the next tile's mma. Kernels: hgemm/ampere/.
// Tile: AmpereDefault 128x256x64, 2x4 warps of 64x64, 3 stages, persistent (212 KB shared);
// one CTA per tile where the device or the shape does not allow that (ampere_run). Variants:
// hgemm_tn_128x128x64_s3 (seed 000's tile, 96 KB), hgemm_tn_128x256x32_s4 (hgemm_tn until
// 2026-11-24, 96 KB). Constraints: K % 8 == 0; any M, N >= 1; any alpha, beta.
// Measured (H100, 2026-11-24, 5120x4096x4096 vs cuBLAS): f16 acc 0.7492x median of 30 runs,
// f32 acc 0.630-0.639x (bench_results/h100/2026-11-24_ampere_acceptance_final.json.gz).
// History of the tuning: docs/hgemm-ampere.md.
#include "hgemm/ampere/launch.cuh"

namespace gemmbench::hgemm {
namespace {

using Tile128x128x64S3 = AmpereTile<128, 128, 64, 2, 2, 3>;
using Tile128x256x32S4 = AmpereTile<128, 256, 32, 2, 4, 4>;

}  // namespace

GEMMBENCH_REGISTER_KERNEL(ampere_kernel_info<AmpereDefault, Layout::tn>(
    "hgemm_tn", 3,
    "Ampere TN: cp.async ring + swizzle + ldmatrix + mma.sync, 128x256x64 s3, persistent"));
GEMMBENCH_REGISTER_KERNEL(ampere_kernel_info<Tile128x128x64S3, Layout::tn>(
    "hgemm_tn_128x128x64_s3", 3,
    "Ampere TN, CuTe sgemm_sm80's tile: 128x128x64, 4 warps, 3 stages"));
GEMMBENCH_REGISTER_KERNEL(ampere_kernel_info<Tile128x256x32S4, Layout::tn>(
    "hgemm_tn_128x256x32_s4", 3, "Ampere TN: 128x256x32, 8 warps, 4 stages"));

}  // namespace gemmbench::hgemm
