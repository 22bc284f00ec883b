// Checking macros for CUDA runtime, cuBLAS and driver calls (nvbench cuda_call.cuh). Each throws
// CudaError carrying file, line, the call's text and the library's own error text. Never assert:
// assert vanishes under NDEBUG.
#pragma once

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gemmbench {

struct CudaError : std::runtime_error {
  CudaError(const std::string& what, cudaError_t code_ = cudaSuccess)
      : std::runtime_error(what), code(code_) {}
  cudaError_t code;  // cudaSuccess for cuBLAS and driver errors
};

// Errors after which the CUDA context is unusable: every later call fails.
bool is_sticky(cudaError_t e);

[[noreturn]] void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t s, const char* call, const char* file,
                                     int line);
[[noreturn]] void throw_cu_error(CUresult r, const char* call, const char* file, int line);

}  // namespace gemmbench

#define CUDA_CHECK(call)                                                                           \
  do {                                                                                             \
    const cudaError_t gb_err_ = (call);                                                            \
    if (gb_err_ != cudaSuccess) ::gemmbench::throw_cuda_error(gb_err_, #call, __FILE__, __LINE__); \
  } while (0)

#define CUBLAS_CHECK(call)                                                \
  do {                                                                    \
    const cublasStatus_t gb_st_ = (call);                                 \
    if (gb_st_ != CUBLAS_STATUS_SUCCESS)                                  \
      ::gemmbench::throw_cublas_error(gb_st_, #call, __FILE__, __LINE__); \
  } while (0)

// For driver API calls made through entry points fetched with cudaGetDriverEntryPoint.
#define CU_CHECK(call)                                                                            \
  do {                                                                                            \
    const CUresult gb_res_ = (call);                                                              \
    if (gb_res_ != CUDA_SUCCESS) ::gemmbench::throw_cu_error(gb_res_, #call, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: launch-configuration errors surface here.
#define CUDA_CHECK_LAST_LAUNCH() CUDA_CHECK(cudaGetLastError())
