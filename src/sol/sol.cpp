#include "sol/sol.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace gemmbench {

namespace {

// Dense (no 2:4 sparsity) FLOP per clock per SM, one FMA = 2 FLOP. The one table of peak rates in
// gemmbench: every figure below is the whitepaper's peak TFLOP/s divided by its SM count and boost
// clock, and each entry cites the boards it was derived from.
constexpr ArchPeak kArchPeaks[] = {
    // NVIDIA A100 Tensor Core GPU Architecture whitepaper (GA100), A100 SXM4: 108 SMs, 1410 MHz
    // boost; FP32 19.5 TFLOPS (64 FP32 lanes/SM -> 128); FP16 and BF16 tensor 312 TFLOPS dense
    // with FP16 or FP32 accumulate (1024 FMA/clk/SM -> 2048). A30 (56 SMs, 1440 MHz, 165 TFLOPS)
    // fits the same rates.
    {80, "sm80 (Ampere GA100: A100, A30)", "NVIDIA Ampere GA100 (A100) whitepaper", 128, 2048, 2048,
     2048, 0, false},
    // NVIDIA Ampere GA102 GPU Architecture whitepaper, appendix tables: RTX 3090, 82 SMs at
    // 1695 MHz: FP32 35.6 TFLOPS (128 FP32 lanes/SM -> 256); FP16 tensor with FP16 accumulate
    // 142 TFLOPS dense (-> 1024); with FP32 accumulate, and BF16, 71 TFLOPS (GeForce half rate ->
    // 512). RTX A6000, 84 SMs at 1800 MHz: FP16 tensor with FP32 accumulate 154.8 TFLOPS, the full
    // 1024 (professional boards: RTX A-series, A10, A40).
    {86, "sm86 (Ampere GA10x: RTX 30, RTX A-series, A10, A40)", "NVIDIA Ampere GA102 whitepaper",
     256, 1024, 1024, 1024, 0, true},
    // NVIDIA Ada Lovelace GPU Architecture whitepaper (AD102), RTX 4090, 128 SMs at 2520 MHz:
    // FP32 82.6 TFLOPS (-> 256); FP16 tensor with FP16 accumulate 330.3 TFLOPS dense (-> 1024);
    // FP32 accumulate and BF16 165.2 TFLOPS (GeForce half rate -> 512). Professional Ada boards
    // (RTX 6000 Ada, L40, L40S) run FP32 accumulate at the full rate. FP8 tensor, FP16
    // accumulate: 660.6 TFLOPS dense on the RTX 4090 (-> 2048); gemmbench's FP8 accumulates in
    // FP32, which GeForce runs at half that.
    {89, "sm89 (Ada AD10x: RTX 40, RTX 6000 Ada, L4, L40, L40S)",
     "NVIDIA Ada Lovelace (AD102) whitepaper", 256, 1024, 1024, 1024, 2048, true},
    // NVIDIA H100 Tensor Core GPU Architecture whitepaper (GH100), H100 SXM5, 132 SMs: FP16 and
    // BF16 tensor 989.4 TFLOPS dense with FP16 or FP32 accumulate = 132 x 4096 x 1830 MHz
    // (4 tensor cores x 512 FMA/clk -> 4096); FP32 67 TFLOPS = 132 x 256 x 1980 MHz (128 FP32
    // lanes/SM -> 256); FP8 tensor 1978.9 TFLOPS dense = 132 x 8192 x 1830 MHz. H200 is the same
    // GH100 die.
    {90, "sm90 (Hopper GH100: H100, H200)", "NVIDIA Hopper H100 whitepaper", 256, 4096, 4096, 4096,
     8192, false},
};

double rate_of(const ArchPeak& a, InstrClass c) {
  switch (c) {
    case InstrClass::ffma_f32:
      return a.ffma_f32;
    case InstrClass::tensor_f16_f32acc:
      return a.tensor_f16_f32acc;
    case InstrClass::tensor_f16_f16acc:
      return a.tensor_f16_f16acc;
    case InstrClass::tensor_bf16_f32acc:
      return a.tensor_bf16_f32acc;
    case InstrClass::tensor_fp8_f32acc:
      return a.tensor_fp8_f32acc;
  }
  return 0;
}

// TFLOP/s of `flop_per_clk` on `sms` SMs at `mhz`.
double tflops_at(double flop_per_clk, int sms, double mhz) {
  return flop_per_clk * double(sms) * mhz * 1e6 / 1e12;
}

}  // namespace

