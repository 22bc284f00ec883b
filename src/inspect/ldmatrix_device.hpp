// The GPU half of `inspect ldmatrix`: runs the instruction (through kernels/common/ptx.cuh, the
// wrappers the kernels use) on the current device. Declared without CUDA types so host code and
// tests can call it; defined in ldmatrix_device.cu (gemmbench_device).
#pragma once

#include <string>

#include "inspect/ldmatrix_model.hpp"

namespace gemmbench::inspect {

// "" when a CUDA device is usable, else why not (cudaGetDeviceCount failed, or found none).
std::string device_unavailable_reason();

// One warp executes the spec's ldmatrix variant over the smem described in ldmatrix_model.hpp
// on device `device` and returns every thread's registers. Throws NoDeviceError (with a hint to
// use --model) when no device is usable, UsageError for a bad index, CudaError when a call fails.
LdmatrixRegs run_ldmatrix_on_device(const LdmatrixSpec& spec, int device = 0);

}  // namespace gemmbench::inspect
