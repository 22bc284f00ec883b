// hgemm_decode — HGEMM ladder, rung 11 (top): the LLM decode path, M = tokens <= 128, TN.
//
// At decode shapes (x @ W.T with few tokens) the product is bound by streaming the weights
// W = op(B), N*K*2 bytes, from HBM; rung 10's 128-token tiles waste most of each mma and leave
// SMs idle. This rung swaps the operands (C^T = W x^T): 16 weight rows fill the mma's M side and
// the tokens its n8 side, every weight byte is read from HBM once, and a stream-K schedule
// (decode_schedule.hpp) hands every resident CTA the same number of (tile, k-tile) units, so all
// SMs stream weights whatever N and K are; tiles split between CTAs are summed in f32 through a
// workspace, deterministically (fixed contributor order, last arrival reduces, loading several
// contributors' partials before adding them: one L2 round trip per batch, not per contributor).
// Weights and tokens go global -> shared by 16-byte cp.async in a STAGES ring (zero-filled past N,
// M and K); each lane reads its fragments with one 16-byte shared load per row, in the k order
// frag_k gives, instead of ldmatrix. M = 1 runs the same path (memory bound: the idle mma lanes
// cost nothing). Tiles, by token count (T = 8*MT tokens, all of M in one CTA; BN weight rows):
//   M <= 8, 16, 32: MT 1, 2, 4; 4 warps x 16 rows (BN 64), BK 128, 3 stages, 54/60/72 KB smem,
//                   86-118 registers (sm_90a), 3-4 CTAs per SM on H100
//   M <= 64:        MT 8;  4 warps x 2 slabs of 16 rows (BN 128), BK 64, 4 stages, 96 KB, 224 regs
//   M <= 128:       MT 16; 8 warps x 16 rows (BN 128), BK 64, 4 stages, 128 KB, 176 regs, 1 CTA/SM
// Constraints: TN; f16 or bf16 with f32 accumulation; 1 <= M <= 128; K % 8 == 0 (16-byte rows);
// any N; any alpha, beta (C read only when beta != 0). Workspace: device memory allocated on a
// shape's first launch and only ever grown (the runner's verify run and warm-up come first; see
// common/split_workspace.hpp), so launches of one shape neither allocate nor synchronise; not
// safe for concurrent launches on two streams.
// Measured (H100, 2026-11-25, sustained, f16/f32acc, 16 llama3/deepseek-v3 layers per token
// count): 0.955x / 0.963x / 0.695x / 0.583x cuBLAS geometric mean at 1 / 16 / 64 / 128 tokens
// (bench_results/h100/2026-11-25_llm_decode_equal_split.json.gz, git d91cc46). `hgemm` runs this
// rung only where the Hopper decode path cannot run (no sm_90a; docs/dispatch.md).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <climits>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/convert.cuh"
#include "common/occupancy.hpp"
#include "common/ptx.cuh"
#include "common/split_workspace.hpp"
#include "core/cuda_check.hpp"
#include "hgemm/decode_schedule.hpp"
#include "core/registry.hpp"

namespace gemmbench::hgemm {
namespace {

constexpr int kMaxTokens = 128;

template <int MT_, int WARPS_, int SLABS_, int BK_, int STAGES_>
struct DecodeTile {
  static constexpr int MT = MT_;  // n8 token tiles: 8*MT tokens per CTA (all of M)
  static constexpr int WARPS = WARPS_;
  static constexpr int SLABS = SLABS_;  // 16-row weight slabs per warp (A fragments reuse x)
  static constexpr int BK = BK_;
  static constexpr int STAGES = STAGES_;
  static constexpr int TOKENS = 8 * MT;
  static constexpr int BN = 16 * SLABS * WARPS;
  static constexpr int THREADS = 32 * WARPS;
  static constexpr int CHUNKS = BK / 8;  // 16-byte chunks per row
  static constexpr int W_ELEMS = BN * BK, X_ELEMS = TOKENS * BK;
  static constexpr int STAGE_ELEMS = W_ELEMS + X_ELEMS;
  static constexpr int SMEM = STAGES * STAGE_ELEMS * 2;  // bytes
  static constexpr int W_ITERS = BN * CHUNKS / THREADS;
  static constexpr int X_ITERS = TOKENS * CHUNKS / THREADS;
  static constexpr int PARTIAL = BN * TOKENS;  // floats per workspace slot

