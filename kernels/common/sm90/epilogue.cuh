// Epilogues of the Hopper kernel, per consumer warpgroup and its (64 GEMM-N, BM GEMM-M) tile:
//   - the deferred TMA-store epilogue (when beta == 0, M % 8 == 0 and C is 16-byte aligned):
//     pack_tile right after the tile's mainloop, then store_packed_box box by box during the
//     next tile's first k-blocks (stmatrix into a 128B-swizzled staging box, one TMA store each);
//   - the register epilogue (any other case): store_tile_registers, alpha/beta applied in f32, a
//     quad transpose and 16-byte (or clipped 2-byte) stores straight from the fragment.
// Sm90Epilogue, at the end, is what the kernel calls: it picks one of them per tile and holds the
// deferred tile's packed outputs.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/sm90.cuh"
#include "common/static_for.cuh"
#include "common/sm90/schedule.hpp"

namespace gemmbench {

#if GEMMBENCH_SM90A  // device code of the sm_90a kernel body only

// ---- Epilogue helpers ---------------------------------------------------------------------
template <class T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  uint32_t u;
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    memcpy(&u, &h, 4);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    memcpy(&u, &h, 4);
  }
  return u;
}
template <class T>
__device__ __forceinline__ float2 unpack2(uint32_t u) {
  if constexpr (std::is_same_v<T, __half>) {
    __half2 h;
    memcpy(&h, &u, 4);
    return __half22float2(h);
  } else {
    __nv_bfloat162 h;
    memcpy(&h, &u, 4);
    return __bfloat1622float2(h);
  }
}

// The 4 lanes of a quad (q = lane % 4) hold v[c] = X[q][c]; afterwards lane q holds
// v[c] = X[c][q]. Two butterfly steps, each swapping one bit of (lane, index) between lanes
// q and q ^ bit: 4 shuffles, selects with compile-time indices only (no local memory). All 32
// lanes must execute it. The transpose is its own inverse.
__device__ __forceinline__ void quad_transpose(uint32_t (&v)[4], int q) {
  const bool odd = q & 1;  // step 1: partner q ^ 1 trades index bit 0, for index bit 1 = k
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const uint32_t send = odd ? v[2 * k] : v[2 * k + 1];
    const uint32_t recv = __shfl_xor_sync(0xffffffffu, send, 1);
    if (odd)
      v[2 * k] = recv;
    else
      v[2 * k + 1] = recv;
  }
  const bool high = q & 2;  // step 2: partner q ^ 2 trades index bit 1, for index bit 0 = k
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const uint32_t send = high ? v[k] : v[2 + k];
    const uint32_t recv = __shfl_xor_sync(0xffffffffu, send, 2);
    if (high)
      v[k] = recv;
    else
      v[2 + k] = recv;
  }
}

// 8 consecutive 16-bit C elements at p (one chunk along M), `valid` (1..8) of them in bounds;
// v[i] packs elements 2i (low half) and 2i + 1. vec: p is 16-byte aligned and valid == 8.
__device__ __forceinline__ void load_chunk(const uint16_t* p, int valid, bool vec,
                                           uint32_t (&v)[4]) {
  if (vec) {
    const uint4 x = *reinterpret_cast<const uint4*>(p);
    v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
    return;
  }
#pragma unroll
  for (int e = 0; e < 8; ++e)
    if (e < valid) v[e / 2] |= uint32_t(p[e]) << (16 * (e % 2));
}
__device__ __forceinline__ void store_chunk(uint16_t* p, int valid, bool vec,
                                            const uint32_t (&v)[4]) {
  if (vec) {
    *reinterpret_cast<uint4*>(p) = make_uint4(v[0], v[1], v[2], v[3]);
    return;
  }
#pragma unroll
  for (int e = 0; e < 8; ++e)
    if (e < valid) p[e] = uint16_t(v[e / 2] >> (16 * (e % 2)));
}

