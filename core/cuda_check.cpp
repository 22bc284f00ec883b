#include "core/cuda_check.hpp"

namespace gemmbench {

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  throw CudaError(std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e) + " (" + call +
                      " at " + file + ":" + std::to_string(line) + ")",
                  e);
}

void throw_cublas_error(cublasStatus_t s, const char* call, const char* file, int line) {
  throw CudaError(std::string(cublasGetStatusName(s)) + ": " + cublasGetStatusString(s) + " (" +
                  call + " at " + file + ":" + std::to_string(line) + ")");
}

void throw_cu_error(CUresult r, const char* call, const char* file, int line) {
  throw CudaError("CUresult " + std::to_string(int(r)) + " (" + call + " at " + file + ":" +
                  std::to_string(line) + ")");
}

}  // namespace gemmbench
