// `inspect mma-peak`: the ceiling of mma.sync.m16n8k16 on the GPU at hand, under whatever power
// cap and clock it runs at. The device half (mma_peak_device.cu) fills the raw measurements of
// each row; derive_mma_peak turns them into the figures the renderers print, so that a host test
// covers the arithmetic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "report/result.hpp"

namespace gemmbench::inspect {

// Each warp runs kMmaChains independent accumulator chains: kMmaTileM A fragments times
// kMmaTileN B fragments, a 64x32 warp tile as in the hgemm kernels' inner loop.
inline constexpr int kMmaTileM = 4;
inline constexpr int kMmaTileN = 4;
inline constexpr int kMmaChains = kMmaTileM * kMmaTileN;
inline constexpr double kFlopPerMma = 2.0 * 16 * 8 * 16;  // m16n8k16
inline constexpr int kMmaPeakWarps[] = {4, 8, 16};        // warps per SM, one CTA per SM
inline constexpr double kMmaPeakMinSeconds = 0.05, kMmaPeakMaxSeconds = 60.0;

struct MmaPeakConfig {
  Accum accum = Accum::f32;
  DType dtype = DType::f16;  // input type: f16, or bf16 with f32 accumulate
  int warps_per_sm = 4;
};

struct MmaPeakRequest {
  std::vector<MmaPeakConfig> configs;
  double seconds = 2.0;  // timed launches per config, after a warm-up
  int device = 0;        // CUDA device index (--device)
};

struct MmaPeakRow {
  MmaPeakConfig config;
  // Measured (mma_peak_device.cu).
  int ctas = 0;                  // one per SM
  int64_t iters_per_launch = 0;  // loop iterations per warp, 2 * kMmaChains mma each
  int64_t launches = 0;          // timed launches
  double flop = 0;               // over the timed launches
  double elapsed_ms = 0;         // cudaEvent time of the timed launches
  double mean_cta_cycles = 0;    // clock64 cycles of a CTA, summed over launches, mean over CTAs
  ClockStats clock;              // NVML, sampled during the timed launches
  // Derived (derive_mma_peak).
  double tflops = 0;
  double clock_mhz = 0;            // mean_cta_cycles / elapsed: the SM clock while running
  double flop_per_clk_per_sm = 0;  // flop / (ctas * mean_cta_cycles)
  bool best = false;               // highest TFLOP/s of its accumulate type
};

struct MmaPeakReport {
  // Provenance, as a benchmark report's metadata records it.
  std::string date_utc;        // ISO 8601, when the run started
  std::string driver_version;  // NVML's string, or the CUDA driver API version without NVML
  std::string cuda_runtime;    // "13.0"
  std::string cuda_driver_api;
  std::string device_name;
  int device_index = 0;
  int sm = 0;  // 10 * major + minor
  int num_sms = 0;
  double seconds = 0, warmup_seconds = 0;
  std::vector<MmaPeakRow> rows;
};

// Fills the derived fields of every row. Rows with no elapsed time or cycles keep zeros.
void derive_mma_peak(MmaPeakReport& report);

}  // namespace gemmbench::inspect