  static_assert(BK % 64 == 0,
                "BK must be a multiple of 64: rows fill whole 128-byte bank "
                "lines, which the chunk swizzle needs, and 32-wide k groups");
  static_assert(STAGES >= 2, "the cp.async ring needs at least two stages");
  static_assert(BN * CHUNKS % THREADS == 0 && TOKENS * CHUNKS % THREADS == 0,
                "a stage's 16-byte chunks must split evenly over the threads");
  static_assert(TOKENS <= kMaxTokens, "the decode path holds at most 128 tokens per CTA");
};

// The configurations launch() picks from, by token count.
using Tile8 = DecodeTile<1, 4, 1, 128, 3>;
using Tile16 = DecodeTile<2, 4, 1, 128, 3>;
using Tile32 = DecodeTile<4, 4, 1, 128, 3>;
using Tile64 = DecodeTile<8, 4, 2, 64, 4>;
using Tile128 = DecodeTile<16, 8, 1, 64, 4>;

template <class T>
struct DecodeParams {
  int m, n, k;
  float alpha, beta;
  const T* x;       // (M,K) K-contiguous: GemmArgs::a in TN
  const T* w;       // (N,K) K-contiguous: GemmArgs::b in TN
  T* c;             // (M,N) column-major, ldc = M
  float* partials;  // (2*ctas, PARTIAL) f32, fragment order
  int* counters;    // (tiles) arrivals, zero between launches
  decode::Schedule sched;
};

template <class T>
__device__ __forceinline__ void mma_f32(float (&d)[4], const uint32_t (&a)[4],
                                        const uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<T, __half>) {
    ptx::mma_m16n8k16_f32(d, a, b);
  } else {
    ptx::mma_m16n8k16_bf16_f32(d, a, b);
  }
}

// A warp's accumulators: the (16*SLABS weight rows, 8*MT tokens) warp tile of C^T, m16n8 f32
// fragments.
template <class Tile>
using DecodeAcc = float[Tile::SLABS][Tile::MT][4];

template <class Tile>
__device__ __forceinline__ void clear_acc(DecodeAcc<Tile>& acc) {
#pragma unroll
  for (int s = 0; s < Tile::SLABS; ++s)
#pragma unroll
    for (int j = 0; j < Tile::MT; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[s][j][i] = 0.f;
}

// ================================ LOADS ================================
// The CTA's copies into the ring: unit after unit of its range, walked with (tile, k-tile)
// counters (no 64-bit division in the loop) STAGES-1 units ahead of the mma. Every thread copies
// its 16-byte chunks of the unit's weight rows and token rows; rows past N or M and chunks past K
// are zero-filled (src_bytes 0, from the operand's base address), never read.
//   stage s: (BN,BK) weights | (TOKENS,BK) tokens, K-major, chunk-swizzled (decode::chunk_offset)
template <class T, class Tile>
struct DecodeLoader {
  const DecodeParams<T>& prm;
  T* smem;  // (STAGES) stages
  int tid;
  int kt;  // k-tiles per tile
  // The next unit to copy, (tile, k-tile): the kernel's own counters, held by reference (as
  // copies in this struct the compiler numbered their registers differently: other SASS).
  int& tile;
  int& k_tile;

  __device__ __forceinline__ void load_next(int stage) {
    constexpr int BK = Tile::BK, CHUNKS = Tile::CHUNKS, THREADS = Tile::THREADS;
    const int k0 = k_tile * BK;
    const int n0 = tile * Tile::BN;
    if (++k_tile == kt) k_tile = 0, ++tile;
    const uint32_t sw = ptx::smem_u32(smem + stage * Tile::STAGE_ELEMS);
    const uint32_t sx = sw + Tile::W_ELEMS * 2;
#pragma unroll
    for (int it = 0; it < Tile::W_ITERS; ++it) {
      const int id = it * THREADS + tid, row = id / CHUNKS, ch = id % CHUNKS;
      const int n = n0 + row, k = k0 + ch * 8;
      const bool ok = n < prm.n && k < prm.k;
      const T* src = ok ? prm.w + int64_t(n) * prm.k + k : prm.w;
      ptx::cp_async_16(sw + decode::chunk_offset<BK>(row, ch) * 16, src, ok ? 16 : 0);
    }
#pragma unroll
    for (int it = 0; it < Tile::X_ITERS; ++it) {
      const int id = it * THREADS + tid, row = id / CHUNKS, ch = id % CHUNKS;
      const int k = k0 + ch * 8;
      const bool ok = row < prm.m && k < prm.k;
      const T* src = ok ? prm.x + int64_t(row) * prm.k + k : prm.x;
      ptx::cp_async_16(sx + decode::chunk_offset<BK>(row, ch) * 16, src, ok ? 16 : 0);
    }
  }
};

// ================================ EPILOGUE ================================
// The end of a tile's units in this CTA: straight out when the CTA owns the whole tile, else
// store the partial; the last contributor to arrive sums all of them in K order (contributor
// order, not arrival order: deterministic), over the slot as a flat array, so the sum needs no
// accumulator registers.
//   workspace slot: (PARTIAL) f32 in fragment order (decode::partial_index), one per (CTA, tile)
template <class T, class Tile>
struct DecodeEpilogue {
  static constexpr int MT = Tile::MT, SLABS = Tile::SLABS, THREADS = Tile::THREADS;
  static constexpr int P4 = Tile::PARTIAL / 4;  // float4 per slot
  static_assert(P4 % THREADS == 0, "a workspace slot splits evenly over the threads");

  const DecodeParams<T>& prm;
  int& s_last;  // shared: this CTA arrived last at the tile
  int64_t cta;
  int tid, lane, warp;

  // C(m, n) = alpha * v + beta * C(m, n), for n < N and m < M only.
  __device__ __forceinline__ void store(int n, int m, float v) const {
    if (n >= prm.n || m >= prm.m) return;
    T* dst = prm.c + int64_t(n) * prm.m + m;
    v *= prm.alpha;
    if (prm.beta != 0.f) v = fmaf(prm.beta, to_f32(*dst), v);
    *dst = from_f32<T>(v);
  }
  // A tile this CTA owns whole: straight from the registers.
  __device__ __forceinline__ void store_acc(const DecodeAcc<Tile>& acc, int n0) const {
#pragma unroll
    for (int s = 0; s < SLABS; ++s)
#pragma unroll
      for (int j = 0; j < MT; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i)
          store(n0 + decode::frag_row(warp * SLABS + s, lane, i), decode::frag_token(j, lane, i),
                acc[s][j][i]);
  }
  __device__ __forceinline__ float4* partial4(int64_t slot) const {
    return reinterpret_cast<float4*>(prm.partials + slot * Tile::PARTIAL);
  }

  __device__ __forceinline__ void finish_tile(const DecodeAcc<Tile>& acc, int tile) const {
    const decode::Schedule& sched = prm.sched;
    const int n0 = tile * Tile::BN;
    const int64_t first = sched.first_cta(tile), last = sched.last_cta(tile);
    if (first == last) {
      store_acc(acc, n0);
      return;
    }
    float4* const mine = partial4(sched.slot(cta, tile));
#pragma unroll
    for (int s = 0; s < SLABS; ++s)
#pragma unroll
      for (int j = 0; j < MT; ++j)
        __stcg(mine + decode::partial_index<MT>(warp * SLABS + s, j, lane),
               make_float4(acc[s][j][0], acc[s][j][1], acc[s][j][2], acc[s][j][3]));
    __threadfence();  // this thread's partial is visible device-wide before the arrival
    __syncthreads();
    if (tid == 0) s_last = atomicAdd(prm.counters + tile, 1) == int(last - first);
    __syncthreads();
    if (!s_last) return;
    __threadfence();  // the other contributors' partials are seen after their arrivals
    constexpr int R = P4 / THREADS < 8 ? P4 / THREADS : 8;  // float4 per thread per batch
    static_assert((P4 / THREADS) % R == 0, "the reduction's batches cover the slot exactly");
    // Contributors loaded at once (8 float4 in flight per thread), then added in contributor
    // order: one L2 round trip per batch instead of one per contributor (a tile has about 8 at
    // 16x4096x4096).
    constexpr int PB = 8 / R > 1 ? 8 / R : 1;
    for (int e0 = tid; e0 < P4; e0 += R * THREADS) {
      float4 v[R];
#pragma unroll
      for (int r = 0; r < R; ++r) v[r] = make_float4(0.f, 0.f, 0.f, 0.f);
      for (int64_t p0 = first; p0 <= last; p0 += PB) {
        float4 x[PB][R];
#pragma unroll
        for (int b = 0; b < PB; ++b)
          if (p0 + b <= last) {
            const float4* src = partial4(sched.slot(p0 + b, tile));
#pragma unroll
            for (int r = 0; r < R; ++r) x[b][r] = __ldcg(src + e0 + r * THREADS);
          }
#pragma unroll
        for (int b = 0; b < PB; ++b)
          if (p0 + b <= last) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
              v[r].x += x[b][r].x;
              v[r].y += x[b][r].y;
              v[r].z += x[b][r].z;
              v[r].w += x[b][r].w;
            }
          }
      }
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int e = e0 + r * THREADS;
        const int slab = decode::partial_slab<MT>(e), j = decode::partial_j<MT>(e);
        const int ln = decode::partial_lane(e);
        const float vals[4] = {v[r].x, v[r].y, v[r].z, v[r].w};
#pragma unroll
        for (int i = 0; i < 4; ++i)
          store(n0 + decode::frag_row(slab, ln, i), decode::frag_token(j, ln, i), vals[i]);
      }
    }
    if (tid == 0) prm.counters[tile] = 0;  // all contributors arrived: ready for the next launch
  }
};

