// The rule tables. Each row: a name, the condition over the case, the kernel it puts forward, the
// condition in words, what the measurement showed and the committed report it rests on (under
// bench_results/; H100, sustained, cold L2, f16 with f32 accumulation unless the row says). Rows
// are tried top to bottom; every row whose condition holds adds its kernel to the candidates (the
// first row naming a kernel keeps it), so the order is the preference. Thresholds are stated in
// waves of the device's own SM count, so they carry to another Hopper part; where one did not
// (the H200) the device's datasheet DRAM bandwidth tells them apart. On other architectures the
// Hopper kernels refuse (supports()) and the dispatcher falls through to the Ampere rungs.
//
// The old letters (C-S) of earlier reports and documents are kept in each row's `why`;
// docs/dispatch.md tells how each rule was found, with the rows of the reports.
#include "dispatch/rules.hpp"

#include <algorithm>
#include <cmath>

#include "common/sm90/schedule.hpp"  // shared_weight_rows, m64c2_tile_n
#include "fp8gemm/sm90_rules.hpp"    // m64c2_one_consumer

namespace gemmbench {
namespace {

int64_t ceil_div64(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// Datasheet DRAM bandwidth above which the H200's decode rules replace the H100's: the H100 SXM
// has 3352 GB/s, the H200 4814 GB/s; parts in between were not measured.
constexpr double kFastHbmGbs = 4000;

// What the conditions read, computed once per case.
struct Case {
  Case(const GemmProblem& p_, const DeviceCaps& caps_)
      : p(p_),
        caps(caps_),
        m(p_.m),
        n(p_.n),
        k(p_.k),
        sms(caps_.num_sms),
        fast_hbm(caps_.dram_gbs > kFastHbmGbs),
        n64_tiles(ceil_div64(p_.n, 64)),
        n48_tiles(ceil_div64(p_.n, 48)),
        shared_rows(shared_weight_rows(p_.n, caps_.num_sms)),
        sm90(sm90_waves(p_, caps_)) {}
  const GemmProblem& p;
  const DeviceCaps& caps;
  int64_t m, n, k;
  int64_t sms;
  bool fast_hbm;      // datasheet DRAM over 4 TB/s (the H200, not the H100)
  int64_t n64_tiles;  // 64-row weight tiles (decode: the weights are N)
  int64_t n48_tiles;  // 48-row weight tiles
  int shared_rows;    // hgemm_decode_sm90_wmc's weight tile rows at this N (0: none fits)
  WaveShape sm90;     // the 256x256 cluster tiles' waves (prefill)
  int64_t weight_bytes() const { return 2 * n * k; }
};

struct Rule {
  const char* name;
  bool (*applies)(const Case&);
  const char* kernel;  // "{layout}": the case's layout
  const char* when;
  const char* why;
  const char* report;
};

// The 192x192 tile's plain walk at least 88% busy (WaveShape::busy: the last wave's share times
// the share of the padded tiles inside M x N) and 5 points busier than `busy_other`, the best of
// the layout's other tiles.
bool prefers_192(const Case& c, double busy_other) {
  const double busy192 = tile_waves(c.p, c.caps, 192, 192, 1).busy();
  return c.m > 128 && busy192 >= 0.88 && busy192 >= busy_other + 0.05;
}

// The prefill rows below the 192x192 tile are one choice by the waves of 256x256 cluster tiles.
bool few_tiles(const Case& c) {
  return c.m > 128 && c.sm90.waves < 0.9;
}
bool uneven_two_waves(const Case& c) {
  return c.m > 128 && c.sm90.waves >= 0.9 && c.sm90.waves < 2 && c.sm90.wave_efficiency < 0.9;
}
bool uneven_last_wave(const Case& c) {
  return c.m > 128 && !few_tiles(c) && !uneven_two_waves(c) && c.sm90.wave_efficiency < 0.95;
}

// hgemm, TN: decode (M <= 128) first, then prefill, then the fallbacks.
constexpr Rule kHgemmTn[] = {
    {"gemv-one-token", [](const Case& c) { return c.m == 1 && c.k < 16384; }, "hgemm_decode_gemv",
     "M = 1, K < 16384: each weight row streamed once, CUDA cores",
     "rule I: 1.069x geometric mean over the 16 decode layers (f16 and bf16) against 0.992x / "
     "0.999x for hgemm_decode_sm90, ahead at every layer with K < 16384; 0.7-4% behind at 5 of "
     "the 6 rows with K >= 16384",
     "h100/2026-11-25_gemv_candidates.json.gz"},
    {"gemv-tc-2-to-8-tokens",
     [](const Case& c) { return c.m >= 2 && c.m <= 8 && c.weight_bytes() < (int64_t(128) << 20); },
     "hgemm_decode_gemv_tc",
     "2 <= M <= 8, weights (2 N K bytes) under 128 MiB: weights straight into mma.sync fragments",
     "rules J, K: ahead of hgemm_decode_sm90 at all 8 layers under 128 MiB at 2, 4 and 8 tokens "
     "(2 tokens 1.225-1.789x against 1.126-1.651x); from 8192x8192 up rung 12 leads at 22 of 24",
     "h100/2026-11-25_gemv_tc_small_batches.json.gz, h100/2026-11-25_gemv_tc_candidates.json.gz"},
    {"decode-shared-weight-tile",
     [](const Case& c) {
       if (c.fast_hbm || c.m <= 64 || c.m > 128) return false;
       switch (c.shared_rows) {
         case 64:
           return c.m > 96 && 20 * c.n64_tiles >= 7 * c.sms && c.k >= 2048 && c.k <= 8192;
         case 96:
           return c.k >= 2048 && c.k <= 4096 &&
                  (c.m <= 96 || 20 * ceil_div64(c.n, 96) >= 9 * c.sms);
         case 128:
           return c.m > 96 && c.k >= 8192 && c.k <= 16384;
         case 160:
           return c.m > 96 && c.k >= 7168 && c.k <= 8192;
         default:
           return false;
       }
     },
     "hgemm_decode_sm90_wmc",
     "DRAM up to 4 TB/s, 65 <= M <= 128, by the shared tile's rows (the fewest whose doubled "
     "tiles fit one wave): 64 rows at 97-128 tokens filling 35-50% of the SMs, 2048 <= K <= 8192; "
     "96 rows with 2048 <= K <= 4096 (97-128 tokens: the doubled tiles filling 90% of the SMs); "
     "128 rows at 97-128 tokens, 8192 <= K <= 16384; 160 rows at 97-128 tokens, 7168 <= K <= 8192",
     "rules R, R', R'': two token halves in a 2-CTA cluster share each weight tile by multicast, "
     "cuBLAS's geometry; 128x4096x4096 18.4-18.5 us against 19.5-20.9 for _n64 and _n64_cs, "
     "128x6144x4096 (96 rows) 24.3 / 23.8 us against 24.3 / 25.1; lost on the H200",
     "h100/2026-11-26_decode_n64_wmc_candidates.json.gz, "
     "h100/2026-11-26_decode_wmc_wide_candidates.json.gz, "
     "h100/2026-11-27_decode_tail_candidates.json.gz"},
    {"decode-48-row-tile",
     [](const Case& c) {
       return c.m > 32 && c.m <= 64 && !c.fast_hbm && c.n48_tiles <= c.sms &&
              10 * c.n48_tiles >= 9 * c.sms && c.k >= 2048 && c.k <= 7168;
     },
     "hgemm_decode_sm90_n48",
     "DRAM up to 4 TB/s, 33 <= M <= 64, 48-row weight tiles filling 90-100% of the SMs in one "
     "wave, 2048 <= K <= 7168",
     "rule S: more SMs streaming than with 64-row tiles (128 of 132 against 96 at N = 6144): "
     "64x6144x4096 23.5-24.1 us against 24.8-25.4 in both runs, f16 and bf16; not measured on the "
     "H200",
     "h100/2026-11-26_decode_n48_check.json.gz, h100/2026-11-26_decode_fit_candidates.json.gz"},
    {"decode-split-64-row-tile",
     [](const Case& c) {
       return c.m >= 16 && c.m <= 128 && 2 * c.n64_tiles <= c.sms &&
              c.k >= (c.fast_hbm ? 4096 : 7168);
     },
     "hgemm_decode_sm90_n64_cs",
     "16 <= M <= 128, 64-row weight tiles at most half the SMs, K >= 7168 (K >= 4096 on DRAM over "
     "4 TB/s): each tile's K split over a cluster of 2-4 CTAs, summed in distributed shared memory",
     "rule P: one CTA per tile leaves half the SMs idle; split, it leads or ties at every row with "
     "K >= 7168 (128x2112x7168 0.972x against _n64's 0.922x); mixed at K = 4096 on the H100, "
     "ahead at all 24 cases on the H200",
     "h100/2026-11-26_decode_n64_cs_candidates.json.gz, "
     "h200/2026-11-26_decode_n64_cs_candidates.json.gz"},
    {"gemv-tc-16-tokens",
     [](const Case& c) {
       return c.m >= 9 && c.m <= 16 && ceil_div64(c.n, 32) <= c.sms &&
              c.weight_bytes() < (int64_t(64) << 20);
     },
     "hgemm_decode_gemv_tc",
     "9 <= M <= 16, N/32 row groups within one wave, weights under 64 MiB: weights straight into "
     "mma.sync fragments",
     "rule L: ahead of hgemm_decode_sm90 at the three layers it takes (16x4096x4096 1.053x "
     "against 0.973x); rung 12 leads at the other 13",
     "h100/2026-11-25_gemv_tc_one_wave.json.gz"},
    {"decode-64-row-tile",
     [](const Case& c) {
       return c.m > 32 && c.m <= 128 && !c.fast_hbm &&
              ((c.n64_tiles <= c.sms && c.k <= 16384) || c.k <= 2048);
     },
     "hgemm_decode_sm90_n64",
     "DRAM up to 4 TB/s, 33 <= M <= 128, 64-row weight tiles within one wave (K <= 16384) or "
     "K <= 2048",
     "rule N: twice rung 12's CTAs and a deeper ring; 64 tokens 0.969-1.034x against "
     "0.870-0.992x where it takes the layer; rung 12 keeps multi-wave tiles with K >= 4096 and "
     "K > 16384",
     "h100/2026-11-25_decode_n64_candidates.json.gz"},
    {"decode-64-row-tile-fast-hbm",
     [](const Case& c) {
       return c.m > 32 && c.m <= 128 && c.fast_hbm &&
              ((2 * c.n64_tiles > c.sms && c.n64_tiles <= c.sms && c.k <= 8192) ||
               (c.k >= 1024 && c.k <= 2048) ||
               (c.m > 64 && 2 * c.n64_tiles <= c.sms && c.k > 8192 && c.k <= 16384));
     },
     "hgemm_decode_sm90_n64",
     "DRAM over 4 TB/s, 33 <= M <= 128: 64-row weight tiles filling half to one wave (K <= "
     "8192), 1024 <= K <= 2048, or at 65-128 tokens split with 8192 < K <= 16384",
     "rule O (the H200): rule N lost there where its tiles split K or K was 512 or 16384 "
     "(64x4096x14336 0.915x to 0.756x) and won at 67-132 tiles with K <= 8192 and at K = "
     "1536-2048",
     "h200/2026-11-26_decode_n64_h200.json.gz"},
    {"decode-equal-split", [](const Case& c) { return c.m <= 128; }, "hgemm_decode_sm90",
     "M <= 128: wgmma with the tokens as N, K split in equal parts per tile",
     "rule F: geometric mean 0.982x / 0.981x / 0.957x / 0.883x at 1 / 16 / 64 / 128 tokens "
     "against rung 11's 0.951x / 0.945x / 0.691x / 0.568x",
     "h100/2026-11-25_decode_split_candidates.json.gz"},
    {"decode-without-hopper", [](const Case& c) { return c.m <= 128; }, "hgemm_decode",
     "M <= 128, where the Hopper decode path cannot run (no sm_90a): mma.sync weights-as-M",
     "rules D, F: the decode path for Ampere and builds without sm_90a, bf16 too",
     "h100/2026-11-25_decode_sm90_candidates.json.gz"},
    {"prefill-192-tile",
     [](const Case& c) {
       return prefers_192(c, std::max(c.sm90.busy(), tile_waves(c.p, c.caps, 256, 128, 1).busy()));
     },
     "hgemm_tn_sm90_192x192",
     "M > 128, the 192x192 tile's plain walk at least 88% busy and 5 points busier than the "
     "256-row tiles' (N = 2112 at 2048-8192 tokens, 3072^3)",
     "rule Q: cuBLAS's own tile; 4096x2112x7168 2.7% / 5.2% less time than the stream-K tail, "
     "2048x2112x7168 25% less; 1-14% more time at the 15 other prefill layers",
     "h100/2026-11-26_prefill_192_candidates.json.gz, h100/2026-11-26_prefill_192_check.json.gz"},
    {"prefill-few-tiles", few_tiles, "hgemm_tn_sm90_128x128_sk",
     "M > 128, under 0.9 waves of 256x256 cluster tiles: 128x128 stream-K",
     "rule D: 1024^3 0.548x against 0.520x for 256x128, 256x4096x4096 0.713x against 0.449x",
     "h100/2026-11-25_decode_sm90_candidates.json.gz"},
    {"prefill-uneven-two-waves", uneven_two_waves, "hgemm_tn_sm90_128x128_sk",
     "M > 128, 0.9-2 waves, the last under 90% busy: 128x128 stream-K",
     "rule D: 2560^3 (1.52 waves) 0.921x against 0.852x",
     "h100/2026-11-25_decode_sm90_candidates.json.gz"},
    {"prefill-uneven-last-wave", uneven_last_wave, "hgemm_tn_sm90_c1_sk",
     "M > 128, otherwise the last wave under 95% busy: stream-K tail without a cluster",
     "rule E: the tail spread over 132 CTAs instead of 66 clusters; 4096x2112x7168 0.956x "
     "against 0.940x, 3072^3 0.890x against 0.832x",
     "h100/2026-11-25_c1_candidates.json.gz"},
    {"prefill-uneven-last-wave-cluster", uneven_last_wave, "hgemm_tn_sm90_sk_defer",
     "the same cases, next: the clustered stream-K tail",
     "rules C, D: 4096x2112x7168 (2.18 waves) 0.933-0.942x against 0.764-0.768x for the plain walk",
     "h100/2026-11-24_dispatch_candidates.json.gz"},
    {"prefill-long-k",
     [](const Case& c) { return c.m > 128 && c.sm90.wave_efficiency >= 0.95 && c.k >= 7680; },
     "hgemm_tn_sm90_sk_defer", "M > 128, last wave at least 95% busy, K >= 7680: stream-K tail",
     "rule C: 8192^3 1.071x against 1.034x, 4096x8192x28672 1.026x against 1.002x; at K <= 7168 "
     "the tail loses 1-7%",
     "h100/2026-11-24_dispatch_candidates.json.gz"},
    {"prefill-plain-walk", [](const Case& c) { return c.m > 128; }, "hgemm_tn_sm90",
     "M > 128: the Hopper rung, plain tile walk",
     "rule C: 0.996-1.111x at the balanced prefill shapes",
     "h100/2026-11-24_dispatch_candidates.json.gz"},
    {"fallback-hopper", [](const Case&) { return true; }, "hgemm_tn_sm90",
     "any case: the Hopper rung", "runs any M", "-"},
    {"fallback-hopper-decode", [](const Case&) { return true; }, "hgemm_decode_sm90",
     "any case: the Hopper decode path", "runs any M", "-"},
    {"fallback-ampere", [](const Case&) { return true; }, "hgemm_tn",
     "any case: the Ampere rung (f16)", "no sm_90a needed", "-"},
    {"fallback-mma", [](const Case&) { return true; }, "hgemm_mma",
     "any case: mma.sync (f16, any shape)", "no shape constraint", "-"},
    {"fallback-wmma", [](const Case&) { return true; }, "hgemm_wmma",
     "any case: WMMA (f16, any shape)", "no shape constraint", "-"},
};

// hgemm, NN, NT, TT: no decode or stream-K variants in these layouts.
constexpr Rule kHgemmOtherLayouts[] = {
    {"prefill-192-tile", [](const Case& c) { return prefers_192(c, c.sm90.busy()); },
     "hgemm_{layout}_sm90_192x192",
     "M > 128, the 192x192 tile's plain walk at least 88% busy and 5 points busier than the "
     "256x128 tile's",
     "rule Q in these layouts: 7-41% less time where it is picked (4096x2112x7168 0.986-0.998x "
     "against 0.758-0.762x), 7-11% more where it is not",
     "h100/2026-11-26_layouts_192_candidates.json.gz"},
    {"hopper-rung", [](const Case&) { return true; }, "hgemm_{layout}_sm90",
     "any case: the layout's Hopper rung",
     "rule C: 1.009x / 1.024x / 1.010x (nn / nt / tt) at 5120x4096x4096, 1.033x at 8192^3",
     "h100/2026-11-24_dispatch_candidates.json.gz"},
    {"fallback-ampere", [](const Case&) { return true; }, "hgemm_{layout}",
     "any case: the layout's Ampere rung (f16)", "no sm_90a needed", "-"},
    {"fallback-wmma", [](const Case&) { return true; }, "hgemm_wmma",
     "any case: WMMA (f16, any shape)", "no shape constraint", "-"},
};

bool sgemm_wide(const Case& c) {
  return c.m > 128 && c.n > 128;
}
double sgemm_last_wave(const Case& c) {
  return tile_waves(c.p, c.caps, 256, 128, 1).wave_efficiency;
}

// sgemm, any layout.
constexpr Rule kSgemm[] = {
    {"gemv-one-row", [](const Case& c) { return c.m == 1 && b_is_k_major(c.p.layout); },
     "sgemm_decode_gemv", "M = 1, op(B) K-contiguous: matrix-vector product on CUDA cores",
     "rule I: 1x4096x4096 1.093x (NN) / 1.152x (TN) against 0.730x / 0.725x for sgemm_splitk; "
     "level at M = 2, far behind at M = 4",
     "h100/2026-11-25_gemv_candidates.json.gz"},
    {"split-k-few-rows", [](const Case& c) { return c.m <= 128; }, "sgemm_splitk",
     "M <= 128: M-sized tiles, K split over the SMs",
     "rule G: at N = K = 4096 (NN) 1.26x at M = 16 and 0.95x at M = 128 against 0.17x / 0.45x "
     "for the 128x64 tile",
     "h100/2026-11-25_sgemm_splitk_candidates.json.gz"},
    {"narrow-tile", [](const Case& c) { return !sgemm_wide(c); }, "sgemm_pipelined_128x64",
     "M <= 128 or N <= 128: the tile with the most CTAs",
     "rule C: at M = 16 and 128 (N = K = 4096) 0.204x / 0.451x against 0.121x / 0.251x for "
     "128x128",
     "h100/2026-11-24_dispatch_candidates.json.gz"},
    {"stream-k-uneven-wave",
     [](const Case& c) { return sgemm_wide(c) && sgemm_last_wave(c) < 0.95; }, "sgemm_streamk",
     "M, N > 128, the last wave of 256x128 tiles under 95% busy: stream-K",
     "rule H: 0.999-1.172x at 1024, 1536, 2560, 3072, 5120, 5632 and 6656^3 against 0.886-1.039x "
     "for the best rung-8 tile",
     "h100/2026-11-25_sgemm_streamk_candidates.json.gz"},
    {"whole-waves", [](const Case& c) { return sgemm_wide(c) && sgemm_last_wave(c) >= 0.95; },
     "sgemm_pipelined", "M, N > 128, whole waves of 256x128 tiles",
     "rule H: 0.977-1.021x at the squares whose last wave is at least 95% busy; stream-K "
     "0.946-1.018x there",
     "h100/2026-11-25_sgemm_streamk_candidates.json.gz"},
    {"fallback-stream-k", [](const Case&) { return true; }, "sgemm_streamk",
     "any case: stream-K (any shape)", "no shape constraint", "-"},
    {"fallback-tile-256x128", [](const Case&) { return true; }, "sgemm_pipelined",
     "any case: rung 8's tiles, largest first", "no shape constraint", "-"},
    {"fallback-tile-128x128", [](const Case&) { return true; }, "sgemm_pipelined_128x128",
     "any case", "no shape constraint", "-"},
    {"fallback-tile-128x64", [](const Case&) { return true; }, "sgemm_pipelined_128x64", "any case",
     "no shape constraint", "-"},
    {"fallback-warptile", [](const Case&) { return true; }, "sgemm_warptile",
     "any case: no cp.async (before sm_80)", "no shape constraint", "-"},
    {"fallback-naive", [](const Case&) { return true; }, "sgemm_naive", "any case, any GPU",
     "no shape constraint", "-"},
};

// The share of the persistent grid's tile slots that rung F3's 128-row A tiles by bn-row B tiles
// fill with outputs (the rest: padding past M and N, and the last wave's idle SMs).
double fp8_fill(const Case& c, int bn) {
  const WaveShape w = tile_waves(c.p, c.caps, 128, bn, 1);
  return w.wave_efficiency * w.tile_efficiency;
}

// Rule S's line: weight matrices of 64 Mi elements or more (Llama 3 70B's 8192 x 8192 and up; 8B's
// gate_up, 28672 x 4096), where 16 tokens stream faster through F3's 64-row tiles than through F4.
constexpr int64_t kFp8LargeWeights = int64_t(64) << 20;

// fp8gemm_sm90_persistent_t_m64c2's grid at this case: 64-row tiles by the width that fills the
// waves (m64c2_tile_n over the SMs, as its launch picks: 16 rows of B in one wave with its one
// consumer on e4m3 x e4m3 block128), on 2-CTA clusters sharing A. Rule M3
// takes the cases where those tiles fill at least three quarters of the SMs and at most one wave
// (two token tiles: each weight tile is read twice) or three (one token tile). From 32 tokens:
// below that it was not measured.
bool fp8_shared_a_narrow_fits(const Case& c) {
  if (c.m < 32 || c.m > 128) return false;
  const int64_t width = m64c2_tile_n(int(c.m), int(c.n), int(c.sms), m64c2_one_consumer(c.p));
  const int64_t tiles_m = ceil_div64(c.m, 64), tiles = tiles_m * ceil_div64(c.n, width);
  if (4 * tiles < 3 * c.sms) return false;
  return tiles_m == 1 ? tiles <= 3 * c.sms : tiles <= c.sms && c.n * c.k <= (int64_t(32) << 20);
}

// Rule D's line: weight matrices of 32 Mi elements or more (Llama 3 8B's 4096 x 14336 and up,
// DeepSeek-V3's 24576 x 1536), where 9-16 tokens stream faster through the 16-bit decode rung's
// kernel on e4m3 (F5) than through F4 or F3's 64-row tiles.
constexpr int64_t kFp8DecodeSm90Weights = int64_t(32) << 20;

// Rule F's case: fp8gemm_decode_sm90_wmc's 2-CTA clusters, which share each weight tile between
// two token tiles, fit one wave on a shared tile of 64-192 rows (shared_weight_rows; 32-token
// tiles at 33-64 tokens, 64-token ones at 65-128). At 48-64 tokens its first form took 64-row
// tiles whatever N, two waves or more past 4224 rows, and lost to F3's 64-row tiles on the layers
// of 5120-7168 rows (0.66-0.89x cuBLASLt); on the one-wave tile it leads them on every layer it
// fits, 5120x32768 on 108 CTAs included (1.026-1.042x against 0.967-0.983x). At 65-128 tokens the
// wave must also keep 90% of the SMs streaming unless the weights are below 128 Mi elements: at
// 128x5120x32768 (108 CTAs) _wmc ran 0.86x, the stream-K F3 on every SM 0.96x, where at
// 5120x13824 on the same 108 _wmc led (1.08x against 1.02x).
constexpr int64_t kFp8WeightShareStreamed = int64_t(128) << 20;
bool fp8_weight_share_fits(const Case& c) {
  if (c.shared_rows == 0) return false;
  if (c.m <= 64) return true;
  const int64_t ctas = 2 * ((c.n + c.shared_rows - 1) / c.shared_rows);
  return ctas >= 0.9 * c.sms || c.n * c.k < kFp8WeightShareStreamed;
}

// Rule R's case: block128 without fast accumulation at M >= 4096, where 256x128 tiles on 2-CTA
// clusters fill the persistent grid within 3% of F3's 128x128 ones.
bool fp8_tall_fills(const Case& c, ScaleMode scale = ScaleMode::block128) {
  return !c.p.fast_accum && c.p.scale == scale && c.m >= 4096 &&
         c.sm90.busy() >= 0.97 * fp8_fill(c, 128);
}

// fp8gemm (FP8, TN): on the H200 at 9-32 tokens (9-16 with block128) first rule F's
// weight-sharing pair on token tiles of 8 or 16 where its clusters fit one wave; per-tensor at
// 1-32 tokens F5's 64-row tile where its walk is shorter than the 128-row tile's; the decode path
// at 1-16 tokens (on the H200 at 9-16 tokens F5, the 16-bit
// decode rung's kernel on e4m3: per-row, and per-tensor and block128 with large weights;
// per-tensor e5m2 pairs there F3 on 64-row tiles; at 2-8 tokens F5 per-tensor with weights over
// 64 Mi), F3 on 64-row tiles at 17-64 (on the H200
// per-tensor at 17-32 F5; per-tensor and per-row at 33-128, F5's weight-sharing clusters where
// they fit one wave, on token tiles fitted to the tokens at 65-112), F3 on the stream-K schedule
// where a row of tiles leaves most SMs idle; block128 at M >= 4096 and K >= 4096, F3 on 256-row
// tiles on 2-CTA clusters where those fill the grid about as well as 128x128 ones; elsewhere F3 on
// 128x192 tiles where they fill it as well, else (block128 or per-row at M >= 4096) the 256-row
// tiles where they fill it, else F3 with its promotion pipelined; F3 itself with fast accumulation
// (no promotion: both variants measured without it). F2 and F1 run where F3's image or shape check
// refuses (they share its constraints, so only on a build that lacks it). The e5m2 pairs take the
// same rules: F4 and F3's variants run them, F2 does not (it falls through to F1).
constexpr Rule kFp8[] = {
    {"fp8-hopper-decode-shared-weights-9-to-32-tokens",
     [](const Case& c) {
       const bool b128 = c.p.scale == ScaleMode::block128;
       const int64_t top = b128 ? 16 : 32;
       return c.fast_hbm && c.m > 8 && c.m <= top && !c.p.fast_accum &&
              c.p.scale != ScaleMode::none && shared_weight_rows(c.n, int(c.sms), b128) != 0;
     },
     "fp8gemm_decode_sm90_wmcfit",
     "H200, 9 <= M <= 32 per-tensor and per-row, 9 <= M <= 16 block128, no fast accumulation, "
     "where rule F's clusters fit one wave (a shared tile of 64-192 rows; 64, 128 or 192 with "
     "block128): rule F's kernel on two token tiles of 8 (9-16 tokens) or 16 (17-32), "
     "cuBLASLt's geometry at 16x4096x4096 (nvjet_sm90_qqtst_8x64_128x16_2x1), e4m3 x e4m3 (the "
     "e5m2 pairs fall through)",
     "rule F8: Llama 3 8B and 70B per-tensor at 12, 16, 24, 32 tokens, per-row at 16, 24, 32, "
     "DeepSeek-V3 block128 at 16, 24, 32, H200 sustained, one board a run, beside fp8gemm's picks "
     "in one binary (rules D, D2, D3, E, S, M, M3): on the layers whose clusters fit, "
     "1.008-1.090x their speed per-tensor (geomean 1.055 / 1.047 / 1.041 / 1.040 at 12 / 16 / 24 "
     "/ 32), per-row 1.014-1.115x at 16 (1.058) and 1.034-1.397x at 24-32 (1.170 / 1.167), "
     "block128 1.023-1.055x at 16 (1.036) but 0.913-1.089x at 24 (0.996) and 0.876-0.900x at 32 "
     "(rule M3's clusters); where they do not fit (28672 and 57344 rows per-tensor and per-row, "
     "24576-36864 block128) 0.735-1.005x. Through fp8gemm with the rule, per-tensor: Llama 3 "
     "0.993x / 0.980x / 0.999x cuBLASLt at 16 / 24 / 32 tokens (0.953x / 0.943x / 0.954x before, "
     "another board), held-out Qwen2.5-14B and Mistral-Small-24B 1.036x / 1.030x the kernels the "
     "rules before it ran at 16 / 24 (1.040x per-row at 16); in a burst on Llama 3 at 16, 0.997x "
     "cuBLASLt",
     "h200/2026-12-02_fp8_wmcfit_9_32_ab.json.gz, "
     "h200/2026-12-02_fp8_wmcfit_16_row_b128_ab.json.gz, "
     "h200/2026-12-02_fp8_wmcfit_24_32_row_b128_ab.json.gz, "
     "h200/2026-12-02_fp8_f8_confirm.json.gz, h200/2026-12-02_fp8_f8_burst16.json.gz"},
    {"fp8-hopper-decode-per-tensor-64-row-walk",
     [](const Case& c) {
       return c.fast_hbm && c.m <= 32 && !c.p.fast_accum && c.p.scale == ScaleMode::tensor &&
              c.n * c.k > kFp8LargeWeights &&
              decode_n64_walk_shorter(int(c.m), int(c.n), int(c.k), int(c.sms));
     },
     "fp8gemm_decode_sm90_n64",
     "H200, 1 <= M <= 32, per-tensor, no fast accumulation, N x K over 64 Mi weights, where F5's "
     "64-row tile walked whole on the whole grid gives the busiest CTA fewer weight rows than its "
     "128-row tile on whole waves (decode_n64_walk_shorter: 57344x8192, 448 rows a CTA against "
     "512): rung F5 on 64-row weight tiles, e4m3 x e4m3 (the e5m2 pairs fall through)",
     "rule D5: H200 sustained, one board, _n64 beside F5 in one binary at 8, 16 and 32 tokens "
     "per-tensor: on the four layers where its walk is shorter (Llama 3 70B's gate_up 57344x8192; "
     "held out, Qwen2.5-72B 59136x8192, Qwen2.5-32B 55296x5120, Gemma-2-27B 73728x4608, gate_up) "
     "0.966-0.999x F5's time (geomean 0.990 / 0.982 / 0.980 at 8 / 16 / 32); where the two walks "
     "are as long (28672x4096, 65536x5120) 1.004-1.059x; per-row at 16 tokens 0.979-1.010x and "
     "block128 1.055-1.164x (not taken); 1-7, 9-15 and 17-31 tokens not measured",
     "h200/2026-12-02_fp8_decode_n64_makespan_ab.json.gz"},
    {"fp8-hopper-decode-9-to-16-tokens",
     [](const Case& c) {
       return c.fast_hbm && c.m > 8 && c.m <= 16 && !c.p.fast_accum &&
              (c.p.scale == ScaleMode::tensor || c.p.scale == ScaleMode::block128) &&
              c.n * c.k >= kFp8DecodeSm90Weights;
     },
     "fp8gemm_decode_sm90",
     "H200 (datasheet DRAM over 4 TB/s), 9 <= M <= 16, per-tensor or block128, no fast "
     "accumulation, N x K >= 32 Mi weights: rung F5 (the 16-bit decode rung's TMA ring and wgmma "
     "on e4m3), e4m3 x e4m3 (the e5m2 pairs fall through)",
     "rule D: at 16 tokens, H200 sustained, 1.014-1.108x fp8gemm's picks before it on the six "
     "Llama 3 layers of 32 Mi weights or more (per-tensor) and 1.019-1.244x on DeepSeek-V3's four "
     "(block128); behind them on five of the six below the line (0.856-0.992x; 1.037x at "
     "2112x7168); 9-15 tokens and per-row not measured",
     "h200/2026-11-30_fp8_decode_sm90_tensor.json.gz, "
     "h200/2026-11-30_fp8_decode_sm90_block128.json.gz"},
    {"fp8-hopper-decode-per-row-9-to-16-tokens",
     [](const Case& c) {
       return c.fast_hbm && c.m > 8 && c.m <= 16 && !c.p.fast_accum && c.p.scale == ScaleMode::row;
     },
     "fp8gemm_decode_sm90",
     "H200, 9 <= M <= 16, per-row, no fast accumulation: rung F5 before the decode path, any "
     "weights",
     "rule D3: Llama 3 8B and 70B at 16 tokens, per-row, H200 sustained: 1.055-1.644x "
     "fp8gemm_decode on all eight layers (1.508x cuBLASLt geomean against 1.214x, the lowest "
     "layer 1.226x against 0.747x); at 32 tokens F5 ahead of _m64 on five of eight only",
     "h200/2026-11-30_fp8_decode_sm90_row.json.gz"},
    {"fp8-hopper-decode-per-tensor-small-weights",
     [](const Case& c) {
       return c.fast_hbm && c.m > 8 && c.m <= 32 && !c.p.fast_accum &&
              c.p.scale == ScaleMode::tensor && c.n * c.k < kFp8DecodeSm90Weights;
     },
     "fp8gemm_decode_sm90_n64_cs",
     "H200, 9 <= M <= 32, per-tensor, no fast accumulation, N x K below rule D's 32 Mi weights: "
     "rung F5 on 64-row weight tiles (twice the CTAs of its 128-row ones; at most half the SMs of "
     "them: each tile's K split over a cluster), e4m3 x e4m3 (the e5m2 pairs fall through)",
     "rule E: Llama 3 8B's qkv_proj and o_proj at 12-32 tokens, per-tensor, H200 sustained, four "
     "boards: at 6144x4096 14.2-14.8 us against F4's and F5's 15.6-16.1 (16 tokens 0.885-0.948x "
     "cuBLASLt against 0.819-0.865x), at 4096x4096 11.9-12.3 against 12.0-12.6; 9-11 tokens not "
     "measured",
     "h200/2026-11-30_fp8_decode_small_tensor.json.gz, "
     "h200/2026-11-30_fp8_decode_small_tensor_b1.json.gz, "
     "h200/2026-11-30_fp8_decode_sm90_tensor.json.gz"},
    {"fp8-hopper-decode-per-tensor-17-to-32-tokens",
     [](const Case& c) {
       return c.fast_hbm && c.m > 16 && c.m <= 32 && !c.p.fast_accum &&
              c.p.scale == ScaleMode::tensor;
     },
     "fp8gemm_decode_sm90",
     "H200, 17 <= M <= 32, per-tensor, no fast accumulation: rung F5 before F3's 64-row tiles",
     "rule D2: Llama 3 8B and 70B at 32 tokens, per-tensor, H200 sustained: 1.004-1.276x _m64 on "
     "seven of eight layers (0.988x at 32x10240x8192); block128 not (behind _m64 on three of "
     "DeepSeek-V3's four large layers); 17-31 tokens not measured",
     "h200/2026-11-30_fp8_decode_sm90_tensor.json.gz"},
    {"fp8-hopper-decode-shared-weights-fitted-token-tiles",
     [](const Case& c) {
       return c.fast_hbm && ((c.m >= 33 && c.m <= 48) || (c.m >= 65 && c.m <= 112)) &&
              !c.p.fast_accum && (c.p.scale == ScaleMode::tensor || c.p.scale == ScaleMode::row) &&
              fp8_weight_share_fits(c);
     },
     "fp8gemm_decode_sm90_wmcfit",
     "H200, 33 <= M <= 48 or 65 <= M <= 112, per-tensor or per-row, no fast accumulation, where "
     "rule F's clusters fit: rule F's kernel with the token tile fitted to the tokens (the pair "
     "covers them: 24 at 33-48, 40 at 65-80, 48 at 81-96, 56 at 97-112; 18, 16, 14 and 13 stages "
     "on the 64-row shared tile; at 49-64 and 113-128 the fit is rule F's own 32 and 64), e4m3 x "
     "e4m3 (the e5m2 pairs fall through)",
     "rule F40: Llama 3 8B and 70B, H200 sustained (each alone at steady state; the A/Bs not "
     "checked interleaved), beside _wmc in one binary, on the six layers "
     "rule F takes, two boards: the 40-token tile 1.004-1.109x _wmc's speed at 65, 72, 77 and 80 "
     "tokens per-tensor and 72 per-row (geomean 1.034-1.062 a token count and board; at 72 "
     "per-tensor 0.992-0.995x cuBLASLt against _wmc's 0.949-0.954x, 4096x14336 0.949-0.950x "
     "against 0.866-0.867x); 48 1.003-1.049x at 88 and 96 (1.010-1.048x at 96 per-row, one "
     "board); 56 0.994-1.037x at 104 and 112 (geomean 1.011-1.018; 0.994-0.999x on 8192x8192 "
     "and 10240x8192 at 104-112). Through fp8gemm on the held-out layers rule F takes "
     "(Qwen2.5-14B, Mistral-Small-24B) per-tensor, against _wmc: 0.980-1.006x cuBLASLt against "
     "0.900-0.963x at 72 tokens, 0.991-1.078x against 0.938-1.035x at 96, 0.995-1.012x against "
     "0.972-0.992x at 104; in a burst on Llama 3 at 72, 1.002x cuBLASLt geomean. The 24-token "
     "tile at 40 and 48 tokens, per-tensor and per-row, same method, one board: 0.999-1.047x "
     "_wmc's speed on the six layers (geomean 1.014-1.015; 1.027-1.029 at 4096x14336)",
     "h200/2026-11-30_fp8_wmc40_ab_board0.json.gz, h200/2026-11-30_fp8_wmc40_ab_board1.json.gz, "
     "h200/2026-12-01_fp8_wmcfit_ab_board0.json.gz, h200/2026-12-01_fp8_wmcfit_ab_board1.json.gz, "
     "h200/2026-12-01_fp8_wmc40_confirm.json.gz, h200/2026-12-01_fp8_wmcfit_confirm.json.gz, "
     "h200/2026-12-01_fp8_wmc40_burst72.json.gz, h200/2026-12-01_fp8_wmcfit_33_48_ab.json.gz"},
    {"fp8-hopper-decode-shared-weights",
     [](const Case& c) {
       return c.fast_hbm && c.m > 32 && c.m <= 128 && !c.p.fast_accum &&
              (c.p.scale == ScaleMode::tensor || c.p.scale == ScaleMode::row) &&
              fp8_weight_share_fits(c);
     },
     "fp8gemm_decode_sm90_wmc",
     "H200, 33 <= M <= 128, per-tensor or per-row, no fast accumulation, where the 2-CTA clusters "
     "fit one wave on a shared tile of 64-192 rows (N <= 12672 on 132 SMs), at M > 64 on 90% of "
     "the SMs or with N x K below 128 Mi: rung F5 with the tokens in two M tiles that share each "
     "weight tile by multicast, e4m3 x e4m3 (the e5m2 pairs fall through)",
     "rule F: H200 sustained, each run one board. At 48-64 tokens on the one-wave tile, "
     "per-tensor: "
     "Llama 3 8B and 70B 0.962-1.017x cuBLASLt on the six layers it takes against 0.704-0.956x "
     "for F3's 64-row tiles, held out (Qwen2.5-14B, Mistral-Small-24B) 0.936-1.042x against "
     "0.752-0.983x; per-row at 64 tokens 1.291-1.753x against 1.053-1.516x. At 96-128 tokens, "
     "per-tensor 0.874-1.006x on the six Llama 3 layers it takes against the stream-K and _pipe "
     "picks' 0.639-0.966x, held out 0.910-1.084x against 0.713-1.019x; per-row 1.021-1.768x "
     "against 0.940-1.535x. Behind where no shared tile fits (27648-65536 rows: 0.62-0.90x); "
     "block128 not (0.57-1.03x against the picks' 0.89-1.29x); per-row held out and 33-47 / "
     "65-95 tokens not measured",
     "h200/2026-11-30_fp8_decode_wmc_narrow_presets.json.gz, "
     "h200/2026-11-30_fp8_decode_wmc_narrow_holdout.json.gz, "
     "h200/2026-11-30_fp8_decode_wmc_narrow_row.json.gz, "
     "h200/2026-11-30_fp8_decode_wmc_cand_65_128.json.gz, "
     "h200/2026-11-30_fp8_decode_wmc_cand_row.json.gz, "
     "h200/2026-11-30_fp8_decode_wmc_holdout_cand_65_128.json.gz"},
    {"fp8-hopper-decode-per-tensor-33-to-64-tokens-large-weights",
     [](const Case& c) {
       return c.fast_hbm && c.m > 32 && c.m <= 64 && !c.p.fast_accum &&
              c.p.scale == ScaleMode::tensor && c.n * c.k > kFp8LargeWeights;
     },
     "fp8gemm_decode_sm90",
     "H200, 33 <= M <= 64, per-tensor, no fast accumulation, N x K over 64 Mi weights, where rule "
     "F's clusters do not fit (the rules above take those): rung F5 (128-row weight tiles, the "
     "tokens in one 64-row tile) before F3's 64-row tiles, e4m3 x e4m3 (the e5m2 pairs fall "
     "through)",
     "rule D6: H200 sustained, one board, beside _m64 (rule M's pick), _n64 and _wmc in one "
     "binary, at 48 and 64 tokens on the six large gate_up layers no pair fits (Llama 3 70B "
     "57344x8192 and 8B 28672x4096; held out, Qwen2.5-72B 59136x8192, Qwen2.5-32B 55296x5120, "
     "Gemma-2-27B 73728x4608, Mistral-Small-24B 65536x5120): 1.001-1.039x _m64's speed on all "
     "twelve cases (geomean 1.021 / 1.018 at 48 / 64; 0.956-0.984x cuBLASLt against "
     "0.924-0.980x); _n64 0.947-1.022x F5's speed (geomean 0.993: not taken), _wmc 0.868-0.931x "
     "cuBLASLt. Through fp8gemm at 40 and 56 tokens on those six and two unseen layers (Qwen2.5-7B "
     "37888x3584, Llama 3.1 405B 106496x16384), another board: 1.003-1.042x _m64's speed on all "
     "sixteen; interleaved (burst) at 40 tokens, a third board: 1.019x (0.997-1.044)",
     "h200/2026-12-02_fp8_decode_64_large_ab.json.gz, "
     "h200/2026-12-02_fp8_decode_d6_rule_confirm.json.gz, "
     "h200/2026-12-02_fp8_decode_d6_burst40.json.gz"},
    {"fp8-64-row-tiles-per-tensor-9-to-16-tokens",
     [](const Case& c) {
       return c.fast_hbm && c.m > 8 && c.m <= 16 && c.p.scale == ScaleMode::tensor &&
              !c.p.fast_accum && c.n * c.k >= kFp8LargeWeights;
     },
     "fp8gemm_sm90_persistent_t_m64",
     "H200 (datasheet DRAM over 4 TB/s), 9 <= M <= 16, per-tensor, no fast accumulation, N x K >= "
     "64 Mi weights: rung F3 on 64-row tiles (rule M's kernel) before the decode path, whose "
     "two-token-group form holds one 16-warp CTA an SM",
     "rule S: Llama 3 8B and 70B at 16 tokens, per-tensor, H200 sustained: 1.019-1.320x "
     "fp8gemm_decode at the five layers of 64 Mi weights or more (8192x8192 to 57344x8192, "
     "28672x4096), behind it at the three below (4096x4096, 6144x4096, 4096x14336: 0.78-0.97x); "
     "9-15 tokens and the other scalings not measured",
     "h200/2026-11-30_fp8_decode_tensor_candidates_partial.json.gz"},
    {"fp8-hopper-decode-large-weights-1-to-8-tokens",
     [](const Case& c) {
       return c.fast_hbm && c.m <= 8 && !c.p.fast_accum && c.p.scale == ScaleMode::tensor &&
              c.n * c.k > kFp8LargeWeights;
     },
     "fp8gemm_decode_sm90",
     "H200 (datasheet DRAM over 4 TB/s), 1 <= M <= 8, per-tensor, no fast accumulation, N x K "
     "over 64 Mi weights: rung F5 before the decode path, e4m3 x e4m3 (the e5m2 pairs fall "
     "through)",
     "rule D4: Llama 3 8B and 70B, per-tensor, H200 sustained, one board a run: at 8 tokens F5 "
     "3-12% less time than F4 at the four layers over 64 Mi weights (0.962-0.991x cuBLASLt "
     "against 0.869-0.934x), 2-10% more at the four of 64 Mi or less; at 4 tokens the same line "
     "(5-10% less, 3-12% more); at 1 token 7-11% less at the four over 64 Mi, 1-13% more at the "
     "four below (cuBLASLt refuses 1 and 4 tokens); through fp8gemm at 8 tokens the four "
     "0.962-0.995x cuBLASLt sustained, 0.965-0.981x burst (all eight: 0.988x geomean in both), "
     "at 1-2 tokens F5's time on the four (0.99-1.01x); 3 and 5-7 tokens and the other scalings "
     "not measured",
     "h200/2026-11-30_fp8_decode_f5_8_tokens.json.gz, "
     "h200/2026-11-30_fp8_decode_f5_4_tokens.json.gz, "
     "h200/2026-11-30_fp8_decode_f5_1_2_tokens.json.gz, "
     "h200/2026-11-30_fp8_decode_d4_confirm.json.gz, "
     "h200/2026-11-30_fp8_decode_d4_confirm_burst.json.gz, "
     "h200/2026-11-30_fp8_decode_f5_1_2_tokens_d4.json.gz"},
    {"fp8-decode-1-to-16-tokens", [](const Case& c) { return c.m <= 16; }, "fp8gemm_decode",
     "M <= 16: e4m3 weights straight into mma.sync fragments, the grid sized by resident CTAs",
     "rule T: 1-8 tokens 0.84-0.89 of the FP8 read roof (geomeans); 8 tokens 1.179x cuBLASLt "
     "block128 (DeepSeek-V3, every layer >= 1.0x) and 0.993x per-tensor (Llama 3); 16 tokens "
     "1.011x block128 against 0.885x for the stream-K F3, which leads at 16x7168x16384 and "
     "x18432 only",
     "h100/2026-11-27_fp8_decode_ds_new.json.gz, h100/2026-11-27_fp8_decode_ll_new.json.gz, "
     "h100/2026-11-27_fp8_decode_sk_ds.json.gz"},
    {"fp8-64-row-tiles-block128-shared-a",
     [](const Case& c) {
       return c.fast_hbm && !c.p.fast_accum && c.p.scale == ScaleMode::block128 &&
              fp8_shared_a_narrow_fits(c);
     },
     "fp8gemm_sm90_persistent_t_m64c2",
     "H200, 32 <= M <= 128, block128, no fast accumulation, where 64-row tiles at the width that "
     "fills the waves (m64c2_tile_n) take 3/4 of the SMs or more and at most three waves (M <= 64) "
     "or one (M > 64, N x K <= 32 Mi): rung F3's 64-row tile on 2-CTA clusters sharing A by "
     "multicast (slices of A wholly past M not loaded), no stream-K; e4m3 x e4m3: one consumer "
     "warpgroup on all the tile's rows of B, 64x16 tiles where they make one wave at M <= 64, "
     "and with K % 512 == 0 the block scales by TMA with the stages",
     "rule M3: DeepGEMM's six dense shapes at M 64 and 128 and DeepSeek-V3's eight layers at 64 "
     "tokens, block128, H200 sustained, one board, beside fp8gemm's picks before it (_m64, _sk, "
     "_pipe) in one binary: 1.017-1.205x their speed on the 14 cases it takes (64x4096x7168 "
     "1.093-1.104x, 128x2112x7168 1.205x, 128x4096x7168 1.155x); 0.822-0.942x on the ones it "
     "leaves (66 tiles at x2112x7168 with 64 tokens, 1152 at x36864x7168, 128 tokens past one "
     "wave or over 32 Mi weights). DeepGEMM's time (by its plugin, in the same harness) over the "
     "better of the two: 0.890x at M 64, 0.931x at M 128 (was 0.845x, 0.870x). With the slices "
     "of A wholly past M not loaded (measured as _m64c2z, one board): 1.113x the kernel's speed "
     "without at 32 tokens on DeepSeek-V3's eight layers, 1.024x at 72, 1.027x at 96; at 32 "
     "tokens 1.028-1.130x fp8gemm's pick before (_m64) on the six layers the rule takes, "
     "0.835-0.920x on the two it leaves (66 tiles at x2112x7168, 1152 at x36864x7168). Held out "
     "(DeepSeek-V3 at 48 and 96 tokens, through fp8gemm, before the skip): 1.036-1.121x the pick "
     "before (_m64) on the six layers it takes at 48, 1.039-1.161x the best of the four picks "
     "before (_m64, _sk, _pipe, _n192) on three layers at 96. DeepGEMM's time over fp8gemm's "
     "with the rule, DeepGEMM's six shapes: 0.886x at M 64, 0.932x at M 128. 33-47, 49-63 and "
     "65-127 tokens otherwise, per-tensor and per-row not measured. Interleaved (burst), held out: "
     "1.041x _m64's speed at 48 tokens (0.988-1.123), 1.283x at 96. The block scales by TMA "
     "(measured as _m64c2ts, one board each, on the cases the rule takes): 1.008-1.019x the LDG "
     "kernel's speed on DeepSeek-V3 at 32, 64 and 96 tokens, 1.016-1.026x on DeepGEMM's shapes at "
     "M 64 and 128 in two calls (0.982-1.064 a case). With them, DeepGEMM's time over fp8gemm's: "
     "0.903x at M 64, 0.943x at M 128 (sustained); 0.880x at M 64 in a burst. One consumer "
     "warpgroup on e4m3 (measured as _m64c2w1, one board each): 1.047x the two consumers' speed "
     "at M 64 and 1.032x at M 128 on DeepGEMM's shapes, 1.037-1.050x on DeepSeek-V3 at 32-96 "
     "tokens. With it, 64x16 tiles in one wave (measured as _m64c2n16): 1.060x at 64x2112x7168, "
     "1.061-1.068x at 32-64 tokens on N 1024-2112; so the rule takes x2112x7168 at 32-64 tokens "
     "(132 tiles): 1.036-1.040x the pick before (_m64) at 32, 48, 64 tokens (interleaved, one "
     "shape: 1.073x at 64 tokens, in a burst whose identical rows differed by 3-7%). DeepGEMM's "
     "time "
     "over fp8gemm's with both: 0.936x at M 64, 0.967x at M 128 (sustained); fp8gemm 1.211x and "
     "1.078x cuBLASLt. Not kept: the same tiles on single CTAs, A not multicast, as DeepGEMM runs "
     "them (measured as _m64c1, one board each): 1.001x the clustered kernel's speed at M 64 and "
     "0.982x at M 128 on DeepGEMM's shapes, 0.996x / 1.005x / 0.975x at 32 / 64 / 96 tokens",
     "h200/2026-12-01_fp8_m64c2_ab_dg.json.gz, h200/2026-12-01_fp8_m64c2_ab_ds.json.gz, "
     "h200/2026-12-01_fp8_m64c2z_ab.json.gz, h200/2026-12-01_fp8_m64c2_rule_confirm.json.gz, "
     "h200/2026-12-01_fp8_m64c2k_ab_dg.json.gz, h200/2026-12-01_fp8_m64c2_rule_burst.json.gz, "
     "h200/2026-12-01_fp8_m64c2ts_ab.json.gz, h200/2026-12-01_fp8_m64c2ts_ab_dg.json.gz, "
     "h200/2026-12-01_fp8_m64c2d_ab_dg.json.gz, h200/2026-12-01_fp8_m64c2_fold_dense.json.gz, "
     "h200/2026-12-01_fp8_m64c2_fold_dense_burst_partial.json.gz, "
     "h200/2026-12-02_fp8_m64c2w1_ab_dg.json.gz, h200/2026-12-02_fp8_m64c2w1_ab_ds.json.gz, "
     "h200/2026-12-02_fp8_m64c2n16_ab_dg.json.gz, h200/2026-12-02_fp8_m64c2n16_ab_ds.json.gz, "
     "h200/2026-12-02_fp8_m64c2_x2112_rule.json.gz, h200/2026-12-02_fp8_m64c2n16_burst.json.gz, "
     "h200/2026-12-02_fp8_m64c2_fold_dense_m64_m128.json.gz, "
     "h200/2026-12-02_fp8_m64c1_ab_dg.json.gz, h200/2026-12-02_fp8_m64c1_ab_ds.json.gz"},
    {"fp8-64-row-tiles", [](const Case& c) { return c.m > 16 && c.m <= 64 && !c.p.fast_accum; },
     "fp8gemm_sm90_persistent_t_m64",
     "17 <= M <= 64, no fast accumulation: rung F3 on 64-row tiles (the tokens' rows, none past "
     "M at 64), 128, 64 or 32 rows of B (m64_tile_n), stream-K",
     "rule M: at 64 tokens on DeepGEMM's six shapes 1.151x the stream-K, _pipe and _n192 picks "
     "before it (0.976-1.395x; behind _n192 at 64x24576x1536 only), block128, H200 sustained; "
     "17-63 tokens not measured (fewer rows past M than the 128-row tiles')",
     "h200/2026-11-29_fp8_m64_whole_grid.json.gz, h200/2026-11-29_fp8_m64_widths.json.gz"},
    {"fp8-64-row-tiles-block128-narrow-weights",
     [](const Case& c) {
       return c.fast_hbm && c.m > 64 && c.m <= 128 && !c.p.fast_accum &&
              c.p.scale == ScaleMode::block128 && ceil_div64(c.n, 128) <= 20 && c.k >= 4096;
     },
     "fp8gemm_sm90_persistent_t_m64",
     "H200, 65 <= M <= 128, block128, no fast accumulation, at most 20 weight tiles of 128 rows "
     "(N <= 2560), K >= 4096: rung F3 on 64-row tiles (two token tiles, 32 or 64 weight rows "
     "each: the grid filled) before rule V's stream-K split",
     "rule M2: at 96-128 tokens, K 7168, H200 sustained, one board: N 1536-2560 0.975-1.020x "
     "cuBLASLt against the stream-K pick's 0.774-0.934x; at N 3072-4096 the stream-K ahead "
     "(0.964-1.004x against 0.900-0.962x); 128x2112x7168 alike on two earlier boards "
     "(0.994-1.011x against 0.917-0.926x). Only K 7168 measured (K >= 4096 is rule V's line); "
     "per-tensor and per-row not measured",
     "h200/2026-11-30_fp8_decode_b128_narrow_n.json.gz, h200/2026-11-30_fp8_m128_tiles.json.gz"},
    {"fp8-split-few-tiles",
     [](const Case& c) { return c.m <= 128 && 2 * ceil_div64(c.n, 128) < c.sms && c.k >= 4096; },
     "fp8gemm_sm90_persistent_t_sk",
     "17 <= M <= 128, fewer 128-row weight tiles than half the SMs, K >= 4096: rung F3 with each "
     "tile's k-blocks split over CTAs (stream-K)",
     "rule V: at 16-128 tokens 20.8-21.3 us against F3's 32.3-32.7 at x2112x7168, 51.4-54.2 "
     "against 67.6-70.6 at x7168x16384, 32.8 against 51.1 at 64x4096x14336; level (within 3%) "
     "at 48-64 tiles with K 4096-8192; 5-9% behind F3 at K <= 2048 with 56 or more tiles",
     "h100/2026-11-27_fp8_decode_sk_ds.json.gz, h100/2026-11-27_fp8_decode_sk_ll.json.gz"},
    {"fp8-tall-tiles-long-k", [](const Case& c) { return fp8_tall_fills(c) && c.k >= 4096; },
     "fp8gemm_sm90_persistent_t_m256c2ts",
     "block128, no fast accumulation, M >= 4096, K >= 4096, 256x128 tiles on 2-CTA clusters "
     "filling the grid within 3% of 128x128 ones: rule R's kernel, before the 128x192 tiles",
     "rule R2: DeepSeek-V3's dense gate_up at 4096 tokens (4096x36864x7168), block128, H200 "
     "sustained: 1.068x _n192 (0.991x cuBLASLt against 0.929x); at 4096x24576x1536 (K 1536) the "
     "two level (1.005x), at 4096x32768x512 _n192 ahead (1.028x)",
     "h200/2026-11-29_fp8_wide_n_ab.json.gz, h200/2026-11-29_fp8_poll_ab_poll.json.gz"},
    {"fp8-wide-tiles",
     [](const Case& c) { return !c.p.fast_accum && fp8_fill(c, 192) >= 0.97 * fp8_fill(c, 128); },
     "fp8gemm_sm90_persistent_t_n192",
     "no fast accumulation, and 128x192 tiles fill the persistent grid within 3% of 128x128 "
     "ones: rung F3 on wgmma m64n192k32 (a third fewer operand reads per FLOP)",
     "rule W: DeepSeek-V3 at 4096 tokens, N 2112, 24576, 32768, 36864: 0.862-1.032x cuBLASLt "
     "block128 and 0.928-1.019x per-tensor, against _pipe's 0.841-0.982x and 0.793-0.969x in "
     "the same call; behind _pipe at N 4096 and 7168 (fill 0.89-0.93 of 128x128's)",
     "h100/2026-11-27_fp8_f3_pipe_n192.json.gz"},
    {"fp8-tall-tiles-per-row", [](const Case& c) { return fp8_tall_fills(c, ScaleMode::row); },
     "fp8gemm_sm90_persistent_t_m256c2",
     "per-row scales, no fast accumulation, M >= 4096, 256x128 tiles on 2-CTA clusters filling "
     "the grid within 3% of 128x128 ones (where 128x192 ones do not): rung F3 on 256-row tiles, "
     "A multicast, the next stage's full barrier polled before the promotion",
     "rule R3: Llama 3 8B and 70B at 4096 tokens, per-row, H200 sustained, one board: 1.010-1.020x "
     "_pipe at the five layers _pipe took (0.999-1.041x cuBLASLt against 0.989-1.025x); per-tensor "
     "not (_pipe ahead at 3 of those 5)",
     "h200/2026-11-30_fp8_tall_scales_ab.json.gz"},
    {"fp8-tall-tiles", [](const Case& c) { return fp8_tall_fills(c); },
     "fp8gemm_sm90_persistent_t_m256c2ts",
     "block128, no fast accumulation, M >= 4096, and 256x128 tiles on 2-CTA clusters fill the "
     "persistent grid within 3% of 128x128 ones: rung F3 on 256-row tiles, A multicast, A's block "
     "scales by TMA with each stage, the next stage's full barrier polled before the promotion",
     "rule R: DeepSeek-V3's N 4096 and 7168 at 4096 tokens (DeepGEMM's dense shapes), block128, "
     "H200 sustained, two boards: 1.019-1.047x _pipe, 0.931 / 1.007 / 0.916x DeepGEMM at "
     "4096x7168 / 7168x2048 / 7168x16384 against _pipe's 0.892 / 0.988 / 0.875x; M below 4096 "
     "and the other scalings not measured",
     "h200/2026-11-29_fp8_poll_ab_poll.json.gz, h200/2026-11-29_fp8_poll_ab_poll_board1.json.gz"},
    {"fp8-pipelined-promotion", [](const Case& c) { return !c.p.fast_accum; },
     "fp8gemm_sm90_persistent_t_pipe",
     "no fast accumulation: rung F3 with each warpgroup's promotion of k-block kb under its own "
     "wgmmas of kb + 1",
     "rule P: DeepSeek-V3 at 4096 tokens, N 4096 and 7168: 0.852-0.904x cuBLASLt block128 and "
     "0.804-0.974x per-tensor against F3's 0.758-0.843x and 0.769-0.835x in the same call",
     "h100/2026-11-27_fp8_f3_pipe_n192.json.gz"},
    {"fp8-tiles-m-rows", [](const Case&) { return true; }, "fp8gemm_sm90_persistent_t",
     "any case (fast accumulation): rung F3, wgmma M = GEMM M, block scales read per thread "
     "from global memory",
     "rule U: DeepSeek-V3 at 4096 tokens: 0.820x / 0.821x cuBLASLt (block128 / per-tensor) against "
     "F2's "
     "0.758x / 0.822x in the same call",
     "h100/2026-11-27_fp8_f3_prefill.json.gz"},
    {"fallback-fp8-persistent", [](const Case&) { return true; }, "fp8gemm_sm90_persistent",
     "any case: rung F2", "no shape constraint", "-"},
    {"fallback-fp8-tiles", [](const Case&) { return true; }, "fp8gemm_sm90", "any case: rung F1",
     "no shape constraint", "-"},
};

std::string kernel_name(const char* pattern, Layout l) {
  std::string s = pattern;
  const std::string slot = "{layout}";
  if (const size_t at = s.find(slot); at != std::string::npos)
    s.replace(at, slot.size(), to_string(l));
  return s;
}

template <size_t N>
std::vector<RuleCandidate> candidates(const Rule (&table)[N], const GemmProblem& p,
                                      const DeviceCaps& caps) {
  const Case c(p, caps);
  std::vector<RuleCandidate> out;
  for (const Rule& r : table) {
    if (!r.applies(c)) continue;
    const std::string kernel = kernel_name(r.kernel, p.layout);
    if (std::none_of(out.begin(), out.end(),
                     [&](const RuleCandidate& x) { return x.kernel == kernel; }))
      out.push_back({kernel, r.name});
  }
  return out;
}

template <size_t N>
void append_rows(std::vector<RuleRow>& out, const char* scope, const Rule (&table)[N]) {
  for (const Rule& r : table) out.push_back({scope, r.name, r.kernel, r.when, r.why, r.report});
}

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
  return p.layout == Layout::tn ? candidates(kHgemmTn, p, caps)
                                : candidates(kHgemmOtherLayouts, p, caps);
}

std::vector<RuleCandidate> sgemm_candidates(const GemmProblem& p, const DeviceCaps& caps) {
  return candidates(kSgemm, p, caps);
}

std::vector<RuleCandidate> fp8gemm_candidates(const GemmProblem& p, const DeviceCaps& caps) {
  return candidates(kFp8, p, caps);
}

std::vector<RuleRow> fp8gemm_rule_rows() {
  std::vector<RuleRow> out;
  append_rows(out, "tn", kFp8);
  return out;
}

std::vector<RuleRow> hgemm_rule_rows() {
  std::vector<RuleRow> out;
  append_rows(out, "tn", kHgemmTn);
  append_rows(out, "nn,nt,tt", kHgemmOtherLayouts);
  return out;
}

std::vector<RuleRow> sgemm_rule_rows() {
  std::vector<RuleRow> out;
  append_rows(out, "any", kSgemm);
  return out;
}

}  // namespace gemmbench
