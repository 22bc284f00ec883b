// Device-side data generation and verification: seeded inputs, NaN poison, the fp64 reference
// GEMM and the error reduction. Callable from host code; no CUDA types beyond cudaStream_t.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/types.hpp"
#include "plan/spec.hpp"
#include "device/buffer.hpp"
#include "verify/tolerance.hpp"

namespace gemmbench {

// Element i of tensor `tensor_id` is a counter-based hash of (seed, tensor_id, i), whose top 24
// bits give u in [0, 1): reproducible across runs and devices, and independent of launch
// configuration. uniform stores 2u - 1 in [-1, 1) rounded to `t`; int3 stores floor(7u) - 3, an
// integer in [-3, 3], exact in every input type. Both read the same bits for the same seed.
void fill_inputs(void* p, DType t, int64_t count, uint64_t seed, uint64_t tensor_id, DataDist d,
                 cudaStream_t stream);
// fill_inputs with DataDist::uniform.
void fill_uniform(void* p, DType t, int64_t count, uint64_t seed, uint64_t tensor_id,
                  cudaStream_t stream);
void fill_nan(void* p, DType t, int64_t count, cudaStream_t stream);

// ref = alpha * op(A) * op(B) + beta * C0 in fp64, from the stored (upcast) values. `c0` is read
// only when beta != 0. `ref` is (M,N) column-major.
void reference_gemm(const GemmProblem& p, const void* a, const void* b, const void* c0, double* ref,
                    cudaStream_t stream);

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