const char* const kSolIntensityRule =
    "FLOP = 2*M*N*K; bytes = (M*K + K*N) * input bytes + (M*N, plus M*N more when beta != 0) * "
    "output bytes (FP8: 1-byte inputs, C bf16 by default): A and B read once, C read once when "
    "beta != 0, C written once (grouped rows: M = sum(M_g), B's K*N once per group with M_g > 0, "
    "padding rows not counted); intensity = FLOP / bytes. Compute "
    "ceiling = dense FLOP/clk/SM of the instruction class (f32: FFMA, no TF32) x SMs x SM clock; "
    "memory ceiling = intensity x measured device-to-device bandwidth (datasheet when not "
    "measured); bound = min(compute at the maximum SM clock, memory); pct_sol = TFLOP/s / bound";

const char* to_string(InstrClass c) {
  switch (c) {
    case InstrClass::ffma_f32:
      return "ffma_f32";
    case InstrClass::tensor_f16_f32acc:
      return "tensor_f16_f32acc";
    case InstrClass::tensor_f16_f16acc:
      return "tensor_f16_f16acc";
    case InstrClass::tensor_bf16_f32acc:
      return "tensor_bf16_f32acc";
    case InstrClass::tensor_fp8_f32acc:
      return "tensor_fp8_f32acc";
  }
  return "?";
}

std::optional<InstrClass> instruction_class(DType d, Accum a) {
  switch (d) {
    case DType::f32:
      if (a == Accum::f32) return InstrClass::ffma_f32;
      break;
    case DType::f16:
      return a == Accum::f32 ? InstrClass::tensor_f16_f32acc : InstrClass::tensor_f16_f16acc;
    case DType::bf16:
      if (a == Accum::f32) return InstrClass::tensor_bf16_f32acc;
      break;
    case DType::e4m3:
    case DType::e5m2:  // every FP8 pair runs at the one FP8 rate (wgmma and mma.sync kinds alike)
      if (a == Accum::f32) return InstrClass::tensor_fp8_f32acc;
      break;
  }
  return std::nullopt;
}

const ArchPeak* arch_peak(int sm) {
  for (const ArchPeak& a : kArchPeaks)
    if (a.sm == sm) return &a;
  return nullptr;
}

std::optional<double> flop_per_clock_per_sm(int sm, const std::string& device_name, InstrClass c,
                                            std::string* why) {
  const ArchPeak* a = arch_peak(sm);
  if (!a) {
    if (why)
      *why = fmt::format(
          "no peak-rate table entry for sm_{} (gemmbench knows sm80, sm86, sm89, "
          "sm90)",
          sm);
    return std::nullopt;
  }
  double rate = rate_of(*a, c);
  if (rate == 0) {
    if (why) *why = fmt::format("{} has no {} instructions", a->name, to_string(c));
    return std::nullopt;
  }
  const bool f32acc_tensor = c == InstrClass::tensor_f16_f32acc ||
                             c == InstrClass::tensor_bf16_f32acc ||
                             c == InstrClass::tensor_fp8_f32acc;
  if (a->geforce_half_rate_f32acc && f32acc_tensor &&
      device_name.find("GeForce") != std::string::npos)
    rate /= 2;
  return rate;
}

double gemm_min_bytes(const GemmProblem& p) {
  const double m = double(p.m), n = double(p.n), k = double(p.k);
  const double c_reads = p.beta != 0 ? 1 : 0;
  // FP8: 1-byte A and B, C of its own type; the scales (at most 1/128 of the inputs) not counted.
  return m * k * double(dtype_bytes(p.dtype)) + k * n * double(dtype_bytes(p.b_type())) +
         (1 + c_reads) * m * n * double(dtype_bytes(p.out_type()));
}

