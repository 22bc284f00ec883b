// A plugin of ABI version 2 that exercises every field version 2 added: FP8 inputs of either type,
// the three scalings, C of bf16, f16 or f32, and two kernels that differ in what they ask of the
// harness:
//   fp8_ref_cols  reads the scales where gemmbench hands them over and writes C column-major;
//   fp8_ref_rows  writes C row-major (c_row_major) and reads A's scales only from the workspace,
//                 where its prepare() laid them out K-block by K-block (as DeepGEMM wants them).
// One thread per element of C, f32 sums of dequantized products: right, not fast. If gemmbench
// handed over a wrong scale pointer or layout, lost the workspace between prepare() and the
// launches, skipped prepare(), or verified a row-major C as column-major, the row fails its check.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdio>

#include "gemmbench/plugin.h"

namespace {

constexpr int64_t kBlock = 128;

struct Problem {
  int64_t m, n, k, kb;  // kb: K-blocks of 128
  int32_t scale;
  bool a_e5m2, b_e5m2;
  int32_t out;
  float alpha, beta;
};

__device__ float fp8_value(uint8_t q, bool e5m2) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(q, e5m2 ? __NV_E5M2 : __NV_E4M3)));
}

// A's scale for (row m, k): from gemmbench's row-major layout, or (a_by_kblock) from the
// workspace's [kb][M] layout that prepare() made.
__device__ float scale_a_at(const float* s, const Problem& p, int64_t m, int64_t k,
                            bool a_by_kblock) {
  if (p.scale == GEMMBENCH_SCALE_ROW) return s[m];
  if (p.scale == GEMMBENCH_SCALE_BLOCK128)
    return a_by_kblock ? s[(k / kBlock) * p.m + m] : s[m * p.kb + k / kBlock];
  return s[0];
}
__device__ float scale_b_at(const float* s, const Problem& p, int64_t n, int64_t k) {
  if (p.scale == GEMMBENCH_SCALE_ROW) return s[n];
  if (p.scale == GEMMBENCH_SCALE_BLOCK128) return s[(n / kBlock) * p.kb + k / kBlock];
  return s[0];
}

__device__ void store(void* c, int64_t i, int32_t out, float v, float beta) {
  if (out == GEMMBENCH_DTYPE_F32) {
    float* x = static_cast<float*>(c);
    x[i] = beta != 0.f ? v + beta * x[i] : v;
  } else if (out == GEMMBENCH_DTYPE_F16) {
    __half* x = static_cast<__half*>(c);
    x[i] = __float2half(beta != 0.f ? v + beta * __half2float(x[i]) : v);
  } else {
    __nv_bfloat16* x = static_cast<__nv_bfloat16*>(c);
    x[i] = __float2bfloat16(beta != 0.f ? v + beta * __bfloat162float(x[i]) : v);
  }
}

// A stored (K,M) and B stored (K,N), both K-contiguous (TN).
template <bool kRows>
__global__ void fp8_reference(Problem p, const uint8_t* a, const uint8_t* b, void* c,
                              const float* scale_a, const float* scale_b) {
  const int64_t m = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  const int64_t n = blockIdx.y;
  if (m >= p.m) return;
  float acc = 0.f;
  for (int64_t k = 0; k < p.k; ++k)
    acc += fp8_value(a[m * p.k + k], p.a_e5m2) * scale_a_at(scale_a, p, m, k, kRows) *
           fp8_value(b[n * p.k + k], p.b_e5m2) * scale_b_at(scale_b, p, n, k);
  store(c, kRows ? m * p.n + n : n * p.m + m, p.out, p.alpha * acc, p.beta);
}

// A's block scales [m][kb] -> [kb][m].
__global__ void scales_by_kblock(const float* in, float* out, int64_t m, int64_t kb) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m * kb;
       i += int64_t(gridDim.x) * blockDim.x)
    out[(i % kb) * m + i / kb] = in[i];
}

int fail(char* error, size_t size, const char* what) {
  const cudaError_t e = cudaGetLastError();
  std::snprintf(error, size, "%s: %s", what, cudaGetErrorString(e));
  return 1;
}

int supports(const gemmbench_problem* p, const gemmbench_device*, char* reason, size_t size,
             void*) {
  if (p->struct_size < sizeof(gemmbench_problem)) {
    std::snprintf(reason, size, "needs a gemmbench that speaks plugin ABI version 2");
    return GEMMBENCH_PLUGIN_DECLINE;
  }
  if (p->scale == GEMMBENCH_SCALE_NONE) {
    std::snprintf(reason, size, "FP8 inputs only");
    return GEMMBENCH_PLUGIN_DECLINE;
  }
  return GEMMBENCH_PLUGIN_OK;
}

