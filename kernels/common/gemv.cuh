// The matrix-vector product of a decode step on CUDA cores, for one to four tokens: C(m, n) =
// alpha * sum_k op(A)(m, k) * W(n, k) + beta * C(m, n), with W = op(B) stored K-contiguous
// (TN: x @ W.T; NN). Shared by hgemm_decode_gemv (f16, bf16; kernels/hgemm/gemv.cu) and
// sgemm_decode_gemv (f32; kernels/sgemm/gemv.cu). Device code and the launcher; included by those
// two files, and by the tensor-core GEMV (kernels/hgemm/gemv_tc.cu) for its launch-side pieces.
//
// At M <= 4 the product is the weight stream, N*K elements read once: no tensor-core tile, no
// shared-memory ring, no split-K fix-up. Each row W(n, :) is read by WPR warps of one CTA (8
// warps, 8/WPR rows), every lane streaming 16-byte chunks U = 2 at a time (chunk c + i*32*WPR, the
// U loads issued before their FMAs, evict-first), with the tokens' matching chunks read through
// L1 (a few KB, shared by every row). The lanes' f32 sums are reduced by shuffles, the WPR warps'
// through shared memory, in a fixed order (deterministic). WPR grows as N shrinks, so that the
// grid holds about 48 warps per SM whatever N is.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/align.hpp"
#include "common/convert.cuh"
#include "common/gemv_grid.hpp"
#include "common/layout_dispatch.hpp"
#include "common/occupancy.hpp"
#include "core/cuda_check.hpp"
#include "core/registry.hpp"

namespace gemmbench::gemv {

inline constexpr int kMaxTokens = 4;
inline constexpr int kWarps = 8;  // per CTA
// 16-byte chunks in flight per lane. 2 measured ahead of 4 and 8 at one token (geometric mean
// 1.095x against 1.070x / 1.039x, 2026-11-25_gemv_tuning.json.gz): a short row (K = 512: 2 chunks
// per lane) never enters a 4-deep unrolled loop.
inline constexpr int kUnroll = 2;

struct Params {
  const void* a;  // op(A) (M,K): A(m, k) at m * lda + k (K-major) or m + k * lda
  int64_t lda;
  const void* w;  // W = op(B) as (N,K), K-contiguous: W(n, k) at n * ldw + k
  int64_t ldw;
  void* c;  // (M,N) column-major, ldc
  int64_t ldc;
  int m, n, k;
  float alpha, beta;
};

// Elements of T in a 16-byte chunk, and the chunk's values as floats.
template <class T>
constexpr int kChunk = 16 / int(sizeof(T));

template <class T>
__device__ __forceinline__ void to_float(const uint4& v, float (&f)[kChunk<T>]) {
  if constexpr (std::is_same_v<T, float>) {
    f[0] = __uint_as_float(v.x), f[1] = __uint_as_float(v.y);
    f[2] = __uint_as_float(v.z), f[3] = __uint_as_float(v.w);
  } else {
    const uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 p;
      if constexpr (std::is_same_v<T, __half>)
        p = __half22float2(*reinterpret_cast<const __half2*>(&words[i]));
      else
        p = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&words[i]));
      f[2 * i] = p.x, f[2 * i + 1] = p.y;
    }
  }
}

template <class T>
__device__ __forceinline__ float load_float(const T* p) {
  return to_f32(__ldg(p));
}

// acc[m] += op(A)(m, k0 .. k0 + E-1) . wf, for the tokens m < M (MT at most).
template <class T, int MT, bool A_K_MAJOR, bool VEC>
__device__ __forceinline__ void fma_chunk(float (&acc)[MT], const Params& p, int64_t k0,
                                          const float (&wf)[kChunk<T>]) {
  constexpr int E = kChunk<T>;
  const T* a = static_cast<const T*>(p.a);
#pragma unroll
  for (int m = 0; m < MT; ++m) {
    if (MT > 1 && m >= p.m) break;
    float af[E];
    if constexpr (A_K_MAJOR && VEC) {
      to_float<T>(__ldg(reinterpret_cast<const uint4*>(a + m * p.lda + k0)), af);
    } else {
#pragma unroll
      for (int i = 0; i < E; ++i)
        af[i] = load_float(a + (A_K_MAJOR ? m * p.lda + k0 + i : m + (k0 + i) * p.lda));
    }
#pragma unroll
    for (int i = 0; i < E; ++i) acc[m] = fmaf(af[i], wf[i], acc[m]);
  }
}

