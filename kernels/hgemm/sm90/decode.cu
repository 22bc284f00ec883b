// hgemm_decode_sm90 — HGEMM ladder, rung 12 (top): the decode path on Hopper, M = tokens <= 128.
//
// Rung 11 (hgemm_decode) streams the weights through mma.sync and a cp.async ring; at 64 and 128
// tokens it issues too many instructions per byte and misses cuBLAS by a third. This rung keeps
// rung 10's kernel (TMA + mbarrier ring + warp-specialized wgmma, sm90/kernel.cuh), which already
// puts the GEMM's N (the weight rows) on wgmma's 64-row M side and the GEMM's M on wgmma's N side,
// and narrows that side to the tokens: BM = 32, 64 or 128 by M (wgmma m64n32k16, m64n64k16,
// m64n128k16), so no tensor-core work is wasted on padding rows and a stage is nearly all weights.
// One CTA per SM, a ring 5 to 8 stages deep (up to 160 KB of weights in flight per SM).
// With fewer weight tiles than SMs a tile's k-blocks are split into equal ranges, one CTA each,
// and the CTAs of one tile form a cluster (2 to 8 along K, cs_parts in sm90/schedule.hpp: half
// the grid, the whole grid for the 128-token tile, 2 parts for long K at up to half a grid of
// tiles): their partial accumulators are summed through distributed shared memory, each warp's
// block by one CTA of the cluster in rank order (sm90/cluster_split.cuh: two cluster barriers, no
// workspace, no flags; deterministic). Elsewhere it runs the stream-K walk of sm90/schedule.hpp:
// every tile whole when K is at most 64 k-blocks, else the last partial wave stream-K through the
// global workspace. (2-CTA clusters along N multicasting the token tile lost at 56 of the 64
// decode cases, 2026-11-25_decode_cluster_candidates.json.)
// Tiles (GEMM M x N x K per CTA tile): M <= 32: 32x128x64, 8 stages; M <= 64: 64x128x64, 7 stages;
// M <= 128: 128x128x64, 5 stages. The split stores C from registers; the walk's 64- and 128-token
// tiles by TMA when beta = 0.
// Constraints: sm_90a build; TN; f16 (f32/f16 acc) or bf16 (f32 acc); 1 <= M <= 128; K % 8 == 0.
// Also registered: hgemm_tn_sm90_128x128_sk, the M <= 128 tile for any M with the workspace walk
// (rung 10's 128x128 stream-K variant, one CTA per SM: more, smaller tiles than 256x128 at
// few-wave prefill shapes).
// Measured (H100, 2026-11-25, sustained, cold L2, f16/f32acc, the 48 decode cases at 16, 64 and
// 128 tokens): the in-cluster split against the workspace walk in two runs
// (bench_results/h100/2026-11-25_decode_dsmem_candidates{,_r2}.json, git 6dd5163 / e2c121e; the
// rule in cs_parts comes from them), e.g. 128x2112x7168 0.889x / 0.891x cuBLAS against 0.812x /
// 0.800x, 16x8192x28672 1.047x / 1.050x against 1.004x / 0.996x. The timeline probe
// (bench_results/h100/reference/2026-11-25_sm90_decode_dsmem_trace.txt): the exchange of a
// 64 KB partial (128-token tile) takes about 2 us between the two cluster barriers, 1 us for 16 KB
// (16 tokens). Before it, as `hgemm` ran it: 0.996x / 0.998x / 0.976x / 0.949x at 1 / 16 / 64 /
// 128 tokens (2026-11-25_llm_decode_acceptance.json, git 2dffe02); story: docs/hgemm-hopper.md.
// hgemm_decode_sm90_n64 (below), in the candidate run (2026-11-25_decode_n64_candidates.json, git
// f479500): 64x7168x2048 0.969x against 0.870x for `hgemm` then, 128x4096x7168 0.927x against
// 0.865x; behind at 16 tokens and at multi-wave tiles with K >= 4096. With it at 33-128 tokens
// (rule N) `hgemm` ran 0.999x / 0.983x at 64 / 128 tokens (f16; 2026-11-25_llm_decode_acceptance_
// n64.json, git 9f58e12) against 0.991x / 0.948x before.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

#include "hgemm/sm90/launch.cuh"
#include "registry.hpp"

