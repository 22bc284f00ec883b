// Device-side data generation and verification: seeded inputs, NaN poison, the fp64 reference
// GEMM and the error reduction. Callable from host code; no CUDA types beyond cudaStream_t.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

#include "core/types.hpp"
#include "plan/spec.hpp"
#include "device/buffer.hpp"
#include "verify/tolerance.hpp"

namespace gemmbench {

// Element i of tensor `tensor_id` is a counter-based hash of (seed, tensor_id, i), whose top 24
// bits give u in [0, 1): reproducible across runs and devices, and independent of launch
// configuration. uniform stores 2u - 1 in [-1, 1) rounded to `t`; int3 stores floor(7u) - 3, an
// integer in [-3, 3], exact in every input type. Both read the same bits for the same seed.
// `first`: p holds the tensor's elements first, first + 1, ... (one part of a larger tensor).
void fill_inputs(void* p, DType t, int64_t count, uint64_t seed, uint64_t tensor_id, DataDist d,
                 cudaStream_t stream, int64_t first = 0);
// fill_inputs with DataDist::uniform.
void fill_uniform(void* p, DType t, int64_t count, uint64_t seed, uint64_t tensor_id,
                  cudaStream_t stream);
void fill_nan(void* p, DType t, int64_t count, cudaStream_t stream);
// dst (M,N) column-major (M contiguous) from src (M,N) row-major (N contiguous), elements of 2 or
// 4 bytes: the C of a kernel that writes row-major (KernelInfo::c_row_major), before verification.
void transpose_to_column_major(const void* src, void* dst, int elem_bytes, int64_t m, int64_t n,
                               cudaStream_t stream);

// ref = alpha * op(A) * op(B) + beta * C0 in fp64, from the stored (upcast) values. `c0` is read
// only when beta != 0. `ref` is (M,N) column-major.
void reference_gemm(const GemmProblem& p, const void* a, const void* b, const void* c0, double* ref,
                    cudaStream_t stream);

// Which scale an FP8 element uses: element (row, k) of an operand stored as rows of K (op(A):
// row m; op(B): row n; both K-contiguous in TN) reads scales[(row / rblk) * nkb + k / kbs]. The
// same numbers group the elements whose amax sets one scale. core/types.hpp's layouts:
//   tensor {rows, K, 1}; row {1, K, 1}; block128: A {1, 128, KB}, B {128, 128, KB}.
struct ScaleIndex {
  int64_t rblk = 1, kbs = 1, nkb = 1;
#ifdef __CUDACC__
  __host__ __device__
#endif
      int64_t
      operator()(int64_t row, int64_t k) const {
    return (row / rblk) * nkb + k / kbs;
  }
  int64_t groups(int64_t rows) const {
    return ((rows + rblk - 1) / rblk) * nkb;
  }
};
ScaleIndex scale_index_a(const GemmProblem& p);
ScaleIndex scale_index_b(const GemmProblem& p);

// One operand of an FP8 problem as quantize_fp8 makes it: its rows (of K), its scale groups and
// its own format, whose largest value the largest element of every group maps to (A: p.dtype,
// B: p.b_type(); e4m3 448, e5m2 57344).
struct Fp8Operand {
  int64_t rows;
  ScaleIndex idx;
  DType format;
  double max() const { return fp8_max(format); }
};
Fp8Operand fp8_operand_a(const GemmProblem& p);  // M rows, scale_index_a, A's type
Fp8Operand fp8_operand_b(const GemmProblem& p);  // N rows, scale_index_b, B's type

// FP8 inputs as released models store them: x (rows x K, K-contiguous, f32) quantized to `format`
// (e4m3 or e5m2) in q, each group of `idx` scaled so that its largest magnitude maps to the
// format's largest value, fp8_max (scale = amax / 448 for e4m3, amax / 57344 for e5m2; 1 for a
// group of zeros): q = RN(x / scale), saturating. `scales` receives idx.groups(rows) floats.
// `scratch` holds `rows` floats (the per-row amax of tensor scaling).
void quantize_fp8(const float* x, int64_t rows, int64_t k, const ScaleIndex& idx, DType format,
                  void* q, float* scales, float* scratch, cudaStream_t stream);

// The FP8 operands of p (TN) as gemmbench makes them: A and B filled in f32 as for an f32
// problem (tensors tensor_a, tensor_b of `seed`, distribution d), each row's 128-blocks of K
// multiplied by 2^e, e in -2..2, part drawn per row and part per 128x128 block (so that scales
// differ between rows and blocks by up to 16x, and a kernel that misreads them fails
// verification), then quantized by quantize_fp8
// with the scales of p.scale, A to p.dtype and B to p.b_type() (each to its own largest value).
// `with_f32`, when given, runs while the f32 values still exist (the runner computes the
// unquantized reference there); the stream is synchronized before they go.
struct Fp8Inputs {
  DeviceBuffer a, b, scale_a, scale_b;
};
Fp8Inputs make_fp8_inputs(const GemmProblem& p, uint64_t seed, uint64_t tensor_a, uint64_t tensor_b,
                          DataDist d, cudaStream_t stream,
                          const std::function<void(const float* a, const float* b)>& with_f32 = {});

// A grouped case's FP8 operands (core/grouping.hpp, GroupedScales): A's `rows_a` stored rows made
// and quantized as make_fp8_inputs makes a dense A of that many rows (its scales one dense A's
// layout over them); B's `experts` experts of p.n rows each, expert g the rows [g N, (g+1) N) of
// one f32 tensor (tensor_b, spread as one tensor too) quantized on its own with a dense B's
// scales, stacked expert after expert. `with_f32(g, a32, b32_g)`, when given, runs for each
// expert while A's f32 values and expert g's exist. One expert's f32 weights at a time: all of
// DeepSeek-V3's 256 would take 30 GB. make_fp8_inputs is this with rows_a = p.m and one expert.
Fp8Inputs make_fp8_grouped_inputs(
    const GemmProblem& p, int64_t rows_a, int64_t experts, uint64_t seed, uint64_t tensor_a,
    uint64_t tensor_b, DataDist d, cudaStream_t stream,
    const std::function<void(int64_t g, const float* a, const float* b_g)>& with_f32 = {});

// ref = alpha * op(A) * op(B) + beta * C0 in fp64 for an FP8 (TN) problem, from the dequantized
// inputs (q * scale, exact in fp64; A's bytes read as p.dtype, B's as p.b_type()): exactly what a
// kernel multiplies. C0 has p.out_type().
void reference_gemm_fp8(const GemmProblem& p, const void* a, const float* scale_a, const void* b,
                        const float* scale_b, const void* c0, double* ref, cudaStream_t stream);
// The same product from the f32 values before quantization (TN, C0 of p.out_type()): the
// reference of the quantization error.
void reference_gemm_f32_inputs(const GemmProblem& p, const float* a, const float* b, const void* c0,
                               double* ref, cudaStream_t stream);

class ErrorMeter {
 public:
  ErrorMeter();
  // sqrt(mean(ref^2)): sets the floor of relative errors (kRelErrorFloor * rms).
  double reference_rms(const double* ref, int64_t count, cudaStream_t stream);
  // Compares c (dtype t) with ref; synchronises the stream. tolerance is left to the caller.
  ErrorStats measure(DType t, const void* c, const double* ref, int64_t count, double ref_rms,
                     cudaStream_t stream);

 private:
  DeviceBuffer partials_;
};

}  // namespace gemmbench
