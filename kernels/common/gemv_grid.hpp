// The grids of the GEMVs (common/gemv.cuh, hgemm/gemv_tc.cu, fp8gemm/decode.cu): how many warps
// share one row (or one row group of the tensor-core GEMVs). Plain C++:
// tests/host/test_gemv_grid.cpp checks every choice over many shapes and SM counts.
#pragma once

#include <cstdint>

namespace gemmbench::gemv {

inline constexpr int kWarpsPerSm = 48;  // the grid's aim (96 with four chunks: also 1.095x)
inline constexpr int kMaxWarpsPerRow = 8;

// Warps per row: the fewest (1, 2, 4, ... max_wpr) that put about 48 warps per SM to work over
// `rows` rows (row groups in the tensor-core variant), and no more than a row has warp-wide
// strides for.
inline int warps_per_row(int64_t rows, int64_t strides, int sms, int max_wpr = kMaxWarpsPerRow) {
  const int64_t want = int64_t(sms) * kWarpsPerSm;
  int wpr = 1;
  while (wpr < max_wpr && rows * wpr < want && 2 * wpr <= strides) wpr *= 2;
  return wpr;
}

// Warps per row group when one CTA of `cta_warps` warps fits per SM (the tensor-core GEMV at 9-16
// tokens): the most (up to cta_warps) that keep the grid to one wave of CTAs and that the row
// group has strides for; 1 when even that is more than a wave.
inline int one_wave_warps_per_row(int64_t groups, int64_t strides, int sms, int cta_warps) {
  int wpr = cta_warps;
  while (wpr > 1 && ((groups * wpr + cta_warps - 1) / cta_warps > sms || 2 * wpr > strides))
    wpr /= 2;
  return wpr;
}

// Warps per row group sized by what is resident (the FP8 decode path, fp8gemm/decode.cu): of
// 1, 2, 4, ... max_wpr (at most half the strides, so that each warp has two), the one whose
// busiest warp walks the fewest strides one after the other, waves x ceil(strides / wpr) with
// waves = ceil(CTAs / resident_ctas); the fewest warps on a tie (fewer partial sums to add).
// The fixed aim of warps_per_row assumes three 16-warp CTAs per SM, which a kernel above 42
// registers does not get: its grid then ran 3-4 waves with the last one part idle.
inline int resident_warps_per_row(int64_t groups, int64_t strides, int64_t resident_ctas,
                                  int cta_warps, int max_wpr = kMaxWarpsPerRow * 2) {
  int best = 1;
  int64_t best_cost = -1;
  for (int wpr = 1; wpr <= max_wpr && wpr <= cta_warps && (wpr == 1 || 2 * wpr <= strides);
       wpr *= 2) {
    const int64_t ctas = (groups * wpr + cta_warps - 1) / cta_warps;
    const int64_t waves = (ctas + resident_ctas - 1) / resident_ctas;
    const int64_t cost = waves * ((strides + wpr - 1) / wpr);
    if (best_cost < 0 || cost < best_cost) best = wpr, best_cost = cost;
  }
  return best;
}

// The CTAs of a grid of `groups` rows (row groups), wpr warps each, cta_warps warps per CTA.
inline int64_t gemv_ctas(int64_t groups, int wpr, int cta_warps) {
  const int per_cta = cta_warps / wpr;
  return (groups + per_cta - 1) / per_cta;
}

}  // namespace gemmbench::gemv
