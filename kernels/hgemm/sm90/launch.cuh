// Host side of the Hopper kernel: grid size (resident clusters, or the test cap), schedule,
// tensor maps, the launch, supports() and the registry entry of a variant. Included by
// sm90/kernels.cu (TN), sm90/layouts.cu (NN, NT, TT), sm90/decode.cu and the FP8 decode path
// (fp8gemm/decode_sm90.cu) only.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/occupancy.hpp"
#include "core/cuda_check.hpp"
#include "common/sm90/config.hpp"
#include "hgemm/sm90/kernel.cuh"
#include "common/sm90/schedule.hpp"
#include "common/sm90/stream_k.cuh"
#include "common/sm90/tma_desc.hpp"
#include "core/registry.hpp"

namespace gemmbench {
namespace {

// A registered variant: tile, ring depth, cluster size, whether the last waves run stream-K, the
// one layout it takes, and (CSPLIT) whether a one-row grid of few tiles splits each tile's K over
// the CTAs of a cluster with the partials summed in shared memory (sm90/cluster_split.cuh);
// where that split does not apply, a CSPLIT variant runs its stream-K twin (Fallback).
// CLUSTER_M: the cluster runs along M and shares the B tile (Sm90Config).
// DECODE_TAIL: the decode walk's last wave (make_schedule's decode_tail; host only).
template <int BM_, int BN_, int STAGES_, int CLUSTER_, bool STREAM_K_ = false,
          Layout LAYOUT_ = Layout::tn, bool CSPLIT_ = false, bool CLUSTER_M_ = false,
          int DECODE_TAIL_ = kDecodeTailWhole>
struct Sm90Variant {
  static constexpr int BM = BM_, BN = BN_, STAGES = STAGES_, CLUSTER = CLUSTER_;
  static constexpr bool STREAM_K = STREAM_K_;
  static constexpr Layout LAYOUT = LAYOUT_;
  static constexpr bool CSPLIT = CSPLIT_;
  static constexpr bool CLUSTER_M = CLUSTER_M_;
  static constexpr int DECODE_TAIL = DECODE_TAIL_;
  static constexpr bool A_K_MAJOR = a_is_k_major(LAYOUT_), B_K_MAJOR = b_is_k_major(LAYOUT_);
  using Cfg = Sm90Config<BM, BN, STAGES, CLUSTER, CLUSTER_M>;
  // The schedule's tile and cluster along N: a cluster along M walks tiles of its CTAs' M tiles
  // together, as one cluster of one along N.
  static constexpr int SCHED_BM = CLUSTER_M ? BM * CLUSTER : BM;
  static constexpr int SCHED_CLUSTER_N = CLUSTER_M ? 1 : CLUSTER;
  using Fallback = Sm90Variant<BM, BN, STAGES, 1, true, LAYOUT_, false, false, DECODE_TAIL_>;
};

// TIN: the inputs' type (T, C's, but for the FP8 decode path's e4m3: fp8gemm/decode_sm90.cu);
// SCALE: the FP8 path's scaling (hgemm/sm90/kernel.cuh; none for the 16-bit kernels).
template <class T, bool F16_ACCUM, class V, class TIN = T, ScaleMode SCALE = ScaleMode::none>
constexpr auto kernel_ptr() {
  return &hgemm_sm90_kernel<T, F16_ACCUM, V::BM, V::BN, V::STAGES, V::CLUSTER, V::STREAM_K,
                            V::A_K_MAJOR, V::B_K_MAJOR, V::CSPLIT, V::CLUSTER_M, TIN, SCALE>;
}
// The launch's operand maps, their element types, and C's type: the problem's, but with e4m3
// inputs A's and B's own and C's the output type.
template <class TIN>
DType out_dtype(const GemmProblem& p) {
  return sizeof(TIN) == 1 ? p.out_type() : p.dtype;
}
template <class TIN>
DType b_dtype(const GemmProblem& p) {
  return sizeof(TIN) == 1 ? p.b_type() : p.dtype;
}
// The FP8 kernels' scales (the 16-bit kernels: none).
template <class TIN>
std::pair<const float*, const float*> fp8_scales(const GemmArgs& args) {
  if constexpr (sizeof(TIN) == 1) return {args.scale_a, args.scale_b};
  return {nullptr, nullptr};
}

// The launch configuration of a variant's kernel on `ctas` CTAs in clusters of `cluster` (1: a
// plain launch); `attr` holds the cluster dimension and must outlive the config.
template <class V>
cudaLaunchConfig_t launch_config(int ctas, int cluster, cudaStream_t stream,
                                 cudaLaunchAttribute& attr) {
  return cluster_launch_config(ctas, cluster, V::Cfg::THREADS, V::Cfg::SMEM_BYTES, stream, attr);
}

// Per device, once: raise the dynamic shared-memory limit and ask how many clusters can be
// resident at once (a persistent grid must not exceed it: the CTAs of a later wave would wait for
// the whole first wave; for CLUSTER = 1 it is the SM count).
template <class T, bool F16_ACCUM, class V, class TIN = T, ScaleMode SCALE = ScaleMode::none>
int resident_clusters() {
  using Cfg = typename V::Cfg;
  static PerDevice<int> count;
  return count.get([](int dev) {
    const auto kernel = kernel_ptr<T, F16_ACCUM, V, TIN, SCALE>();
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES));
    int n = 0;
    if constexpr (V::CLUSTER == 1)
      n = resident_ctas(kernel, Cfg::THREADS, Cfg::SMEM_BYTES, dev);
    else
      n = max_active_clusters(kernel, V::CLUSTER, Cfg::THREADS, Cfg::SMEM_BYTES);
    if (n < 1)
      throw std::runtime_error("hgemm_tn_sm90: not even one CTA/cluster fits on the device");
    return n;
  });
}