// The kernel: the CTA's range of (tile, k-tile) units from the stream-K schedule, a STAGES-deep
// cp.async ring (LOADS), the mma of each unit (MAINLOOP), each tile finished as its last unit in
// this CTA is done (EPILOGUE).
template <class T, class Tile>
__global__ void __launch_bounds__(Tile::THREADS, 1) hgemm_decode_kernel(DecodeParams<T> prm) {
  constexpr int MT = Tile::MT, SLABS = Tile::SLABS, BK = Tile::BK, STAGES = Tile::STAGES;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  // (STAGES) x [ (BN,BK) weights | (TOKENS,BK) tokens ], K-major, chunk-swizzled
  T* const smem = reinterpret_cast<T*>(smem_raw);
  __shared__ int s_last;

  const decode::Schedule& sched = prm.sched;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4;
  const int64_t cta = blockIdx.x;
  const int64_t u_begin = sched.unit_begin(cta);
  const int units = int(sched.unit_begin(cta + 1) - u_begin);
  const int kt = int(sched.kt);
  const int tile_begin = int(u_begin / kt), kt_begin = int(u_begin - int64_t(tile_begin) * kt);
  int load_tile = tile_begin, load_kt = kt_begin;
  DecodeLoader<T, Tile> loader{prm, smem, tid, kt, load_tile, load_kt};
  DecodeAcc<Tile> acc;  // (16*SLABS, 8*MT) warp tile of C^T, m16n8 f32 fragments
  const DecodeEpilogue<T, Tile> epilogue{prm, s_last, cta, tid, lane, warp};

  // ================================ PROLOGUE ================================
#pragma unroll
  for (int i = 0; i < STAGES - 1; ++i) {
    if (i < units) loader.load_next(i);
    ptx::cp_async_commit();
  }
  clear_acc<Tile>(acc);

  // ================================ MAINLOOP ================================
  int cur_tile = tile_begin, cur_kt = kt_begin;
  for (int i = 0; i < units; ++i) {
    ptx::cp_async_wait<STAGES - 2>();
    __syncthreads();  // unit i landed for every thread; unit i-1's stage is free again
    if (i + STAGES - 1 < units) loader.load_next((i + STAGES - 1) % STAGES);
    ptx::cp_async_commit();

    const T* sw = smem + (i % STAGES) * Tile::STAGE_ELEMS;  // (BN,BK) weights
    const T* sx = sw + Tile::W_ELEMS;                       // (TOKENS,BK) tokens
    // The unit's mma. Each lane reads its fragments with one 16-byte shared load per row, in the
    // k order decode::frag_k gives, instead of ldmatrix. Written here, not called: as a function
    // (forceinline or not) it renumbered the split reduction's registers (sm_80 SASS, nvcc 13.0).
#pragma unroll
    for (int q = 0; q < BK / 32; ++q) {
      const int ch = 4 * q + t;
      uint4 wa[SLABS], wb[SLABS];  // (16 rows: g | g+8, 8 k) per lane, halves 8t..8t+7
#pragma unroll
      for (int s = 0; s < SLABS; ++s) {
        const int row = (warp * SLABS + s) * 16 + g;
        wa[s] = *reinterpret_cast<const uint4*>(sw + decode::chunk_offset<BK>(row, ch) * 8);
        wb[s] = *reinterpret_cast<const uint4*>(sw + decode::chunk_offset<BK>(row + 8, ch) * 8);
      }
#pragma unroll
      for (int j = 0; j < MT; ++j) {
        // (8 tokens, 8 k) per lane: token 8j+g, halves 8t..8t+7
        const uint4 xv =
            *reinterpret_cast<const uint4*>(sx + decode::chunk_offset<BK>(8 * j + g, ch) * 8);
        const uint32_t xr[4] = {xv.x, xv.y, xv.z, xv.w};
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const uint32_t b[2] = {xr[decode::frag_reg(h, 0)], xr[decode::frag_reg(h, 1)]};
#pragma unroll
          for (int s = 0; s < SLABS; ++s) {
            const uint32_t ar[4] = {wa[s].x, wa[s].y, wa[s].z, wa[s].w};
            const uint32_t br[4] = {wb[s].x, wb[s].y, wb[s].z, wb[s].w};
            const uint32_t a[4] = {ar[decode::frag_reg(h, 0)], br[decode::frag_reg(h, 0)],
                                   ar[decode::frag_reg(h, 1)], br[decode::frag_reg(h, 1)]};
            mma_f32<T>(acc[s][j], a, b);
          }
        }
      }
    }

    // ================================ EPILOGUE ================================
    // At the end of each tile this CTA touches (the unit loads in flight go on meanwhile).
    if (++cur_kt == kt || i + 1 == units) {
      epilogue.finish_tile(acc, cur_tile);
      clear_acc<Tile>(acc);
      cur_kt = 0;
      ++cur_tile;
    }
  }
  ptx::cp_async_wait<0>();
}

