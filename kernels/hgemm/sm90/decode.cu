// hgemm_decode_sm90 — HGEMM ladder, rung 12 (top): the decode path on Hopper, M = tokens <= 128.
//
// Rung 11 (hgemm_decode) streams the weights through mma.sync and a cp.async ring; at 64 and 128
// tokens it issues too many instructions per byte and misses cuBLAS by a third. This rung keeps
// rung 10's kernel (TMA + mbarrier ring + warp-specialized wgmma, sm90/kernel.cuh), which already
// puts the GEMM's N (the weight rows) on wgmma's 64-row M side and the GEMM's M on wgmma's N side,
// and narrows that side to the tokens: BM = 32, 64 or 128 by M (wgmma m64n32k16, m64n64k16,
// m64n128k16), so no tensor-core work is wasted on padding rows and a stage is nearly all weights.
// One CTA per SM (no cluster: 2-CTA clusters multicasting the token tile lost at 56 of the 64
// decode cases, 2026-11-25_decode_cluster_candidates.json), a ring 5 to 8 stages deep (up to
// 160 KB of weights in flight per SM), and the stream-K walk of
// sm90/schedule.hpp: with fewer weight tiles than SMs every tile's k-blocks are split into the
// same number of equal ranges, one CTA each, for about half the grid (decode_split_count; the
// whole grid for the 128-token tile over more than 40 MB); with more tiles than SMs every tile
// runs whole when K is at most 64 k-blocks, else the last partial wave is stream-K; partials
// are summed in a fixed order through the stream-K workspace (deterministic). Spreading every
// tile over all 132 CTAs instead, with ranges straddling tiles, cost 2-5 us of mainloop tail and
// fix-up per launch (scripts/dev/sm90_trace.cu; docs/hgemm-hopper.md).
// Tiles (GEMM M x N x K per CTA tile): M <= 32: 32x128x64, 8 stages, register epilogue;
// M <= 64: 64x128x64, 7 stages; M <= 128: 128x128x64, 5 stages (TMA-store epilogue when beta = 0).
// Constraints: sm_90a build; TN; f16 (f32/f16 acc) or bf16 (f32 acc); 1 <= M <= 128; K % 8 == 0.
// Also registered: hgemm_tn_sm90_128x128_sk, the M <= 128 tile for any M (rung 10's 128x128
// stream-K variant, one CTA per SM: more, smaller tiles than 256x128 at few-wave prefill shapes).
// Measured (H100, 2026-11-25, sustained, f16/f32acc, geometric mean over the 16 llama3/deepseek-v3
// decode layers, as `hgemm` runs it): 0.996x / 0.998x / 0.976x / 0.949x cuBLAS at 1 / 16 / 64 /
// 128 tokens (bf16: 0.988x / 0.997x / 0.966x / 0.943x); 87-99% of the memory roofline at the
// 235-940 MB weight matrices (0.95-1.08x), 46-77% at the 29-60 MB ones (0.81-1.04x)
// (bench_results/h100/2026-11-25_llm_decode_acceptance.json, git 2dffe02; before the equal
// split and the whole-tile walk 0.924x / 0.932x / 0.897x / 0.870x,
// 2026-11-25_decode_sm90_candidates.json); story: docs/hgemm-hopper.md.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

#include "hgemm/sm90/launch.cuh"
#include "registry.hpp"

namespace gemmbench {
namespace {

// CSPLIT: the in-cluster split where it applies (one cluster per tile, the parts summed in shared
// memory), else the same tile's stream-K walk.
template <int CSPLIT>
using Decode32 = Sm90Variant<32, 128, 8, 1, CSPLIT == 0, Layout::tn, CSPLIT>;
template <int CSPLIT>
using Decode64 = Sm90Variant<64, 128, 7, 1, CSPLIT == 0, Layout::tn, CSPLIT>;
template <int CSPLIT>
using Decode128 = Sm90Variant<128, 128, 5, 1, CSPLIT == 0, Layout::tn, CSPLIT>;

constexpr int kMaxTokens = 128;

// The token tile for M: the narrowest of 32, 64, 128 that holds every token.
template <int CSPLIT, class F>
auto with_token_tile(int64_t m, F&& f) {
  if (m <= 32) return f(Decode32<CSPLIT>{});
  if (m <= 64) return f(Decode64<CSPLIT>{});
  return f(Decode128<CSPLIT>{});
}

template <int CSPLIT>
std::string decode_supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (p.m > kMaxTokens)
    return "the decode path takes M <= " + std::to_string(kMaxTokens) +
           " (tokens); larger M is a prefill shape (hgemm_tn_sm90)";
  return with_token_tile<CSPLIT>(p.m, [&](auto v) { return supports<decltype(v)>(p, caps); });
}

template <int CSPLIT>
void decode_launch(const GemmArgs& args, cudaStream_t stream) {
  with_token_tile<CSPLIT>(args.problem.m, [&](auto v) { launch<decltype(v)>(args, stream); });
}

// A Hopper variant's entry (types, layout, architecture), at its own rung, choosing its tile by M.
template <int CSPLIT>
KernelInfo decode_info(std::string name, std::string summary) {
  KernelInfo info = sm90_info<Decode32<CSPLIT>>(std::move(name), std::move(summary));
  info.rung = 12;
  info.supports = decode_supports<CSPLIT>;
  info.launch = decode_launch<CSPLIT>;
  return info;
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(decode_info<0>(
    "hgemm_decode_sm90",
    "Hopper decode path (M <= 128): rung 10's TMA+wgmma kernel with the tokens as wgmma's narrow N "
    "(32/64/128), 1 CTA/SM, each tile's K split in equal parts for half the grid"));
GEMMBENCH_REGISTER_KERNEL(decode_info<1>(
    "hgemm_decode_sm90_dsmem",
    "hgemm_decode_sm90 with each split tile's parts in one cluster, summed in distributed shared "
    "memory (no workspace, no flags)"));
GEMMBENCH_REGISTER_KERNEL(decode_info<2>(
    "hgemm_decode_sm90_dsmem_all",
    "dev candidate: hgemm_decode_sm90_dsmem with the split sized for the whole grid"));

GEMMBENCH_REGISTER_KERNEL(sm90_info<Decode128<0>>(
    "hgemm_tn_sm90_128x128_sk",
    "128x128x64, 5 stages, no cluster, stream-K (every tile split when tiles < SMs): the decode "
    "path's 128-token tile at any M"));

}  // namespace gemmbench