// Per device, once: how many clusters of p CTAs (p = 2 .. kCsMaxParts) of a CSPLIT variant can be
// resident at once (index p; 0 where none fits).
template <class T, bool F16_ACCUM, class V, class TIN = T, ScaleMode SCALE = ScaleMode::none>
std::array<int, kCsMaxParts + 1> resident_split_clusters() {
  using Cfg = typename V::Cfg;
  static PerDevice<std::array<int, kCsMaxParts + 1>> count;
  return count.get([](int) {
    const auto kernel = kernel_ptr<T, F16_ACCUM, V, TIN, SCALE>();
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES));
    std::array<int, kCsMaxParts + 1> n{};
    for (int p = 2; p <= kCsMaxParts; ++p)
      n[p] = max_active_clusters(kernel, p, Cfg::THREADS, Cfg::SMEM_BYTES);
    return n;
  });
}

// The persistent walk: plain or stream-K, over resident clusters.
template <class T, bool F16_ACCUM, class V, class TIN = T, ScaleMode SCALE = ScaleMode::none>
void run_walk(const GemmArgs& args, cudaStream_t stream) {
  using Cfg = typename V::Cfg;
  int max_clusters = resident_clusters<T, F16_ACCUM, V, TIN, SCALE>();
  if (args.test_max_ctas > 0)  // test-only: whole clusters within the cap, at least one
    max_clusters = std::min(max_clusters, std::max(1, args.test_max_ctas / V::CLUSTER));
  if constexpr (V::STREAM_K) max_clusters = std::min(max_clusters, kSkMaxCtas / V::CLUSTER);
  const GemmProblem& p = args.problem;
  const int M = int(p.m), N = int(p.n), K = int(p.k);
  // elem_bytes 2 for FP8 too: the decode split's grid as the 16-bit path's, the one F5 was
  // measured with (one-byte weights would take the whole grid: decode_grid_target).
  constexpr int kSplitElemBytes = 2;
  Sm90Schedule sched = make_schedule(
      M, N, K, V::SCHED_BM, V::BN, sm90_k_block_elems<TIN, typename V::Cfg>(), V::SCHED_CLUSTER_N,
      max_clusters, V::STREAM_K, false, kSplitElemBytes, V::DECODE_TAIL);
  const DType tb = b_dtype<TIN>(p);
  const CUtensorMap map_a = V::A_K_MAJOR ? make_kmajor_map(args.a, p.dtype, M, K, Cfg::A_SLICE_ROWS)
                                         : make_mnmajor_map(args.a, p.dtype, M, K, Cfg::BK);
  const CUtensorMap map_a_tail =
      a_tail_map(map_a, V::A_K_MAJOR, args.a, p.dtype, M, K, Cfg::A_SLICE_ROWS);
  const CUtensorMap map_b = V::B_K_MAJOR ? make_kmajor_map(args.b, tb, N, K, Cfg::B_SLICE_ROWS)
                                         : make_mnmajor_map(args.b, tb, N, K, Cfg::BK);
  CUtensorMap map_c{};  // left zero (and unread) unless the TMA-store epilogue runs
  if (Cfg::TMA_STORE && args.beta == 0.f && M % 8 == 0 &&
      reinterpret_cast<uintptr_t>(args.c) % 16 == 0) {
    map_c = make_c_store_map(args.c, out_dtype<TIN>(p), M, N, Cfg::EPI_BOX);
    sched.c_tma = 1;
  }
  const uint32_t epoch = V::STREAM_K ? next_sk_epoch() : 0u;
  const auto [scale_a, scale_b] = fp8_scales<TIN>(args);

  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg =
      launch_config<V>(sched.clusters * V::CLUSTER, V::CLUSTER, stream, attr);
  CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel_ptr<T, F16_ACCUM, V, TIN, SCALE>(), map_a, map_a_tail,
                                map_b, map_c, static_cast<T*>(args.c), M, N, args.alpha, args.beta,
                                sched, epoch, scale_a, scale_b));
}

