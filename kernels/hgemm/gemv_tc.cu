// hgemm_decode_gemv_tc — HGEMM ladder, rung 11 (variant of the decode path): 2 to 16 tokens on
// tensor cores, the weights loaded from global memory straight into mma.sync fragments.
//
// The GEMV (hgemm_decode_gemv, common/gemv.cuh) reaches the weight stream fastest at one token:
// no shared-memory ring, no barriers, no split-K workspace, every lane keeping 16-byte loads in
// flight from its first instruction. At 4 tokens its FMAs multiply with the tokens (0.845x). This
// variant keeps its shape and hands the products to mma.sync m16n8k16: a warp owns RT tiles of 16
// weight rows (mma's M) and walks K in strides of 32, lane (g = lane/4, q = lane%4) loading
// W(16t + g, k0 + 8q .. + 7) and W(16t + g + 8, ...) as one 16-byte chunk each, and for every 8
// tokens (mma's N) the tokens' chunk at the same 8 k. The order of a dot product's terms is free,
// so the 8 k of a lane's chunk stand for mma's k {2q, 2q+1, 2q+8, 2q+9} of two k16 steps (words
// 0-1, then 2-3): A fragment (chunk(g) word 2s, chunk(g+8) word 2s, word 2s+1, word 2s+1) and B
// fragment (tokens' word 2s, word 2s+1) for step s, the same k on both sides. No shuffle, no
// ldmatrix, no shared memory before the epilogue; 4 strides in flight per lane.
// RT = one tile per 8 tokens, so that the tokens are half the bytes a stride reads whatever M is.
// A row group is read by WPR = 1-16 warps of one 16-warp CTA (strides dealt round-robin), more as
// N shrinks: at <= 8 tokens for about 48 warps per SM, at 9-16 as many as keep the CTAs to one
// wave; their f32 fragments are summed through shared memory in warp order (deterministic).
// Tokens come through L1 (__ldg).
// Constraints: NN or TN (W = op(B) K-contiguous); f16 or bf16 with f32 accumulation;
// 1 <= M <= 16; any N, K (16-byte loads where rows are 16-byte aligned, guarded element loads at
// the K tail and otherwise).
// Measured (H100, 2026-11-25, sustained, cold L2, TN, the 16 llama3/deepseek-v3 decode layers):
// `hgemm` runs it at 2-8 tokens under 128 MiB of weights (rule J) and at the three 16-token layers
// whose row groups fit one wave (rule L); with rule J `hgemm` ran 1.301x / 1.309x / 1.046x cuBLAS
// over all 16 layers at 2 / 4 / 8 tokens, f16 (this kernel under 128 MiB, rung 12 above;
// bench_results/h100/2026-11-25_gemv_tc_small_batches.json.gz, git 12e5cfe).
// The measurements behind the rules and the forms that lost: docs/hgemm-hopper.md, "Two to
// eight tokens".
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/gemv.cuh"
#include "common/ptx.cuh"
#include "core/registry.hpp"

