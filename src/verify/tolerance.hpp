// The pass threshold of verification, as a function of input type, accumulate type and K.
//
// A kernel passes a case when every output element is finite and its normwise relative error
// ||C - R||_F / ||R||_F against the fp64 reference R of the same (upcast) inputs is at most
//
//     tol = 2 * u_out  +  u_acc * sqrt(K)
//
// u_out is the unit roundoff of the stored output type (the result is rounded once on store:
// relative error up to u_out per element); u_acc that of the accumulate type. Summing K products
// of random sign one after another leaves a normwise relative error of about
// u_acc * sqrt(K/2) / sqrt(3) ~ 0.4 * u_acc * sqrt(K) (round-to-nearest errors are uniform, a
// random walk over the partial sums; Higham, "Accuracy and Stability of Numerical Algorithms",
// ch. 3, the probabilistic bound). Blocked and tensor-core accumulation round fewer times and do
// better. The bound therefore admits even a serial summation with 2.5x margin, yet rejects a kernel
// that drops one k-tile of 64 out of K = 4096: that is off by about sqrt(64/4096) = 0.125, while
// tol(f16, f16-accumulate, 4096) = 0.032 and tol(f32, f32, 4096) = 3.9e-6.
// Unit roundoffs: f32 2^-24, f16 2^-11, bf16 2^-8.
//
// Inputs (the f16/bf16 values themselves) are exact in the reference, so input rounding does
// not count against a kernel. cuBLAS at the same precision is held to the same bound; the GPU
// test suite checks that it passes, so the bound is known to be attainable.
//
// The bound holds unchanged for --data int3 (integers in [-3, 3]). Products are integers in
// [-9, 9] and so are the partial sums: exact in f32 below 2^24 and in f16 below 2048 in
// magnitude. A partial sum after k terms has a standard deviation of 4*sqrt(k) (E[a^2] = 4), 256
// at K = 4096, so f16 accumulation is almost always exact there, and even the worst case,
// 9*4096 = 36864, stays below the f16 maximum of 65504. What rounding remains (larger partial
// sums, the store to f16/bf16) is relative, the model above. A dropped k-tile still costs about
// sqrt(64/K) of the norm, since the products are zero-mean and independent.
#pragma once

#include <cstdint>
#include <optional>

#include "core/types.hpp"

namespace gemmbench {

double unit_roundoff(DType d);
double unit_roundoff(Accum a);
double verification_tolerance(DType dtype, Accum accum, int64_t k);
// The bound of a problem: the three-argument form for f32/f16/bf16; for FP8 (against the
// dequantized inputs) 2 * u_out + u_fp8acc * sqrt(min(K, P)) + u_f32 * sqrt(K), where u_out is
// C's type, P the K-extent the tensor cores accumulate before the sum is promoted to f32
// registers (kFp8PromoteK; all of K with fast accumulation) and u_fp8acc = 2^-14: Hopper's FP8
// tensor cores keep about 14 bits of the partial sums (DeepSeek-V3 technical report, 3.3.2).
// The operands' own unit roundoffs (e4m3 2^-4, e5m2 2^-3) are not in it, for any pair: the
// reference multiplies the same dequantized values exactly, and a product of two FP8 values (at
// most 8 significant bits) enters the tensor cores' sum exactly, whose rounding is the u_fp8acc
// term. They set the quantization error instead (ErrorStats::quant_normwise): reported, not
// bounded.
inline constexpr int64_t kFp8PromoteK = 128;
double verification_tolerance(const GemmProblem& p);

// Relative errors are taken against max(|r|, floor) with floor = kRelErrorFloor * rms(R), so that
// elements whose reference is near zero do not dominate max_rel.
inline constexpr double kRelErrorFloor = 0.1;

struct ErrorStats {
  bool computed = false;  // false when verification was skipped (--no-verify)
  double max_abs = 0;     // max |C - R|
  double max_rel = 0;     // max |C - R| / max(|R|, floor)
  double normwise = 0;    // ||C - R||_F / ||R||_F (0 when R == 0 and C == R)
  int64_t nonfinite = 0;  // NaN or Inf elements in C (unwritten elements stay NaN)
  double tolerance = 0;   // the bound `normwise` is held to
  // sum (C - R)^2 / (sum C^2 + sum R^2): DeepSeek/DeepGEMM's calc_diff, 1 - 2<C,R>/(|C|^2+|R|^2).
  double calc_diff = 0;
  // FP8 rows: the same C against the product of the unquantized f32 inputs (what quantizing
  // cost), normwise and as calc_diff. Not held to a bound: a property of the format.
  std::optional<double> quant_normwise, quant_calc_diff;
};

// True when the case passes: every element finite and normwise <= tolerance. NaN fails.
bool verification_passed(const ErrorStats& e);

// The rule above in one sentence, as reports record it.
inline constexpr const char* kVerificationMethod =
    "fp64 reference GEMM of the same stored inputs on the device; C poisoned with NaN (or "
    "seeded when beta != 0) before the verified run; pass when every element is finite and "
    "||C-R||_F/||R||_F <= 2*u_out + u_acc*sqrt(K)";

}  // namespace gemmbench
