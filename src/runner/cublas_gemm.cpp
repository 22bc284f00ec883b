#include "runner/cublas_gemm.hpp"

#include <cuda_fp16.h>

#include <stdexcept>

#include "core/cuda_check.hpp"

namespace gemmbench {

namespace {
// cuBLAS recommends 32 MiB of workspace on Hopper; given once, outside any timed region.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

}  // namespace

cudaDataType_t cuda_type(DType d) {
  switch (d) {
    case DType::f32:
      return CUDA_R_32F;
    case DType::f16:
      return CUDA_R_16F;
    case DType::bf16:
      return CUDA_R_16BF;
    case DType::e4m3:
      return CUDA_R_8F_E4M3;
    case DType::e5m2:
      return CUDA_R_8F_E5M2;
  }
  return CUDA_R_32F;
}

CublasGemm::CublasGemm() : workspace_(kWorkspaceBytes) {
  CUBLAS_CHECK(cublasCreate(&handle_));
  // Default math: CUBLAS_COMPUTE_32F on f32 data never uses TF32 tensor cores in this mode.
  CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
  CUBLAS_CHECK(cublasSetWorkspace(handle_, workspace_.get(), workspace_.bytes()));
}

CublasGemm::~CublasGemm() {
  if (handle_) cublasDestroy(handle_);
}

const char* CublasGemm::compute_type_name(const GemmProblem& p) {
  return p.accum == Accum::f16 ? "CUBLAS_COMPUTE_16F" : "CUBLAS_COMPUTE_32F";
}

void CublasGemm::run(const GemmProblem& p, const void* a, const void* b, void* c,
                     cudaStream_t stream) {
  on_stream(stream);
  enqueue(p, a, b, c);
}

void CublasGemm::enqueue(const GemmProblem& p, const void* a, const void* b, void* c) {
  if (is_fp8(p.dtype))
    throw std::invalid_argument(std::string("cublasGemmEx has no ") + to_string(p.dtype) +
                                " inputs: FP8 problems run through cuBLASLt (CublasLtGemm)");
  cublasHandle_t handle = handle_;
  const cublasOperation_t op_a = a_is_k_major(p.layout) ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = b_is_k_major(p.layout) ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cudaDataType_t t = cuda_type(p.dtype);
  const int m = int(p.m), n = int(p.n), k = int(p.k);
  const int lda = int(p.lda()), ldb = int(p.ldb()), ldc = int(p.ldc());
  if (p.accum == Accum::f16) {
    const __half alpha = __double2half(p.alpha), beta = __double2half(p.beta);
    CUBLAS_CHECK(cublasGemmEx(handle, op_a, op_b, m, n, k, &alpha, a, t, lda, b, t, ldb, &beta, c,
                              t, ldc, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT));
  } else {
    const float alpha = float(p.alpha), beta = float(p.beta);
    CUBLAS_CHECK(cublasGemmEx(handle, op_a, op_b, m, n, k, &alpha, a, t, lda, b, t, ldb, &beta, c,
                              t, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

cublasHandle_t CublasGemm::on_stream(cudaStream_t stream) {
  CUBLAS_CHECK(cublasSetStream(handle_, stream));
  CUBLAS_CHECK(cublasSetWorkspace(handle_, workspace_.get(), workspace_.bytes()));
  return handle_;
}

std::string CublasGemm::version() {
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace gemmbench
