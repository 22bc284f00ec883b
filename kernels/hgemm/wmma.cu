// hgemm_wmma — HGEMM ladder, rung 1: the simplest tensor-core kernel.
//
// Each warp computes a 32x32 piece of C with the WMMA API (nvcuda::wmma, 16x16x16 fragments):
// the CTA stages a 64x32 tile of op(A) and a 32x64 tile of op(B) in shared memory with plain
// element loads, then every warp loads wmma fragments from there and issues mma_sync. Moving
// the inner product from FMA units (the SGEMM ladder) to tensor cores is the whole step: one
// mma_sync does 4096 multiply-adds. What it leaves on the table is what the next rungs take:
// the loads are scalar and synchronous (no overlap of memory and math), and wmma hides the
// fragment layout, so the operands cannot be fed with ldmatrix or swizzled (rung 2, rung 3).
// Shared tiles keep the operand's own contiguous dimension (wmma row_major/col_major), so all
// four layouts are supported with coalesced global loads; rows are padded by 16 bytes.
//
// Tile: BM x BN x BK = 64 x 64 x 32 per CTA, 2x2 warps of 32x32 (2x2 wmma 16x16x16 each),
// 128 threads, static shared memory (A and B tiles, reused for the C staging tile).
// Constraints: none (any M, N, K >= 1, any layout, any alpha/beta); edges are zero-filled on
// load and guarded on store.
// Measured on an H100 80GB HBM3, 2026-11-22, TN 5120x4096x4096, cold L2, from
// bench_results/h100/2026-11-22_hgemm_ladder.json.gz: f16 accumulate 51.9 TFLOP/s (0.075x cuBLAS
// COMPUTE_16F), f32 accumulate 48.9 (0.065x cuBLAS COMPUTE_32F).
#include <cuda_fp16.h>
#include <mma.h>

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/registry.hpp"

namespace gemmbench::hgemm {
namespace {

using namespace nvcuda;

constexpr int BM = 64, BN = 64, BK = 32;
constexpr int WARPS_M = 2, WARPS_N = 2;
constexpr int THREADS = 32 * WARPS_M * WARPS_N;
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // 32 x 32 per warp
constexpr int FM = WM / 16, FN = WN / 16;            // 2 x 2 wmma tiles per warp
constexpr int PAD = 8;  // halves: 16 bytes, keeps wmma's 32-byte pointer alignment per 16 rows
static_assert(BM % 16 == 0 && BN % 16 == 0 && BK % 16 == 0,
              "tiles must be whole 16x16x16 wmma tiles");
static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tiles must be whole 16x16 wmma tiles");
static_assert((BM * BK) % THREADS == 0 && (BK * BN) % THREADS == 0,
              "operand tiles must split evenly over the threads");

template <bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
struct WmmaSmem {
  // A K-major: (BM, BK) row-major; M-major: (BK, BM), i.e. (BM, BK) col-major.
  static constexpr int A_LD = A_K_MAJOR ? BK + PAD : BM + PAD;
  static constexpr int A_ELEMS = A_K_MAJOR ? BM * A_LD : BK * A_LD;
  // B K-major: (BN, BK), i.e. (BK, BN) col-major; N-major: (BK, BN) row-major.
  static constexpr int B_LD = B_K_MAJOR ? BK + PAD : BN + PAD;
  static constexpr int B_ELEMS = B_K_MAJOR ? BN * B_LD : BK * B_LD;
  static constexpr int C_LD = BM + 32 / int(sizeof(AccT));  // 32 bytes: keeps 256-bit alignment
  union {
    struct {
      __half a[A_ELEMS];  // (BM,BK) tile of op(A)
      __half b[B_ELEMS];  // (BK,BN) tile of op(B)
    } ab;
    AccT c[BN * C_LD];  // (BM,BN) col-major accumulators
  };
};

template <bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
__global__ void __launch_bounds__(THREADS)
    hgemm_wmma_kernel(int M, int N, int K, float alpha, const __half* __restrict__ A,
                      const __half* __restrict__ B, float beta, __half* __restrict__ C) {
  using Smem = WmmaSmem<A_K_MAJOR, B_K_MAJOR, AccT>;
  using ALayout = std::conditional_t<A_K_MAJOR, wmma::row_major, wmma::col_major>;
  using BLayout = std::conditional_t<B_K_MAJOR, wmma::col_major, wmma::row_major>;
  __shared__ __align__(128) Smem smem;

  const int m0 = blockIdx.x * BM;
  const int n0 = blockIdx.y * BN;
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int wm = warp % WARPS_M, wn = warp / WARPS_M;

  wmma::fragment<wmma::accumulator, 16, 16, 16, AccT> acc[FM][FN];  // (WM,WN) warp tile
  for (auto& row : acc) {
    for (auto& f : row) wmma::fill_fragment(f, AccT(0.f));
  }

  // ================================ MAINLOOP ================================
  for (int k0 = 0; k0 < K; k0 += BK) {
    // g2s: consecutive threads walk each operand's contiguous dimension (coalesced loads);
    // elements outside the matrix are zero so they add nothing.
    for (int i = tid; i < BM * BK; i += THREADS) {
      const int m = A_K_MAJOR ? i / BK : i % BM;
      const int k = A_K_MAJOR ? i % BK : i / BM;
      const int gm = m0 + m, gk = k0 + k;
      __half v = __float2half(0.f);
      if (gm < M && gk < K) v = A_K_MAJOR ? A[int64_t(gm) * K + gk] : A[int64_t(gk) * M + gm];
      smem.ab.a[A_K_MAJOR ? m * Smem::A_LD + k : k * Smem::A_LD + m] = v;
    }
    for (int i = tid; i < BK * BN; i += THREADS) {
      const int n = B_K_MAJOR ? i / BK : i % BN;
      const int k = B_K_MAJOR ? i % BK : i / BN;
      const int gn = n0 + n, gk = k0 + k;
      __half v = __float2half(0.f);
      if (gn < N && gk < K) v = B_K_MAJOR ? B[int64_t(gn) * K + gk] : B[int64_t(gk) * N + gn];
      smem.ab.b[B_K_MAJOR ? n * Smem::B_LD + k : k * Smem::B_LD + n] = v;
    }
    __syncthreads();

#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, ALayout> a[FM];  // (16,16) each
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, BLayout> b[FN];  // (16,16) each
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        const int m = wm * WM + i * 16;
        wmma::load_matrix_sync(
            a[i], smem.ab.a + (A_K_MAJOR ? m * Smem::A_LD + kk : kk * Smem::A_LD + m), Smem::A_LD);
      }
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        const int n = wn * WN + j * 16;
        wmma::load_matrix_sync(
            b[j], smem.ab.b + (B_K_MAJOR ? n * Smem::B_LD + kk : kk * Smem::B_LD + n), Smem::B_LD);
      }
#pragma unroll
      for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
      }
    }
    __syncthreads();  // the next iteration overwrites the tiles
  }

  // ================================ EPILOGUE ================================
  // wmma's accumulator layout is opaque: store it to shared memory (column-major, like C), then
  // write C along M with alpha/beta in float. C is read only when beta != 0.
