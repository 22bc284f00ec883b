// Speed of light: every row's roofline bound and how close the row came to it
// (docs/contributing.md#speed-of-light). Host-only arithmetic on plain records; the runner calls
// speed_of_light() once per finished row and the reporters print what it returns.
//
//   intensity  = 2*M*N*K / bytes, bytes = (M*K + K*N + M*N [+ M*N when beta != 0]) * dtype bytes
//                grouped (M = sum(M_g)): the K*N of B once per group with M_g > 0, the experts
//                actually touched; padding rows not counted
//   compute    = FLOP per clock per SM of the row's instruction class x SMs x SM clock
//   memory     = intensity x memory bandwidth (measured device-to-device copy; else datasheet)
//   bound      = min(compute at the maximum SM clock, memory); pct_sol = achieved / bound
#pragma once

#include <optional>
#include <string>

#include "core/device_caps.hpp"  // datasheet_bandwidth_gbs
#include "core/types.hpp"
#include "report/result.hpp"

namespace gemmbench {

// The instruction class a row's (dtype, accumulate type) runs on, in cuBLAS and in our kernels:
// f32 is FFMA (cuBLAS SGEMM with TF32 off: CUBLAS_COMPUTE_32F, default math).
enum class InstrClass {
  ffma_f32,
  tensor_f16_f32acc,
  tensor_f16_f16acc,
  tensor_bf16_f32acc,
  tensor_fp8_f32acc  // FP8 inputs, any pair (wgmma .f32.e4m3.e5m2 etc., cuBLASLt FP8): twice f16
};
const char* to_string(InstrClass c);
// Absent for a combination gemmbench never plans (bf16 inputs with f16 accumulation).
std::optional<InstrClass> instruction_class(DType d, Accum a);

// Dense FLOP per clock per SM (one FMA = 2 FLOP) of one architecture; 0 where a class is absent.
struct ArchPeak {
  int sm;                    // 10 * major + minor
  const char* name;          // "sm90 (Hopper GH100: H100, H200)"
  const char* source;        // the whitepaper the figures come from
  double ffma_f32;           // FP32 FFMA
  double tensor_f16_f32acc;  // f16 inputs, f32 accumulate (full rate)
  double tensor_f16_f16acc;  // f16 inputs, f16 accumulate
  double tensor_bf16_f32acc;
  double tensor_fp8_f32acc;  // FP8 inputs, f32 accumulate; 0: no FP8 tensor cores
  // GeForce boards of this architecture run f32-accumulate tensor math at half this rate.
  bool geforce_half_rate_f32acc;
};

// The table's entry for an architecture, or nullptr when gemmbench has none.
const ArchPeak* arch_peak(int sm);
// FLOP per clock per SM of `c` on the device (its name decides the GeForce half rate), or absent
// with the reason in `why`.
std::optional<double> flop_per_clock_per_sm(int sm, const std::string& device_name, InstrClass c,
                                            std::string* why = nullptr);

// Bytes a GEMM moves at least once (the intensity rule above) and its FLOP per byte.
double gemm_min_bytes(const GemmProblem& p);
double arithmetic_intensity(const GemmProblem& p);
// A grouped case's (p.m = sum(M_g)): B's K*N once per touched group (M_g > 0).
double grouped_min_bytes(const GemmProblem& p, const Grouping& g);

// The rule, as the report's metadata states it.
extern const char* const kSolIntensityRule;

// Fills a row's SolStats from its problem, its measured TFLOP/s and clock, and the device.
SolStats speed_of_light(const CaseResult& row, const DeviceMetadata& device);

}  // namespace gemmbench