// ---- TMA-store epilogue ---------------------------------------------------------------------
// The packed output pair of accumulator 8x8 block (j, h) (fragment layout: see
// wgmma_m64k16_f32): C(m0 + 8j + 2q + {0,1}, n0 + 16w + 8h + g), scaled by alpha when SCALE.
template <class T, bool F16_ACCUM, bool SCALE, class AccReg, int ACC_REGS>
__device__ __forceinline__ uint32_t out_pair(const AccReg (&acc)[ACC_REGS], int j, int h,
                                             float alpha) {
  if constexpr (F16_ACCUM) {
    if constexpr (!SCALE) return acc[2 * j + h];  // already two halves (T is __half)
    const float2 v = unpack2<__half>(acc[2 * j + h]);
    return pack2<T>(v.x * alpha, v.y * alpha);
  } else {
    float x = acc[4 * j + 2 * h], y = acc[4 * j + 2 * h + 1];
    if constexpr (SCALE) x *= alpha, y *= alpha;
    return pack2<T>(x, y);
  }
}

// One consumer warpgroup's (64 GEMM-N, BM GEMM-M) tile, cut into BM/64 boxes of 64x64: box s is
// written into staging buffer s % EPI_BUFS with stmatrix, and thread 0 stores it with one TMA
// copy (clipped to C's bounds by the copy engine). Boxes starting past M are skipped (uniform over
// the warpgroup).
// Staging box layout (what the C tensor map's SWIZZLE_128B box expects): row r = GEMM n0 + r,
// 128 bytes = 64 consecutive m; 16-byte chunk c of row r at chunk c ^ (r % 8). Fragment block
// (j, h) is an 8x8 matrix whose row g is n = 16w + 8h + g and whose 8 columns are m = 8j .. 8j+7
// (one chunk, j % 8): one stmatrix matrix. stmatrix.x4 number p of box s takes blocks
// (8s + 2p + i/2, h = i%2), i = 0..3; lane L addresses row L%8 of matrix L/8.
// Buffer reuse: a buffer is written only after a barrier that follows thread 0's wait for the
// store that last read it: the tile's first barrier (after waiting for every store of the
// previous tile, long done), then the barrier of box s - 1, whose wait covers box s - E (E =
// EPI_BUFS), the last user of buffer s % E: when box s - 1 is issued, boxes up to s - 2 are
// pending, so "at most E - 2 pending" means box s - E has been read. With E >= BM/64 no box of a
// tile reuses a buffer of the same tile and the in-tile waits vanish; with E = 2 the last box
// needs none either (the next tile's first wait covers it). With E = 1 (three consumers) every
// box starts as box 0 does: wait for every earlier store, then the barrier.
//
// Box S of the tile: its 16 packed output pairs v[4p + i] = out_pair(8S + 2p + i/2, i%2) go to
// staging buffer S % EPI_BUFS, and thread 0 stores the box. Box 0 first waits for the
// previous tile's stores to have read their buffers. Returns at once (uniformly) for a box that
// starts past M.
template <int S, int BOXES, int EPI_BUFS>
__device__ __forceinline__ void store_box_tma(const uint32_t (&v)[16], const CUtensorMap* tmap_c,
                                              uint32_t s_epi_wg, uint32_t buf_bytes, int m0, int n0,
                                              int M, int warp, int lane, int wg_thread,
                                              uint32_t bar_id) {
  if constexpr (S == 0 || EPI_BUFS == 1) {
    // The previous tile's boxes (one buffer: also this tile's previous box).
    if (wg_thread == 0) sm90::bulk_wait_group_read<0>();
    sm90::named_barrier_sync(bar_id, 128);
  }
  const int m_s = m0 + 64 * S;
  if (m_s >= M) return;
  // This lane's stmatrix row address inside a box: row 16*warp + 8*(matrix % 2) + lane % 8.
  const uint32_t row = 16 * warp + 8 * ((lane >> 3) & 1) + (lane & 7);
  const uint32_t r8 = lane & 7;                                // row % 8: the swizzle phase
  const uint32_t buf = s_epi_wg + (S % EPI_BUFS) * buf_bytes;  // (64, 64) box, SW128
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const uint32_t chunk = 2 * p + (lane >> 4);  // j % 8 of this lane's matrix
    sm90::stmatrix_x4(buf + row * 128 + ((chunk ^ r8) << 4), v[4 * p], v[4 * p + 1], v[4 * p + 2],
                      v[4 * p + 3]);
  }
  sm90::fence_proxy_async_shared();  // the copy engine reads what stmatrix wrote
  // Box S + 1 goes to the buffer box S + 1 - E used: wait for that store to have read it.
  if constexpr (EPI_BUFS >= 2)
    if (S + 1 < BOXES && S + 1 >= EPI_BUFS && wg_thread == 0)
      sm90::bulk_wait_group_read<EPI_BUFS - 2>();
  sm90::named_barrier_sync(bar_id, 128);
  if (wg_thread == 0) {
    sm90::tma_store_2d(tmap_c, buf, m_s, n0);
    sm90::bulk_commit_group();
  }
}

