// Rung F5, fp8gemm_decode_sm90: the Hopper decode path (hgemm/sm90/decode.cu, the HGEMM ladder's
// rung 12) on e4m3 weights and tokens, in every scaling. The weights (GEMM N) fill wgmma's
// 64-row M side and the tokens (GEMM M) its narrow N side (32, 64 or 128 by M), so a stage is
// nearly all weights; TMA and an mbarrier ring 5-16 stages deep feed it, one CTA per SM. A stage's
// 128-byte rows hold 128 e4m3 of K (one k-block, four wgmma m64nNk32); each k-block's products
// go into a partial added to the f32 sums once its wgmmas complete (sm90/mainloop.cuh; at up to 64
// tokens under the next k-block's wgmmas: F5 1.03x / 1.03x / 1.14x faster at 16 / 32 / 64 tokens
// per-tensor, 1.04x / 1.04x / 1.16x block128, 2026-11-30_fp8_decode_pipe_ab_*), times its
// block scales with block128; per-tensor scales fold into alpha, row scales multiply the summed
// tile before the epilogue; C is bf16. With fewer weight tiles than SMs each tile's
// K is split over a cluster (the parts summed in distributed shared memory) or walked stream-K,
// as the 16-bit path does. With more tiles than SMs and a short K, where the 16-bit path walks
// whole tiles on the whole grid, this one runs them on whole waves or splits the last wave
// stream-K (common/sm90/schedule.hpp, kDecodeTailFit: 16x57344x8192 in 119.6 us against 127.4,
// 16x36864x7168 in 75.1 against 89.6, H200, 2026-11-30_fp8_decode_tail_ab{,_block128}.json.gz);
// _n64 and _n64_cs walk as the 16-bit path. The same kernel and tiles as the 16-bit path: only the
// element type differs (hgemm/sm90/kernel.cuh, TIN). Why: at 16 tokens `fp8gemm` reads Llama 3 8B's
// gate_up (117 MB of e4m3) at 2.4 TB/s with F4 and 3.2 with F3's 64-row tiles on the H200, where
// cuBLASLt reads it at 3.4 and the 16-bit rung 12 reads its 16-bit form at 3.7 (docs/fp8.md, "State
// (2026-11-30, second session)" and "Decode"): at rung 12's rate the e4m3 matrix would take about
// 32 us against cuBLASLt's 34. Variants: _n64 (64 weight rows per CTA, 8-16 stages, stream-K walk),
// _n64_cs (that tile with the in-cluster split where its tiles are at most half of the SMs).
// Constraints: sm_90a; TN; e4m3 x e4m3; a scaling (tensor, row, block128); f32 accumulation (fast
// accumulation too: the promotion runs either way); bf16 C; 1 <= M <= 128; K % 16 == 0.
// State (2026-11-30, H200, sustained, bench_results/h200/2026-11-30_fp8_decode_sm90_*.json.gz):
// geomean over cuBLASLt at 8 / 16 / 32 / 64 / 128 tokens 0.914 / 0.918 / 0.927 / 0.793 / 0.737x
// per-tensor (Llama 3 8B and 70B), 1.038 / 1.022 / 1.014 / 0.791 / 0.496x block128 (DeepSeek-V3),
// 1.508 / 1.474x per-row at 16 / 32; ahead of fp8gemm's picks before it at 9-32 tokens on most
// large weights, behind them at 64-128 tokens (a partial of BM / 2 registers promoted each
// k-block; at up to 64 tokens since hidden under the next k-block's wgmmas). fp8gemm runs it on
// the H200 by rules D, D2 and D3, _n64_cs by rule E (per-tensor, weights below 32 Mi, 9-32
// tokens), _wmc by rule F (per-tensor and per-row at 33-128 tokens where its clusters fit one
// wave) and _n64 by rule D5 (per-tensor at 1-32 tokens where its whole-tile walk gives the busiest
// CTA fewer weight rows than F5's whole waves: 0.966-0.999x F5's time at 57344x8192 and three
// held-out layers, H200, 2026-12-02_fp8_decode_n64_makespan_ab), and F5 itself by rule D6
// (per-tensor at 33-64 tokens over 64 Mi weights no pair fits: 1.001-1.042x _m64's speed on
// eight gate_up layers, 2026-12-02_fp8_decode_64_large_ab, _d6_rule_confirm; dispatch/rules.cpp):
// with kDecodeTailFit, before the pipelined partials, fp8gemm per-tensor 0.936 / 0.939 / 0.951x
// cuBLASLt at 16 / 24 / 32 tokens, block128 1.085x at 16
// (2026-11-30_fp8_decode_rule_e.json.gz, _fp8_decode_tail_confirm_block128.json.gz).
// The 16-bit kernels it shares code with ran unchanged: 1.000x main's time over 24 Llama 3 shapes
// at 16, 128 and 4096 tokens, one board (2026-11-30_f5_16bit_ab_{branch,main}.json.gz).
// ptxas: no spills but block128 at 128 tokens on the in-cluster split (116 bytes).
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <string>
#include <type_traits>

