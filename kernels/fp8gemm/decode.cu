// Rung F4, fp8gemm_decode: FP8 decode at 1-16 tokens, the FP8 weights loaded from global memory
// straight into mma.sync m16n8k32 fragments, as the f16 tensor-core GEMV does (hgemm/gemv_tc.cu).
//
// At decode the product streams the weights (N x K bytes of FP8) and the 128-row tiles of F1-F3
// leave most SMs idle. This rung keeps the GEMV's shape: no ring, no barriers, every lane keeping
// 16-byte loads in flight from its first instruction. A warp owns RT = one tile of 16 weight rows
// per 8 tokens and walks K a 128-wide k-block (one scale block) at a time; lane (g, q) loads
// chunks k0 + 64c + 16q of rows g and g + 8 of each tile and of token 8j + g, and since a dot
// product's terms may come in any order, word 2s of a chunk stands for mma's k 4q.. and word
// 2s + 1 for k 16 + 4q.. of step (c, s). Each k-block's products go into a fresh partial added to
// the f32 sums times its block scales; tensor and row scales multiply once at the end. A row group
// is shared by WPR = 1-16 warps, chosen by the CTAs actually resident (gemv_grid.hpp), their sums
// added in warp order through shared memory (deterministic). docs/fp8.md, "Decode".
// Constraints: sm_89+ and a build with sm_90a code; TN; e4m3 x e4m3, e4m3 x e5m2 or e5m2 x e4m3
// (the mma kind: each pair its own 50 instances, no e5m2 x e5m2); f32 accumulation, a scaling,
// bf16 C; 1 <= M <= 16; K % 16 == 0 (a partial last k-block reads zeros past K); any N.
// State (2026-11-27, H100, sustained, cold L2; bench_results/h100/2026-11-27_fp8_decode_*): 0.84-
// 0.89 of the FP8 read roof at 1-8 tokens, 0.71-0.78 at 16; over cuBLASLt 1.18x block128 and 0.99x
// per-tensor at 8 tokens, 0.99-1.01x / 0.89x at 16. `fp8gemm` runs it at 1-16 tokens (rule T).
// The e5m2 pairs: not yet run on a GPU, no figures.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "common/gemv.cuh"
#include "common/occupancy.hpp"
#include "core/per_device.hpp"
#include "common/ptx.cuh"
#include "core/registry.hpp"