Problem problem_of(const gemmbench_launch_args* a) {
  const gemmbench_problem* p = a->problem;
  return {p->m,
          p->n,
          p->k,
          (p->k + kBlock - 1) / kBlock,
          p->scale,
          p->dtype == GEMMBENCH_DTYPE_E5M2,
          p->dtype_b == GEMMBENCH_DTYPE_E5M2,
          p->out_dtype,
          a->alpha,
          a->beta};
}

template <bool kRows>
int launch(const gemmbench_launch_args* a, char* error, size_t size, void*) {
  const Problem p = problem_of(a);
  if (a->scale_layout != GEMMBENCH_SCALE_LAYOUT_ROW_MAJOR) {
    std::snprintf(error, size, "unknown scale layout %d", a->scale_layout);
    return 2;
  }
  // The row-major kernel reads A's scales only from what prepare() left in the workspace.
  const float* scale_a = kRows ? static_cast<const float*>(a->workspace) : a->scale_a;
  const dim3 grid(unsigned((p.m + 127) / 128), unsigned(p.n));
  fp8_reference<kRows><<<grid, 128, 0, static_cast<cudaStream_t>(a->stream)>>>(
      p, static_cast<const uint8_t*>(a->a), static_cast<const uint8_t*>(a->b), a->c, scale_a,
      a->scale_b);
  return cudaPeekAtLastError() == cudaSuccess ? GEMMBENCH_PLUGIN_OK : fail(error, size, "launch");
}

int64_t scale_a_count(const gemmbench_problem* p) {
  if (p->scale == GEMMBENCH_SCALE_ROW) return p->m;
  if (p->scale == GEMMBENCH_SCALE_BLOCK128) return p->m * ((p->k + kBlock - 1) / kBlock);
  return 1;
}

size_t rows_workspace(const gemmbench_problem* p, void*) {
  return size_t(scale_a_count(p)) * sizeof(float);
}

int rows_prepare(const gemmbench_launch_args* a, char* error, size_t size, void*) {
  const gemmbench_problem* p = a->problem;
  const cudaStream_t stream = static_cast<cudaStream_t>(a->stream);
  if (!a->workspace) {
    std::snprintf(error, size, "prepare() got no workspace");
    return 2;
  }
  if (p->scale == GEMMBENCH_SCALE_BLOCK128) {
    const int64_t kb = (p->k + kBlock - 1) / kBlock;
    scales_by_kblock<<<unsigned((p->m * kb + 255) / 256), 256, 0, stream>>>(
        a->scale_a, static_cast<float*>(a->workspace), p->m, kb);
  } else {
    cudaMemcpyAsync(a->workspace, a->scale_a, size_t(scale_a_count(p)) * sizeof(float),
                    cudaMemcpyDeviceToDevice, stream);
  }
  return cudaPeekAtLastError() == cudaSuccess ? GEMMBENCH_PLUGIN_OK : fail(error, size, "prepare");
}

const int32_t kDtypes[] = {GEMMBENCH_DTYPE_E4M3, GEMMBENCH_DTYPE_E5M2};
const int32_t kAccums[] = {GEMMBENCH_ACCUM_F32};
const int32_t kLayouts[] = {GEMMBENCH_LAYOUT_TN};

const gemmbench_kernel kCols = {sizeof(gemmbench_kernel),
                                "fp8_ref_cols",
                                "test",
                                1,
                                "test plugin (ABI 2): FP8 reference, C column-major",
                                kDtypes,
                                2,
                                kAccums,
                                1,
                                kLayouts,
                                1,
                                89,
                                supports,
                                launch<false>,
                                nullptr,
                                nullptr,
                                nullptr,
                                0};
const gemmbench_kernel kRows = {sizeof(gemmbench_kernel),
                                "fp8_ref_rows",
                                "test",
                                2,
                                "test plugin (ABI 2): FP8 reference, C row-major, A's scales from "
                                "prepare()",
                                kDtypes,
                                2,
                                kAccums,
                                1,
                                kLayouts,
                                1,
                                89,
                                supports,
                                launch<true>,
                                rows_workspace,
                                nullptr,
                                rows_prepare,
                                1};
const gemmbench_kernel* const kKernels[] = {&kCols, &kRows};
const gemmbench_plugin kPlugin = {sizeof(gemmbench_plugin), GEMMBENCH_PLUGIN_ABI_VERSION,
                                  "gemmbench FP8 reference test plugin", kKernels, 2};

}  // namespace

GEMMBENCH_PLUGIN_ENTRY {
  return &kPlugin;
}
