// hgemm_tn_sm90 — HGEMM ladder, rung 10 (top): Hopper-native TMA + mbarrier + wgmma,
// warp-specialized, persistent, 2-CTA clusters with TMA multicast.
//
// What it adds over the Ampere kernel (hgemm_tn: cp.async + Swizzle<3,3,3> + ldmatrix +
// mma.sync) and why: on Hopper, mma.sync is issued warp by warp from registers that every warp
// must first fill with ldmatrix, and the address math, cp.async and ldmatrix instructions compete
// for issue slots with the MMAs; it tops out near two thirds of the H100's tensor throughput.
// Here the copy engine (TMA, one instruction per tile, bounds handled in hardware) writes
// 128B-swizzled tiles straight into shared memory and signals an mbarrier; wgmma.mma_async reads
// both operands from shared memory through descriptors, asynchronously, 64xNx16 per warpgroup
// instruction, so the consumer warps issue almost nothing but MMAs. One producer warpgroup
// (setmaxnreg.dec to 40 registers) runs a STAGES-deep full/empty mbarrier ring ahead of two
// consumer warpgroups (setmaxnreg.inc to 232 for the 128 f32 accumulators of a 64x256 tile;
// ptxas currently fits the whole consumer path in the 168-register launch cap, no spills, so the
// raise is headroom). The grid is persistent (one CTA per SM, resident clusters only) and walks the
// tiles in the seed-003 raster order, so CTAs running together share A and B panels in L2; the
// producer keeps loading the next tile's k-blocks while the consumers run the epilogue. The two
// CTAs of a cluster compute neighbouring N tiles of the same M tile: each loads half of the shared
// A tile and multicasts it to both, cutting the L2->SM traffic per CTA from 48 KB to 32 KB per
// k-block.
//
// Operand roles. Both operands are K-major (TN): A(m,k) = a[m*K + k], B(k,n) = b[n*K + k];
// C(m,n) = c[m + n*M] is column-major, M contiguous. wgmma's accumulator gives each thread pairs
// of elements adjacent along its N dimension, so the kernel computes C^T = B^T A^T: wgmma's M
// (64 rows per consumer warpgroup) runs along GEMM N, wgmma's N (up to 256) along GEMM M. A
// thread then holds C elements in pairs adjacent along M (contiguous in memory); a 4x4 transpose
// among the 4 lanes of a quad (shuffles, no shared memory) turns them into 8 consecutive
// elements, stored as one 16-byte write, 64 contiguous bytes per column of C per warp store.
//
// Tile (GEMM terms), per variant: BM x BN x BK = 256 x 128 x 64 (default; each consumer
// warpgroup: m64n256k16 over 64 columns of C), STAGES = 4 (48 KB a stage, 192 KB), CLUSTER = 2
// along N. Threads 384 = producer warpgroup + 2 consumer warpgroups; registers 40 / 232 / 232.
// Variants: hgemm_tn_sm90_c1 (no cluster), hgemm_tn_sm90_128x128 (m64n128k16, 6 stages).
// Constraints: sm_90 device and a build with sm_90a code (supports() says which is missing);
// layout TN; f16 (f32 or f16 accumulate) or bf16 (f32 accumulate); K % 8 == 0 (TMA row strides
// are multiples of 16 bytes); any M, N >= 1 (TMA zero-fills out-of-bounds rows and k, stores are
// predicated; M % 8 != 0 falls back to 2-byte stores); M, N, K < 2^30.
// Measured: pending H100 run.
#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/ptx.cuh"
#include "common/raster.hpp"
#include "common/sm90.cuh"
#include "core/cuda_check.hpp"
#include "registry.hpp"

