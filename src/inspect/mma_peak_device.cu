// `inspect mma-peak` on the hardware: mma.sync.aligned.m16n8k16.row.col from registers only.
//
// Why: hgemm_tn (mma.sync fed by ldmatrix) runs the H100 at its power cap with the SM clock well
// below its maximum. This kernel issues nothing but the same instruction, under the same cap, so
// the distance between the kernel and the instruction's own ceiling is known.
//
// What runs: one CTA of W warps per SM, pinned there by asking for more than half of the SM's
// shared memory (unused). Each warp loads kMmaTileM A and kMmaTileN B fragments once, from a
// buffer of uniform values in [-1, 1] (the data toggles the multipliers and so sets the power:
// zeros would report a ceiling no GEMM meets), then runs kMmaChains independent chains
// acc[i][j] += A_i * B_j: even at one warp per scheduler (4 warps/SM) there are 16 independent
// mma between two dependent ones, and the 8- and 16-warp rows show whether that hid the latency.
// Each chain starts at A_i * B_(j+1) and alternates B_j with -B_j, so its values stay bounded
// and nonzero (a growing f16 accumulator would reach inf, which no GEMM feeds its tensor cores).
// Register reuse: the four mma of one A_i are consecutive, as in the hgemm warp tile, so ptxas
// can serve A from the operand reuse cache like the real kernel; what is left out is everything
// around the mma (ldmatrix, cp.async, shared and global memory, address math) and its power.
#include "inspect/mma_peak_device.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/provenance.hpp"
#include "hgemm/fragments.cuh"
#include "inspect/ldmatrix_device.hpp"
#include "device/buffer.hpp"
#include "device/open.hpp"
#include "runner/nvml.hpp"
#include "verify/device_verify.hpp"

namespace gemmbench::inspect {
namespace {

constexpr int kFragRegs = kMmaTileM * 4 + kMmaTileN * 2;  // A then B registers, per lane
constexpr int kMaxWarps = 16;
constexpr uint32_t kNegateHalves = 0x80008000u;  // sign bits of both f16 / bf16 halves

template <bool BF16, class AccT>
__device__ __forceinline__ void mma(hgemm::AccFrag<AccT>& c, const uint32_t (&a)[4],
                                    const uint32_t (&b)[2]) {
  if constexpr (BF16)
    ptx::mma_m16n8k16_bf16_f32(c.v, a, b);
  else
    c.mma(a, b);
}

// frags: (warps, kFragRegs, 32 lanes) b16x2. acc_out: (warps, kMmaChains, 4, 32 lanes) f32.
// cycles: (CTAs), each CTA adds its clock64 duration. neg_mask = kNegateHalves for the benchmark,
// 0 for the chain check (B_j twice, nothing cancels).
template <class AccT, bool BF16>
__global__ void __launch_bounds__(kMaxWarps * 32, 1)
    mma_peak_kernel(const uint32_t* __restrict__ frags, int iters, uint32_t neg_mask,
                    float* __restrict__ acc_out, unsigned long long* __restrict__ cycles) {
  static_assert(!BF16 || std::is_same_v<AccT, float>, "mma.sync bf16 accumulates in f32 only");
  const long long t0 = clock64();
  const int lane = threadIdx.x % 32;
  const size_t warp = blockIdx.x * size_t(blockDim.x / 32) + threadIdx.x / 32;

  // ---- PROLOGUE: fragments from memory, once ----
  const uint32_t* f = frags + warp * kFragRegs * 32 + lane;
  uint32_t a[kMmaTileM][4];   // (TILE_M) A_i, 16x16 row-major fragments
  uint32_t b[kMmaTileN][2];   // (TILE_N) B_j, 16x8 col fragments
  uint32_t nb[kMmaTileN][2];  // (TILE_N) -B_j (or B_j again for the check)
#pragma unroll
  for (int i = 0; i < kMmaTileM; ++i)
#pragma unroll
    for (int r = 0; r < 4; ++r) a[i][r] = f[(i * 4 + r) * 32];
#pragma unroll
  for (int j = 0; j < kMmaTileN; ++j)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      b[j][r] = f[(kMmaTileM * 4 + j * 2 + r) * 32];
      nb[j][r] = b[j][r] ^ neg_mask;
    }
  hgemm::AccFrag<AccT> acc[kMmaTileM][kMmaTileN];  // (TILE_M,TILE_N) m16n8 accumulators
#pragma unroll
  for (int i = 0; i < kMmaTileM; ++i)
#pragma unroll
    for (int j = 0; j < kMmaTileN; ++j) {
      acc[i][j].clear();
      mma<BF16>(acc[i][j], a[i], b[(j + 1) % kMmaTileN]);
    }

  // ---- MAINLOOP: 2 * kMmaChains mma per iteration, registers only ----
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < kMmaTileM; ++i)
#pragma unroll
      for (int j = 0; j < kMmaTileN; ++j) mma<BF16>(acc[i][j], a[i], b[j]);
#pragma unroll
    for (int i = 0; i < kMmaTileM; ++i)
#pragma unroll
      for (int j = 0; j < kMmaTileN; ++j) mma<BF16>(acc[i][j], a[i], nb[j]);
  }

  // ---- EPILOGUE: accumulators out, so nothing above is dead code ----
  float* o = acc_out + warp * kMmaChains * 4 * 32 + lane;