SplitWorkspace& workspace() {
  static SplitWorkspace* ws = new SplitWorkspace();  // never destroyed: no cudaFree at exit
  return *ws;
}

template <class T, class Tile>
void run(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  const auto kernel = hgemm_decode_kernel<T, Tile>;
  static PerDevice<int> resident;
  const int max_ctas = resident.get([&](int dev) {
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tile::SMEM));
    return resident_ctas(kernel, Tile::THREADS, Tile::SMEM, dev);
  });
  DecodeParams<T> prm{};
  prm.m = int(p.m);
  prm.n = int(p.n);
  prm.k = int(p.k);
  prm.alpha = args.alpha;
  prm.beta = args.beta;
  prm.x = static_cast<const T*>(args.a);
  prm.w = static_cast<const T*>(args.b);
  prm.c = static_cast<T*>(args.c);
  prm.sched = decode::make_schedule(p.n, p.k, Tile::BN, Tile::BK, max_ctas);
  const SplitWorkspace::View ws =
      workspace().get(size_t(prm.sched.slots()) * Tile::PARTIAL, size_t(prm.sched.tiles), stream);
  prm.partials = ws.partials;
  prm.counters = ws.counters;
  kernel<<<unsigned(prm.sched.ctas), Tile::THREADS, Tile::SMEM, stream>>>(prm);
}

