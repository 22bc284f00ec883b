// hgemm_decode_sm90 — HGEMM ladder, rung 12 (top): the decode path on Hopper, M = tokens <= 128.
//
// Rung 11 (hgemm_decode) streams the weights through mma.sync and a cp.async ring; at 64 and 128
// tokens it issues too many instructions per byte. This rung keeps rung 10's kernel (TMA +
// mbarrier ring + warp-specialized wgmma, sm90/kernel.cuh), which puts the weight rows (GEMM N)
// on wgmma's 64-row M side, and narrows wgmma's N side to the tokens (32, 64 or 128 by M), so a
// stage is nearly all weights. One CTA per SM, a ring 5-8 stages deep. With fewer weight tiles
// than SMs each tile's K is split in equal parts over a cluster of 2-8 CTAs (cs_parts,
// common/sm90/schedule.hpp), their partial sums added in distributed shared memory in rank order
// (sm90/cluster_split.cuh: deterministic, no workspace); elsewhere it runs the stream-K walk of
// common/sm90/schedule.hpp (whole tiles at K <= 64 k-blocks, else the last partial wave stream-K).
// Tiles (GEMM M x N x K per CTA): M <= 32: 32x128x64, 8 stages; M <= 64: 64x128x64, 7; M <= 128:
// 128x128x64, 5. Variants: hgemm_decode_sm90_n64 (below: 64 weight rows per CTA, 8-16 stages,
// the walk only), hgemm_decode_sm90_n64_cs (the same tile with the in-cluster split),
// hgemm_decode_sm90_n48 (48 weight rows per CTA), hgemm_decode_sm90_wmc (the tokens halved over
// a cluster that shares a 64-192-row weight tile) and hgemm_tn_sm90_128x128_sk (the 128-token
// tile with the walk, at any M).
// Constraints: sm_90a build; TN; f16 (f32/f16 acc) or bf16 (f32 acc); 1 <= M <= 128; K % 8 == 0.
// Measured (H100, 2026-11-26, sustained, cold L2, f16/f32acc, the 16 decode layers per token
// count): `hgemm`, running this rung or its variants at 64 and 128 tokens, 1.002x / 0.985x cuBLAS
// (bench_results/h100/2026-11-26_llm_decode_rule_r2.json.gz, git 90e1533; earlier runs on other
// machines the same day: 0.993x / 0.973x before rules S and R', _rule_r.json.gz).
// The split's sizes, the variants that lost and how: docs/hgemm-hopper.md, "The decode path".
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

#include "hgemm/sm90/decode_tiles.cuh"
#include "core/registry.hpp"