double grouped_min_bytes(const GemmProblem& p, const Grouping& g) {
  const double m = double(g.total_m()), n = double(p.n), k = double(p.k);
  const double c_reads = p.beta != 0 ? 1 : 0;
  // An expert no token chose has weights nobody reads; the padding rows of A and C need not move.
  return m * k * double(dtype_bytes(p.dtype)) +
         double(g.touched()) * k * n * double(dtype_bytes(p.b_type())) +
         (1 + c_reads) * m * n * double(dtype_bytes(p.out_type()));
}

double arithmetic_intensity(const GemmProblem& p) {
  return p.flops() / gemm_min_bytes(p);
}

SolStats speed_of_light(const CaseResult& row, const DeviceMetadata& dev) {
  SolStats s;
  const GemmProblem& p = row.problem;
  s.flop = p.flops();
  s.bytes = row.grouped ? grouped_min_bytes(p, row.grouped->grouping) : gemm_min_bytes(p);
  s.intensity = s.flop / s.bytes;
  std::vector<std::string> why;

  const auto cls = instruction_class(p.dtype, p.accum);
  if (cls) {
    s.instruction_class = to_string(*cls);
    std::string reason;
    s.flop_per_clk_per_sm = flop_per_clock_per_sm(dev.sm, dev.name, *cls, &reason);
    if (!reason.empty()) why.push_back(reason);
  } else {
    why.push_back(fmt::format("no instruction class for {} inputs with {} accumulation",
                              to_string(p.dtype), to_string(p.accum)));
  }
  if (s.flop_per_clk_per_sm && dev.num_sms > 0) {
    if (dev.sm_clock_max_mhz > 0)
      s.compute_tflops_max_clock =
          tflops_at(*s.flop_per_clk_per_sm, dev.num_sms, dev.sm_clock_max_mhz);
    else
      why.push_back("maximum SM clock unknown");
    if (row.clock.sm_clock_median_mhz)
      s.compute_tflops_run_clock =
          tflops_at(*s.flop_per_clk_per_sm, dev.num_sms, double(*row.clock.sm_clock_median_mhz));
  } else if (s.flop_per_clk_per_sm) {
    why.push_back("SM count unknown");
  }

  const auto datasheet = dev.mem_bw_datasheet_gbs
                             ? dev.mem_bw_datasheet_gbs
                             : datasheet_bandwidth_gbs(dev.memory_clock_mhz, dev.memory_bus_bits);
  if (dev.mem_bw_measured_gbs && *dev.mem_bw_measured_gbs > 0) {
    s.mem_bw_gbs = dev.mem_bw_measured_gbs;
    s.mem_bw_source = "measured";
  } else if (datasheet) {
    s.mem_bw_gbs = datasheet;
    s.mem_bw_source = "datasheet";
  } else {
    s.mem_bw_source = "none";
    why.push_back("memory bandwidth unknown (not measured, no memory clock or bus width)");
  }
  if (s.mem_bw_gbs) s.memory_tflops = s.intensity * *s.mem_bw_gbs * 1e9 / 1e12;

  if (s.compute_tflops_max_clock && s.memory_tflops) {
    const bool memory = *s.memory_tflops < *s.compute_tflops_max_clock;
    s.bound = memory ? "memory" : "compute";
    s.bound_tflops = memory ? *s.memory_tflops : *s.compute_tflops_max_clock;
    if (row.tflops) s.pct_sol = 100.0 * *row.tflops / *s.bound_tflops;
    if (row.tflops && s.compute_tflops_run_clock)
      s.pct_sol_run_clock =
          100.0 * *row.tflops / std::min(*s.compute_tflops_run_clock, *s.memory_tflops);
  }
  for (const auto& w : why) s.reason += (s.reason.empty() ? "" : "; ") + w;
  return s;
}

}  // namespace gemmbench