#pragma unroll
  for (int c = 0; c < kMmaChains; ++c)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      o[(c * 4 + e) * 32] = to_f32(acc[c / kMmaTileN][c % kMmaTileN].element(e));
  __syncthreads();  // the CTA's duration ends with its last warp
  if (threadIdx.x == 0) cycles[blockIdx.x] += static_cast<unsigned long long>(clock64() - t0);
}

using Kernel = void (*)(const uint32_t*, int, uint32_t, float*, unsigned long long*);

Kernel kernel_for(const MmaPeakConfig& c) {
  if (c.dtype == DType::bf16 && c.accum == Accum::f32) return mma_peak_kernel<float, true>;
  if (c.dtype == DType::f16)
    return c.accum == Accum::f32 ? mma_peak_kernel<float, false> : mma_peak_kernel<__half, false>;
  throw UsageError(std::string("mma.sync m16n8k16 has no ") + to_string(c.dtype) + " inputs with " +
                   to_string(c.accum) + " accumulate");
}

struct DeviceInfo {
  OpenedDevice dev;
  cudaDeviceProp prop{};
};

DeviceInfo open_mma_device(int index) {
  DeviceInfo d{open_device(index, "inspect mma-peak runs on a GPU")};
  CUDA_CHECK(cudaGetDeviceProperties(&d.prop, index));
  if (d.prop.major < 8)
    throw NoDeviceError(
        "inspect mma-peak needs sm_80 or newer (mma.sync m16n8k16 with f16/bf16); device " +
        std::to_string(index) + " (" + d.dev.meta.name + ") is sm_" +
        std::to_string(d.dev.meta.sm));
  return d;
}

struct Event {
  cudaEvent_t e{};
  Event() { CUDA_CHECK(cudaEventCreate(&e)); }
  ~Event() { cudaEventDestroy(e); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// Runs `n` launches back to back between two events and returns their time in ms. At most
// kQueue launches are enqueued ahead of the GPU, so the host samples NVML (into `clock`, when
// given) while they run instead of blocking in a full launch queue.
template <class Launch>
double timed_launches(const Launch& launch, int64_t n, const Nvml& nvml, ClockStats* clock) {
  constexpr int kQueue = 3;
  Event start, stop, done[kQueue];
  auto last = std::chrono::steady_clock::now() - std::chrono::hours(1);
  auto wait = [&](cudaEvent_t e) {
    for (cudaError_t q; (q = cudaEventQuery(e)) != cudaSuccess;) {
      if (q != cudaErrorNotReady) CUDA_CHECK(q);
      if (clock && std::chrono::steady_clock::now() - last >= std::chrono::milliseconds(20)) {
        nvml.sample(*clock);
        last = std::chrono::steady_clock::now();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  CUDA_CHECK(cudaEventRecord(start.e));
  for (int64_t i = 0; i < n; ++i) {
    if (i >= kQueue) wait(done[i % kQueue].e);
    launch();
    CUDA_CHECK(cudaEventRecord(done[i % kQueue].e));
  }
  CUDA_CHECK(cudaEventRecord(stop.e));
  wait(stop.e);
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start.e, stop.e));
  return ms;
}

MmaPeakRow run_config(const MmaPeakConfig& c, const DeviceInfo& d, double seconds,
                      double warmup_seconds, const Nvml& nvml) {
  if (c.warps_per_sm < 1 || c.warps_per_sm > kMaxWarps)
    throw UsageError("inspect mma-peak: warps per SM must be 1.." + std::to_string(kMaxWarps));
  const Kernel kernel = kernel_for(c);
  const int sms = d.prop.multiProcessorCount, threads = 32 * c.warps_per_sm;
  // Two CTAs cannot share an SM when each asks for more than half its shared memory.
  const int pin_smem = int(d.prop.sharedMemPerMultiprocessor / 2 + 1);
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, pin_smem));
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, pin_smem));
  if (per_sm != 1)
    throw CudaError("inspect mma-peak: " + std::to_string(per_sm) + " CTAs of " +
                    std::to_string(threads) + " threads fit on an SM, expected exactly 1");

  const int64_t warps = int64_t(sms) * c.warps_per_sm;
  DeviceBuffer frags(size_t(warps) * kFragRegs * 32 * sizeof(uint32_t));
  DeviceBuffer acc(size_t(warps) * kMmaChains * 4 * 32 * sizeof(float));
  DeviceBuffer cycles(size_t(sms) * sizeof(unsigned long long));
  fill_uniform(frags.get(), c.dtype, warps * kFragRegs * 32 * 2, /*seed=*/1, /*tensor_id=*/0, 0);
  CUDA_CHECK(cudaMemset(cycles.get(), 0, cycles.bytes()));

  int iters = 16;
  auto launch = [&] {
    kernel<<<sms, threads, pin_smem>>>(frags.as<uint32_t>(), iters, kNegateHalves, acc.as<float>(),
                                       cycles.as<unsigned long long>());
    CUDA_CHECK_LAST_LAUNCH();
  };
  launch();  // loads the module (lazy loading) outside any timing
  CUDA_CHECK(cudaDeviceSynchronize());

  // Launches of about 20 ms: long against launch gaps, short enough that NVML sees many of them.
  const double target_ms = std::min(20.0, seconds * 1e3 / 4);
  constexpr int kCalibrationIters = 2048;
  iters = kCalibrationIters;
  const double calib_ms = timed_launches(launch, 1, nvml, nullptr);
  iters = int(std::clamp(std::llround(kCalibrationIters * target_ms / std::max(calib_ms, 1e-3)),
                         16LL, 1LL << 26));
  // Warm-up to the steady clock and power; its rate (after the clock has settled) sizes the run.
  const int64_t warm_n = std::max<int64_t>(1, std::llround(warmup_seconds * 1e3 / target_ms));
  const double per_launch_ms = timed_launches(launch, warm_n, nvml, nullptr) / double(warm_n);

  MmaPeakRow row;
  row.config = c;
  row.ctas = sms;
  row.iters_per_launch = iters;
  row.launches = std::max<int64_t>(1, std::llround(seconds * 1e3 / per_launch_ms));
  CUDA_CHECK(cudaMemset(cycles.get(), 0, cycles.bytes()));
  row.elapsed_ms = timed_launches(launch, row.launches, nvml, &row.clock);
  Nvml::finish(row.clock);
  std::vector<unsigned long long> host(sms);
  CUDA_CHECK(cudaMemcpy(host.data(), cycles.get(), cycles.bytes(), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (unsigned long long v : host) sum += double(v);
  row.mean_cta_cycles = sum / sms;
  row.flop = kFlopPerMma * kMmaChains * (2.0 * iters + 1) * double(warps) * double(row.launches);
  return row;
}

float decode(uint16_t bits, DType t) {
  if (t == DType::bf16) {
    const uint32_t f32 = uint32_t(bits) << 16;
    float v;
    std::memcpy(&v, &f32, sizeof(v));
    return v;
  }
  __half_raw raw;
  raw.x = bits;
  return __half2float(__half(raw));
}

}  // namespace