// VEC: W's rows (and a K-major A's) start 16-byte aligned and K is a whole number of chunks
// past which a scalar tail runs; otherwise every element is read alone.
template <class T, int MT, int WPR, bool A_K_MAJOR, bool VEC>
__global__ void __launch_bounds__(32 * kWarps) gemv_kernel(const Params p) {
  static_assert(kWarps % WPR == 0, "a CTA holds whole rows");
  constexpr int E = kChunk<T>, U = kUnroll;
  constexpr int ROWS = kWarps / WPR;
  __shared__ float part_sums[kWarps][MT];  // (warps, tokens): each warp's reduced sums

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int part = warp % WPR;  // this warp's share of the row's chunks
  const int64_t n = int64_t(blockIdx.x) * ROWS + warp / WPR;
  const T* a = static_cast<const T*>(p.a);
  float acc[MT];  // (MT) registers: this lane's sums
#pragma unroll
  for (int m = 0; m < MT; ++m) acc[m] = 0.f;

  if (n < p.n) {
    const T* w = static_cast<const T*>(p.w) + n * p.ldw;  // W(n, :)
    constexpr int STRIDE = 32 * WPR;                      // chunks between a lane's chunks
    int64_t k_done = 0;                                   // k below this ran vectorized
    if constexpr (VEC) {
      const int64_t chunks = p.k / E;
      int64_t c = part * 32 + lane;
      for (; c + (U - 1) * STRIDE < chunks; c += U * STRIDE) {
        uint4 wv[U];  // the U chunks in flight
#pragma unroll
        for (int u = 0; u < U; ++u)
          wv[u] = __ldcs(reinterpret_cast<const uint4*>(w + (c + u * STRIDE) * E));
#pragma unroll
        for (int u = 0; u < U; ++u) {
          float wf[E];
          to_float<T>(wv[u], wf);
          fma_chunk<T, MT, A_K_MAJOR, VEC>(acc, p, (c + u * STRIDE) * E, wf);
        }
      }
      for (; c < chunks; c += STRIDE) {
        float wf[E];
        to_float<T>(__ldcs(reinterpret_cast<const uint4*>(w + c * E)), wf);
        fma_chunk<T, MT, A_K_MAJOR, VEC>(acc, p, c * E, wf);
      }
      k_done = chunks * E;
    }
    // The scalar tail (K % E elements), or every element without VEC.
    for (int64_t k = k_done + part * 32 + lane; k < p.k; k += STRIDE) {
      const float wk = load_float(w + k);
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        if (MT > 1 && m >= p.m) break;
        acc[m] = fmaf(load_float(a + (A_K_MAJOR ? m * p.lda + k : m + k * p.lda)), wk, acc[m]);
      }
    }
  }

  // EPILOGUE: lanes by shuffles, then the row's WPR warps in order; one lane stores C(:, n).
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int off = 16; off > 0; off /= 2) acc[m] += __shfl_xor_sync(0xffffffffu, acc[m], off);
  if constexpr (WPR > 1) {
    if (lane == 0)
#pragma unroll
      for (int m = 0; m < MT; ++m) part_sums[warp][m] = acc[m];
    __syncthreads();
    if (part != 0) return;
#pragma unroll
    for (int m = 0; m < MT; ++m) {
      float s = part_sums[warp][m];
#pragma unroll
      for (int q = 1; q < WPR; ++q) s += part_sums[warp + q][m];
      acc[m] = s;
    }
  }
  if (lane != 0 || n >= p.n) return;
  T* c = static_cast<T*>(p.c);
#pragma unroll
  for (int m = 0; m < MT; ++m) {
    if (m >= p.m) break;
    T* out = c + m + n * p.ldc;
    const float prior = p.beta != 0.f ? p.beta * load_float(out) : 0.f;
    *out = from_f32<T>(p.alpha * acc[m] + prior);
  }
}

inline std::string supports(const GemmProblem& p, const DeviceCaps&) {
  if (p.m > kMaxTokens)
    return "the GEMV path takes M <= " + std::to_string(kMaxTokens) +
           " (tokens); larger M runs a tiled kernel";
  if (p.n > INT32_MAX || p.k > INT32_MAX) return "N and K must fit in 32-bit int";
  return "";
}

// ---- The tensor-core GEMVs' fragments and row-group sum (hgemm/gemv_tc.cu, fp8gemm/decode.cu)
// The shared memory of the sum: a (RT x MG x 4) fragment of f32 per lane and warp (WPR > 1).
template <int WPR, int WARPS, int FRAG>
using FragSums = float[WPR > 1 ? WARPS : 1][FRAG][32];

// Element i of the m16n8 D fragment of row tile t and token group j (g = lane/4, q = lane%4):
// weight row n0 + 16t + g (+ 8 for i >= 2), the output's N; token 8j + 2q + (i & 1), its M.
__device__ __forceinline__ int64_t frag_row(int64_t n0, int t, int g, int i) {
  return n0 + 16 * t + g + (i >= 2 ? 8 : 0);
}
__device__ __forceinline__ int frag_token(int j, int q, int i) {
  return 8 * j + 2 * q + (i & 1);
}

