// The cp.async copy of one operand's k-tiles into the k-outer shared tiles of the pipelined SGEMM
// rungs (sgemm_pipelined, rung 8; sgemm_splitk, rung 9), and the step that starts one stage of
// both operands. Device code; included by those two rungs only.
#pragma once

#include <cstdint>

#include "common/ptx.cuh"

namespace gemmbench::sgemm {

// The cp.async copies of one operand's (ROWS,BK) k-tiles into k-outer shared tiles
// xs[k * LD + r], for one thread. X is op(A) (x = m) or op(B) read as (N,K) (x = n); X(x, k)
// sits at x * ld + k when K_MAJOR, else at x + k * ld.
//   K_MAJOR: 4-byte copies; a warp copies 8 consecutive k of 4 rows (four 32-byte sectors) and
//     writes them to banks (k * LD + r) % 32, all distinct because LD / 4 is odd: the
//     transposition is conflict-free. Warp w copies row groups w, w + WARPS, ... (one source
//     pointer each), every one of the row's BK / 8 blocks of 8 k.
//   M/N-contiguous and VEC: 16-byte copies of X(r..r+3, k), the thread keeps its float4 column.
//   M/N-contiguous, not VEC: 4-byte copies of X(r, k), the thread keeps its row.
//   In the last two the block covers PASS_K consecutive k per copy; where PASS_K > BK (the
//   narrow A tiles) only the threads whose first k is below BK copy.
// Rows past the extent are clamped to the last row (they feed only rows or columns of C that are
// never stored, but their addresses stay inside the tensor); the copies of a k-tile that crosses
// K test k (issue_partial: src-size 0 zero-fills k >= K, whose products would reach stored C).
template <int ROWS, int BK, int LD, int THREADS, bool K_MAJOR, bool VEC>
struct StageCopy {
  static constexpr bool WIDE = VEC && !K_MAJOR;
  static constexpr int WARPS = THREADS / 32;
  static constexpr int KB = BK / 8;                     // K_MAJOR: blocks of 8 k per row
  static constexpr int ROW_STEP = 4 * WARPS;            // K_MAJOR: rows between a warp's groups
  static constexpr int PER_K = WIDE ? ROWS / 4 : ROWS;  // M/N-contiguous: threads per k
  static constexpr int PASS_K = K_MAJOR ? 8 : THREADS / PER_K;
  static constexpr bool SOME_IDLE = !K_MAJOR && PASS_K > BK;
  static constexpr int POINTERS = K_MAJOR ? ROWS / ROW_STEP : 1;
  static constexpr int COPIES = K_MAJOR ? POINTERS * KB : (SOME_IDLE ? 1 : BK / PASS_K);
  static_assert(LD % 4 == 0 && (LD / 4) % 2 == 1,
                "LD must be 4 times an odd number of words: 16-byte aligned rows for LDS.128 and "
                "conflict-free transposing copies");
  static_assert(!K_MAJOR || (BK % 8 == 0 && ROWS % ROW_STEP == 0),
                "K-contiguous copies: a warp copies blocks of 8 k x 4 rows, so BK must be a "
                "multiple of 8 and 4 * warps must divide ROWS");
  static_assert(K_MAJOR || (THREADS % PER_K == 0 && (SOME_IDLE || BK % PASS_K == 0)),
                "M/N-contiguous copies: whole k-rows per pass, and passes that tile BK");

  __host__ __device__ static constexpr int dr(int i) { return K_MAJOR ? (i / KB) * ROW_STEP : 0; }
  __host__ __device__ static constexpr int dk(int i) { return K_MAJOR ? (i % KB) * 8 : i * PASS_K; }

  const float* src[POINTERS];  // the thread's first element of each row it copies, next k-tile
  int k0;                      // the thread's first k within a k-tile
  int smem;                    // k0 * LD + r0: the thread's first element within a stage

  // x0: the tile's first row; k_first: the first k this CTA reads (0 unless K is split).
  __device__ __forceinline__ StageCopy(const float* x, int64_t ld, int extent, int x0, int k_first,
                                       int tid) {
    int r0;
    if constexpr (K_MAJOR) {
      r0 = (tid / 32) * 4 + (tid % 32) / 8;
      k0 = tid % 8;
    } else {
      r0 = (tid % PER_K) * (WIDE ? 4 : 1);
      k0 = tid / PER_K;
    }
#pragma unroll
    for (int p = 0; p < POINTERS; ++p) {
      const int row = min(x0 + r0 + p * ROW_STEP, extent - (WIDE ? 4 : 1));
      const int64_t k = int64_t(k_first) + k0;
      src[p] = x + (K_MAJOR ? row * ld + k : row + k * ld);
    }
    smem = k0 * LD + r0;
  }

  __device__ __forceinline__ bool idle() const {
    return SOME_IDLE && k0 >= BK;
  }

  __device__ __forceinline__ const float* source(int i, int64_t ld) const {
    return src[K_MAJOR ? i / KB : 0] + (K_MAJOR ? dk(i) : dk(i) * ld);
  }

  __device__ __forceinline__ void advance(int64_t ld) {
#pragma unroll
    for (int p = 0; p < POINTERS; ++p) src[p] += K_MAJOR ? BK : BK * ld;
  }

  // Starts the copies of the next k-tile, all of whose k are below K, into the stage xs.
  __device__ __forceinline__ void issue_full(float* xs, int64_t ld) {
    if (idle()) return;
#pragma unroll
    for (int i = 0; i < COPIES; ++i) {
      float* dst = xs + smem + dk(i) * LD + dr(i);
      if constexpr (WIDE)
        ptx::cp_async_16(dst, source(i, ld));
      else
        ptx::cp_async_4(dst, source(i, ld));
    }
    advance(ld);
  }

  // Starts the copies of the k-tile that crosses K, of which only k < k_left (< BK) exist; the
  // others are zero-filled (src-size 0, with the tensor's base pointer x as a valid dummy).
  __device__ __forceinline__ void issue_partial(float* xs, const float* x, int64_t ld, int k_left) {
    if (idle()) return;
#pragma unroll
    for (int i = 0; i < COPIES; ++i) {
      const bool in = k0 + dk(i) < k_left;
      float* dst = xs + smem + dk(i) * LD + dr(i);
      const float* from = in ? source(i, ld) : x;
      if constexpr (WIDE)
        ptx::cp_async_16(dst, from, in ? 16 : 0);
      else
        ptx::cp_async_4(dst, from, in ? 4 : 0);
    }
    advance(ld);
  }
};

// Starts the copies of k-tile t of both operands into one stage, if the tile exists (t < count):
// the first `full` k-tiles lie wholly below K, the next one crosses it with k_left (< BK) of its
// k below K. Tiles are copied in order (each copy advances its source pointers).
template <class ACopy, class BCopy>
__device__ __forceinline__ void copy_stage(int t, int full, int count, int k_left, ACopy& a_copy,
                                           BCopy& b_copy, float* as, float* bs, const float* A,
                                           int64_t lda, const float* B, int64_t ldb) {
  if (t < full) {
    a_copy.issue_full(as, lda);
    b_copy.issue_full(bs, ldb);
  } else if (t < count) {
    a_copy.issue_partial(as, A, lda, k_left);
    b_copy.issue_partial(bs, B, ldb, k_left);
  }
}

}  // namespace gemmbench::sgemm