#pragma unroll
  for (int i = 0; i < FM; ++i) {
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      const int m = wm * WM + i * 16, n = wn * WN + j * 16;
      wmma::store_matrix_sync(smem.c + n * Smem::C_LD + m, acc[i][j], Smem::C_LD,
                              wmma::mem_col_major);
    }
  }
  __syncthreads();
  for (int i = tid; i < BM * BN; i += THREADS) {
    const int m = i % BM, n = i / BM;  // consecutive threads along M: coalesced
    const int gm = m0 + m, gn = n0 + n;
    if (gm >= M || gn >= N) continue;
    float v = alpha * float(smem.c[n * Smem::C_LD + m]);
    __half* dst = C + int64_t(gn) * M + gm;
    if (beta != 0.f) v = fmaf(beta, __half2float(*dst), v);
    *dst = __float2half_rn(v);
  }
}

template <bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
void run(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  const dim3 grid(unsigned((p.m + BM - 1) / BM), unsigned((p.n + BN - 1) / BN));
  hgemm_wmma_kernel<A_K_MAJOR, B_K_MAJOR, AccT><<<grid, THREADS, 0, stream>>>(
      int(p.m), int(p.n), int(p.k), args.alpha, static_cast<const __half*>(args.a),
      static_cast<const __half*>(args.b), args.beta, static_cast<__half*>(args.c));
}

template <bool A_K_MAJOR, bool B_K_MAJOR>
void run_accum(const GemmArgs& args, cudaStream_t stream) {
  if (args.problem.accum == Accum::f16) {
    run<A_K_MAJOR, B_K_MAJOR, __half>(args, stream);
  } else {
    run<A_K_MAJOR, B_K_MAJOR, float>(args, stream);
  }
}

void launch(const GemmArgs& args, cudaStream_t stream) {
  if (args.problem.m == 0 || args.problem.n == 0) return;
  switch (args.problem.layout) {
    case Layout::tn:
      return run_accum<true, true>(args, stream);
    case Layout::nn:
      return run_accum<false, true>(args, stream);
    case Layout::nt:
      return run_accum<false, false>(args, stream);
    case Layout::tt:
      return run_accum<true, false>(args, stream);
  }
}

std::string supports(const GemmProblem& p, const DeviceCaps&) {
  if (p.m > INT_MAX || p.n > INT_MAX || p.k > INT_MAX)
    return "M, N and K must each fit in a 32-bit int";
  if ((p.n + BN - 1) / BN > 65535)
    return "N is too large for the grid's y dimension (65535 CTA rows)";
  return "";
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "hgemm_wmma",
    .family = "hgemm",
    .rung = 1,
    .summary = "WMMA 16x16x16 from padded smem tiles, 64x64x32 CTA, no overlap",
    .dtypes = {DType::f16},
    .accums = {Accum::f16, Accum::f32},
    .layouts = {Layout::tn, Layout::nn, Layout::nt, Layout::tt},
    .min_sm = 80,
    .supports = supports,
    .launch = launch,
});

}  // namespace gemmbench::hgemm
