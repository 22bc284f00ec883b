// The rule table. Each rule is a few lines: the condition, the kernel, and (in the comment) the
// committed H100 report whose rows it was derived from, sustained, cold L2, f16/f32acc unless
// said. The thresholds are stated in waves of the device's own SM count, so they carry to
// another Hopper part; where one did not (rule N on the H200: rule O) the device's DRAM bandwidth
// tells them apart. On other architectures the Hopper kernels refuse (supports()) and the
// dispatcher falls through to the Ampere rungs. docs/dispatch.md tells how each rule was found.
#include "dispatch/rules.hpp"

#include <algorithm>
#include <cmath>

#include "hgemm/sm90/schedule.hpp"  // shared_weight_rows

namespace gemmbench {
namespace {

class Candidates {
 public:
  void add(const std::string& kernel, const std::string& rule) {
    for (const RuleCandidate& c : list_)
      if (c.kernel == kernel) return;  // the first (best) rule that names a kernel keeps it
    list_.push_back({kernel, rule});
  }
  std::vector<RuleCandidate> take() { return std::move(list_); }

 private:
  std::vector<RuleCandidate> list_;
};

int64_t ceil_div64(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Reports the rules rest on (bench_results/h100/):
//   C = 2026-11-24_dispatch_candidates.json.gz (prefill shapes, squares 1024..8192, SGEMM tiles)
//   D = 2026-11-25_decode_sm90_candidates.json.gz (decode shapes, few-wave shapes)
//   E = 2026-11-25_c1_candidates.json.gz (the 256x128 stream-K tile without a cluster)
//   F = 2026-11-25_decode_split_candidates.json.gz (decode shapes, the equal split per tile)
//   G = 2026-11-25_sgemm_splitk_candidates.json.gz (sgemm_splitk at small M and small squares)
//   H = 2026-11-25_sgemm_streamk_candidates.json.gz (sgemm_streamk and rung 8's tiles, squares
//       1024..8192, f32 NN)
//   I = 2026-11-25_gemv_candidates.json.gz (the GEMV path at 1 and 4 tokens, f16 and bf16 decode
//       layers; f32 at M = 1, 2, 4)
//   J = 2026-11-25_gemv_tc_candidates.json.gz (the tensor-core GEMV at 4, 8 and 16 tokens, f16
//       decode layers)
//   K = 2026-11-25_gemv_tc_small_batches.json.gz (the tensor-core GEMV at 2 tokens; hgemm at 2, 4
//       and 8 tokens, f16 and bf16)
//   L = 2026-11-25_gemv_tc_one_wave.json.gz (the tensor-core GEMV at 16 tokens with a one-wave
//       grid, f16 decode layers)
//   N = 2026-11-25_decode_n64_candidates.json.gz (the 64-row weight tile at 16, 64 and 128 tokens
//       beside hgemm, f16 decode layers) and _n64_recheck_{4096,2112}.json.gz (the N = 4096 and 2112
//       layers again, at 64 and 128 tokens)
//   O = bench_results/h200/: 2026-11-25_llm_decode_acceptance_dsmem.json.gz (git 4a02a9f, rung 12
//       at every 64- and 128-token layer) against _llm_decode_acceptance_n64.json.gz (git 9f58e12,
//       rule N), the decode config on the H200 in f16 and bf16, two sessions (cuBLAS's rows
//       moved a median 0.2% between them); gemmbench compare: 2026-11-26_rule_n_h200_compare.md
//   P = 2026-11-26_decode_n64_cs_candidates{,_r2,_r3}.json.gz (hgemm_decode_sm90_n64_cs beside _n64
//       and hgemm at the four layers whose 64-row tiles are at most half the SMs, 16, 64 and 128
//       tokens, f16 and bf16, three runs in two device calls; medians over the runs below); on the
//       H200 bench_results/h200/2026-11-26_decode_n64_cs_candidates{,_r2}.json.gz (the same config,
//       two runs in two device calls, hgemm then running rule O)
//   Q = 2026-11-26_prefill_192_candidates.json.gz (the 192x192 tile and its stream-K twins beside
//       hgemm at the 16 prefill layers, f16 and bf16) and _prefill_192_check.json.gz (N = 2112,
//       1344 and 3264 at other M and K, N = 4224 and 3072^3 as controls); in NN, NT and TT
//       2026-11-26_layouts_192_candidates.json.gz
//   R = 2026-11-26_decode_n64_wmc_candidates.json.gz (hgemm_decode_sm90_n64_wmc, today's _wmc with
//       64-row tiles, beside _n64, _n64_cs and hgemm at eight layers, 64 and 128 tokens, f16 and
//       bf16) and _n64_wmc_check.json.gz (N = 4096 at K = 2048-14336, 96 tokens, N = 2112, 2560 and
//       3072); R' = 2026-11-26_decode_wmc_wide_candidates.json.gz (hgemm_decode_sm90_wmc's 96-192-row
//       tiles beside hgemm and _n64 at N = 6144-12288, 96 and 128 tokens, f16 and bf16)
//   S = 2026-11-26_decode_fit_candidates.json.gz (weight tiles of 32, 48 and 56 rows, with and without
//       2-CTA clusters multicasting the tokens, at N = 2112-7168, 16-128 tokens, f16) and
//       _decode_n48_check.json.gz (hgemm_decode_sm90_n48 beside _n64 and hgemm at N = 4608, 5120 and
//       6144, 48-128 tokens, K = 2048-14336, f16 and bf16, two runs in one device call)
// Since F-L, hgemm_decode_sm90 sums its few-tile splits inside a cluster (M =
// 2026-11-25_decode_dsmem_candidates{,_r2}.json.gz: cs_parts, not a rule here); the comparisons
// with rung 12 in F-L were measured before it, N after it.

// Datasheet DRAM bandwidth above which rule O replaces rule N: the H100 SXM has 3352 GB/s
// (rule N measured there), the H200 4814 GB/s (rule O); parts in between were not measured.
constexpr double kFastHbmGbs = 4000;

// Rule Q's test: the 192x192 tile's plain walk at least 88% busy (WaveShape::busy: the last wave's
// share times the share of the padded tiles inside M x N) and 5 points busier than `busy_other`,
// the best of the layout's other tiles.
bool q_prefers_192(const GemmProblem& p, const DeviceCaps& caps, double busy_other) {
  const double busy192 = tile_waves(p, caps, 192, 192, 1).busy();
  return p.m > 128 && busy192 >= 0.88 && busy192 >= busy_other + 0.05;
}

void hgemm_tn_rules(const GemmProblem& p, const DeviceCaps& caps, Candidates& c) {
  if (p.m == 1 && p.k < 16384)
    // I: at 1 token the weight stream on CUDA cores, 1.069x geometric mean (f16 and bf16) over
    // the 16 layers against 0.992x / 0.999x for hgemm_decode_sm90, ahead at every layer with
    // K < 16384 (1.002-1.186x f16); at K >= 16384 (7168x16384, 7168x18432, 8192x28672) it
    // trails by 0.7-4% at 5 of 6. At 4 tokens it loses everywhere (0.845x against 1.247x).
    c.add("hgemm_decode_gemv", "one token, K < 16384: each weight row streamed once, CUDA cores");
  if (p.m >= 2 && p.m <= 8 && 2 * p.n * p.k < (int64_t(128) << 20))
    // J, K: at 2-8 tokens and under 128 MiB of weights (8 of the 16 decode layers) the weights
    // loaded straight into mma.sync fragments lead at every row: 2 tokens 1.225-1.789x against
    // 1.126-1.651x for hgemm_decode_sm90 (K), 4 tokens 1.243-1.786x against 1.149-1.614x, 8
    // tokens 0.990-1.100x against 0.836-1.042x (J). From 8192x8192 (128 MiB) up rung 12 leads at
    // 22 of the 24 rows (the other two, 8192x8192 at 2 and 4 tokens, by 1.5% and 0.7% the other
    // way). At 16 tokens rung 12 leads but at the small layers below (J: 1.006x against 0.956x).
    c.add("hgemm_decode_gemv_tc",
          "2-8 tokens, weights under 128 MiB: weights straight into mma.sync fragments");
  const int64_t n64_tiles = ceil_div64(p.n, 64);
  const bool fast_hbm = caps.dram_gbs > kFastHbmGbs;
  const int shared_rows = shared_weight_rows(p.n, caps.num_sms);
  if (!fast_hbm && p.m > 64 && p.m <= 128 &&
      ((shared_rows == 64 && p.m > 96 && 20 * n64_tiles >= 7 * caps.num_sms && p.k >= 2048 &&
        p.k <= 8192) ||
       (shared_rows == 96 && p.k >= 2048 && p.k <= 4096 &&
        (p.m <= 96 || 20 * ceil_div64(p.n, 96) >= 9 * caps.num_sms)) ||
       (shared_rows == 128 && p.m > 96 && p.k >= 8192 && p.k <= 16384) ||
       (shared_rows == 160 && p.m > 96 && p.k >= 7168 && p.k <= 8192)))
    // R (the H100): cuBLAS's geometry, two token tiles of 64 in a 2-CTA cluster sharing the
    // weight tile by multicast, every tile whole, the weight tile the fewest rows whose doubled
    // tiles fit one wave (shared_weight_rows). With 64 rows, at 97-128 tokens where the doubled
    // tiles fill 70% to 100% of the SMs, it beats the split and the walk in time, f16 / bf16:
    // 128x4096x4096 18.4-18.5 us against 19.5-20.9 for _n64 and _n64_cs (two runs), 128x4096x7168
    // 27.5-28.3 against 28.2-29.2 (two runs), 128x4096x8192 30.1 / 30.8 against 31.3 / 31.8,
    // 128x4096x2048 13.2 against 14.0, 128x3072x4096 (96 CTAs) 17.0 against 17.3. It lost at 80
    // CTAs (128x2560x4096 17.5 / 16.8 against _n64_cs's 16.7 / 16.2), at half the grid (128x2112
    // x7168, 25%), at K = 14336 (1%), at 96 tokens with K = 7168 (30.6 against 29.5; it won with
    // K = 4096) and at 64 tokens (32-token halves) everywhere. With 96 rows at 96 tokens
    // (measured at K = 4096 only): 96x6144x4096 24.4 / 24.4 against 29.1 / 29.1 for _n64 (rule
    // N; 0.942x against 0.766x f16); at 128 tokens level (128x6144x4096 24.4 / 25.2 against 24.2
    // / 25.2, 128x6144x7168 behind by 0-2%). With 160 rows at 128 tokens (measured at K = 8192
    // only): 128x10240x8192 65.1 / 65.2 against 67.1 / 66.8 for rung 12. With 128 rows it lost at
    // 128x7168x2048 (17.3 / 17.7 against 16.9 / 17.2) and tied at 8192x8192 and 7168x16384, with
    // 192 it was mixed at 128x12288x4096 (R', 2026-11-26_decode_wmc_wide_candidates.json.gz). On the
    // H200 the 64-row tile lost at 128 tokens with K >= 4096 by 4-12% to _n64_cs
    // (h200/2026-11-26_decode_n64_wmc_check.json.gz): no rule there.
    // R'' (after the producer tail took about 1 us off every launch of the kernel, git 99dc2b4;
    // 2026-11-27_decode_tail_candidates.json.gz, one run, f16 / bf16, what hgemm ran before in
    // brackets): the 96-row tile at 97-128 tokens too, 128x6144x4096 24.3 / 23.8 us against
    // _n64's 24.3 / 25.1 [24.4 / 25.2] (measured at K = 4096 only, where the doubled tiles are
    // 128 of 132 CTAs; taken from 90% of the SMs up); the 128-row tile at 97-128 tokens with
    // 8192 <= K <= 16384, 128x8192x8192 51.8 / 53.0 against 53.3 / 54.0 [53.6 /
    // 54.0], 128x7168x16384 87.6 / 86.4 against 88.6 / 87.9 [88.9 / 87.9]. Still not taken:
    // 128x7168x2048 (17.0 / 16.6 against 17.3 / 17.0 for _n64, 17.3 / 16.4 in the hgemm row:
    // mixed) and every 64-token layer but 64x4096x4096 and 64x4096x7168, where it tied.
    c.add("hgemm_decode_sm90_wmc",
          "65-128 tokens, two token halves in a cluster sharing the weight tile, every tile whole: "
          "64-row tiles filling 35-50% of the SMs at 97-128 tokens (2048 <= K <= 8192), 96-row "
          "(2048 <= K <= 4096; 97-128 tokens: filling 90% of the SMs), 128-row at 97-128 tokens "
          "(8192 <= K <= 16384), 160-row at 97-128 tokens (7168 <= K <= 8192)");
  const int64_t n48_tiles = ceil_div64(p.n, 48);
  if (p.m > 32 && p.m <= 64 && !fast_hbm && n48_tiles <= caps.num_sms &&
      10 * n48_tiles >= 9 * caps.num_sms && p.k >= 2048 && p.k <= 7168)
    // S (the H100): at 33-64 tokens where 48-row weight tiles fill 90-100% of the SMs in one wave
    // (cuBLAS's 64x48 tile at 64x6144x4096), they beat the 64-row tiles' 73% in time in both runs,
    // f16 and bf16: 64x6144x4096 23.5-24.1 us against 24.8-25.4, 48x6144x4096 23.4-24.1 against
    // 24.8-25.4, 64x6144x2048 14.7-15.4 against 15.6-16.2, 64x6144x7168 35.8-36.6 against
    // 37.1-37.5. At 128 tokens (token tile as wide as 128 rows) and 96 they were level with
    // _n64 (128x6144x4096 24.3-24.9 against 24.0-25.0); at N = 5120 (81% of the SMs) mixed, at
    // 4608 (73%) level; 32-row tiles at N = 4096 and 2112 and 56-row tiles at 7168x2048 lost or
    // tied (the candidates). Not measured on the H200.
    c.add("hgemm_decode_sm90_n48",
          "33-64 tokens, 48-row weight tiles filling 90-100% of the SMs, 2048 <= K <= 7168: "
          "more SMs streaming in one wave than 64-row tiles");
  if (p.m >= 16 && p.m <= 128 && 2 * n64_tiles <= caps.num_sms && p.k >= (fast_hbm ? 4096 : 7168))
    // P (the H100): where one CTA per 64-row tile leaves half the SMs idle, the read alone is
    // slower than cuBLAS's GEMM (4096x4096 in 17.7 us on 64 CTAs, 15.7 on 128: bench_results/h100/
    // reference/2026-11-26_read_roof.jsonl.gz); the 64-row tile split over a cluster for the whole
    // grid leads or is level at every row with K >= 7168, f16 / bf16: 128x2112x7168 0.972x /
    // 0.967x against _n64's 0.922x / 0.923x, 128x4096x7168 0.937x / 0.887x against 0.890x /
    // 0.878x, 64x4096x14336 1.016x / 1.019x against 0.988x / 0.979x, 64x4096x7168 1.044x /
    // 1.037x against 1.027x / 1.026x, 64x2112x7168 0.986x / 0.983x against 0.983x / 0.979x,
    // 128x4096x14336 1.065x / 1.069x against 1.062x / 1.063x; at 16 tokens against the
    // tensor-core GEMV or rung 12: 16x4096x14336 1.013x / 1.015x against 0.994x / 0.994x,
    // 16x4096x7168 1.027x / 1.028x against 1.014x, 16x2112x7168 0.961x / 0.971x against 0.961x /
    // 0.966x. At 4096x4096 (64 k-blocks) it is mixed and stays out: 16 tokens 1.023x against the
    // GEMV's 1.050x, 64 tokens 0.958x / 0.952x against 0.964x / 0.883x, 128 tokens 0.912x /
    // 0.845x against 0.886x / 0.878x (both kernels move between two levels there run to run).
    // On the H200 (4.8 TB/s) it is faster than what rule O ran (the GEMVs, rung 12, _n64) at all
    // 24 cases in both runs, K = 4096 included, by 1-12% in time: 128x4096x7168 22.8-23.0 us
    // against 25.4-25.6 (0.927x against 0.810x f16), 128x2112x7168 0.959x against 0.861x,
    // 64x4096x14336 1.008x against 0.914x, 128x4096x4096 0.844-0.920x against 0.763-0.830x (its
    // cuBLAS rows moved 4%), 16x4096x4096 1.037x against the tensor-core GEMV's 1.023x.
    c.add("hgemm_decode_sm90_n64_cs",
          "16-128 tokens, 64-row tiles at most half the SMs, K >= 7168 (K >= 4096 on HBM over 4 "
          "TB/s): each tile's K split over a cluster of 2-4 CTAs for the whole grid, summed in "
          "distributed shared memory");
  if (p.m >= 9 && p.m <= 16 && ceil_div64(p.n, 32) <= caps.num_sms &&
      2 * p.n * p.k < (int64_t(64) << 20))
    // L: at 16 tokens the tensor-core GEMV (32-row groups, one 16-warp CTA each) leads rung 12
    // where the row groups fit one wave and the weights are under 64 MiB, the three smallest
    // layers with N <= 4096: 2112x7168 0.956x against 0.909x, 4096x4096 1.053x against 0.973x,
    // 4096x7168 1.016x against 0.996x; J, with the earlier grid, agreed at the same three (0.968x /
    // 1.042x / 1.023x against 0.919x / 0.991x / 0.998x). Rung 12 leads at the other 13, closest
    // at 4096x14336 (112 MiB: 0.984x against 0.979x); geometric mean 1.013x against 0.963x.
    c.add("hgemm_decode_gemv_tc",
          "9-16 tokens, N/32 row groups within one wave, weights under 64 MiB: weights straight "
          "into mma.sync fragments");
  if (p.m > 32 && p.m <= 128 && !fast_hbm &&
      ((n64_tiles <= caps.num_sms && p.k <= 16384) || p.k <= 2048))
    // N (the H100, 3.35 TB/s): at 64 and 128 tokens the 64-row weight tile (twice the CTAs of rung
    // 12's 128 rows, a deeper ring, no split below half the grid) leads where its tiles fit one
    // wave and K is at most 16384, and at K <= 2048 (whole tiles): 64 tokens 0.969-1.034x against
    // 0.870-0.992x (4096x4096 0.970x / 0.905x, 7168x2048 0.969x / 0.870x), 128 tokens 0.827-1.070x
    // against 0.839-1.053x (4096x7168 0.927x / 0.865x, 24576x1536 1.031x / 0.925x); level or 1%
    // behind at 6144x4096 (64), 4096x4096 (128) and 7168x16384 (64). Rung 12 keeps the rest:
    // multi-wave tiles with K >= 4096 (128x28672x4096 1.023x against 0.943x, 10240x8192 0.957x
    // against 0.908x) and K > 16384 (8192x28672 1.072x against 1.047x). At 16 tokens rung 12 leads
    // at 12 of 16 (16x32768x512 1.042x against 0.904x).
    c.add("hgemm_decode_sm90_n64",
          "33-128 tokens, 64-row weight tiles within one wave (K <= 16384) or K <= 2048");
  if (p.m > 32 && p.m <= 128 && fast_hbm &&
      ((2 * n64_tiles > caps.num_sms && n64_tiles <= caps.num_sms && p.k <= 8192) ||
       (p.k >= 1024 && p.k <= 2048) ||
       (p.m > 64 && 2 * n64_tiles <= caps.num_sms && p.k > 8192 && p.k <= 16384)))
    // O (the H200, 4.8 TB/s): rule N, derived on the H100, lost on the H200 wherever its tiles
    // split K (under half the grid of tiles) or K was 512 or 16384, in f16 and bf16 alike:
    // 64x4096x14336 0.915x to 0.756x, 64x4096x7168 0.972x to 0.850x, 64x2112x7168 0.974x to
    // 0.877x, 64x32768x512 0.946x to 0.836x, 128x4096x4096 0.768x to 0.734x (f16), while rows
    // whose kernel did not change moved under 3% at 274 of 280. It still won where the tiles
    // fill more than half and at most one wave with K <= 8192, and at K = 1536 and 2048:
    // 64x6144x4096 0.778x to 0.874x, 128x7168x2048 0.722x to 0.868x, 128x24576x1536 0.836x to
    // 0.912x (f16); 8192x8192 level. The only split layer it won, 128x4096x14336 (0.928x to
    // 0.974x), won again with both kernels interleaved (h200/2026-11-26_decode_n64_h200.json.gz,
    // 0.960x against 0.902x f16, 0.952x against 0.909x bf16; at 64 tokens it lost, 0.750x
    // against 0.900x): at 65-128 tokens split tiles with 8192 < K <= 16384 take it too. Between
    // K = 512 and 1536 nothing was measured.
    c.add("hgemm_decode_sm90_n64",
          "33-128 tokens on HBM over 4 TB/s: 64-row weight tiles filling half to one wave (K <= "
          "8192), 1024 <= K <= 2048, or at 65-128 tokens split with 8192 < K <= 16384");
  if (p.m <= 128) {
    // F: with each tile's K split in equal parts for about half the grid, geometric mean 0.982x
    // / 0.981x / 0.957x / 0.883x at 1 / 16 / 64 / 128 tokens against rung 11's 0.951x / 0.945x /
    // 0.691x / 0.568x; at 1 and 16 tokens it wins 24 of the 32 shapes. (Before the equal split,
    // D: rung 11 led at 1 and 16 tokens, 0.942x / 0.949x against 0.924x / 0.932x.)
    c.add("hgemm_decode_sm90",
          "decode, M <= 128: wgmma with the tokens as N, K split in equal parts per tile");
    // D, F: the decode path without sm_90a (Ampere, or a build without 90a), bf16 too.
    c.add("hgemm_decode", "decode without Hopper: mma.sync weights-as-M, 3-4 CTAs/SM");
  }
  if (p.m > 128) {
    const WaveShape w = sm90_waves(p, caps);
    // Against rung 10's 256x128 tile with and without its cluster.
    if (q_prefers_192(p, caps, std::max(w.busy(), tile_waves(p, caps, 256, 128, 1).busy())))
      // Q: cuBLAS's own 192x192 tile where its walk wastes at least 5 points less than the 256-row
      // tiles' (and at most 12%). Its median time against what the rules ran before (f16 / bf16):
      // 4096x2112x7168 2.7% / 5.2% less (0.993x / 0.996x against the stream-K tail's 0.986x /
      // 0.961x in one run), 2048x2112x7168 25% / 28% less (128x128 stream-K), 3072^3 11%,
      // 8192x2112x7168 2.3% / 4.2%; its stream-K twins 0.960-0.980x at 4096x2112x7168. Where its
      // walk is not busier it lost: the 15 other prefill layers 1-14% more time (level at
      // 4096x57344x8192 bf16), 4096x4224x4096 8-9% (33 whole tiles of 128), 4096x1344x7168 24-25%
      // (1.17 waves of 192).
      c.add("hgemm_tn_sm90_192x192",
            "the 192x192 tile's walk wastes at least 5 points less than the 256-row tiles' (N = "
            "2112 at 2048-8192 tokens, 3072^3)");
    if (w.waves < 0.9)
      // D: 1024^3 0.548x (256x128: 0.520x), 1536^3 0.860x (0.707x), 256x4096x4096 0.713x
      // (0.449x); at 2048^3 (0.97 waves) the 256x128 tile keeps 0.912x against 0.861x.
      c.add("hgemm_tn_sm90_128x128_sk", "few tiles (< 0.9 waves of 256x256): 128x128 stream-K");
    else if (w.waves < 2 && w.wave_efficiency < 0.9)
      // D: 2560^3 (1.52 waves) 0.921x against 0.852x.
      c.add("hgemm_tn_sm90_128x128_sk", "1-2 waves, last wave under 90% busy: 128x128 stream-K");
    else if (w.wave_efficiency < 0.95) {
      // E: without the 2-CTA cluster the stream-K tail is spread over 132 CTAs instead of 66
      // clusters, and an odd N tile count computes no padding tile: 4096x2112x7168 0.956x
      // against 0.940x (sk_defer), 3072^3 0.890x against 0.832x, in the same run.
      c.add("hgemm_tn_sm90_c1_sk", "last wave under 95% busy: stream-K tail, no cluster");
      // C, D: the clustered stream-K tail, next: 4096x2112x7168 (2.18 waves) 0.933-0.942x
      // against 0.764-0.768x for the plain walk; 5120^3, 5632^3, 6656^3 1.011-1.066x against
      // 0.931-1.033x.
      c.add("hgemm_tn_sm90_sk_defer", "last wave under 95% busy: stream-K tail");
    } else if (p.k >= 7680)
      // C: K >= 7680 (120 k-blocks): 4096x7168x16384 1.021x vs 1.003x, 4096x8192x28672 1.026x vs
      // 1.002x, 8192^3 1.071x vs 1.034x, 7680^3 1.012x vs 1.001x; at K <= 7168 the stream-K
      // tail loses 1-7% (4096x7168x2048 0.962x vs 1.012x).
      c.add("hgemm_tn_sm90_sk_defer", "long K (>= 7680) with balanced waves: stream-K tail");
    c.add("hgemm_tn_sm90", "prefill: the Hopper rung, plain tile walk");
  }
  // Fallbacks, best first: the Hopper rung for any M, then rungs that need no sm_90a.
  c.add("hgemm_tn_sm90", "fallback: the Hopper rung");
  c.add("hgemm_decode_sm90", "fallback: the Hopper decode path");
  c.add("hgemm_tn", "fallback: the Ampere rung (f16)");
  c.add("hgemm_mma", "fallback: mma.sync (f16, any shape)");
  c.add("hgemm_wmma", "fallback: WMMA (f16, any shape)");
}

void hgemm_other_layout_rules(const GemmProblem& p, const DeviceCaps& caps, Candidates& c) {
  const std::string l = to_string(p.layout);
  // Q in these layouts, against their only other tile, the clustered 256x128 plain walk (no
  // stream-K tail here): where it picks the 192x192 tile that ran in 7-41% less time in all
  // three layouts (4096x2112x7168 0.986-0.998x against 0.758-0.762x, 2048x2112x7168, 3072^3,
  // 8192x2112x7168, 4096x4224x4096 0.900-0.906x against 0.829-0.834x), where it does not 7-11%
  // more (5120x4096x4096, 4096x1344x7168;
  // bench_results/h100/2026-11-26_layouts_192_candidates.json.gz).
  if (q_prefers_192(p, caps, sm90_waves(p, caps).busy()))
    c.add("hgemm_" + l + "_sm90_192x192",
          "the 192x192 tile's walk wastes at least 5 points less than the 256x128 tile's");
  // C: hgemm_{nn,nt,tt}_sm90 at 5120x4096x4096 1.009x / 1.024x / 1.010x and at 8192^3
  // 1.033x / 1.033x / 1.034x, against 1.020x / 1.029x for TN in the same run.
  c.add("hgemm_" + l + "_sm90", "the Hopper rung in " + l);
  c.add("hgemm_" + l, "fallback: the Ampere rung in " + l + " (f16)");
  c.add("hgemm_wmma", "fallback: WMMA (f16, any shape)");
}

// The rung-8 tiles, the fallbacks after the rule's pick, largest first.
constexpr const char* kSgemmTiles[] = {"sgemm_pipelined", "sgemm_pipelined_128x128",
                                       "sgemm_pipelined_128x64"};

}  // namespace

WaveShape sm90_waves(const GemmProblem& p, const DeviceCaps& caps) {
  return tile_waves(p, caps, 256, 256, 2);
}

WaveShape tile_waves(const GemmProblem& p, const DeviceCaps& caps, int tile_m, int tile_n,
                     int cluster) {
  const int64_t tiles = ceil_div64(p.m, tile_m) * ceil_div64(p.n, tile_n);
  const int clusters = std::max(1, caps.num_sms / cluster);
  WaveShape w;
  w.waves = double(tiles) / clusters;
  w.wave_efficiency = w.waves / std::ceil(w.waves);
  w.tile_efficiency =
      double(p.m) * double(p.n) /
      (double(ceil_div64(p.m, tile_m) * tile_m) * double(ceil_div64(p.n, tile_n) * tile_n));
  return w;
}

std::vector<RuleCandidate> hgemm_candidates(const GemmProblem& p, const DeviceCaps& caps) {
  Candidates c;
  if (p.layout == Layout::tn)
    hgemm_tn_rules(p, caps, c);
  else
    hgemm_other_layout_rules(p, caps, c);
  return c.take();
}

std::vector<RuleCandidate> sgemm_candidates(const GemmProblem& p, const DeviceCaps& caps) {
  Candidates c;
  if (p.m == 1 && b_is_k_major(p.layout))
    // I: at 1x4096x4096 1.093x (NN) / 1.152x (TN) against 0.730x / 0.725x for sgemm_splitk; at
    // M = 2 level (1.022x against 1.035x, NN), at M = 4 far behind (0.423x against 1.383x).
    c.add("sgemm_decode_gemv", "one row, op(B) K-contiguous: matrix-vector on CUDA cores");
  if (p.m <= 128)
    // G: at N = K = 4096 (NN) 1.26x at M = 16 and 0.95x at M = 128, against 0.17x / 0.45x for
    // the 128x64 tile: M-sized tiles, K split to fill every SM.
    c.add("sgemm_splitk", "few rows (M <= 128): M-sized tiles, K split over the SMs");
  if (p.m <= 128 || p.n <= 128) {
    // C: at M = 16 and 128 (N = K = 4096) 128x64 gives 0.204x / 0.451x against 0.121x / 0.251x
    // (128x128) and 0.072x / 0.141x (256x128): the most CTAs when one dimension is narrow.
    c.add("sgemm_pipelined_128x64", "narrow (M or N <= 128): the tile with the most CTAs");
  } else {
    // H: the 256x128 tile runs whole waves of one CTA per SM at 0.977-1.021x (2048^3, 3584^3,
    // 4096^3, 4608^3, 6144^3, 7168^3, 7680^3, 8192^3: last wave >= 95% busy); where its last
    // wave is less busy the stream-K walk evens the k-tiles out over the SMs: 1.073x, 1.172x,
    // 1.045x, 1.092x, 1.062x, 0.999x, 1.017x at 1024, 1536, 2560, 3072, 5120, 5632, 6656^3,
    // against 0.886-1.039x for the best rung-8 tile there. (On the whole waves stream-K runs
    // 0.946-1.018x.)
    const int64_t tiles = ceil_div64(p.m, 256) * ceil_div64(p.n, 128);
    const double waves = double(tiles) / double(std::max(1, caps.num_sms));
    if (waves / std::ceil(waves) < 0.95)
      c.add("sgemm_streamk", "last wave of 256x128 tiles under 95% busy: stream-K");
    else
      c.add("sgemm_pipelined", "whole waves of 256x128 tiles");
  }
  c.add("sgemm_streamk", "fallback: stream-K (any shape)");
  for (const char* t : kSgemmTiles) c.add(t, "fallback: another tile");
  c.add("sgemm_warptile", "fallback: no cp.async (before sm_80)");
  c.add("sgemm_naive", "fallback: any shape, any GPU");
  return c.take();
}

}  // namespace gemmbench