// The in-cluster split: one cluster of `parts` CTAs per tile, each CTA an equal k-range, when the
// tiles are one row and fewer than the grid target; else the stream-K twin runs.
template <class T, bool F16_ACCUM, class V, class TIN = T, ScaleMode SCALE = ScaleMode::none>
void run_cluster_split(const GemmArgs& args, cudaStream_t stream) {
  using Cfg = typename V::Cfg;
  const GemmProblem& p = args.problem;
  const int M = int(p.m), N = int(p.n), K = int(p.k);
  Sm90Schedule sched = make_schedule(M, N, K, V::BM, V::BN,
                                     sm90_k_block_elems<TIN, typename V::Cfg>(), 1, 1 << 30, false);
  const int ctas = resident_clusters<T, F16_ACCUM, V, TIN, SCALE>();
  // test_max_ctas (tests, the timeline probe): the CTAs the split may fill, instead of the rule.
  int parts = 1;
  if (sched.tiles_m == 1)
    parts = args.test_max_ctas > 0 ? cs_parts_for(sched.tiles_total, sched.k_blocks,
                                                  args.test_max_ctas, Cfg::CS_BLOCKS)
                                   : cs_parts(sched.tiles_total, sched.k_blocks, V::BM, ctas,
                                              Cfg::CS_BLOCKS, Cfg::CS_WHOLE_GRID);
  const auto resident = resident_split_clusters<T, F16_ACCUM, V, TIN, SCALE>();
  while (parts > 1 && resident[parts] < sched.tiles_total) --parts;
  if (parts < 2) return run_walk<T, F16_ACCUM, typename V::Fallback, TIN, SCALE>(args, stream);

  const CUtensorMap map_a = make_kmajor_map(args.a, p.dtype, M, K, Cfg::A_SLICE_ROWS);
  const CUtensorMap map_a_tail = a_tail_map(map_a, true, args.a, p.dtype, M, K, Cfg::A_SLICE_ROWS);
  const CUtensorMap map_b = make_kmajor_map(args.b, b_dtype<TIN>(p), N, K, V::BN);
  const CUtensorMap map_c{};  // the register epilogue stores C
  const auto [scale_a, scale_b] = fp8_scales<TIN>(args);
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = launch_config<V>(sched.tiles_total * parts, parts, stream, attr);
  CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel_ptr<T, F16_ACCUM, V, TIN, SCALE>(), map_a, map_a_tail,
                                map_b, map_c, static_cast<T*>(args.c), M, N, args.alpha, args.beta,
                                sched, 0u, scale_a, scale_b));
}

template <class T, bool F16_ACCUM, class V, class TIN = T, ScaleMode SCALE = ScaleMode::none>
void run(const GemmArgs& args, cudaStream_t stream) {
  if constexpr (V::CSPLIT) {
    static_assert(V::A_K_MAJOR && V::B_K_MAJOR && V::CLUSTER == 1 && !V::STREAM_K,
                  "the in-cluster split is TN, without a multicast cluster or stream-K");
    run_cluster_split<T, F16_ACCUM, V, TIN, SCALE>(args, stream);
  } else {
    run_walk<T, F16_ACCUM, V, TIN, SCALE>(args, stream);
  }
}

template <class V>
void launch(const GemmArgs& args, cudaStream_t stream) {
  const GemmProblem& p = args.problem;
  if (p.dtype == DType::f16 && p.accum == Accum::f32)
    run<__half, false, V>(args, stream);
  else if (p.dtype == DType::f16 && p.accum == Accum::f16)
    run<__half, true, V>(args, stream);
  else if (p.dtype == DType::bf16 && p.accum == Accum::f32)
    run<__nv_bfloat16, false, V>(args, stream);
  else
    throw std::invalid_argument("hgemm_tn_sm90: unsupported dtype/accumulate pair");
}

