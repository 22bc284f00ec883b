// Host side of the Ampere family: what a problem must satisfy (ampere_supports), which schedule
// runs it (persistent_fits), the launch (ampere_run: persistent.cuh's kernel, else
// tile_loop.cuh's), and the registry entry. tn.cu and layouts.cu register instantiations.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "common/occupancy.hpp"
#include "common/raster.hpp"
#include "hgemm/ampere/config.cuh"
#include "hgemm/ampere/mainloop.cuh"
#include "hgemm/ampere/persistent.cuh"
#include "hgemm/ampere/tile_loop.cuh"
#include "hgemm/ampere_index.hpp"
#include "core/registry.hpp"

namespace gemmbench::hgemm {

// What the problem must satisfy for layout L (the runner checked dtype/accum/layout already).
template <class Cfg, Layout L>
std::string ampere_supports(const GemmProblem& p, const DeviceCaps& caps) {
  if (p.m > INT_MAX || p.n > INT_MAX || p.k > INT_MAX) {
    return "M, N and K must each fit in a 32-bit int";
  }
  if (a_is_k_major(L) && p.k % 8 != 0) {
    return "K must be a multiple of 8: A is K-contiguous here and its rows are copied in 16-byte "
           "(8 x f16) cp.async pieces";
  }
  if (!a_is_k_major(L) && p.m % 8 != 0) {
    return "M must be a multiple of 8: A is M-contiguous here and its columns are copied in "
           "16-byte (8 x f16) cp.async pieces";
  }
  if (b_is_k_major(L) && p.k % 8 != 0) {
    return "K must be a multiple of 8: B is K-contiguous here and its columns are copied in "
           "16-byte (8 x f16) cp.async pieces";
  }
  if (!b_is_k_major(L) && p.n % 8 != 0) {
    return "N must be a multiple of 8: B is N-contiguous here and its rows are copied in 16-byte "
           "(8 x f16) cp.async pieces";
  }
  // A persistent configuration runs on less (without its staging tile, see ampere_run).
  if (caps.smem_per_block_optin != 0 && caps.smem_per_block_optin < size_t(Cfg::PIPE_BYTES)) {
    return "needs " + std::to_string(Cfg::PIPE_BYTES / 1024) +
           " KB of shared memory per block, the device allows " +
           std::to_string(caps.smem_per_block_optin / 1024) + " KB";
  }
  const int tiles_n = int((p.n + Cfg::BN - 1) / Cfg::BN);
  if (raster_grid(1, tiles_n, raster_log_tile(tiles_n, kRasterMaxSwizzle)).y > 65535) {
    return "N is too large for the grid's y dimension (65535 CTA rows)";
  }
  return "";
}

// Whether the persistent schedule runs a problem: every tile inside M and N (after the edge
// shift), K whole k-tiles and at least STAGES-1 of them (so the prologue and every copy stay
// unpredicated and inside one tile or the next), and M % 8 == 0 (16-byte C pieces wholly owned or
// not). Other problems run the same tile without persistence: correct for any shape, and small or
// ragged problems are where a persistent grid gains least.
template <class Cfg>
bool persistent_fits(const AmpereParams& p) {
  return p.m >= Cfg::BM && p.n >= Cfg::BN && p.k % Cfg::BK == 0 &&
         p.k / Cfg::BK >= Cfg::STAGES - 1 && p.m % 8 == 0;
}

template <class Cfg, bool A_K_MAJOR, bool B_K_MAJOR, class AccT>
void ampere_run(const GemmArgs& args, cudaStream_t stream) {
  using K = AmpereKernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
  const auto kernel = [] {
    if constexpr (Cfg::PERSISTENT) {
      return hgemm_ampere_persistent_kernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
    } else {
      return hgemm_ampere_kernel<Cfg, A_K_MAJOR, B_K_MAJOR, AccT>;
    }
  }();
  const GemmProblem& pr = args.problem;
  AmpereParams p{};
  p.m = int(pr.m);
  p.n = int(pr.n);
  p.k = int(pr.k);
  if (p.m == 0 || p.n == 0) return;
  p.a = static_cast<const __half*>(args.a);
  p.b = static_cast<const __half*>(args.b);
  p.c = static_cast<__half*>(args.c);
  p.alpha = args.alpha;
  p.beta = args.beta;
  p.tiles_m = ceil_div(p.m, Cfg::BM);
  p.tiles_n = ceil_div(p.n, Cfg::BN);
  p.log_tile = raster_log_tile(p.tiles_n, kRasterMaxSwizzle);
  const RasterGrid g = raster_grid(p.tiles_m, p.tiles_n, p.log_tile);
  p.raster_x = g.x;
  p.raster_slots = g.x * g.y;
  if constexpr (Cfg::PERSISTENT) {
    if (!persistent_fits<Cfg>(p) || device_smem_per_block_optin() < size_t(K::SMEM_BYTES)) {
      // The same tile, one CTA per tile (see persistent_fits; or the device's shared memory
      // holds the pipeline but not the staging tile too).
      using NonPersistent =
          AmpereTile<Cfg::BM, Cfg::BN, Cfg::BK, Cfg::WARPS_M, Cfg::WARPS_N, Cfg::STAGES, false>;
      ampere_run<NonPersistent, A_K_MAJOR, B_K_MAJOR, AccT>(args, stream);
      return;
    }
  }
  // Opt in to > 48 KB of dynamic shared memory once per kernel (no allocation, nothing on the
  // timed path after the first call). A failure here shows up as the launch's error.
  static const bool configured = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, K::SMEM_BYTES);
    cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                         int(cudaSharedmemCarveoutMaxShared));
    return true;
  }();
  (void)configured;
  if constexpr (Cfg::PERSISTENT) {
    // As many CTAs as are resident at once (one wave), never more than there are tiles.
    static PerDevice<int> resident;
    const int wave = resident.get(
        [&](int dev) { return resident_ctas(kernel, Cfg::THREADS, K::SMEM_BYTES, dev); });
    int ctas = std::min(wave, p.tiles_m * p.tiles_n);
    if (args.test_max_ctas > 0) ctas = std::min(ctas, args.test_max_ctas);  // test-only
    kernel<<<unsigned(ctas), Cfg::THREADS, K::SMEM_BYTES, stream>>>(p);
  } else {
    kernel<<<dim3(unsigned(g.x), unsigned(g.y)), Cfg::THREADS, K::SMEM_BYTES, stream>>>(p);
  }
}

