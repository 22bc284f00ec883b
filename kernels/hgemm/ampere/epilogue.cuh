// The Ampere family's two epilogues. epilogue_tile (one CTA per tile) stages the accumulators in
// the pipeline's shared memory, in as few passes as fit, and computes D = alpha*acc + beta*C in
// float. epilogue_persistent stages D as f16 in a buffer of its own (the pipeline's stages hold
// the next tile's k-tiles) and issues 16-byte stores that drain under the next tile's mma.
// Both store C along M in 16-byte pieces, writing only what the CTA owns (TilePlace).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "common/ptx.cuh"
#include "hgemm/ampere/config.cuh"
#include "hgemm/ampere/mainloop.cuh"
#include "hgemm/fragments.cuh"

namespace gemmbench::hgemm {

// ================================ EPILOGUE ================================
// One CTA per tile: stage the accumulators through shared memory (reusing the pipeline's), then
// write C along M in 16-byte pieces: D = alpha * acc + beta * C in float, C read only when
// beta != 0. Only empty groups (or zero-filled copies of tiles past K) can be pending, but leave
// none behind: the staging tile below overwrites the stages.
template <class K, class Acc>
__device__ __forceinline__ void epilogue_tile(const AmpereParams& p, const Acc& acc,
                                              unsigned char* smem, const TilePlace& t,
                                              const ThreadPlace& th) {
  using AccT = typename K::Acc;
  constexpr int BM = K::BM, WM = K::WM, MI = K::MI, NI = K::NI, THREADS = K::THREADS;
  const int tid = th.tid, lane = th.lane, wm = th.wm, wn = th.wn;
  const int m0 = t.m0, n0 = t.n0, mt = t.mt, nt = t.nt;
  ptx::cp_async_wait<0>();
  __syncthreads();                            // every warp is done with the pipeline stages
  AccT* s_c = reinterpret_cast<AccT*>(smem);  // (BM,SC) col-major, ld = Stage::kLd
  // 16-byte C pieces are aligned (mt too is then a multiple of 8) and wholly inside or outside
  // both the matrix and the rows this CTA owns.
  const bool c_vec = p.m % 8 == 0;
#pragma unroll
  for (int pass = 0; pass < K::PASSES; ++pass) {
    constexpr int NIP = NI / K::PASSES;
    for_each_acc_element<MI, NI>(
        lane,
        [&](int mi, int ni, int i, int wrow, int wcol) {
          s_c[K::Stage::staged_col(wn, wcol) * K::Stage::kLd + wm * WM + wrow] =
              acc[mi][ni].element(i);
        },
        pass * NIP, (pass + 1) * NIP);
    __syncthreads();
#pragma unroll
    for (int it = 0; it < K::STORE_ITERS; ++it) {
      const int id = it * THREADS + tid;
      const int mc = id % (BM / 8);
      const int sc = id / (BM / 8);
      const int m = mt + mc * 8;
      const int n = nt + K::Stage::cta_col(sc, pass);
      // Columns and whole pieces of rows the CTA does not own (computed for a shifted edge tile)
      // or outside the matrix are left alone.
      if (n < n0 || n >= p.n || m + 8 <= m0 || m >= p.m) continue;
      const AccT* src = s_c + sc * K::Stage::kLd + mc * 8;  // (8) staged accumulators along M
      float v[8];                                           // (8) alpha*acc [+ beta*C] along M
      if constexpr (sizeof(AccT) == 4) {
        const float4 lo = *reinterpret_cast<const float4*>(src);
        const float4 hi = *reinterpret_cast<const float4*>(src + 4);
        v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w;
        v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
      } else {
        const uint4 raw = *reinterpret_cast<const uint4*>(src);
        const __half* h = reinterpret_cast<const __half*>(&raw);
#pragma unroll
        for (int e = 0; e < 8; ++e) v[e] = __half2float(h[e]);
      }
#pragma unroll
      for (int e = 0; e < 8; ++e) v[e] *= p.alpha;
      __half* dst = p.c + int64_t(n) * p.m + m;  // (8) C(m..m+7, n), M contiguous
      if (c_vec) {
        if (p.beta != 0.f) {
          const uint4 old = *reinterpret_cast<const uint4*>(dst);
          const __half* h = reinterpret_cast<const __half*>(&old);
#pragma unroll
          for (int e = 0; e < 8; ++e) v[e] = fmaf(p.beta, __half2float(h[e]), v[e]);
        }
        uint4 out;
        __half2* o = reinterpret_cast<__half2*>(&out);
#pragma unroll
        for (int e = 0; e < 4; ++e) o[e] = __floats2half2_rn(v[2 * e], v[2 * e + 1]);
        *reinterpret_cast<uint4*>(dst) = out;
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          if (m + e >= m0 && m + e < p.m) {
            const float r = p.beta != 0.f ? fmaf(p.beta, __half2float(dst[e]), v[e]) : v[e];
            dst[e] = __float2half_rn(r);
          }
        }
      }
    }
    if (pass + 1 < K::PASSES) __syncthreads();  // the next pass overwrites the staging tile
  }
}