// Deferred epilogue: the tile's outputs are packed to 16-bit pairs
// (BM/4 registers, 64 for BM = 256) as soon as its last wgmma completes, which frees the
// accumulators for the next tile; box s is then stored right after the next tile's k-block s
// has been issued, while the tensor cores run it, instead of with the tensor cores idle.
template <class T, bool F16_ACCUM, bool SCALE, class AccReg, int ACC_REGS, int P>
__device__ __forceinline__ void pack_tile(const AccReg (&acc)[ACC_REGS], float alpha,
                                          uint32_t (&packed)[P]) {
#pragma unroll
  for (int i = 0; i < P; ++i) packed[i] = out_pair<T, F16_ACCUM, SCALE>(acc, i / 2, i % 2, alpha);
}
template <int S, int BOXES, int EPI_BUFS, int P>
__device__ __forceinline__ void store_packed_box(const uint32_t (&packed)[P],
                                                 const CUtensorMap* tmap_c, uint32_t s_epi_wg,
                                                 uint32_t buf_bytes, int m0, int n0, int M,
                                                 int warp, int lane, int wg_thread,
                                                 uint32_t bar_id) {
  static_assert(P == 16 * BOXES, "16 packed pairs per 64x64 box");
  store_box_tma<S, BOXES, EPI_BUFS>(*reinterpret_cast<const uint32_t(*)[16]>(&packed[16 * S]),
                                    tmap_c, s_epi_wg, buf_bytes, m0, n0, M, warp, lane, wg_thread,
                                    bar_id);
}

// The fragment's pair (chunk j, h) in f32, times alpha: C(m0 + 8j + 2q + {0,1}, n).
template <bool F16_ACCUM, class AccReg, int ACC_REGS>
__device__ __forceinline__ float2 scaled_pair(const AccReg (&acc)[ACC_REGS], int j, int h,
                                              float alpha) {
  float2 v;
  if constexpr (F16_ACCUM)
    v = unpack2<__half>(acc[2 * j + h]);
  else
    v = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
  v.x *= alpha, v.y *= alpha;
  return v;
}

// Register epilogue: C = alpha * acc + beta * C straight from
// the fragment (any M, beta, C). Thread (warp, g, q) holds,
// for h in {0,1} and chunk j < BM/8, C(m, n) at n = n0 + 8h,
// m = m0 + 8j + 2q + {0,1}. For each quad of chunks 4J..4J+3
// the quad transpose leaves lane q with chunk 4J + q whole: 8
// consecutive m, one 16-byte store; chunks past the last whole
// quad (BM = 24, 40, 48, 56) are stored pair by pair. n_row: this thread's
// GEMM-N row for h = 0 (n0 + 16 * warp + g); m_tile0: the
// tile's first m.
template <class T, bool F16_ACCUM, int BM, class AccReg, int ACC_REGS>
__device__ __forceinline__ void store_tile_registers(const AccReg (&acc)[ACC_REGS],
                                                     T* __restrict__ c, int M, int N, int n_row,
                                                     int m_tile0, int q, bool vec, float alpha,
                                                     float beta) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int n = n_row + 8 * h;
    const bool row_ok = n < N;
    uint16_t* col =  // (M) column n of C, as raw 16-bit elements
        reinterpret_cast<uint16_t*>(c) + (row_ok ? size_t(n) * size_t(M) : 0);