namespace gemmbench {
namespace {

// CSPLIT: the in-cluster split where it applies (hgemm_decode_sm90), else the same tile's
// stream-K walk (CSPLIT = false: hgemm_tn_sm90_128x128_sk, the walk alone).
template <bool CSPLIT>
using Decode32 = Sm90Variant<32, 128, 8, 1, !CSPLIT, Layout::tn, CSPLIT>;
template <bool CSPLIT>
using Decode64 = Sm90Variant<64, 128, 7, 1, !CSPLIT, Layout::tn, CSPLIT>;
template <bool CSPLIT>
using Decode128 = Sm90Variant<128, 128, 5, 1, !CSPLIT, Layout::tn, CSPLIT>;

// hgemm_decode_sm90_n64: 64 weight rows per CTA (one consumer warpgroup, 256 threads), twice the
// CTAs of the 128-row tile, a ring of 8-16 stages (about 192 KB), the stream-K walk (whole tiles
// at short K; with fewer tiles than half the grid, each tile's K split in equal parts through the
// workspace, 8-32 KB partials). cuBLAS runs 64-row weight tiles at these shapes too (nvjet
// 64x64, 13 stages, at 128x4096x7168; bench_results/h100/ncu_decode_sm90/). The `hgemm` rule
// at 33-128 tokens (kernels/dispatch/rules.cpp, N).
using N64Tile32 = Sm90Variant<32, 64, 16, 1, true>;
using N64Tile64 = Sm90Variant<64, 64, 12, 1, true>;
using N64Tile128 = Sm90Variant<128, 64, 8, 1, true>;

constexpr int kMaxTokens = 128;

// A decode kernel's three token tiles; with() runs f on the narrowest of 32, 64, 128 rows that
// holds every token.
template <class V32, class V64, class V128>
struct TokenTiles {
  template <class F>
  static auto with(int64_t m, F&& f) {
    if (m <= 32) return f(V32{});
    if (m <= 64) return f(V64{});
    return f(V128{});
  }
};
template <bool CSPLIT>
using SplitTiles = TokenTiles<Decode32<CSPLIT>, Decode64<CSPLIT>, Decode128<CSPLIT>>;
using N64Tiles = TokenTiles<N64Tile32, N64Tile64, N64Tile128>;

template <class Tiles>
std::string decode_supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (p.m > kMaxTokens)
    return "the decode path takes M <= " + std::to_string(kMaxTokens) +
           " (tokens); larger M is a prefill shape (hgemm_tn_sm90)";
  return Tiles::with(p.m, [&](auto v) { return supports<decltype(v)>(p, caps); });
}

template <class Tiles>
void decode_launch(const GemmArgs& args, cudaStream_t stream) {
  Tiles::with(args.problem.m, [&](auto v) { launch<decltype(v)>(args, stream); });
}

// A Hopper variant's entry (types, layout, architecture), at its own rung, choosing its tile by M.
template <class Tiles>
KernelInfo decode_info(std::string name, std::string summary) {
  KernelInfo info = Tiles::with(
      1, [&](auto v) { return sm90_info<decltype(v)>(std::move(name), std::move(summary)); });
  info.rung = 12;
  info.supports = decode_supports<Tiles>;
  info.launch = decode_launch<Tiles>;
  return info;
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(decode_info<SplitTiles<true>>(
    "hgemm_decode_sm90",
    "Hopper decode path (M <= 128): rung 10's TMA+wgmma kernel with the tokens as wgmma's narrow N "
    "(32/64/128), 1 CTA/SM; few tiles: each tile's K split over a cluster, the parts summed in "
    "distributed shared memory"));

GEMMBENCH_REGISTER_KERNEL(decode_info<N64Tiles>(
    "hgemm_decode_sm90_n64",
    "the decode path with 64 weight rows per CTA (one consumer warpgroup), 8-16 stages, stream-K "
    "walk: more CTAs at 33-128 tokens"));

GEMMBENCH_REGISTER_KERNEL(sm90_info<Decode128<false>>(
    "hgemm_tn_sm90_128x128_sk",
    "128x128x64, 5 stages, no cluster, stream-K (every tile split when tiles < SMs): the decode "
    "path's 128-token tile at any M"));

}  // namespace gemmbench