namespace gemmbench {
namespace {

constexpr int kMaxTokens = 16;
constexpr int kWarps = 16;    // per CTA, as the f16 tensor-core GEMV
constexpr int kRows = 16;     // weight rows per tile: mma's M
constexpr int kBlockK = 128;  // a k-block: one scale block along K
// k-blocks in flight per lane: 2 (128 bytes of weights at <= 8 tokens, 256 at 9-16), except 1 for
// block scales at 9-16 tokens, whose two k-blocks of loads and factors spilled at the 128
// registers a 16-warp CTA allows (still 128 bytes of weights per lane in flight).
template <ScaleMode S, int MG>
constexpr int kInFlight = S == ScaleMode::block128&& MG > 1 ? 1 : 2;

struct DecodeParams {
  const uint8_t* a;  // (M, K) FP8 (A's type), K-major, lda = K
  const uint8_t* w;  // op(B) = W (N, K) FP8 (B's type), K-major, ldw = K
  __nv_bfloat16* c;  // (M, N) column-major, ldc = M
  const float* scale_a;
  const float* scale_b;
  int m, n, k, kbs;  // kbs = ceil(K / 128)
  float alpha, beta;
};

[[maybe_unused]] __device__ __forceinline__ uint32_t word(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// A 16-byte chunk of a K-major row at k (a multiple of 16); zeros past K when !full. STREAM:
// evict-first (the weights are read once); otherwise through L1 (every row group reads the tokens).
template <bool STREAM>
__device__ __forceinline__ uint4 chunk(const uint8_t* row, int64_t k, int64_t K, bool full) {
  if (!full && k >= K) return make_uint4(0u, 0u, 0u, 0u);
  const uint4* p = reinterpret_cast<const uint4*>(row + k);
  return STREAM ? __ldcs(p) : __ldg(p);
}

// One k-block's loads: chunk c of rows g (2c) and g + 8 (2c + 1) of each tile, chunk c of each
// token group, and with block scales the k-block's factors.
template <int RT, int MG>
struct KBlock {
  uint4 w[RT][4];
  uint4 x[MG][2];
  float sa[MG][2];  // block128: A's scale of the fragment's tokens 8j + 2q + e
  float sb[RT];     // block128: B's block scale of tile t's rows
};

// At <= 8 tokens held to 64 registers, two CTAs per SM; at 9-16 tokens no minimum (0): asking
// for one CTA per SM made ptxas use all 128 registers and spill 40-88 bytes, where it otherwise
// takes 94-117 and spills none. A, B: the formats of the tokens (GEMM A) and the weights (GEMM
// B); the weights are the mma's A operand, so its kind is B x A.
template <DType A, DType B, ScaleMode S, int MG, int WPR, bool kFast>
__global__ void __launch_bounds__(32 * kWarps, MG == 1 ? 2 : 0)
    fp8_decode_kernel(const DecodeParams p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  static_assert(kWarps % WPR == 0, "a CTA holds whole row groups");
  static_assert(!(kFast && S == ScaleMode::block128), "block scales are applied at promotion");
  constexpr int RT = MG, ROWS = kRows * RT, GROUPS = kWarps / WPR, U = kInFlight<S, MG>;
  __shared__ gemv::FragSums<WPR, kWarps, RT * MG * 4> part_sums;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, q = lane % 4;
  const int part = warp % WPR;  // this warp's k-blocks: part, part + WPR, ...
  const int64_t n0 = (int64_t(blockIdx.x) * GROUPS + warp / WPR) * ROWS;
  float acc[RT][MG][4];
#pragma unroll
  for (int t = 0; t < RT; ++t)
#pragma unroll
    for (int j = 0; j < MG; ++j) acc[t][j][0] = acc[t][j][1] = acc[t][j][2] = acc[t][j][3] = 0.f;

  if (n0 < p.n) {  // uniform per warp: the whole row group is past N or not
    // Rows past N read row N - 1 again and tokens past M token M - 1 (their products land in D
    // elements never stored): every lane takes part in every mma, no branch in the loop.
    // Scale offsets in 32 bits (supports(): fewer than 2^31 block scales): 64-bit pointers spilled
    // at 9-16 tokens.
    const uint8_t* w_row[RT][2];
    int sb_row[RT];
#pragma unroll
    for (int t = 0; t < RT; ++t) {
#pragma unroll
      for (int h = 0; h < 2; ++h)
        w_row[t][h] = p.w + min(n0 + 16 * t + g + 8 * h, int64_t(p.n) - 1) * p.k;
      sb_row[t] = int(min(n0 + 16 * t, int64_t(p.n) - 1) / kBlockK) * p.kbs;
    }
    const uint8_t* x_row[MG];
    int sa_row[MG][2];
#pragma unroll
    for (int j = 0; j < MG; ++j) {
      x_row[j] = p.a + int64_t(min(8 * j + g, p.m - 1)) * p.k;
#pragma unroll
      for (int e = 0; e < 2; ++e) sa_row[j][e] = min(8 * j + 2 * q + e, p.m - 1) * p.kbs;
    }
    auto load = [&](KBlock<RT, MG>& b, int kb, bool full) {
      const int64_t k0 = int64_t(kb) * kBlockK + 16 * q;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
#pragma unroll
        for (int t = 0; t < RT; ++t)
#pragma unroll
          for (int h = 0; h < 2; ++h)
            b.w[t][2 * c + h] = chunk<true>(w_row[t][h], k0 + 64 * c, p.k, full);
#pragma unroll
        for (int j = 0; j < MG; ++j) b.x[j][c] = chunk<false>(x_row[j], k0 + 64 * c, p.k, full);
      }
      if constexpr (S == ScaleMode::block128) {
#pragma unroll
        for (int j = 0; j < MG; ++j)
#pragma unroll
          for (int e = 0; e < 2; ++e) b.sa[j][e] = __ldg(p.scale_a + sa_row[j][e] + kb);
#pragma unroll
        for (int t = 0; t < RT; ++t) b.sb[t] = __ldg(p.scale_b + sb_row[t] + kb);
      }
    };
    auto compute = [&](const KBlock<RT, MG>& b) {
      float fresh[kFast ? 1 : RT][kFast ? 1 : MG][4];
      if constexpr (!kFast) {
#pragma unroll
        for (int t = 0; t < RT; ++t)
#pragma unroll
          for (int j = 0; j < MG; ++j)
            fresh[t][j][0] = fresh[t][j][1] = fresh[t][j][2] = fresh[t][j][3] = 0.f;
      }
#pragma unroll
      for (int c = 0; c < 2; ++c)
#pragma unroll
        for (int s = 0; s < 2; ++s)
#pragma unroll
          for (int t = 0; t < RT; ++t) {
            const uint32_t a[4] = {word(b.w[t][2 * c], 2 * s), word(b.w[t][2 * c + 1], 2 * s),
                                   word(b.w[t][2 * c], 2 * s + 1),
                                   word(b.w[t][2 * c + 1], 2 * s + 1)};
#pragma unroll
            for (int j = 0; j < MG; ++j) {
              const uint32_t bx[2] = {word(b.x[j][c], 2 * s), word(b.x[j][c], 2 * s + 1)};
              if constexpr (kFast)
                ptx::mma_m16n8k32_fp8_f32<B, A>(acc[t][j], a, bx);
              else
                ptx::mma_m16n8k32_fp8_f32<B, A>(fresh[t][j], a, bx);
            }
          }
      if constexpr (!kFast) {
#pragma unroll
        for (int t = 0; t < RT; ++t)
#pragma unroll
          for (int j = 0; j < MG; ++j)
#pragma unroll
            for (int i = 0; i < 4; ++i) {
              if constexpr (S == ScaleMode::block128)
                acc[t][j][i] = fmaf(fresh[t][j][i], b.sa[j][i & 1] * b.sb[t], acc[t][j][i]);
              else
                acc[t][j][i] += fresh[t][j][i];
            }
      }
    };
    const int full_kbs = p.k / kBlockK;
    int kb = part;
    for (; kb + (U - 1) * WPR < full_kbs; kb += U * WPR) {  // U k-blocks in flight
      KBlock<RT, MG> b[U];
#pragma unroll
      for (int u = 0; u < U; ++u) load(b[u], kb + u * WPR, true);
#pragma unroll
      for (int u = 0; u < U; ++u) compute(b[u]);
    }
    for (; kb < p.kbs; kb += WPR) {  // the rest, a partial last k-block guarded
      KBlock<RT, MG> b;
      load(b, kb, kb < full_kbs);
      compute(b);
    }
  }

  // EPILOGUE: the row group's WPR warps summed in warp order; D element i of tile t and token
  // group j is C(8j + 2q + (i & 1), n0 + 16t + g + 8 (i >= 2)).
  if (!gemv::sum_row_group<WPR, kWarps, RT, MG>(acc, part_sums, warp, lane)) return;
  const float tensor_scale =
      S == ScaleMode::tensor ? p.alpha * __ldg(p.scale_a) * __ldg(p.scale_b) : p.alpha;
#pragma unroll
  for (int t = 0; t < RT; ++t)
#pragma unroll
    for (int j = 0; j < MG; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int64_t n = gemv::frag_row(n0, t, g, i);
        const int m = gemv::frag_token(j, q, i);
        if (n >= p.n || m >= p.m) continue;
        float scale = tensor_scale;
        if constexpr (S == ScaleMode::row)
          scale = p.alpha * __ldg(p.scale_a + m) * __ldg(p.scale_b + n);
        __nv_bfloat16* out = p.c + m + n * p.m;
        float v = acc[t][j][i] * scale;
        if (p.beta != 0.f) v += p.beta * __bfloat162float(*out);
        *out = __float2bfloat16_rn(v);
      }
#else
  __trap();
#endif
}

// The CTAs of a kernel of (A, B, S, MG, kFast) resident at once on the current device (the
// WPR = 1 instance: the others differ only in the epilogue's shared memory), asked once per
// device.
template <DType A, DType B, ScaleMode S, int MG, bool kFast>
int resident() {
  static PerDevice<int> count;
  return count.get([](int dev) {
    return resident_ctas(&fp8_decode_kernel<A, B, S, MG, 1, kFast>, 32 * kWarps, 0, dev);
  });
}

// f(a, b) with A's and B's types as compile-time constants: the three pairs supports() admits.
template <class F>
void with_types(const GemmProblem& p, F&& f) {
  using E4 = std::integral_constant<DType, DType::e4m3>;
  using E5 = std::integral_constant<DType, DType::e5m2>;
  if (p.dtype == DType::e5m2)
    f(E5{}, E4{});
  else if (p.b_type() == DType::e5m2)
    f(E4{}, E5{});
  else
    f(E4{}, E4{});
}

// f(scale, fast) as compile-time constants for the problem's scaling.
template <class F>
void with_scaling(const GemmProblem& p, F&& f) {
  using SM = ScaleMode;
  auto fast = [&](auto s) {
    if (p.fast_accum)
      f(s, std::true_type{});
    else
      f(s, std::false_type{});
  };
  switch (p.scale) {
    case SM::row:
      return fast(std::integral_constant<SM, SM::row>{});
    case SM::block128:
      return f(std::integral_constant<SM, SM::block128>{}, std::false_type{});
    default:
      return fast(std::integral_constant<SM, SM::tensor>{});
  }
}

std::string supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (std::string why = fp8_pair_unsupported(p.dtype, p.b_type()); !why.empty()) return why;
  if (caps.sm < 89) return "needs sm_89 or later (FP8 mma.sync)";
  if (p.out_type() != DType::bf16) return "writes bf16 C only (--out bf16)";
  if (p.scale == ScaleMode::none) return "needs a scaling (tensor, row or block128)";
  if (p.fast_accum && p.scale == ScaleMode::block128)
    return "block scales are applied when the partial sums are promoted: no fast accumulation";
  if (p.m > kMaxTokens)
    return "the FP8 decode path takes M <= " + std::to_string(kMaxTokens) +
           " (tokens); larger M runs the tiled rungs (fp8gemm_sm90_persistent_t)";
  if (p.k % 16 != 0) return "K must be a multiple of 16 (16-byte rows of FP8)";
  if (p.n > INT32_MAX || p.k > INT32_MAX) return "N and K must fit in 32-bit int";
  if (scale_count_b(p.scale, p.n, p.k) > INT32_MAX)
    return "block scales of B must number below 2^31 (32-bit offsets)";
  // The image the driver picked: sm_80 code (a build without 89 or 90a) is the trap stub.
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(
          &attr,
          reinterpret_cast<const void*>(
              &fp8_decode_kernel<DType::e4m3, DType::e4m3, ScaleMode::tensor, 1, 1, false>)) !=
      cudaSuccess) {
    (void)cudaGetLastError();
    return "cannot query the kernel image";
  }
  if (attr.binaryVersion < 89)
    return "this build has no sm_89/sm_90a code (configure with CMAKE_CUDA_ARCHITECTURES "
           "containing 90a)";
  return "";
}