MmaPeakReport run_mma_peak_on_device(const MmaPeakRequest& req) {
  const DeviceInfo d = open_mma_device(req.device);
  const Nvml nvml(d.dev.meta.pci_bus_id);
  const DeviceMetadata& m = d.dev.meta;
  MmaPeakReport report;
  report.date_utc = utc_now();
  report.cuda_runtime = m.cuda_runtime;
  report.cuda_driver_api = m.cuda_driver_api;
  report.driver_version = nvml.driver_version().value_or(m.cuda_driver_api);
  report.device_name = m.name;
  report.device_index = m.index;
  report.sm = m.sm;
  report.num_sms = m.num_sms;
  report.seconds = req.seconds;
  report.warmup_seconds = std::min(0.5, req.seconds / 4);
  for (const MmaPeakConfig& c : req.configs)
    report.rows.push_back(run_config(c, d, req.seconds, report.warmup_seconds, nvml));
  return report;
}

MmaChainSample run_mma_chain_on_device(const MmaPeakConfig& config, int iters, int device) {
  open_mma_device(device);
  const Kernel kernel = kernel_for(config);
  DeviceBuffer frags(kFragRegs * 32 * sizeof(uint32_t));
  DeviceBuffer acc(kMmaChains * 4 * 32 * sizeof(float));
  DeviceBuffer cycles(sizeof(unsigned long long));
  fill_uniform(frags.get(), config.dtype, kFragRegs * 32 * 2, /*seed=*/7, /*tensor_id=*/0, 0);
  fill_nan(acc.get(), DType::f32, kMmaChains * 4 * 32, 0);
  kernel<<<1, 32>>>(frags.as<uint32_t>(), iters, 0u, acc.as<float>(),
                    cycles.as<unsigned long long>());
  CUDA_CHECK_LAST_LAUNCH();

  std::vector<uint32_t> regs(kFragRegs * 32);   // (kFragRegs, 32 lanes)
  std::vector<float> out(kMmaChains * 4 * 32);  // (kMmaChains, 4, 32 lanes)
  CUDA_CHECK(cudaMemcpy(regs.data(), frags.get(), frags.bytes(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(out.data(), acc.get(), acc.bytes(), cudaMemcpyDeviceToHost));
  MmaChainSample s;
  for (int lane = 0; lane < 32; ++lane) {
    for (int r = 0; r < kFragRegs; ++r) {
      const uint32_t v = regs[r * 32 + lane];
      s.frag.push_back(decode(uint16_t(v), config.dtype));
      s.frag.push_back(decode(uint16_t(v >> 16), config.dtype));
    }
    for (int i = 0; i < kMmaChains * 4; ++i) s.acc.push_back(out[i * 32 + lane]);
  }
  return s;
}

}  // namespace gemmbench::inspect