namespace gemmbench {
namespace {

// hgemm_decode_sm90_wmc: cuBLAS's geometry at 65-128 tokens (nvjet 64x64 in 2-CTA clusters at
// 128x4096x4096, 64x96 at 128x6144x4096, 64x128 in 2x4 at 128x7168x2048: bench_results/h100/
// ncu_decode_sm90/, ncu_cublas_choices/decode_*.txt.gz): the tokens cut in two M tiles of 32 or 64,
// the two CTAs of a cluster along M (Sm90Config::CLUSTER_M), each loading half of the weight tile
// and multicasting it to both, so each weight byte leaves L2 once for all the tokens. Every tile
// whole, no split. At 65-128 tokens the weight tile is the fewest of 64, 96, 128, 160 and 192 rows
// whose doubled tiles fit one wave (a PARTIAL last consumer at 96 and 160); at 33-64 tokens 64
// rows; at M <= 32 there is nothing to share: _n64's tile. The `hgemm` rule R on the H100:
// 128x4096x4096 18.0-18.6 us against 20.2-20.7 for _n64 (bench_results/h100/
// 2026-11-26_llm_decode_rule_r.json.gz against _rule_p_r3.json.gz), 96x6144x4096 24.4
// against 28.4-29.1, 128x10240x8192 65.1-65.2 against 66.8-67.1 for rung 12 (f16 / bf16,
// 2026-11-26_decode_wmc_wide_candidates.json.gz); level at 128x6144x4096, 128x8192x8192 and
// 128x7168x16384, behind at 128x7168x2048 (17.3-17.7 against 16.5-17.2); at 64 tokens, on half
// the grid and on the H200 at 128 tokens the 64-row tile lost
// (2026-11-26_decode_n64_wmc_{candidates,check}.json.gz, as hgemm_decode_sm90_n64_wmc).
// (WeightShareTiles: sm90/decode_tiles.cuh.)

// hgemm_decode_sm90_n48: 48 weight rows per CTA, cuBLAS's weight tile at 64x6144x4096 (nvjet
// 64x48 on 128 CTAs, bench_results/h100/ncu_decode_sm90/
// 2026-11-26_ncu_mem_cublas_64x6144x4096.txt.gz), where _n64's 96 tiles leave 36 of 132 SMs idle.
// wgmma still reads 64 rows: the stages keep 64 rows of shared memory, the last 16 never loaded and
// their outputs never stored (Sm90Config's PARTIAL tile). Candidates
// (h100/2026-11-26_decode_fit_candidates.json.gz, its config at git 82aa468, f16):
// 64x6144x4096 23.4 us against 24.6 for _n64 (cuBLAS 22.0); 32-row tiles at N = 4096 and 2112 and
// 56-row tiles at 7168x2048 did not beat what `hgemm` ran there, and 2-CTA clusters multicasting
// the token tile lost everywhere (4-25%).
using N48Tiles = TokenTiles<Sm90Variant<32, 48, 16, 1, true>, Sm90Variant<64, 48, 12, 1, true>,
                            Sm90Variant<128, 48, 8, 1, true>>;

// A variant's tiles: Tiles::with(problem, SMs, f) runs f on the tile for the case (by M, and for
// _wmc by N and the SM count too); Tiles::First is the tile at one token.
template <class Tiles>
std::string decode_supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (p.m > kMaxTokens)
    return "the decode path takes M <= " + std::to_string(kMaxTokens) +
           " (tokens); larger M is a prefill shape (hgemm_tn_sm90)";
  return Tiles::with(p, caps.num_sms, [&](auto v) { return supports<decltype(v)>(p, caps); });
}

template <class Tiles>
void decode_launch(const GemmArgs& args, cudaStream_t stream) {
  static PerDevice<int> sms;
  Tiles::with(args.problem, sms.get(sm_count), [&](auto v) { launch<decltype(v)>(args, stream); });
}

// A Hopper variant's entry (types, layout, architecture), at its own rung, choosing its tile by M.
template <class Tiles>
KernelInfo decode_info(std::string name, std::string summary) {
  KernelInfo info = sm90_info<typename Tiles::First>(std::move(name), std::move(summary));
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

GEMMBENCH_REGISTER_KERNEL(decode_info<N64SplitTiles>(
    "hgemm_decode_sm90_n64_cs",
    "_n64 whose tiles, when at most half the SMs, split K over a cluster of 2-4 CTAs for the "
    "whole grid, the parts summed in distributed shared memory"));

GEMMBENCH_REGISTER_KERNEL(decode_info<N48Tiles>(
    "hgemm_decode_sm90_n48",
    "_n64 with 48 weight rows per CTA: 128 CTAs stream a 6144-row layer where 64-row tiles are "
    "96"));

GEMMBENCH_REGISTER_KERNEL(decode_info<WeightShareTiles>(
    "hgemm_decode_sm90_wmc",
    "_n64 with the tokens in two M tiles of a 2-CTA cluster that multicasts the weight tile "
    "(64-192 rows, the fewest whose doubled tiles fit one wave) to both, every tile whole"));

// The decode path's 128-token tile at any M: a variant of rung 12, though `hgemm` runs it for
// small prefill shapes (rules D).
static KernelInfo tile_128x128_sk_info() {
  KernelInfo info = sm90_info<Decode128<false>>(
      "hgemm_tn_sm90_128x128_sk",
      "128x128x64, 5 stages, no cluster, stream-K (every tile split when tiles < SMs): the decode "
      "path's 128-token tile at any M");
  info.rung = 12;
  return info;
}
GEMMBENCH_REGISTER_KERNEL(tile_128x128_sk_info());

}  // namespace gemmbench
