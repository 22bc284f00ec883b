// PyTorch's grouped GEMM as a gemmbench plugin of ABI version 2 (issue 51), so that one gemmbench
// report holds `hgemm`, cuBLAS's two ways and PyTorch's grouped kernel on the same data, flush,
// regime and timer. A reference peer, not part of gemmbench: built only when CMake is given
// GEMMBENCH_TORCH_PLUGIN=ON on a host with PyTorch (CMakeLists.txt beside this file;
// docs/plugins.md, "PyTorch's grouped GEMM in the harness").
//
// What it runs. torch.nn.functional.grouped_mm (torch._grouped_mm) on bf16 inputs and output on
// sm_90 and sm_100 is, after validating its arguments and allocating its output, one call of
// at::cuda::detail::bf16bf16_grouped_mm (ATen/native/cuda/GroupedBlas.cpp, its "fast path": a
// CUTLASS grouped GEMM). This plugin makes that call, with gemmbench's C as the output, so the
// kernel timed is the operator's own, and neither its output allocation (a pooled at::empty) nor
// a copy of the result into C is in the sample.
//
// The problem as gemmbench states it (docs/plugins.md, "Grouped problems") is the operator's
// 2-D x 3-D form: the activations [sum M_g, K] row-major, the weights [G, N, K] passed as their
// (G, K, N) transpose view (column-major per group, as MoE layers call it), `offs` the groups'
// cumulative row ends (int32), the output [sum M_g, N] row-major. The operator has no padding
// between groups, so only contiguous groupings without padding (--group-align 1, or groups already
// whole multiples of the align) run; the masked layout would be its 3-D x 3-D batched form, which
// computes every group's max_m rows where gemmbench counts M_g, so it is declined.
//
// Outside timing, in prepare(): `offs` from the host's M_g into the workspace (what the caller of
// the operator holds already), and the four tensors over gemmbench's memory, so that a launch's
// host work is the operator's own (which still launches two kernels: CUTLASS's problem table,
// then the GEMM; at the smallest cases the host's time per call may exceed the GPU's, and a
// sample then holds some of it). CUTLASS's problem table and workspace are the kernel's own, built
// on the device by the operator on every call (from the caching allocator, warm after the
// verified launch), as in PyTorch.
#include <ATen/ATen.h>
#include <ATen/native/cuda/GroupMM.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

#include "gemmbench/plugin.h"

