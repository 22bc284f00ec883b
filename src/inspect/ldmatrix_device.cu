// `inspect ldmatrix` on the hardware: one warp, one ldmatrix through the kernels' own wrappers.
#include "device/open.hpp"
#include "inspect/ldmatrix_device.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "common/ptx.cuh"
#include "core/cuda_check.hpp"
#include "core/errors.hpp"

namespace gemmbench::inspect {
namespace {

// Passed by value as a kernel parameter: no device allocation for the addresses.
struct RowAddresses {
  int row_of_thread[32];
};

__global__ void ldmatrix_probe_kernel(RowAddresses rows, int num, bool trans, uint32_t* out) {
  __shared__ __align__(16) uint16_t smem[kLdmatrixSmemRows * 8];  // (32,8) b16, value 8r+c
  for (int i = threadIdx.x; i < kLdmatrixSmemRows * 8; i += 32) smem[i] = uint16_t(i);
  __syncthreads();

  const uint16_t* row = smem + rows.row_of_thread[threadIdx.x] * 8;  // 16 B aligned row
  uint32_t r[4] = {0u, 0u, 0u, 0u};                                  // (4) registers, two b16 each
  // num and trans are the same for the whole warp: every branch is warp-uniform, as the .sync
  // .aligned instruction requires.
  if (num == 1) {
    if (trans)
      ptx::ldmatrix_x1_trans(r[0], row);
    else
      ptx::ldmatrix_x1(r[0], row);
  } else if (num == 2) {
    if (trans)
      ptx::ldmatrix_x2_trans(r[0], r[1], row);
    else
      ptx::ldmatrix_x2(r[0], r[1], row);
  } else {
    if (trans)
      ptx::ldmatrix_x4_trans(r[0], r[1], r[2], r[3], row);
    else
      ptx::ldmatrix_x4(r[0], r[1], r[2], r[3], row);
  }
  for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = r[i];
}

// Frees the output buffer on every path, including a throwing CUDA_CHECK.
struct DeviceBuffer {
  uint32_t* ptr = nullptr;
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
};

}  // namespace

std::string device_unavailable_reason() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the error so later calls do not report it
    return std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
  }
  if (count == 0) return "cudaGetDeviceCount found 0 devices";
  return "";
}

LdmatrixRegs run_ldmatrix_on_device(const LdmatrixSpec& spec, int device) {
  open_device(
      device,
      "inspect ldmatrix runs the instruction on a GPU (add --model for the host-side model)");
  // The rows the instruction dereferences must lie inside the smem array.
  validate_ldmatrix_spec(spec);

  RowAddresses rows{};
  for (int t = 0; t < 32; ++t) {
    // Ignored addresses must still be valid shared addresses (sm_75 and older read them all).
    const int r = spec.row_of_thread[t];
    rows.row_of_thread[t] = (r >= 0 && r < kLdmatrixSmemRows) ? r : 0;
  }

  DeviceBuffer out;
  CUDA_CHECK(cudaMalloc(&out.ptr, 32 * 4 * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemset(out.ptr, 0xff, 32 * 4 * sizeof(uint32_t)));
  ldmatrix_probe_kernel<<<1, 32>>>(rows, spec.num, spec.trans, out.ptr);
  CUDA_CHECK_LAST_LAUNCH();
  uint32_t host[32 * 4];
  CUDA_CHECK(cudaMemcpy(host, out.ptr, sizeof(host), cudaMemcpyDeviceToHost));

  LdmatrixRegs regs{};
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < 4; ++i) regs[t][i] = host[t * 4 + i];
  return regs;
}

}  // namespace gemmbench::inspect
