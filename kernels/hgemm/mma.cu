// hgemm_mma — HGEMM ladder, rung 2: raw mma.sync m16n8k16 fed by ldmatrix.x4, TN layout.
//
// Rung 1 (hgemm_wmma) lets the WMMA API choose fragment layouts and loads; this rung writes the
// PTX itself (kernels/common/ptx.cuh): ldmatrix.x4 moves a 16x16 operand block from shared
// memory into exactly the registers mma.sync.m16n8k16 reads, one instruction per four 8x8
// matrices instead of per-thread shared loads, and each warp owns a 64x64 tile (4 x 8 mma
// tiles, 32 mma per 16-wide k step) so every A fragment is reused 8 times and every B fragment
// 4 times from registers. The operand tiles are 128 x 32 per CTA, copied global -> registers ->
// shared memory in 16-byte vectors; rows are padded to 80 bytes, so the 8 rows one 8x8 ldmatrix
// reads start in 8 different 16-byte bank groups (conflict-free). There is no pipeline: the CTA
// loads a k-tile, waits, computes it, waits — the latency the top rung (hgemm_tn) hides with
// cp.async stages and register double-buffering. The epilogue writes fragments straight to
// global memory (alpha/beta in float, C read only when beta != 0).
//
// Tile: BM x BN x BK = 128 x 128 x 32, 2x2 warps of 64x64, 128 threads, 20 KB static shared.
// Constraints: TN layout only (both operands K-contiguous, mma's row.col); K % 8 == 0 (rows are
// copied in 16-byte pieces); any M, N >= 1 (edges zero-filled and guarded); any alpha, beta.
// Measured on an H100 80GB HBM3, 2026-11-22, TN 5120x4096x4096, cold L2, from
// bench_results/h100/2026-11-22_hgemm_ladder.json.gz: f16 accumulate 166.8 TFLOP/s (0.241x cuBLAS
// COMPUTE_16F), f32 accumulate 213.1 (0.283x cuBLAS COMPUTE_32F): 3.2-4.4x over hgemm_wmma, with no
// pipeline yet.
#include <cuda_fp16.h>

#include <climits>
#include <cstdint>
#include <string>

#include "common/ptx.cuh"
#include "hgemm/ampere_index.hpp"
#include "hgemm/fragments.cuh"
#include "core/registry.hpp"

namespace gemmbench::hgemm {
namespace {

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int WARPS_M = 2, WARPS_N = 2;
constexpr int THREADS = 32 * WARPS_M * WARPS_N;
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // 64 x 64 per warp
constexpr int MI = WM / 16, NI = WN / 8, NB = WN / 16, KI = BK / 16;
constexpr int LD = BK + 8;      // halves per shared row: 80 bytes, 8 rows hit 8 bank groups
constexpr int CHUNKS = BK / 8;  // 16-byte chunks per row
constexpr int A_ITERS = BM * CHUNKS / THREADS;
constexpr int B_ITERS = BN * CHUNKS / THREADS;
static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tiles must be whole ldmatrix.x4 blocks (16x16)");
static_assert(BK % 16 == 0, "BK must be whole k16 mma steps");
static_assert(BM * CHUNKS % THREADS == 0 && BN * CHUNKS % THREADS == 0,
              "the tiles' 16-byte chunks must split evenly over the threads");
static_assert((LD * 2) % 16 == 0 && (LD * 2 / 16) % 2 == 1,
              "the padded row must stay 16-byte aligned and an odd number of 16-byte units long, "
              "so 8 consecutive rows start in 8 distinct bank groups");

template <class AccT>
__global__ void __launch_bounds__(THREADS)
    hgemm_mma_kernel(int M, int N, int K, float alpha, const __half* __restrict__ A,
                     const __half* __restrict__ B, float beta, __half* __restrict__ C) {
  __shared__ __align__(128) __half s_a[BM * LD];  // (BM,BK) K-major, padded rows
  __shared__ __align__(128) __half s_b[BN * LD];  // (BN,BK) K-major, padded rows

  const int m0 = blockIdx.x * BM;
  const int n0 = blockIdx.y * BN;
  const int tid = threadIdx.x;
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int wm = warp % WARPS_M, wn = warp / WARPS_M;

  // ldmatrix row of this lane inside a 16x16 block (ampere_index.hpp): register q comes out as
  // mma's a_q for A, and as {b0,b1} of two n8 tiles for B.
  const RowK lane_a = ldsm_lane_origin<true, true>(lane);
  const RowK lane_b = ldsm_lane_origin<true, false>(lane);

  AccFrag<AccT> acc[MI][NI];  // (WM,WN) warp tile, m16n8 fragments
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) acc[mi][ni].clear();
  }