namespace gb_torch {
namespace {

int say(char* out, size_t size, const char* what) {
  if (out && size) std::snprintf(out, size, "%s", what);
  return GEMMBENCH_PLUGIN_DECLINE;
}

int supports(const gemmbench_problem* p, const gemmbench_device* dev, char* reason,
             size_t reason_size, void*) {
  if (p->groups <= 0) return say(reason, reason_size, "grouped problems only");
  if (p->group_layout != GEMMBENCH_GROUP_LAYOUT_CONTIGUOUS)
    return say(reason, reason_size,
               "the masked layout would be grouped_mm's 3-D x 3-D batched form, which computes "
               "every group's max_m rows (gemmbench counts M_g)");
  if (p->stored_rows != p->m)
    return say(reason, reason_size,
               "grouped_mm's groups are the ranges between cumulative row ends, with no padding "
               "between them: run with --group-align 1");
  if (p->dtype != GEMMBENCH_DTYPE_BF16 || p->dtype_b != GEMMBENCH_DTYPE_BF16 ||
      p->out_dtype != GEMMBENCH_DTYPE_BF16)
    return say(reason, reason_size,
               "bf16 only: grouped_mm's fused kernel (other types take its per-group fallback)");
  if (p->alpha != 1.0 || p->beta != 0.0)
    return say(reason, reason_size, "alpha 1 and beta 0 only: grouped_mm computes A B^T");
  if (dev->sm != 90 && dev->sm != 100)
    return say(reason, reason_size,
               "grouped_mm's fused bf16 kernel runs on sm_90 and sm_100 only (elsewhere its "
               "per-group fallback)");
  if (p->n % 8 != 0 || p->k % 8 != 0)
    return say(reason, reason_size,
               "N and K must be multiples of 8: grouped_mm needs 16-byte aligned strides");
  if (p->m > std::numeric_limits<int32_t>::max())
    return say(reason, reason_size, "more rows than an int32 offset holds");
  return GEMMBENCH_PLUGIN_OK;
}

// The operator's arguments over gemmbench's memory, made once per problem in prepare() (the
// launches of a problem get the same pointers; a later problem may reuse an address, so the key
// holds them all): what a launch does on the host is then the operator's own work alone.
struct Views {
  at::Tensor x, w_t, offs, out;
};
using Key = std::tuple<const void*, const void*, void*, void*, int64_t, int64_t, int64_t, int64_t>;
Key key_of(const gemmbench_launch_args* a) {
  const gemmbench_problem& p = *a->problem;
  return Key{a->a, a->b, a->c, a->workspace, p.m, p.n, p.k, p.groups};
}
std::map<Key, Views>& views() {
  static std::map<Key, Views> v;  // supports(), prepare() and launch() come from one thread
  return v;
}

int current_device(int* device, char* error, size_t error_size) {
  if (const cudaError_t e = cudaGetDevice(device); e != cudaSuccess) {
    std::snprintf(error, error_size, "cudaGetDevice: %s", cudaGetErrorString(e));
    return 1;
  }
  return GEMMBENCH_PLUGIN_OK;
}

// The groups' cumulative row ends, int32 (the operator's `offs`).
size_t workspace_bytes(const gemmbench_problem* p, void*) {
  return size_t(p->groups) * sizeof(int32_t);
}

int prepare(const gemmbench_launch_args* a, char* error, size_t error_size, void*) {
  const int64_t groups = a->problem->groups;
  std::vector<int32_t> ends(size_t(groups), 0);
  int64_t rows = 0;
  for (int64_t g = 0; g < groups; ++g) {
    rows += a->host_group_m[g];
    ends[size_t(g)] = int32_t(rows);
  }
  // From pageable memory: the call returns once `ends` has been read (CUDA's rule for pageable
  // host-to-device copies), so the vector may go.
  const cudaError_t e =
      cudaMemcpyAsync(a->workspace, ends.data(), ends.size() * sizeof(int32_t),
                      cudaMemcpyHostToDevice, static_cast<cudaStream_t>(a->stream));
  if (e != cudaSuccess) {
    std::snprintf(error, error_size, "offsets: %s", cudaGetErrorString(e));
    return 1;
  }
  try {
    int device = 0;
    if (current_device(&device, error, error_size) != GEMMBENCH_PLUGIN_OK) return 1;
    const gemmbench_problem& p = *a->problem;
    const auto bf16 = at::TensorOptions().dtype(at::kBFloat16).device(at::kCUDA, device);
    Views v;
    v.x = at::from_blob(const_cast<void*>(a->a), {p.m, p.k}, {p.k, 1}, bf16);
    v.w_t = at::from_blob(const_cast<void*>(a->b), {p.groups, p.n, p.k}, {p.n * p.k, p.k, 1}, bf16)
                .transpose(1, 2);
    v.offs = at::from_blob(a->workspace, {p.groups}, {1}, bf16.dtype(at::kInt));
    v.out = at::from_blob(a->c, {p.m, p.n}, {p.n, 1}, bf16);
    views()[key_of(a)] = std::move(v);
  } catch (const std::exception& ex) {
    std::snprintf(error, error_size, "%s", ex.what());
    return 1;
  }
  return GEMMBENCH_PLUGIN_OK;
}

int launch(const gemmbench_launch_args* a, char* error, size_t error_size, void*) {
  try {
    const auto it = views().find(key_of(a));
    if (it == views().end()) {
      std::snprintf(error, error_size, "launch before prepare() for these arguments");
      return 1;
    }
    int device = 0;
    if (current_device(&device, error, error_size) != GEMMBENCH_PLUGIN_OK) return 1;
    // The operator enqueues on PyTorch's current stream: gemmbench's, for this call.
    const c10::cuda::CUDAStreamGuard guard(c10::cuda::getStreamFromExternal(
        static_cast<cudaStream_t>(a->stream), static_cast<c10::DeviceIndex>(device)));
    Views& v = it->second;
    at::cuda::detail::bf16bf16_grouped_mm(v.x, v.w_t, v.offs, std::nullopt, v.out);
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
  return GEMMBENCH_PLUGIN_OK;
}

const int32_t kDtypes[] = {GEMMBENCH_DTYPE_BF16};
const int32_t kAccums[] = {GEMMBENCH_ACCUM_F32};
const int32_t kLayouts[] = {GEMMBENCH_LAYOUT_TN};

// Each field by name (C++20, declaration order), so that the ABI's positional padding fields are
// never counted by hand; those left out are zero.
const gemmbench_kernel kGroupedMm = {
    .struct_size = sizeof(gemmbench_kernel),
    .name = "torch_grouped_mm",
    .family = "peer",
    .rung = 1,
    .summary =
        "PyTorch's torch.nn.functional.grouped_mm on bf16 (its fused CUTLASS grouped kernel, "
        "at::cuda::detail::bf16bf16_grouped_mm), contiguous groups without padding "
        "(reference peer)",
    .dtypes = kDtypes,
    .num_dtypes = 1,
    .accums = kAccums,
    .num_accums = 1,
    .layouts = kLayouts,
    .num_layouts = 1,
    .min_sm = 90,
    .supports = supports,
    .launch = launch,
    .workspace_bytes = workspace_bytes,
    .prepare = prepare,
    .c_row_major = 1,
    .group_layouts = GEMMBENCH_GROUP_LAYOUT_CONTIGUOUS};
const gemmbench_kernel* const kKernels[] = {&kGroupedMm};

}  // namespace
}  // namespace gb_torch

GEMMBENCH_PLUGIN_ENTRY {
  static const gemmbench_plugin plugin = {.struct_size = sizeof(gemmbench_plugin),
                                          .abi_version = GEMMBENCH_PLUGIN_ABI_VERSION,
                                          .name = "torch " TORCH_PLUGIN_TORCH_VERSION,
                                          .kernels = gb_torch::kKernels,
                                          .num_kernels = 1};
  return &plugin;
}