namespace gemmbench {
namespace {

// ---- Compile-time configuration -----------------------------------------------------------
template <int BM_, int BN_, int STAGES_, int CLUSTER_>
struct Sm90Config {
  static constexpr int BM = BM_;  // GEMM M per CTA tile = wgmma N
  static constexpr int BN = BN_;  // GEMM N per CTA tile = 64 (wgmma M) per consumer warpgroup
  static constexpr int BK = 64;   // one 128-byte swizzle row of 16-bit elements
  static constexpr int STAGES = STAGES_;
  static constexpr int CLUSTER = CLUSTER_;  // CTAs per cluster, along N; they share the A tile
  static constexpr int WG_N = 64;           // GEMM N rows per consumer warpgroup (wgmma M)
  static constexpr int CONSUMERS = BN / WG_N;
  static constexpr int THREADS = 128 * (1 + CONSUMERS);
  static constexpr int A_SLICE_ROWS = BM / CLUSTER;  // rows of the A tile each CTA loads
  static constexpr uint32_t ROW_BYTES = BK * 2;
  static constexpr uint32_t A_STAGE_BYTES = BM * ROW_BYTES;
  static constexpr uint32_t A_SLICE_BYTES = A_SLICE_ROWS * ROW_BYTES;
  static constexpr uint32_t B_STAGE_BYTES = BN * ROW_BYTES;
  static constexpr uint32_t STAGE_BYTES = A_STAGE_BYTES + B_STAGE_BYTES;  // expect_tx per stage
  // + 1024: the dynamic window is aligned up to the 1024-byte swizzle period in the kernel.
  static constexpr int SMEM_BYTES = STAGES * int(STAGE_BYTES) + 1024;
  static constexpr int PRODUCER_REGS = 40;
  static constexpr int CONSUMER_REGS = 232;