// The WPR warps of a row group (warps part = warp % WPR of one CTA) add their mma fragments in
// warp order through `sums` (deterministic). Returns false for the warps that then hold no sum
// (part != 0), which store nothing; every warp of the CTA must call it (a __syncthreads).
template <int WPR, int WARPS, int RT, int MG>
__device__ __forceinline__ bool sum_row_group(float (&acc)[RT][MG][4],
                                              FragSums<WPR, WARPS, RT * MG * 4>& sums, int warp,
                                              int lane) {
  if constexpr (WPR > 1) {
#pragma unroll
    for (int t = 0; t < RT; ++t)
#pragma unroll
      for (int j = 0; j < MG; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i) sums[warp][(t * MG + j) * 4 + i][lane] = acc[t][j][i];
    __syncthreads();
    if (warp % WPR != 0) return false;
#pragma unroll
    for (int t = 0; t < RT; ++t)
#pragma unroll
      for (int j = 0; j < MG; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          float sum = acc[t][j][i];
#pragma unroll
          for (int w2 = 1; w2 < WPR; ++w2) sum += sums[warp + w2][(t * MG + j) * 4 + i][lane];
          acc[t][j][i] = sum;
        }
  }
  return true;
}

// ---- Launch-side pieces shared with the tensor-core GEMV (hgemm/gemv_tc.cu) ----------------

// The current device's SM count, asked once per device.
inline int device_sms() {
  static PerDevice<int> sms;
  return sms.get(sm_count);
}

inline Params make_params(const GemmArgs& args) {
  const GemmProblem& p = args.problem;
  return Params{args.a,   p.lda(),  args.b,   p.ldb(),    args.c,   p.ldc(),
                int(p.m), int(p.n), int(p.k), args.alpha, args.beta};
}

// 16-byte chunks of `elems` elements: aligned W rows, and aligned A rows where A is read in
// chunks too.
inline bool chunks_aligned(const GemmArgs& args, int elems) {
  const GemmProblem& p = args.problem;
  return p.ldb() % elems == 0 && aligned16(args.b) &&
         (!a_is_k_major(p.layout) || (p.lda() % elems == 0 && aligned16(args.a)));
}

// f(std::integral_constant<int, W>{}) for wpr = W, one of 1, 2, 4, ... MAX (wpr above MAX: MAX).
template <int MAX, class F>
void with_warps_per_row(int wpr, F&& f) {
  auto as = [&](auto w) {
    if constexpr (decltype(w)::value <= MAX) f(w);
  };
  switch (wpr) {
    case 1:
      return as(std::integral_constant<int, 1>{});
    case 2:
      return as(std::integral_constant<int, 2>{});
    case 4:
      return as(std::integral_constant<int, 4>{});
    case 8:
      return as(std::integral_constant<int, 8>{});
    default:
      return as(std::integral_constant<int, MAX>{});
  }
}

// f(std::bool_constant<A_K_MAJOR>{}, std::bool_constant<VEC>{}): the kernel instance for the
// layout of A and whether rows take 16-byte chunks. op(B) must be K-contiguous: the registry
// entries claim NN and TN only.
template <class F>
void with_layout(const GemmArgs& args, int elems, F&& f) {
  const GemmProblem& p = args.problem;
  if (!b_is_k_major(p.layout)) throw std::logic_error("gemv: op(B) must be K-contiguous");
  const bool a_k_major = a_is_k_major(p.layout), vec = chunks_aligned(args, elems);
  if (a_k_major)
    vec ? f(std::true_type{}, std::true_type{}) : f(std::true_type{}, std::false_type{});
  else
    vec ? f(std::false_type{}, std::true_type{}) : f(std::false_type{}, std::false_type{});
}

template <class T>
void launch(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  if (p.m == 0 || p.n == 0) return;
  const int sms = device_sms();
  constexpr int E = kChunk<T>;
  const Params prm = make_params(args);
  const int wpr = warps_per_row(p.n, (p.k / E + 31) / 32, sms);  // strides of 32 chunks
  auto by_tokens = [&](auto mt) {
    with_layout(args, E, [&](auto a_k_major, auto vec) {
      with_warps_per_row<kMaxWarpsPerRow>(wpr, [&](auto w) {
        constexpr int MT = decltype(mt)::value, WPR = decltype(w)::value;
        const int64_t blocks = gemv_ctas(prm.n, WPR, kWarps);
        gemv_kernel<T, MT, WPR, decltype(a_k_major)::value, decltype(vec)::value>
            <<<unsigned(blocks), 32 * kWarps, 0, stream>>>(prm);
      });
    });
  };
  if (p.m == 1)
    by_tokens(std::integral_constant<int, 1>{});
  else
    by_tokens(std::integral_constant<int, kMaxTokens>{});
}

}  // namespace gemmbench::gemv
