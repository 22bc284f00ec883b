// hgemm_nn_sm90 / hgemm_nt_sm90 / hgemm_tt_sm90 — HGEMM ladder, rung 10 in the other layouts:
// the Hopper kernel of hgemm_tn_sm90 (sm90/kernel.cuh) with MN-major operands read as stored.
//
// An M-major A (NN, NT) or N-major B (NT, TT) is loaded by TMA as 64-element-wide blocks: each
// box is BK K rows of 128 bytes (64 consecutive M or N elements), 128B-swizzled, and the blocks of
// a tile sit 8 KB apart, where the K-major tile keeps its 64-row groups. wgmma reads them with its
// transpose bit (imm-trans-a for GEMM B, imm-trans-b for GEMM A) through an MN-major descriptor
// (LBO = 8 KB between blocks, SBO = 1 KB between 8-row groups, a k16 step = 16 rows = 2 KB;
// common/sm90.cuh). No operand is copied or transposed in memory; tile, ring, cluster multicast,
// schedule and deferred TMA-store epilogue are hgemm_tn_sm90's.
// Constraints: sm_90a build; f16 (f32/f16 acc) or bf16 (f32 acc); 16-byte aligned strides: nn
// M % 8 == 0 and K % 8 == 0, nt M % 8 == 0 and N % 8 == 0 (any K), tt K % 8 == 0 and N % 8 == 0.
// Measured: see docs/hgemm-hopper.md ("Every layout") for the report beside hgemm_tn_sm90; the
// 192x192 tiles below at the shapes of rule Q: bench_results/h100/
// 2026-11-26_layouts_192_candidates.json.gz (4096x2112x7168 0.991x / 0.992x / 0.994x NN / NT / TT
// against 0.760x / 0.762x / 0.758x for the 256x128 tile).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "hgemm/sm90/launch.cuh"
#include "core/registry.hpp"

namespace gemmbench {

GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<256, 128, 4, 2, false, Layout::nn>>(
    "hgemm_nn_sm90",
    "Hopper NN: hgemm_tn_sm90 with A M-major through TMA boxes and wgmma's transpose bit"));
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<256, 128, 4, 2, false, Layout::nt>>(
    "hgemm_nt_sm90", "Hopper NT: A M-major and B N-major, both read by wgmma transposed"));
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<256, 128, 4, 2, false, Layout::tt>>(
    "hgemm_tt_sm90", "Hopper TT: B N-major through TMA boxes and wgmma's transpose bit"));

// The 192x192 tile of hgemm_tn_sm90_192x192 (three consumer warpgroups, plain walk) in each
// layout: rule Q for NN, NT and TT (kernels/dispatch/rules.cpp), where these layouts have no
// stream-K tail to even out a short last wave.
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<192, 192, 4, 1, false, Layout::nn>>(
    "hgemm_nn_sm90_192x192", "hgemm_nn_sm90 with the 192x192 tile of three consumer warpgroups"));
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<192, 192, 4, 1, false, Layout::nt>>(
    "hgemm_nt_sm90_192x192", "hgemm_nt_sm90 with the 192x192 tile of three consumer warpgroups"));
GEMMBENCH_REGISTER_KERNEL(sm90_info<Sm90Variant<192, 192, 4, 1, false, Layout::tt>>(
    "hgemm_tt_sm90_192x192", "hgemm_tt_sm90 with the 192x192 tile of three consumer warpgroups"));

}  // namespace gemmbench