  static_assert(BM == 128 || BM == 256, "BM is wgmma's N: the wrappers cover 128 and 256");
  static_assert(STAGES >= 2,
                "a consumer keeps one stage's wgmma in flight while it waits for the next: a "
                "1-stage ring deadlocks");
  static_assert(BN == 128, "the 40/232 register split assumes 2 consumer warpgroups (BN = 128)");
  static_assert(BM % CLUSTER == 0 && A_SLICE_BYTES % 1024 == 0,
                "each CTA's A slice must be whole 8-row swizzle atoms (1024 B) so the multicast "
                "slices keep the 128B swizzle phase");
  static_assert(A_SLICE_ROWS <= 256 && BN <= 256, "a TMA box has at most 256 rows");
  static_assert(CLUSTER >= 1 && CLUSTER <= 8, "portable cluster sizes are 1..8");
  static_assert(A_STAGE_BYTES % 1024 == 0 && B_STAGE_BYTES % 1024 == 0 &&
                    (WG_N * ROW_BYTES) % 1024 == 0,
                "every stage and warpgroup operand must start on a 1024-byte swizzle period");
  static_assert(128 * PRODUCER_REGS + 128 * CONSUMERS * CONSUMER_REGS <= 65536,
                "the register split must fit the SM's 64K registers");
  static_assert(SMEM_BYTES + 2 * STAGES * 8 <= 227 * 1024,
                "stages exceed the 227 KB of shared memory a block may opt into");
};

// ---- Tile walk (persistent grid) ----------------------------------------------------------
// The raster of seed 003 (common/raster.hpp) over cluster tiles of BM x (BN * CLUSTER): linear
// index t -> (t % raster_x, t / raster_x) -> raster_tile. Slots outside the tile grid are
// skipped. Cluster c takes t = c, c + clusters, ...; its CTA of rank r computes N tile
// cluster_tile.n * CLUSTER + r.
struct Sm90Schedule {
  int tiles_m;          // ceil(M / BM)
  int tiles_n;          // ceil(N / BN)
  int cluster_tiles_n;  // ceil(tiles_n / CLUSTER)
  int log_tile;         // raster_log_tile(cluster_tiles_n, 8)
  int raster_x;         // raster_grid(...).x
  int raster_total;     // raster_grid(...).x * .y, no-op slots included
  int k_blocks;         // ceil(K / BK)
};

Sm90Schedule make_schedule(int m, int n, int k, int bm, int bn, int bk, int cluster) {
  Sm90Schedule s{};
  s.tiles_m = ceil_div(m, bm);
  s.tiles_n = ceil_div(n, bn);
  s.cluster_tiles_n = ceil_div(s.tiles_n, cluster);
  s.log_tile = raster_log_tile(s.cluster_tiles_n, 8);
  const RasterGrid g = raster_grid(s.tiles_m, s.cluster_tiles_n, s.log_tile);
  s.raster_x = g.x;
  s.raster_total = g.x * g.y;
  s.k_blocks = ceil_div(k, bk);
  return s;
}

#if GEMMBENCH_SM90A  // device helpers of the sm_90a kernel body only

__device__ __forceinline__ bool cluster_tile_at(const Sm90Schedule& s, int t, TileCoord& tile) {
  tile = raster_tile(t % s.raster_x, t / s.raster_x, s.log_tile);
  return raster_tile_valid(tile, s.tiles_m, s.cluster_tiles_n);
}

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

#endif  // GEMMBENCH_SM90A

// ---- The kernel ---------------------------------------------------------------------------
template <class T, bool F16_ACCUM, int BM, int BN, int STAGES, int CLUSTER>
__global__ void __launch_bounds__(Sm90Config<BM, BN, STAGES, CLUSTER>::THREADS, 1)
    hgemm_tn_sm90_kernel(
        const __grid_constant__ CUtensorMap tmap_a,  // A (M,K) k-major, box (BK, BM/CLUSTER)
        const __grid_constant__ CUtensorMap tmap_b,  // B (N,K) k-major, box (BK, BN)
        T* __restrict__ c,                           // C (M,N) column-major
        int M, int N, float alpha, float beta, const Sm90Schedule sched) {
#if GEMMBENCH_SM90A
  using Cfg = Sm90Config<BM, BN, STAGES, CLUSTER>;
  constexpr int BK = Cfg::BK;
  // f32: 4 floats per 8 columns of wgmma N; f16: 2 registers of 2 halves.
  using AccReg = std::conditional_t<F16_ACCUM, uint32_t, float>;
  constexpr int ACC_REGS = F16_ACCUM ? BM / 4 : BM / 2;

  // The barriers are the kernel's only static shared memory: supports() reads its size back to
  // learn that the driver picked this (sm_90a) image.
  __shared__ alignas(8) uint64_t full_bar[STAGES];  // TMA -> consumers: stage landed
  __shared__ alignas(8)
      uint64_t empty_bar[STAGES];  // consumers (whole cluster) -> producer: stage free
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = (ptx::smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t s_a = smem;                                // (STAGES, BM, BK) k-major, SW128
  const uint32_t s_b = smem + STAGES * Cfg::A_STAGE_BYTES;  // (STAGES, BN, BK) k-major, SW128
  auto full = [&](int s) { return ptx::smem_u32(&full_bar[s]); };
  auto empty = [&](int s) { return ptx::smem_u32(&empty_bar[s]); };

  const int wg = threadIdx.x / 128;  // warpgroup: 0 producer, 1..CONSUMERS consumers
  const int wg_thread = threadIdx.x % 128;
  const uint32_t cta_rank = CLUSTER > 1 ? sm90::cluster_ctarank() : 0;
  const int cluster_id = blockIdx.x / CLUSTER;
  const int clusters = gridDim.x / CLUSTER;

  // ======== PROLOGUE ========
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      sm90::mbarrier_init(full(s), 1);  // the local producer's arrive.expect_tx
      sm90::mbarrier_init(empty(s), Cfg::CONSUMERS * CLUSTER);  // every consumer of the cluster
    }
    sm90::fence_barrier_init();
    sm90::tma_prefetch_descriptor(&tmap_a);
    sm90::tma_prefetch_descriptor(&tmap_b);
  }
  // Peers arrive on our barriers and multicast into our stages: all must be initialised first.
  if constexpr (CLUSTER > 1)
    sm90::cluster_sync();
  else
    __syncthreads();