void launch(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  if (p.m == 0 || p.n == 0) return;
  const int kbs = int((p.k + kBlockK - 1) / kBlockK);
  const DecodeParams prm{static_cast<const uint8_t*>(args.a),
                         static_cast<const uint8_t*>(args.b),
                         static_cast<__nv_bfloat16*>(args.c),
                         args.scale_a,
                         args.scale_b,
                         int(p.m),
                         int(p.n),
                         int(p.k),
                         kbs,
                         args.alpha,
                         args.beta};
  auto by_tokens = [&](auto mg) {
    constexpr int MG = decltype(mg)::value;
    const int64_t groups = (p.n + kRows * MG - 1) / (kRows * MG);
    with_types(p, [&](auto a, auto b) {
      constexpr DType A = decltype(a)::value, B = decltype(b)::value;
      with_scaling(p, [&](auto s, auto fast) {
        constexpr ScaleMode S = decltype(s)::value;
        constexpr bool kFast = decltype(fast)::value;
        // Warps per row group by the CTAs resident at once (two per SM at <= 8 tokens, one at
        // 9-16): the split whose busiest warp walks the fewest k-blocks (gemv_grid.hpp).
        const int wpr =
            gemv::resident_warps_per_row(groups, kbs, resident<A, B, S, MG, kFast>(), kWarps);
        gemv::with_warps_per_row<kWarps>(wpr, [&](auto w) {
          constexpr int WPR = decltype(w)::value;
          const int64_t blocks = gemv::gemv_ctas(groups, WPR, kWarps);
          fp8_decode_kernel<A, B, S, MG, WPR, kFast>
              <<<unsigned(blocks), 32 * kWarps, 0, stream>>>(prm);
        });
      });
    });
  };
  if (p.m <= 8)
    by_tokens(std::integral_constant<int, 1>{});
  else
    by_tokens(std::integral_constant<int, 2>{});
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = "fp8gemm_decode",
    .family = "fp8gemm",
    .rung = 4,
    .summary = "FP8 decode at 1-16 tokens: FP8 weights loaded straight into mma.sync m16n8k32 "
               "fragments (16-32 rows per warp), f32 promotion every 128 of K, no tile or ring",
    .dtypes = {DType::e4m3, DType::e5m2},
    .accums = {Accum::f32},
    .layouts = {Layout::tn},
    .min_sm = 89,
    .supports = supports,
    .launch = launch,
});

}  // namespace gemmbench