namespace gemmbench {
namespace {

constexpr int kTcMaxTokens = 16;
// Warps per CTA: up to 16 on one row group. 8-warp CTAs at 9-16 tokens (held to 128 registers
// for 2 CTAs per SM: they spilled) ran 0.871x against 0.956x (git 0a93acb,
// 2026-11-25_gemv_tc_8warp_spill.json.gz: its minimum of 2 CTAs per SM also made the 8-token
// kernel spill, 5-15% slower).
constexpr int kTcWarps = 16;
constexpr int kTcRows = 16;     // weight rows per warp: mma's M
constexpr int kTcStrideK = 32;  // K per warp stride: 4 lanes x 8 elements
// Strides in flight per lane (2 RT kTcUnroll weight chunks). 4 against 2: 0.956x / 0.944x at 16
// tokens, 1.295x / 1.290x at 4, 1.023x / 1.028x at 8 (geometric means over the 16 decode layers,
// 2026-11-25_gemv_tc_candidates.json.gz).
constexpr int kTcUnroll = 4;

// The bits of a 16-bit value (f16 or bf16), for packing two into a 32-bit fragment register.
template <class T>
__device__ __forceinline__ uint16_t bits16(T v) {
  return *reinterpret_cast<const uint16_t*>(&v);
}

// The chunk of `row` (K-contiguous) at k0: one 16-byte load when FULL (inside K) and VEC
// (16-byte aligned rows), else element by element with zeros past K. STREAM: evict-first (the
// weights are read once); otherwise through L1 (the tokens are read by every row group).
template <class T, bool VEC, bool STREAM>
__device__ __forceinline__ uint4 load_chunk(const T* row, int64_t k0, int64_t k, bool full) {
  if (VEC && full) {
    const uint4* p = reinterpret_cast<const uint4*>(row + k0);
    return STREAM ? __ldcs(p) : __ldg(p);
  }
  uint32_t w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const uint32_t lo = k0 + 2 * i < k ? bits16(__ldg(row + k0 + 2 * i)) : 0u;
    const uint32_t hi = k0 + 2 * i + 1 < k ? bits16(__ldg(row + k0 + 2 * i + 1)) : 0u;
    w[i] = lo | (hi << 16);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// Token m's chunk at k0, m < M: K-major rows as above, M-major element by element.
template <class T, bool A_K_MAJOR, bool VEC>
__device__ __forceinline__ uint4 token_chunk(const gemv::Params& p, int m, int64_t k0, bool full) {
  const T* a = static_cast<const T*>(p.a);
  if constexpr (A_K_MAJOR) {
    return load_chunk<T, VEC, false>(a + m * p.lda, k0, p.k, full);
  } else {
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int64_t k = k0 + 2 * i;
      const uint32_t lo = k < p.k ? bits16(__ldg(a + m + k * p.lda)) : 0u;
      const uint32_t hi = k + 1 < p.k ? bits16(__ldg(a + m + (k + 1) * p.lda)) : 0u;
      w[i] = lo | (hi << 16);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
}

__device__ __forceinline__ uint32_t word(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// One stride: the lane's weight chunks (rows g and g + 8 of each of its RT 16-row tiles) against
// MG groups of 8 tokens, two m16n8k16 steps each (words 0-1, then 2-3 of every chunk).
template <class T, int RT, int MG>
__device__ __forceinline__ void mma_stride(float (&acc)[RT][MG][4], const uint4 (&w_lo)[RT],
                                           const uint4 (&w_hi)[RT], const uint4 (&x)[MG]) {
#pragma unroll
  for (int s = 0; s < 2; ++s)
#pragma unroll
    for (int t = 0; t < RT; ++t) {
      const uint32_t a[4] = {word(w_lo[t], 2 * s), word(w_hi[t], 2 * s), word(w_lo[t], 2 * s + 1),
                             word(w_hi[t], 2 * s + 1)};
#pragma unroll
      for (int j = 0; j < MG; ++j) {
        const uint32_t b[2] = {word(x[j], 2 * s), word(x[j], 2 * s + 1)};
        if constexpr (std::is_same_v<T, __half>)
          ptx::mma_m16n8k16_f32(acc[t][j], a, b);
        else
          ptx::mma_m16n8k16_bf16_f32(acc[t][j], a, b);
      }
    }
}

// MG: groups of 8 tokens (M <= 8 MG); each warp owns RT = MG tiles of 16 weight rows, so that a
// token chunk serves as many weight bytes as it has (tokens are half the bytes of weights read
// per stride whatever M is; one 16-row tile at 16 tokens read as many token bytes as weight bytes
// through L2 and ran 0.86x against 1.00x at 8 tokens, 2026-11-25_gemv_tc_candidates.json.gz).
// U: strides in flight per lane (2 RT U weight chunks).
template <class T, int MG, int WPR, bool A_K_MAJOR, bool VEC>
__global__ void __launch_bounds__(32 * kTcWarps) gemv_tc_kernel(const gemv::Params p) {
  constexpr int WARPS = kTcWarps;
  static_assert(WARPS % WPR == 0, "a CTA holds whole row groups");
  constexpr int RT = MG, ROWS = kTcRows * RT, GROUPS = WARPS / WPR, U = kTcUnroll;
  __shared__ gemv::FragSums<WPR, WARPS, RT * MG * 4> part_sums;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, q = lane % 4;
  const int part = warp % WPR;  // this warp's strides: part, part + WPR, ...
  const int64_t n0 = (int64_t(blockIdx.x) * GROUPS + warp / WPR) * ROWS;
  float acc[RT][MG][4];
#pragma unroll
  for (int t = 0; t < RT; ++t)
#pragma unroll
    for (int j = 0; j < MG; ++j) acc[t][j][0] = acc[t][j][1] = acc[t][j][2] = acc[t][j][3] = 0.f;

  if (n0 < p.n) {  // uniform per warp: the whole row group is past N or not
    // Rows past N read row N - 1 again (never stored): every lane takes part in every mma.
    const T* w = static_cast<const T*>(p.w);
    const T* w_lo[RT];
    const T* w_hi[RT];
#pragma unroll
    for (int t = 0; t < RT; ++t) {
      w_lo[t] = w + min(n0 + 16 * t + g, int64_t(p.n) - 1) * p.ldw;
      w_hi[t] = w + min(n0 + 16 * t + g + 8, int64_t(p.n) - 1) * p.ldw;
    }
    const int64_t full_strides = p.k / kTcStrideK, strides = (p.k + kTcStrideK - 1) / kTcStrideK;
    const int lane_k = 8 * q;
    // Token 8j + g, or the last token past M (its products land in D columns never stored): no
    // branch in the loop, so the loads of a batch issue back to back.
    int tok[MG];
#pragma unroll
    for (int j = 0; j < MG; ++j) tok[j] = min(8 * j + g, p.m - 1);
    int64_t s = part;
    for (; s + (U - 1) * WPR < full_strides; s += U * WPR) {
      uint4 wl[U][RT], wh[U][RT], x[U][MG];  // U strides in flight, loads before the mmas
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int64_t k0 = (s + u * WPR) * kTcStrideK + lane_k;
#pragma unroll
        for (int t = 0; t < RT; ++t) {
          wl[u][t] = load_chunk<T, VEC, true>(w_lo[t], k0, p.k, true);
          wh[u][t] = load_chunk<T, VEC, true>(w_hi[t], k0, p.k, true);
        }
#pragma unroll
        for (int j = 0; j < MG; ++j) x[u][j] = token_chunk<T, A_K_MAJOR, VEC>(p, tok[j], k0, true);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) mma_stride<T, RT, MG>(acc, wl[u], wh[u], x[u]);
    }
    for (; s < strides; s += WPR) {  // the rest, the partial last stride guarded
      const int64_t k0 = s * kTcStrideK + lane_k;
      const bool full = k0 + 8 <= p.k;
      uint4 wl[RT], wh[RT], x[MG];
#pragma unroll
      for (int t = 0; t < RT; ++t) {
        wl[t] = load_chunk<T, VEC, true>(w_lo[t], k0, p.k, full);
        wh[t] = load_chunk<T, VEC, true>(w_hi[t], k0, p.k, full);
      }
#pragma unroll
      for (int j = 0; j < MG; ++j) x[j] = token_chunk<T, A_K_MAJOR, VEC>(p, tok[j], k0, full);
      mma_stride<T, RT, MG>(acc, wl, wh, x);
    }
  }

  // EPILOGUE: the row group's WPR warps summed in warp order, then D fragment (g, 2q..2q+1) and
  // (g + 8, 2q..2q+1) of each row tile t and token group j stored: C(8j + 2q (+1), n0 + 16t + g
  // (+8)).
  if (!gemv::sum_row_group<WPR, WARPS, RT, MG>(acc, part_sums, warp, lane)) return;
  T* c = static_cast<T*>(p.c);
#pragma unroll
  for (int t = 0; t < RT; ++t)
#pragma unroll
    for (int j = 0; j < MG; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int64_t n = gemv::frag_row(n0, t, g, i);
        const int m = gemv::frag_token(j, q, i);
        if (n >= p.n || m >= p.m) continue;
        T* out = c + m + n * p.ldc;
        const float prior = p.beta != 0.f ? p.beta * to_f32(*out) : 0.f;
        *out = from_f32<T>(p.alpha * acc[t][j][i] + prior);
      }
}

std::string supports(const GemmProblem& p, const DeviceCaps&) {
  if (p.m > kTcMaxTokens)
    return "the tensor-core GEMV takes M <= " + std::to_string(kTcMaxTokens) +
           " (tokens); larger M runs a tiled decode kernel (hgemm_decode_sm90, hgemm_decode)";
  if (p.n > INT32_MAX || p.k > INT32_MAX) return "N and K must fit in 32-bit int";
  return "";
}

template <class T>
void launch_typed(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  if (p.m == 0 || p.n == 0) return;
  const int sms = gemv::device_sms();
  const gemv::Params prm = gemv::make_params(args);
  auto by_tokens = [&](auto mg) {
    constexpr int MG = decltype(mg)::value;
    const int64_t groups = (p.n + kTcRows * MG - 1) / (kTcRows * MG);
    const int64_t strides = (p.k + kTcStrideK - 1) / kTcStrideK;
    // At 9-16 tokens the kernels take 112-114 registers: one 16-warp CTA per SM, and the aim of
    // 48 warps per SM gave 6144 rows 192 CTAs, 1.45 waves (0.913x against 1.005x for rung 12,
    // 2026-11-25_gemv_tc_candidates.json.gz); the grid is one wave instead.
    const int wpr = MG == 1 ? gemv::warps_per_row(groups, strides, sms, kTcWarps)
                            : gemv::one_wave_warps_per_row(groups, strides, sms, kTcWarps);
    gemv::with_layout(args, 8, [&](auto a_k_major, auto vec) {
      gemv::with_warps_per_row<kTcWarps>(wpr, [&](auto w) {
        constexpr int WPR = decltype(w)::value;
        const int64_t blocks = gemv::gemv_ctas(groups, WPR, kTcWarps);
        gemv_tc_kernel<T, MG, WPR, decltype(a_k_major)::value, decltype(vec)::value>
            <<<unsigned(blocks), 32 * kTcWarps, 0, stream>>>(prm);
      });
    });
  };
  if (p.m <= 8)
    by_tokens(std::integral_constant<int, 1>{});
  else
    by_tokens(std::integral_constant<int, 2>{});
}

void launch(const GemmArgs& args, cudaStream_t stream) {
  if (args.problem.dtype == DType::f16)
    launch_typed<__half>(args, stream);
  else
    launch_typed<__nv_bfloat16>(args, stream);
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "hgemm_decode_gemv_tc",
    .family = "hgemm",
    .rung = 11,
    .summary = "decode at 2-16 tokens: weights loaded straight into mma.sync fragments (16-32 "
               "rows per warp), no tile, ring or fix-up",
    .dtypes = {DType::f16, DType::bf16},
    .accums = {Accum::f32},
    .layouts = {Layout::nn, Layout::tn},
    .min_sm = 80,
    .supports = supports,
    .launch = launch,
});

}  // namespace gemmbench