  if (wg == 0) {
    // ======== PRODUCER (one thread issues every TMA) ========
    sm90::setmaxnreg_dec<Cfg::PRODUCER_REGS>();
    if (wg_thread == 0) {
      int stage = 0;
      uint32_t phase = 0;  // parity of the ring's current lap
      for (int t = cluster_id; t < sched.raster_total; t += clusters) {
        TileCoord tile;
        if (!cluster_tile_at(sched, t, tile)) continue;
        const int n_tile = tile.n * CLUSTER + int(cta_rank);
        // A slice / B rows past the matrix (an M tile shorter than the cluster's slices, the
        // padding N tile of an odd tiles_n) are clamped to a row inside it: those smem rows feed
        // only C rows/columns the epilogue does not store, and no box starts out of bounds.
        const int a_row = min(tile.m * BM + int(cta_rank) * Cfg::A_SLICE_ROWS, M - 1);
        const int b_row = min(n_tile * BN, N - 1);
        for (int kb = 0; kb < sched.k_blocks; ++kb) {
          sm90::mbarrier_wait_parity(empty(stage), phase ^ 1);  // lap 0 passes at once
          sm90::mbarrier_arrive_expect_tx(full(stage), Cfg::STAGE_BYTES);
          const int k0 = kb * BK;
          const uint32_t a_dst = s_a + stage * Cfg::A_STAGE_BYTES + cta_rank * Cfg::A_SLICE_BYTES;
          if constexpr (CLUSTER > 1)
            sm90::tma_load_2d_multicast(a_dst, &tmap_a, full(stage), uint16_t((1u << CLUSTER) - 1),
                                        k0, a_row);
          else
            sm90::tma_load_2d(a_dst, &tmap_a, full(stage), k0, a_row);
          sm90::tma_load_2d(s_b + stage * Cfg::B_STAGE_BYTES, &tmap_b, full(stage), k0, b_row);
          if (++stage == STAGES) stage = 0, phase ^= 1;
        }
      }
    }
  } else {
    // ======== CONSUMERS ========
    sm90::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
    const int consumer = wg - 1;  // which 64 GEMM-N rows of the tile (wgmma M)
    const int warp = wg_thread / 32, lane = wg_thread % 32;
    const int g = lane / 4, q = lane % 4;
    // One arrival per consumer warpgroup on the stage's empty barrier of every CTA that loads
    // into this CTA (all of the cluster: the A slices are multicast), after the wgmma reading it
    // has completed. Thread r < CLUSTER signals CTA r.
    auto release = [&](int s) {
      if constexpr (CLUSTER > 1) {
        if (wg_thread < CLUSTER) sm90::mbarrier_arrive_cluster(empty(s), uint32_t(wg_thread));
      } else {
        if (wg_thread == 0) sm90::mbarrier_arrive(empty(s));
      }
    };
    // Row 16*warp + g (+8) of this warpgroup's 64, within the CTA's BN.
    const int n_in_tile = consumer * Cfg::WG_N + 16 * warp + g;
    // 16-byte C accesses need every column start (n*M) and the base 16-byte aligned.
    const bool vec = (M % 8 == 0) && (reinterpret_cast<uintptr_t>(c) % 16 == 0);

    AccReg acc[ACC_REGS];  // (64 GEMM-N, BM GEMM-M) per warpgroup, wgmma D fragment
    int stage = 0;
    uint32_t phase = 0;
    for (int t = cluster_id; t < sched.raster_total; t += clusters) {
      TileCoord tile;
      if (!cluster_tile_at(sched, t, tile)) continue;
      const int n_tile = tile.n * CLUSTER + int(cta_rank);

      // ======== MAINLOOP ========
#pragma unroll
      for (int i = 0; i < ACC_REGS; ++i) sm90::fence_operand(acc[i]);
      int prev_stage = 0;
      for (int kb = 0; kb < sched.k_blocks; ++kb) {
        sm90::mbarrier_wait_parity(full(stage), phase);
        sm90::wgmma_fence();
        // wgmma A = this warpgroup's 64 rows of the B tile; wgmma B = the whole A tile.
        const uint64_t desc_a = sm90::wgmma_desc_sw128_kmajor(
            s_b + stage * Cfg::B_STAGE_BYTES + consumer * Cfg::WG_N * Cfg::ROW_BYTES);  // (64, BK)
        const uint64_t desc_b =
            sm90::wgmma_desc_sw128_kmajor(s_a + stage * Cfg::A_STAGE_BYTES);  // (BM, BK)
#pragma unroll
        for (int k = 0; k < BK / 16; ++k) {
          const uint64_t da = sm90::wgmma_desc_advance(desc_a, 32 * k);  // 16 elements = 32 B
          const uint64_t db = sm90::wgmma_desc_advance(desc_b, 32 * k);
          const int accumulate = (kb > 0 || k > 0) ? 1 : 0;  // first k16 of a tile: D = A*B
          if constexpr (F16_ACCUM)
            sm90::wgmma_m64k16_f16<BM>(acc, da, db, accumulate);
          else
            sm90::wgmma_m64k16_f32<BM, T>(acc, da, db, accumulate);
        }
        sm90::wgmma_commit_group();
        // Keep this k-block's MMAs in flight; the previous one has finished reading its stage.
        if (kb > 0) {
          sm90::wgmma_wait_group<1>();
          release(prev_stage);
        }
        prev_stage = stage;
        if (++stage == STAGES) stage = 0, phase ^= 1;
      }
      sm90::wgmma_wait_group<0>();
      release(prev_stage);
#pragma unroll
      for (int i = 0; i < ACC_REGS; ++i) sm90::fence_operand(acc[i]);

      // ======== EPILOGUE ========
      // Thread (warp, g, q) holds, for h in {0,1} and chunk j < BM/8, C(m, n) at
      // n = n0 + 8h, m = m0 + 8j + 2q + {0,1}. For each quad of chunks 4J..4J+3 the quad
      // transpose leaves lane q with chunk 4J + q whole: 8 consecutive m, one 16-byte store.
      // The padding N tile of an odd tiles_n (cluster runs only) stores nothing.
      if (n_tile >= sched.tiles_n) continue;
      const int m_tile0 = tile.m * BM;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int n = n_tile * BN + n_in_tile + 8 * h;
        const bool row_ok = n < N;
        uint16_t* col =  // (M) column n of C, as raw 16-bit elements
            reinterpret_cast<uint16_t*>(c) + (row_ok ? size_t(n) * size_t(M) : 0);
#pragma unroll
        for (int J = 0; J < BM / 32; ++J) {
          const int m = m_tile0 + 8 * (4 * J + q);  // this lane's chunk after the transpose
          const int valid = row_ok ? min(M - m, 8) : 0;
          uint32_t c_old[4] = {0u, 0u, 0u, 0u};  // (8) C along m, 2 per register
          if (beta != 0.f) {  // uniform: BLAS semantics, C is not read when beta == 0
            if (valid > 0) load_chunk(col + m, valid, vec, c_old);
            quad_transpose(c_old, q);  // back to the fragment's pairs
          }
          uint32_t out[4];  // (4 chunks, 2) fragment pairs, then (8) along m after the transpose
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int j = 4 * J + i;  // chunk of the fragment
            float2 v;
            if constexpr (F16_ACCUM)
              v = unpack2<__half>(acc[2 * j + h]);
            else
              v = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
            v.x *= alpha, v.y *= alpha;
            if (beta != 0.f) {
              const float2 o = unpack2<T>(c_old[i]);
              v.x += beta * o.x, v.y += beta * o.y;
            }
            out[i] = pack2<T>(v.x, v.y);
          }
          quad_transpose(out, q);
          if (valid > 0) store_chunk(col + m, valid, vec, out);
        }
      }
    }
  }
  // A CTA's shared memory must outlive its peers' last remote arrivals and multicasts into it.
  if constexpr (CLUSTER > 1) {
    __syncwarp();
    sm90::cluster_sync();
  }
