// The cuBLAS baseline: cublasGemmEx with the compute type matching the problem
// (f32: CUBLAS_COMPUTE_32F with TF32 off; f16 with f16 accumulate: CUBLAS_COMPUTE_16F;
// f16/bf16 with f32 accumulate: CUBLAS_COMPUTE_32F). cublasGemmEx takes no FP8 inputs: FP8
// problems have only the cuBLASLt baseline (cublaslt_gemm.hpp).
#pragma once

#include <cublas_v2.h>

#include <string>

#include "core/types.hpp"
#include "device/buffer.hpp"

namespace gemmbench {

// The CUDA data type of a gemmbench element type (shared by the cuBLAS and cuBLASLt baselines;
// the FP8 types, CUDA_R_8F_E4M3 and CUDA_R_8F_E5M2, are for cuBLASLt only).
cudaDataType_t cuda_type(DType d);

class CublasGemm {
 public:
  CublasGemm();
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // Enqueues C = alpha*op(A)*op(B) + beta*C on `stream`. std::invalid_argument for an FP8 problem.
  void run(const GemmProblem& p, const void* a, const void* b, void* c, cudaStream_t stream);
  // The same on the stream the last on_stream() bound: a run of calls on one stream (the
  // grouped loop, one per group) binds it once, not once a call inside the timed region.
  void enqueue(const GemmProblem& p, const void* a, const void* b, void* c);
  // The handle, bound to `stream` and to this object's workspace: for the other cuBLAS calls of a
  // baseline (the grouped API, runner/grouped_gemm.hpp) on the same handle and workspace.
  cublasHandle_t on_stream(cudaStream_t stream);
  static std::string version();
  static const char* compute_type_name(const GemmProblem& p);

 private:
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
};

}  // namespace gemmbench