template <class Cfg, Layout L>
void ampere_launch(const GemmArgs& args, cudaStream_t stream) {
  constexpr bool a_k = a_is_k_major(L);
  constexpr bool b_k = b_is_k_major(L);
  if constexpr (Cfg::F32_ACC) {
    if (args.problem.accum == Accum::f32) {
      ampere_run<Cfg, a_k, b_k, float>(args, stream);
      return;
    }
  }
  ampere_run<Cfg, a_k, b_k, __half>(args, stream);  // the runner passes only declared accums
}

// Registry entry of one tile configuration in one layout; f16 accumulation native (seed 000's
// mma.sync ... f16.f16.f16.f16), f32 too where the warp tile's accumulators fit (F32_ACC).
template <class Cfg, Layout L>
KernelInfo ampere_kernel_info(std::string name, int rung, std::string summary) {
  std::vector<Accum> accums{Accum::f16};
  if (Cfg::F32_ACC) accums.push_back(Accum::f32);
  return KernelInfo{
      .name = std::move(name),
      .family = "hgemm",
      .rung = rung,
      .summary = std::move(summary),
      .dtypes = {DType::f16},
      .accums = std::move(accums),
      .layouts = {L},
      .min_sm = 80,
      .supports = ampere_supports<Cfg, L>,
      .launch = ampere_launch<Cfg, L>,
  };
}

}  // namespace gemmbench::hgemm