#else
  // Not the sm_90a image: supports() keeps the runner from launching it.
  __trap();
#endif
}

// ---- Host side ----------------------------------------------------------------------------
using EncodeTiledFn = PFN_cuTensorMapEncodeTiled_v12000;

// cuTensorMapEncodeTiled from the driver, fetched once through the runtime: no link-time
// dependency on libcuda.
EncodeTiledFn tensor_map_encoder() {
  static const EncodeTiledFn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                cudaEnableDefault, &status));
    if (status != cudaDriverEntryPointSuccess || p == nullptr)
      throw CudaError("cuTensorMapEncodeTiled is not available from the installed CUDA driver");
    return reinterpret_cast<EncodeTiledFn>(p);
  }();
  return fn;
}

// A K-major operand stored (rows, K), K contiguous, as a 2D tensor map: dimension 0 = K,
// dimension 1 = rows; box (64, box_rows) lands as box_rows rows of 128 bytes, 128B-swizzled;
// out-of-bounds elements read as zero.
CUtensorMap make_kmajor_map(const void* base, DType dtype, int rows, int k, int box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(k) * 2};  // bytes between rows; K % 8 == 0
  const cuuint32_t box[2] = {64, cuuint32_t(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUtensorMapDataType type =
      dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  CU_CHECK(tensor_map_encoder()(&map, type, 2, const_cast<void*>(base), dims, strides, box,
                                elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

template <class T, bool F16_ACCUM, int BM, int BN, int STAGES, int CLUSTER>
constexpr auto kernel_ptr() {
  return &hgemm_tn_sm90_kernel<T, F16_ACCUM, BM, BN, STAGES, CLUSTER>;
}

// Per device, once: raise the dynamic shared-memory limit and ask how many clusters can be
// resident at once (a persistent grid must not exceed it: the CTAs of a later wave would wait for
// the whole first wave; for CLUSTER = 1 it is the SM count).
template <class T, bool F16_ACCUM, int BM, int BN, int STAGES, int CLUSTER>
int resident_clusters() {
  using Cfg = Sm90Config<BM, BN, STAGES, CLUSTER>;
  constexpr int kMaxDevices = 64;
  static std::once_flag once[kMaxDevices];
  static int count[kMaxDevices];
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  if (dev >= kMaxDevices) throw std::runtime_error("hgemm_tn_sm90: device index above 63");
  std::call_once(once[dev], [dev] {
    const auto kernel = kernel_ptr<T, F16_ACCUM, BM, BN, STAGES, CLUSTER>();
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES));
    int n = 0;
    if constexpr (CLUSTER == 1) {
      int per_sm = 0, sms = 0;
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Cfg::THREADS,
                                                               Cfg::SMEM_BYTES));
      CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
      n = per_sm * sms;
    } else {
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = CLUSTER, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(CLUSTER);
      cfg.blockDim = dim3(Cfg::THREADS);
      cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
      cfg.attrs = &attr;
      cfg.numAttrs = 1;
      CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &cfg));
    }
    if (n < 1)
      throw std::runtime_error("hgemm_tn_sm90: not even one CTA/cluster fits on the device");
    count[dev] = n;
  });
  return count[dev];
}