#pragma unroll
    for (int J = 0; J < BM / 32; ++J) {
      const int m = m_tile0 + 8 * (4 * J + q);  // this lane's chunk after the transpose
      const int valid = row_ok ? min(M - m, 8) : 0;
      uint32_t c_old[4] = {0u, 0u, 0u, 0u};  // (8) C along m, 2 per register
      if (beta != 0.f) {                     // uniform: BLAS semantics, C is not
                                             // read when beta == 0
        if (valid > 0) load_chunk(col + m, valid, vec, c_old);
        quad_transpose(c_old,
                       q);  // back to the fragment's pairs
      }
      uint32_t out[4];  // (4 chunks, 2) fragment pairs, then
                        // (8) along m after the transpose
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        float2 v = scaled_pair<F16_ACCUM>(acc, 4 * J + i, h, alpha);  // chunk 4J + i
        if (beta != 0.f) {
          const float2 o = unpack2<T>(c_old[i]);
          v.x += beta * o.x, v.y += beta * o.y;
        }
        out[i] = pack2<T>(v.x, v.y);
      }
      quad_transpose(out, q);
      if (valid > 0) store_chunk(col + m, valid, vec, out);
    }
    // A last part quad (BM % 32 == 8 .. 24: the FP8 decode path's fitted token tiles): each chunk
    // stored pair by pair from the fragment, m = m0 + 8j + 2q + {0,1}, 4 bytes where both lie
    // inside M and C is aligned (vec: every column start 16-byte aligned, m even), else 2.
#pragma unroll
    for (int j = BM / 32 * 4; j < BM / 8; ++j) {
      const int m = m_tile0 + 8 * j + 2 * q;
      const int valid = row_ok ? min(M - m, 2) : 0;
      float2 v = scaled_pair<F16_ACCUM>(acc, j, h, alpha);
      const bool pair = valid == 2 && vec;
      if (beta != 0.f && valid > 0) {
        const uint32_t o = pair ? *reinterpret_cast<const uint32_t*>(col + m)
                                : uint32_t(col[m]) | (valid > 1 ? uint32_t(col[m + 1]) << 16 : 0u);
        const float2 of = unpack2<T>(o);
        v.x += beta * of.x, v.y += beta * of.y;
      }
      const uint32_t out = pack2<T>(v.x, v.y);
      if (pair) {
        *reinterpret_cast<uint32_t*>(col + m) = out;
      } else {
        if (valid > 0) col[m] = uint16_t(out);
        if (valid > 1) col[m + 1] = uint16_t(out >> 16);
      }
    }
  }
}

// ---- A consumer warpgroup's epilogue, tile after tile ----------------------------------------
// store() takes each finished tile: with the TMA store (sched.c_tma) it packs the tile and, where
// Cfg::DEFER, keeps it pending until store_pending_box() stores it box by box between the next
// tile's first k-blocks (drain() stores the last one); three consumers store it at once. Otherwise
// the register epilogue stores it straight from the accumulators.
template <class T, bool F16_ACCUM, class Cfg, bool CSPLIT>
struct Sm90Epilogue {
  static constexpr int BM = Cfg::BM, BN = Cfg::BN;
  static constexpr int BOXES = BM / 64;  // 64x64 TMA-store boxes per warpgroup tile

