// mma.sync m16n8k16 accumulator fragments for both accumulate types, shared by hgemm_mma
// (rung 2) and the Ampere kernel (rungs 3-4). The fragment layout is ptx.cuh's: in thread lane
// (g = lane/4, t = lane%4) element i sits at (row g + 8*(i/2), col 2t + i%2) of the m16n8 tile
// (ampere_index.hpp's acc_coord).
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "common/convert.cuh"
#include "common/ptx.cuh"
#include "hgemm/ampere_index.hpp"

namespace gemmbench::hgemm {

// Accumulator fragment of one m16n8 tile, per accumulate type.
template <class AccT>
struct AccFrag;

template <>
struct AccFrag<float> {
  float v[4];  // c0..c3, (g|g+8, 2t|2t+1), f32
  __device__ __forceinline__ void clear() {
    for (float& x : v) x = 0.f;
  }
  __device__ __forceinline__ void mma(const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    ptx::mma_m16n8k16_f32(v, a, b);
  }
  __device__ __forceinline__ float element(int i) const { return v[i]; }
};

template <>
struct AccFrag<__half> {
  uint32_t v[2];  // {c0,c1}, {c2,c3} as f16x2, low = even col
  __device__ __forceinline__ void clear() { v[0] = v[1] = 0u; }
  __device__ __forceinline__ void mma(const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    ptx::mma_m16n8k16_f16(v, a, b);
  }
  __device__ __forceinline__ __half element(int i) const {
    return __ushort_as_half(static_cast<unsigned short>(v[i / 2] >> (16 * (i % 2))));
  }
};

// Walks a warp's accumulator fragments acc[mi][ni] (mi < MI, ni < NI; only ni in [ni_first,
// ni_last) when given, compile-time after unrolling): f(mi, ni, i, row, col) for element i of
// each, (row, col) its place in the warp's (16*MI, 8*NI) tile. The one walk behind every epilogue
// that reads accumulators element by element.
template <int MI, int NI, class F>
__device__ __forceinline__ void for_each_acc_element(int lane, F&& f, int ni_first = 0,
                                                     int ni_last = NI) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      if (ni < ni_first || ni >= ni_last) continue;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const RowCol rc = acc_coord(lane, i);
        f(mi, ni, i, mi * 16 + rc.row, ni * 8 + rc.col);
      }
    }
  }
}

__device__ __forceinline__ __half to_half(float x) {
  return __float2half_rn(x);
}
__device__ __forceinline__ __half to_half(__half x) {
  return x;
}

}  // namespace gemmbench::hgemm