template <class T, bool F16_ACCUM, int BM, int BN, int STAGES, int CLUSTER>
void run(const GemmArgs& args, cudaStream_t stream) {
  using Cfg = Sm90Config<BM, BN, STAGES, CLUSTER>;
  const int max_clusters = resident_clusters<T, F16_ACCUM, BM, BN, STAGES, CLUSTER>();
  const GemmProblem& p = args.problem;
  const int M = int(p.m), N = int(p.n), K = int(p.k);
  const Sm90Schedule sched = make_schedule(M, N, K, BM, BN, Cfg::BK, CLUSTER);
  const CUtensorMap map_a = make_kmajor_map(args.a, p.dtype, M, K, Cfg::A_SLICE_ROWS);
  const CUtensorMap map_b = make_kmajor_map(args.b, p.dtype, N, K, BN);
  const int clusters = std::min(max_clusters, sched.tiles_m * sched.cluster_tiles_n);

  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = CLUSTER, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(clusters * CLUSTER);
  cfg.blockDim = dim3(Cfg::THREADS);
  cfg.dynamicSmemBytes = Cfg::SMEM_BYTES;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = CLUSTER > 1 ? 1 : 0;  // CLUSTER = 1: a plain launch
  CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel_ptr<T, F16_ACCUM, BM, BN, STAGES, CLUSTER>(), map_a,
                                map_b, static_cast<T*>(args.c), M, N, args.alpha, args.beta,
                                sched));
}

template <int BM, int BN, int STAGES, int CLUSTER>
void launch(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  if (p.dtype == DType::f16 && p.accum == Accum::f32)
    run<__half, false, BM, BN, STAGES, CLUSTER>(args, stream);
  else if (p.dtype == DType::f16 && p.accum == Accum::f16)
    run<__half, true, BM, BN, STAGES, CLUSTER>(args, stream);
  else if (p.dtype == DType::bf16 && p.accum == Accum::f32)
    run<__nv_bfloat16, false, BM, BN, STAGES, CLUSTER>(args, stream);
  else
    throw std::invalid_argument("hgemm_tn_sm90: unsupported dtype/accumulate pair");
}