  // The kernel's parameters and the deferred tile's state are the kernel's own, held by
  // reference: its code generation then matches the single-body kernel this was split from
  // (copies in this struct came out with other SASS: the beta != 0 branch no longer unswitched).
  const CUtensorMap* tmap_c;  // C (M,N) m-major, box (64, 64), SW128; valid only when sched.c_tma
  T* __restrict__ const& c;   // C (M,N) column-major
  const int& M;
  const int& N;
  const float& alpha;
  const float& beta;
  uint32_t s_epi_own;  // (EPI_BUFS, 64, 64) SW128 staging boxes of this warpgroup
  int consumer, warp, lane, q, wg_thread;
  uint32_t wg_bar;  // named barrier of this warpgroup alone
  int n_in_tile;    // this thread's GEMM-N row (h = 0) within the CTA's BN
  bool vec;         // 16-byte C accesses: every column start (n*M) and the base 16-byte aligned
  // The tile's outputs, packed (deferred epilogue: the previous tile's), and where they go.
  uint32_t (&packed)[BM / 4];  // (BM/4) output pairs, f16/bf16 x 2
  bool& pending;
  int& pending_m0;
  int& pending_n0;

  template <int BOX>
  __device__ __forceinline__ void store_box(int m0, int n0) {
    store_packed_box<BOX, BOXES, Cfg::EPI_BUFS>(packed, tmap_c, s_epi_own, Cfg::EPI_BUF_BYTES, m0,
                                                n0, M, warp, lane, wg_thread, wg_bar);
  }
  // Box BOX of the pending tile, if one is pending.
  template <int BOX>
  __device__ __forceinline__ void store_pending_box() {
    if (pending) store_box<BOX>(pending_m0, pending_n0);
  }

  // The tile (m_tile, n_tile) in units of (BM, BN), whole in acc.
  template <class AccReg, int ACC_REGS>
  __device__ __forceinline__ void store(const AccReg (&acc)[ACC_REGS], int m_tile, int n_tile,
                                        const Sm90Schedule& sched) {
    // The padding N tile of an odd tiles_n (cluster runs only) stores nothing, nor an M tile
    // of a cluster along M that lies past M.
    const int m_tile0 = m_tile * BM;
    if (n_tile >= sched.tiles_n || m_tile0 >= M) return;
    // sched.c_tma is uniform: beta == 0, M % 8 == 0, C 16-byte aligned.
    if (Cfg::TMA_STORE && !CSPLIT && sched.c_tma) {
      const int n0 = n_tile * BN + consumer * Cfg::WG_N;
      if (n0 >= N) return;  // this warpgroup's rows are all past N
      // Packed now; stored during the next tile's first k-blocks, or at once (three consumers).
      if (alpha == 1.f)
        pack_tile<T, F16_ACCUM, false>(acc, alpha, packed);
      else
        pack_tile<T, F16_ACCUM, true>(acc, alpha, packed);
      if constexpr (Cfg::DEFER) {
        pending = true, pending_m0 = m_tile0, pending_n0 = n0;
      } else {
        static_for<BOXES>([&](auto box) { store_box<decltype(box)::value>(m_tile0, n0); });
      }
      return;
    }
    // A PARTIAL tile's rows end at BN: past it, rows of wgmma's last 64 that were never loaded.
    const int n_end = Cfg::PARTIAL ? min(N, (n_tile + 1) * BN) : N;
    store_tile_registers<T, F16_ACCUM, BM>(acc, c, M, n_end, n_tile * BN + n_in_tile, m_tile0, q,
                                           vec, alpha, beta);
  }

  // After the last tile: its pending boxes, then the wait for the TMA stores' shared-memory reads
  // (the CTA may not exit before them; the global writes complete by the kernel's end).
  __device__ __forceinline__ void drain() {
    if (pending)
      static_for<BOXES>([&](auto box) { store_box<decltype(box)::value>(pending_m0, pending_n0); });
    if (wg_thread == 0) sm90::bulk_wait_group_read<0>();
  }
};

#endif  // GEMMBENCH_SM90A

}  // namespace gemmbench