// A decode kernel's three token tiles (sm90/decode.cu, and the timeline probe's copies): with()
// runs f on the narrowest of 32, 64, 128 rows that holds every token. The (problem, SMs) form is
// the one every decode variant's tile choice has (sm90/decode.cu: decode_info).
template <class V32_, class V64_, class V128_>
struct TokenTiles {
  using V32 = V32_;
  using V64 = V64_;
  using V128 = V128_;
  using First = V32;  // the tile at one token: the registry entry's types, layout, architecture
  template <class F>
  static auto with(int64_t m, F&& f) {
    if (m <= 32) return f(V32{});
    if (m <= 64) return f(V64{});
    return f(V128{});
  }
  template <class F>
  static auto with(const GemmProblem& p, int /*sms*/, F&& f) {
    return with(p.m, f);
  }
};

template <class V>
const void* kernel_for(const GemmProblem& p) {
  if (p.dtype == DType::bf16)
    return reinterpret_cast<const void*>(kernel_ptr<__nv_bfloat16, false, V>());
  if (p.accum == Accum::f16) return reinterpret_cast<const void*>(kernel_ptr<__half, true, V>());
  return reinterpret_cast<const void*>(kernel_ptr<__half, false, V>());
}

// A variant's kernel image on this device (`kernel`: one of its instances) and the shared memory
// it asks: empty when the driver picked the sm_90a image and it fits, else why not. The sm_90a
// image declares the mbarriers as static shared memory; the trap stub that every other pass
// compiles declares none. A build without 90a (or with plain sm_90) makes the driver pick such a
// stub on this device.
template <class V>
std::string sm90a_image_reason(const void* kernel, const DeviceCaps& caps) {
  using Cfg = typename V::Cfg;
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, kernel);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("cannot query the kernel image: ") + cudaGetErrorString(e);
  }
  if (attr.sharedSizeBytes == 0)
    return "this build has no sm_90a code (configure with CMAKE_CUDA_ARCHITECTURES containing 90a)";
  if (caps.smem_per_block_optin < size_t(Cfg::SMEM_BYTES) + attr.sharedSizeBytes)
    return "needs " + std::to_string((Cfg::SMEM_BYTES + attr.sharedSizeBytes) / 1024) +
           " KB of shared memory per block, the device allows " +
           std::to_string(caps.smem_per_block_optin / 1024);
  return {};
}

template <class V>
std::string supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (caps.sm != 90)
    return "needs a compute capability 9.0 GPU (H100/H200): sm_90a wgmma/TMA code runs on no other";
  if (p.dtype == DType::bf16 && p.accum == Accum::f16) return "bf16 inputs accumulate in f32 only";
  if (std::string why = sm90a_image_reason<V>(kernel_for<V>(p), caps); !why.empty()) return why;
  // TMA needs 16-byte aligned strides: the contiguous dimension of each operand.
  if ((V::A_K_MAJOR || V::B_K_MAJOR) && p.k % 8 != 0)
    return "K must be a multiple of 8: TMA needs 16-byte aligned row strides";
  if (!V::A_K_MAJOR && p.m % 8 != 0)
    return "M must be a multiple of 8: TMA needs 16-byte aligned strides of the M-major A";
  if (!V::B_K_MAJOR && p.n % 8 != 0)
    return "N must be a multiple of 8: TMA needs 16-byte aligned strides of the N-major B";
  if (p.m >= (int64_t(1) << 30) || p.n >= (int64_t(1) << 30) || p.k >= (int64_t(1) << 30))
    return "M, N and K must be below 2^30 (32-bit tile coordinates)";
  const int64_t cluster_tiles_n =
      (p.n + int64_t(V::BN) * V::SCHED_CLUSTER_N - 1) / (int64_t(V::BN) * V::SCHED_CLUSTER_N);
  // Raster slots, padded to whole bands (of up to 8; 16 leaves room).
  if ((p.m + V::SCHED_BM - 1) / V::SCHED_BM * 16 * (cluster_tiles_n + 15) >= (int64_t(1) << 31))
    return "too many tiles for the 32-bit persistent tile index";
  return {};
}

template <class V>
KernelInfo sm90_info(std::string name, std::string summary) {
  return KernelInfo{
      .name = std::move(name),
      .family = "hgemm",
      .rung = 10,
      .summary = std::move(summary),
      .dtypes = {DType::f16, DType::bf16},
      .accums = {Accum::f32, Accum::f16},
      .layouts = {V::LAYOUT},
      .min_sm = 90,
      .supports = supports<V>,
      .launch = launch<V>,
  };
}

}  // namespace
}  // namespace gemmbench