template <int BM, int BN, int STAGES, int CLUSTER>
const void* kernel_for(const GemmProblem& p) {
  if (p.dtype == DType::bf16)
    return reinterpret_cast<const void*>(
        kernel_ptr<__nv_bfloat16, false, BM, BN, STAGES, CLUSTER>());
  if (p.accum == Accum::f16)
    return reinterpret_cast<const void*>(kernel_ptr<__half, true, BM, BN, STAGES, CLUSTER>());
  return reinterpret_cast<const void*>(kernel_ptr<__half, false, BM, BN, STAGES, CLUSTER>());
}

template <int BM, int BN, int STAGES, int CLUSTER>
std::string supports(const GemmProblem& p, const DeviceCaps& caps) {
  using Cfg = Sm90Config<BM, BN, STAGES, CLUSTER>;
  if (caps.sm != 90)
    return "needs a compute capability 9.0 GPU (H100/H200): sm_90a wgmma/TMA code runs on no other";
  if (p.dtype == DType::bf16 && p.accum == Accum::f16) return "bf16 inputs accumulate in f32 only";
  // The sm_90a image declares the mbarriers as static shared memory; the trap stub that every
  // other pass compiles declares none. A build without 90a (or with plain sm_90) makes the driver
  // pick such a stub on this device.
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, kernel_for<BM, BN, STAGES, CLUSTER>(p));
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("cannot query the kernel image: ") + cudaGetErrorString(e);
  }
  if (attr.sharedSizeBytes == 0)
    return "this build has no sm_90a code (configure with CMAKE_CUDA_ARCHITECTURES containing 90a)";
  if (p.k % 8 != 0) return "K must be a multiple of 8: TMA needs 16-byte aligned row strides";
  if (p.m >= (int64_t(1) << 30) || p.n >= (int64_t(1) << 30) || p.k >= (int64_t(1) << 30))
    return "M, N and K must be below 2^30 (32-bit tile coordinates)";
  const int64_t cluster_tiles_n = (p.n + int64_t(BN) * CLUSTER - 1) / (int64_t(BN) * CLUSTER);
  if ((p.m + BM - 1) / BM * 8 * (cluster_tiles_n + 7) >= (int64_t(1) << 31))
    return "too many tiles for the 32-bit persistent tile index";
  if (caps.smem_per_block_optin < size_t(Cfg::SMEM_BYTES) + attr.sharedSizeBytes)
    return "needs " + std::to_string((Cfg::SMEM_BYTES + attr.sharedSizeBytes) / 1024) +
           " KB of shared memory per block, the device allows " +
           std::to_string(caps.smem_per_block_optin / 1024);
  return {};
}

template <int BM, int BN, int STAGES, int CLUSTER>
KernelInfo sm90_info(std::string name, std::string summary) {
  return KernelInfo{
      .name = std::move(name),
      .family = "hgemm",
      .rung = 10,
      .summary = std::move(summary),
      .dtypes = {DType::f16, DType::bf16},
      .accums = {Accum::f32, Accum::f16},
      .layouts = {Layout::tn},
      .min_sm = 90,
      .supports = supports<BM, BN, STAGES, CLUSTER>,
      .launch = launch<BM, BN, STAGES, CLUSTER>,
  };
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(
    sm90_info<256, 128, 4, 2>("hgemm_tn_sm90",
                              "Hopper TMA+mbarrier+wgmma, warp-specialized, persistent; "
                              "256x128x64, 4 stages, 2-CTA multicast"));
GEMMBENCH_REGISTER_KERNEL(sm90_info<256, 128, 4, 1>(
    "hgemm_tn_sm90_c1", "hgemm_tn_sm90 without clusters: every CTA loads its own A tile"));
GEMMBENCH_REGISTER_KERNEL(sm90_info<128, 128, 6, 2>(
    "hgemm_tn_sm90_128x128", "hgemm_tn_sm90 with 128x128x64 tiles (m64n128k16), 6 stages"));

}  // namespace gemmbench