template <class T>
void run_dtype(const GemmArgs& args, cudaStream_t stream) {
  const int64_t m = args.problem.m;
  if (m <= Tile8::TOKENS) {
    run<T, Tile8>(args, stream);
  } else if (m <= Tile16::TOKENS) {
    run<T, Tile16>(args, stream);
  } else if (m <= Tile32::TOKENS) {
    run<T, Tile32>(args, stream);
  } else if (m <= Tile64::TOKENS) {
    run<T, Tile64>(args, stream);
  } else {
    run<T, Tile128>(args, stream);
  }
}

void launch(const GemmArgs& args, cudaStream_t stream) {
  if (args.problem.m == 0 || args.problem.n == 0) return;
  if (args.problem.dtype == DType::bf16) {
    run_dtype<__nv_bfloat16>(args, stream);
  } else {
    run_dtype<__half>(args, stream);
  }
}

int smem_for_tokens(int64_t m) {
  if (m <= Tile8::TOKENS) return Tile8::SMEM;
  if (m <= Tile16::TOKENS) return Tile16::SMEM;
  if (m <= Tile32::TOKENS) return Tile32::SMEM;
  if (m <= Tile64::TOKENS) return Tile64::SMEM;
  return Tile128::SMEM;
}

std::string supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (p.m > kMaxTokens) return "decode path is for M <= 128 tokens; use hgemm_tn";
  if (p.n > INT_MAX - 256 || p.k > INT_MAX - 256)
    return "N and K must each be below 2^31 - 256 (32-bit row and k indices past a tile edge)";
  if (p.k % 8 != 0) {
    return "K must be a multiple of 8: token and weight rows are K-contiguous and copied in "
           "16-byte (8-element) pieces";
  }
  // unit_begin() multiplies a unit index by the grid size (at most a few thousand CTAs).
  if ((p.n / 16 + 1) * (p.k / 64 + 1) > (int64_t(1) << 48))
    return "N * K is too large for the stream-K unit arithmetic";
  const int smem = smem_for_tokens(p.m);
  if (caps.smem_per_block_optin != 0 && size_t(smem) > caps.smem_per_block_optin) {
    return "needs " + std::to_string(smem / 1024) +
           " KB of shared memory per block for M = " + std::to_string(p.m) +
           "; the device allows " + std::to_string(caps.smem_per_block_optin / 1024) + " KB";
  }
  return "";
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "hgemm_decode",
    .family = "hgemm",
    .rung = 11,
    .summary = "decode path (M <= 128): weights as mma's M side, cp.async ring, stream-K over all "
               "SMs, deterministic f32 fixup",
    .dtypes = {DType::f16, DType::bf16},
    .accums = {Accum::f32},
    .layouts = {Layout::tn},
    .min_sm = 80,
    .supports = supports,
    .launch = launch,
});

}  // namespace gemmbench::hgemm
