#include "device/open.hpp"

#include <cublas_api.h>
#include <cuda_runtime.h>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/provenance.hpp"

namespace gemmbench {

namespace {

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// nvidia-smi's form of the UUID: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
std::string uuid_text(const cudaUUID_t& u) {
  static const char* hex = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    const auto b = static_cast<unsigned char>(u.bytes[i]);
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

}  // namespace

int cuda_device_count(const std::string& purpose) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) cudaGetLastError();  // not sticky: later calls must not report it
  if (e == cudaErrorInsufficientDriver || e == cudaErrorCompatNotSupportedOnDevice) {
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    throw NoDeviceError(purpose + ", and the NVIDIA driver is missing or too old for this build " +
                        "(CUDA runtime " + cuda_version_string(rt) + "): " + cudaGetErrorString(e));
  }
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0))
    throw NoDeviceError(purpose + ", and no CUDA device was found (cudaGetDeviceCount: " +
                        cudaGetErrorString(e) + ")");
  if (e != cudaSuccess)
    throw NoDeviceError(purpose + ", and the CUDA driver cannot be used: " + cudaGetErrorName(e) +
                        ": " + cudaGetErrorString(e));
  return count;
}

OpenedDevice open_device(int index, const std::string& purpose) {
  const int count = cuda_device_count(purpose);
  if (index < 0 || index >= count)
    throw UsageError("--device " + std::to_string(index) + ": this machine has " +
                     std::to_string(count) + " CUDA device(s), indices 0.." +
                     std::to_string(count - 1));
  CUDA_CHECK(cudaSetDevice(index));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&v, a, index));
    return v;
  };
  char pci[32] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(pci, sizeof(pci), index));
  OpenedDevice d;
  DeviceMetadata& m = d.meta;
  m.index = index;
  m.name = prop.name;
  m.sm = prop.major * 10 + prop.minor;
  m.num_sms = prop.multiProcessorCount;
  m.memory_bytes = int64_t(prop.totalGlobalMem);
  m.l2_bytes = prop.l2CacheSize;
  m.sm_clock_max_mhz = attr(cudaDevAttrClockRate) / 1000;
  m.memory_clock_mhz = attr(cudaDevAttrMemoryClockRate) / 1000;
  m.memory_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
  m.pci_bus_id = pci;
  m.uuid = uuid_text(prop.uuid);
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  m.cuda_driver_api = cuda_version_string(drv);
  m.cuda_runtime = cuda_version_string(rt);
  m.cublas_version = cublas_version();
  m.driver_version = "CUDA driver API " + m.cuda_driver_api;
  // The launchers read the same caps (the shape-aware kernels' choice among them): one source.
  d.caps = current_device_caps();
  return d;
}

}  // namespace gemmbench
