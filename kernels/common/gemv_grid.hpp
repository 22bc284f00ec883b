// The grids of the two GEMVs (common/gemv.cuh, hgemm/gemv_tc.cu): how many warps share one row
// (or one row group of the tensor-core GEMV). Plain C++: tests/host/test_gemv_grid.cpp checks
// both choices over many shapes and SM counts.
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

// The CTAs of a grid of `groups` rows (row groups), wpr warps each, cta_warps warps per CTA.
inline int64_t gemv_ctas(int64_t groups, int wpr, int cta_warps) {
  const int per_cta = cta_warps / wpr;
  return (groups + per_cta - 1) / per_cta;
}

}  // namespace gemmbench::gemv