#include "core/registry.hpp"
#include "hgemm/sm90/decode_tiles.cuh"

namespace gemmbench {
namespace {

using E4m3 = __nv_fp8_e4m3;

template <class V>
const void* fp8_kernel() {  // one instance: the image and the shared memory are the tile's
  return reinterpret_cast<const void*>(
      kernel_ptr<__nv_bfloat16, false, V, E4m3, ScaleMode::tensor>());
}

// f on the problem's scaling as a compile-time constant.
template <class F>
void with_scale(ScaleMode s, F&& f) {
  switch (s) {
    case ScaleMode::row:
      return f(std::integral_constant<ScaleMode, ScaleMode::row>{});
    case ScaleMode::block128:
      return f(std::integral_constant<ScaleMode, ScaleMode::block128>{});
    default:
      return f(std::integral_constant<ScaleMode, ScaleMode::tensor>{});
  }
}

// fp8gemm_decode_sm90_wmc: the 16-bit path's hgemm_decode_sm90_wmc geometry on e4m3. At 33-128
// tokens the tokens are cut in two M tiles of 32 or 64 on the two CTAs of a cluster along M, each
// loading half of the weight tile and multicasting it to both, so that each weight byte leaves L2
// once for all the tokens; every tile whole. At 33-128 tokens the weight tile is
// shared_weight_rows' (common/sm90/schedule.hpp: the fewest rows whose doubled tiles fit one wave,
// only multiples of 64 under block scales); at M <= 32 there is nothing to share: _n64's tile
// (Fp8WeightShareTiles, hgemm/sm90/decode_tiles.cuh, where the 16-bit path keeps 64 rows at
// 33-64 tokens).
// Rule F picks it (kernels/dispatch/rules.cpp, where it was measured).

template <class Tiles>
std::string fp8_decode_supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (caps.sm != 90)
    return "needs a compute capability 9.0 GPU (H100/H200): sm_90a wgmma/TMA code runs on no other";
  if (p.dtype != DType::e4m3 || p.b_type() != DType::e4m3)
    return "e4m3 x e4m3 only (fp8gemm_decode and fp8gemm_sm90_persistent_t_m64 run the e5m2 "
           "pairs)";
  if (p.scale == ScaleMode::none) return "needs a scaling (tensor, row or block128)";
  if (p.fast_accum && p.scale == ScaleMode::block128)
    return "block scales are applied when the partial sums are promoted: no fast accumulation";
  if (p.out_type() != DType::bf16) return "writes bf16 C only (--out bf16)";
  if (p.m > kMaxTokens)
    return "the FP8 decode path takes M <= " + std::to_string(kMaxTokens) +
           " (tokens); larger M runs the tiled rungs (fp8gemm_sm90_persistent_t)";
  if (p.k % 16 != 0) return "K must be a multiple of 16: TMA needs 16-byte aligned row strides";
  if (p.m >= (int64_t(1) << 30) || p.n >= (int64_t(1) << 30) || p.k >= (int64_t(1) << 30))
    return "M, N and K must be below 2^30 (32-bit tile coordinates)";
  return Tiles::with(p, caps.num_sms, [&](auto v) {
    return sm90a_image_reason<decltype(v)>(fp8_kernel<decltype(v)>(), caps);
  });
}

template <class Tiles>
void fp8_decode_launch(const GemmArgs& args, cudaStream_t stream) {
  static PerDevice<int> sms;
  Tiles::with(args.problem, sms.get(sm_count), [&](auto v) {
    with_scale(args.problem.scale, [&](auto s) {
      run<__nv_bfloat16, false, decltype(v), E4m3, decltype(s)::value>(args, stream);
    });
  });
}

template <class Tiles>
KernelInfo fp8_decode_info(std::string name, std::string summary) {
  return KernelInfo{
      .name = std::move(name),
      .family = "fp8gemm",
      .rung = 5,
      .summary = std::move(summary),
      .dtypes = {DType::e4m3},
      .accums = {Accum::f32},
      .layouts = {Layout::tn},
      .min_sm = 90,
      .supports = fp8_decode_supports<Tiles>,
      .launch = fp8_decode_launch<Tiles>,
  };
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(fp8_decode_info<TilesWithDecodeTail<SplitTiles<true>, kDecodeTailFit>>(
    "fp8gemm_decode_sm90",
    "FP8 decode on Hopper (M <= 128): the 16-bit decode rung's TMA+wgmma kernel on e4m3, the "
    "tokens as wgmma's narrow N, each k-block promoted; few tiles: K split over a cluster"));

GEMMBENCH_REGISTER_KERNEL(fp8_decode_info<N64Tiles>(
    "fp8gemm_decode_sm90_n64",
    "fp8gemm_decode_sm90 with 64 weight rows per CTA, 8-16 stages, the stream-K walk"));

GEMMBENCH_REGISTER_KERNEL(fp8_decode_info<N64SplitTiles>(
    "fp8gemm_decode_sm90_n64_cs",
    "fp8gemm_decode_sm90_n64 whose tiles, when at most half the SMs, split K over a cluster of 2-4 "
    "CTAs"));

GEMMBENCH_REGISTER_KERNEL(fp8_decode_info<Fp8WeightShareTiles>(
    "fp8gemm_decode_sm90_wmc",
    "fp8gemm_decode_sm90_n64 with the tokens in two M tiles of a 2-CTA cluster that multicasts the "
    "weight tile to both, every tile whole"));

// fp8gemm_decode_sm90_wmcfit: _wmc with the token tile fitted to the tokens, the pair covering
// them (fitted_token_tile): 40 at 65-80 (wgmma n40; cuBLASLt's tile at 72x4096x14336, where it ran
// 20.0 us to _wmc's 22.5 on 64-token tiles under Nsight Compute), 48 at 81-96 and 56 at 97-112,
// where _wmc's second 64-token tile is a quarter to a half empty, and 24 at 33-48 (wgmma n24)
// where _wmc's second 32-token tile is; 8 at 9-16 and 16 at 17-32 (wgmma n8, n16), where _wmc
// runs _n64's one 32-token tile a weight tile and cuBLASLt a pair of 8-token tiles
// (nvjet_sm90_qqtst_8x64_128x16_2x1 at 16x4096x4096). Rule F40 runs it at 33-48 and 65-112
// (kernels/dispatch/rules.cpp: 1.004-1.109x _wmc's speed at 65-96 tokens and 0.999-1.047x at 40-48
// on the layers rule F takes, H200; docs/fp8.md, "State (2026-12-01, thirteenth session)" and
// "fourteenth session"). Measured first as fp8gemm_decode_sm90_wmc40, the same kernels at 65-80.
GEMMBENCH_REGISTER_KERNEL(
    fp8_decode_info<Fp8WeightShareTilesFit>("fp8gemm_decode_sm90_wmcfit",
                                            "fp8gemm_decode_sm90_wmc with the token tile fitted to "
                                            "the tokens: 8 at 9-16, 16 at 17-32, 24 at 33-48, "
                                            "40 at 65-80, 48 at 81-96, 56 at 97-112"));

}  // namespace gemmbench