  // ================================ MAINLOOP ================================
  for (int k0 = 0; k0 < K; k0 += BK) {
    // g2s through registers: all loads first (they overlap each other), then the stores.
    uint4 ra[A_ITERS];  // (A_ITERS) 16-byte chunks of A
    uint4 rb[B_ITERS];  // (B_ITERS) 16-byte chunks of B
#pragma unroll
    for (int i = 0; i < A_ITERS; ++i) {
      const int id = i * THREADS + tid, row = id / CHUNKS, k = k0 + (id % CHUNKS) * 8;
      ra[i] = make_uint4(0, 0, 0, 0);  // rows past M and k past K (K % 8 == 0) are zero
      if (m0 + row < M && k < K)
        ra[i] = *reinterpret_cast<const uint4*>(A + int64_t(m0 + row) * K + k);
    }
#pragma unroll
    for (int i = 0; i < B_ITERS; ++i) {
      const int id = i * THREADS + tid, row = id / CHUNKS, k = k0 + (id % CHUNKS) * 8;
      rb[i] = make_uint4(0, 0, 0, 0);
      if (n0 + row < N && k < K)
        rb[i] = *reinterpret_cast<const uint4*>(B + int64_t(n0 + row) * K + k);
    }
#pragma unroll
    for (int i = 0; i < A_ITERS; ++i) {
      const int id = i * THREADS + tid;
      *reinterpret_cast<uint4*>(s_a + (id / CHUNKS) * LD + (id % CHUNKS) * 8) = ra[i];
    }
#pragma unroll
    for (int i = 0; i < B_ITERS; ++i) {
      const int id = i * THREADS + tid;
      *reinterpret_cast<uint4*>(s_b + (id / CHUNKS) * LD + (id % CHUNKS) * 8) = rb[i];
    }
    __syncthreads();

#pragma unroll
    for (int kk = 0; kk < KI; ++kk) {
      uint32_t a[MI][4];  // (WM,16) A fragments, mma a0..a3
      uint32_t b[NB][4];  // (WN,16) B fragments, 2 n8 tiles per x4
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
        const int row = wm * WM + mi * 16 + lane_a.row;
        ptx::ldmatrix_x4(a[mi], ptx::smem_u32(s_a + row * LD + kk * 16 + lane_a.k));
      }
#pragma unroll
      for (int nb = 0; nb < NB; ++nb) {
        const int row = wn * WN + nb * 16 + lane_b.row;
        ptx::ldmatrix_x4(b[nb], ptx::smem_u32(s_b + row * LD + kk * 16 + lane_b.k));
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
          const uint32_t bf[2] = {b[ni / 2][2 * (ni % 2)], b[ni / 2][2 * (ni % 2) + 1]};
          acc[mi][ni].mma(a[mi], bf);
        }
      }
    }
    __syncthreads();  // the next k-tile overwrites the shared tiles
  }

  // ================================ EPILOGUE ================================
  // Straight from the fragments: per warp, each 2-byte store instruction covers 8 consecutive
  // rows (g) of 4 columns (2t or 2t+1), i.e. four 16-byte segments of the column-major C.
  for_each_acc_element<MI, NI>(lane, [&](int mi, int ni, int i, int row, int col) {
    const int m = m0 + wm * WM + row;
    const int n = n0 + wn * WN + col;
    if (m >= M || n >= N) return;
    __half* dst = C + int64_t(n) * M + m;
    float v = alpha * to_f32(acc[mi][ni].element(i));
    if (beta != 0.f) v = fmaf(beta, __half2float(*dst), v);
    *dst = __float2half_rn(v);
  });
}

template <class AccT>
void run(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  const dim3 grid(unsigned((p.m + BM - 1) / BM), unsigned((p.n + BN - 1) / BN));
  hgemm_mma_kernel<AccT><<<grid, THREADS, 0, stream>>>(
      int(p.m), int(p.n), int(p.k), args.alpha, static_cast<const __half*>(args.a),
      static_cast<const __half*>(args.b), args.beta, static_cast<__half*>(args.c));
}

void launch(const GemmArgs& args, cudaStream_t stream) {
  if (args.problem.m == 0 || args.problem.n == 0) return;
  if (args.problem.accum == Accum::f16) {
    run<__half>(args, stream);
  } else {
    run<float>(args, stream);
  }
}

std::string supports(const GemmProblem& p, const DeviceCaps&) {
  if (p.m > INT_MAX || p.n > INT_MAX || p.k > INT_MAX)
    return "M, N and K must each fit in a 32-bit int";
  if (p.k % 8 != 0) {
    return "K must be a multiple of 8: A and B rows are K-contiguous and copied in 16-byte "
           "(8 x f16) pieces";
  }
  if ((p.n + BN - 1) / BN > 65535)
    return "N is too large for the grid's y dimension (65535 CTA rows)";
  return "";
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "hgemm_mma",
    .family = "hgemm",
    .rung = 2,
    .summary = "mma.sync m16n8k16 fed by ldmatrix.x4, 128x128x32 CTA, 64x64 warps, no pipeline",
    .dtypes = {DType::f16},
    .accums = {Accum::f16, Accum::f32},
    .layouts = {Layout::tn},
    .min_sm = 80,
    .supports = supports,
    .launch = launch,
});

}  // namespace gemmbench::hgemm