// ================================ EPILOGUE ================================
// Persistent: D staged as f16 (the last reads of s_d, the previous tile's stores, were followed
// by the mainloop's barriers), a barrier, and the stores; each accumulator is cleared once
// staged, for the next tile. With alpha = 1 and beta = 0, D is the accumulator rounded to f16
// once, as the general path rounds 1 * acc, so that case skips the float round trip (f16
// accumulators are stored as they are): bit for bit the same D, a third of the epilogue's
// instructions.
template <class K, class Acc>
__device__ __forceinline__ void epilogue_persistent(const AmpereParams& p, Acc& acc, __half* s_d,
                                                    const TilePlace& t, const ThreadPlace& th) {
  using Cfg = typename K::Config;
  constexpr int BM = K::BM, WM = K::WM, WN = K::WN, MI = K::MI, NI = K::NI;
  constexpr int THREADS = K::THREADS;
  const int tid = th.tid, lane = th.lane, wm = th.wm, wn = th.wn;
  const int m0 = t.m0, n0 = t.n0, mt = t.mt, nt = t.nt;
  const auto stage_tile = [&](auto plain) {
    for_each_acc_element<MI, NI>(lane, [&](int mi, int ni, int i, int wrow, int wcol) {
      const int row = wm * WM + wrow;  // within the computed tile
      const int col = wn * WN + wcol;
      __half d;
      if constexpr (decltype(plain)::value) {
        d = to_half(acc[mi][ni].element(i));
      } else {
        float v = p.alpha * to_f32(acc[mi][ni].element(i));
        if (p.beta != 0.f) {
          v = fmaf(p.beta, __half2float(p.c[int64_t(nt + col) * p.m + mt + row]), v);
        }
        d = __float2half_rn(v);
      }
      s_d[col * Cfg::LD_D + row] = d;
      if (i == 3) acc[mi][ni].clear();  // the fragment is staged: the next tile's starts
    });
  };
  if (p.alpha == 1.f && p.beta == 0.f) {
    stage_tile(std::true_type{});
  } else {
    stage_tile(std::false_type{});
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < K::STORE_PIECES; ++j) {
    const int id = j * THREADS + tid;
    const int mc = id % (BM / 8);
    const int sc = id / (BM / 8);
    const int m = mt + mc * 8;  // a multiple of 8 (M % 8 == 0): wholly owned or not
    const int n = nt + sc;
    const uint4 v = *reinterpret_cast<const uint4*>(s_d + sc * Cfg::LD_D + mc * 8);  // (8) D
    if (n >= n0 && m >= m0) {  // owned (the shifted edge tile's other rows/columns not)
      *reinterpret_cast<uint4*>(p.c + int64_t(n) * p.m + m) = v;  // (8) C(m..m+7, n)
    }
  }
}

}  // namespace gemmbench::hgemm
