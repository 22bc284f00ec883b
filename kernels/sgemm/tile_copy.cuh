// Device pieces the SGEMM rungs share: the global->shared tile copy (rungs 3-7; its 128-bit path
// and the float4 fragment unpack from rung 6 on), the launcher's test for the 128-bit path, and
// the thread-tile epilogue (rungs 6-8). The host side is in sgemm/launch.cuh.
#pragma once

#include <cstdint>

#include "common/align.hpp"
#include "core/registry.hpp"

namespace gemmbench::sgemm {

// Copies the (ROWS,BK) block of an operand X that starts at (x0, k0) into the k-outer shared
// tile xs[k * LD + r], zero-filling what lies outside (extent, K), so the inner loop needs no
// bounds checks. X is op(A) (x = m) or op(B) read as (N,K) (x = n); X(x, k) sits at x * ld + k
// when K_MAJOR, else at x + k * ld. Consecutive threads take consecutive addresses of the
// contiguous dimension, so a warp's loads coalesce in every layout; whether the transposing
// stores of a K_MAJOR operand are free of bank conflicts depends on LD (each rung says why its
// LD is). VEC: one float4 per copy along the contiguous dimension. Requires the contiguous extent
// and ld to be multiples of 4 and x to be 16-byte aligned, so that (x0 + r, k0 + k) in range means
// the whole float4 is. Otherwise one float per copy.
template <int ROWS, int BK, int LD, int THREADS, bool K_MAJOR, bool VEC>
__device__ __forceinline__ void load_tile(const float* __restrict__ x, int64_t ld, int extent,
                                          int K, int x0, int k0, float* xs, int tid) {
  if constexpr (!VEC) {
    static_assert(ROWS * BK % THREADS == 0, "every thread copies the same number of elements");
#pragma unroll
    for (int i = 0; i < ROWS * BK / THREADS; ++i) {
      const int e = tid + i * THREADS;
      const int r = K_MAJOR ? e / BK : e % ROWS;
      const int k = K_MAJOR ? e % BK : e / ROWS;
      const int gx = x0 + r;
      const int gk = k0 + k;
      float v = 0.f;
      if (gx < extent && gk < K) v = x[K_MAJOR ? gx * ld + gk : gx + gk * ld];
      xs[k * LD + r] = v;
    }
  } else {
    constexpr int CHUNKS = ROWS * BK / 4;  // float4s in the tile
    static_assert(CHUNKS % THREADS == 0, "every thread copies the same number of float4s");
#pragma unroll
    for (int i = 0; i < CHUNKS / THREADS; ++i) {
      const int c = tid + i * THREADS;
      if constexpr (K_MAJOR) {
        // float4 = X(r, k..k+3); a warp reads 16 rows x 32 bytes (whole sectors).
        const int r = c / (BK / 4);
        const int k = (c % (BK / 4)) * 4;
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (x0 + r < extent && k0 + k < K)
          v = *reinterpret_cast<const float4*>(x + (x0 + r) * ld + (k0 + k));
        // The transposed store: 4 k-values of column r go down 4 rows of the tile.
        xs[(k + 0) * LD + r] = v.x;
        xs[(k + 1) * LD + r] = v.y;
        xs[(k + 2) * LD + r] = v.z;
        xs[(k + 3) * LD + r] = v.w;
      } else {
        // float4 = X(r..r+3, k); a warp reads 512 contiguous bytes of one k.
        const int r = (c % (ROWS / 4)) * 4;
        const int k = c / (ROWS / 4);
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (x0 + r < extent && k0 + k < K)
          v = *reinterpret_cast<const float4*>(x + (x0 + r) + (k0 + k) * ld);
        *reinterpret_cast<float4*>(xs + k * LD + r) = v;
      }
    }
  }
}

// One LDS.128 into four fragment registers.
__device__ __forceinline__ void unpack(float4 v, float* dst) {
  dst[0] = v.x;
  dst[1] = v.y;
  dst[2] = v.z;
  dst[3] = v.w;
}

// The 128-bit path needs every leading dimension to be a multiple of 4 floats and 16-byte
// aligned base pointers (see the header).
inline bool can_vectorize(const GemmArgs& args) {
  const GemmProblem& p = args.problem;
  return p.lda() % 4 == 0 && p.ldb() % 4 == 0 && p.ldc() % 4 == 0 && aligned16(args.a) &&
         aligned16(args.b) && aligned16(args.c);
}

// EPILOGUE of rungs 6-8 (LM = LN = 1 for rung 6's contiguous thread tile): the thread tile
// acc[TM][TN] is (TM/4) x (TN/4) 4x4 sub-tiles, LM*4 rows and LN*4 columns apart, starting at
// C(m_first, n_first). For each column the LM lanes along M store LM consecutive float4s (VEC: M,
// ldc multiples of 4, C 16-byte aligned) or scalars with bounds checks; beta == 0 never reads C (it
// may hold NaN).
template <int TM, int TN, int LM, int LN, bool VEC>
__device__ __forceinline__ void store_warp_tile(const float (&acc)[TM][TN], float* __restrict__ C,
                                                int64_t ldc, int M, int N, int m_first, int n_first,
                                                float alpha, float beta) {
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const int n = n_first + (j / 4) * LN * 4 + j % 4;
    if (n >= N) continue;
#pragma unroll
    for (int q = 0; q < TM / 4; ++q) {
      const int m = m_first + q * LM * 4;  // first of 4 consecutive rows
      if constexpr (VEC) {
        if (m >= M) continue;  // M % 4 == 0: the float4 is wholly in or out
        float4* c = reinterpret_cast<float4*>(C + m + n * ldc);
        float4 r = make_float4(alpha * acc[4 * q][j], alpha * acc[4 * q + 1][j],
                               alpha * acc[4 * q + 2][j], alpha * acc[4 * q + 3][j]);
        if (beta != 0.f) {  // beta == 0 must not read C (it may hold NaN)
          const float4 old = *c;
          r.x += beta * old.x;
          r.y += beta * old.y;
          r.z += beta * old.z;
          r.w += beta * old.w;
        }
        *c = r;
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          if (m + i >= M) break;
          float* c = C + (m + i) + n * ldc;
          const float v = alpha * acc[4 * q + i][j];
          *c = beta == 0.f ? v : v + beta * *c;
        }
      }
    }
  }
}

}  // namespace gemmbench::sgemm
