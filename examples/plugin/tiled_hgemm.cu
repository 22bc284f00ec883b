// tiled_hgemm: gemmbench's example plugin (docs/plugins.md). A shared-memory tiled HGEMM in the
// TN layout, f16 in and out with f32 accumulate: each block of 32x32 threads computes a 32x32 tile
// of C, staging 32x32 tiles of A and B through shared memory. No tensor cores, no pipelining: it
// is the smallest kernel that shows the interface, far below cuBLAS by design. gemmbench verifies
// it against an fp64 reference and times it beside cuBLAS like its own kernels.
// Constraints (supports()): N at most 65535 * 32, the grid's y dimension holding N / 32 blocks.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>

#include "gemmbench/plugin.h"

namespace {

constexpr int TILE = 32;
constexpr long long kMaxGridY = 65535;

// TN (BLAS column-major): op(A)(m,k) = A[m*lda + k] and op(B)(k,n) = B[n*ldb + k], both
// K-contiguous; C(m,n) = C[n*ldc + m]. Thread (tx, ty) computes C(m0 + tx, n0 + ty): tx runs along
// M, so a warp's stores to column-major C are contiguous.
__global__ void tiled_hgemm_tn(int M, int N, int K, const __half* A, long long lda, const __half* B,
                               long long ldb, __half* C, long long ldc, float alpha, float beta) {
  __shared__ float As[TILE][TILE + 1];  // (TILE m, TILE k) of A; +1: column reads skip banks
  __shared__ float Bs[TILE][TILE + 1];  // (TILE n, TILE k) of B
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m0 = blockIdx.x * TILE, n0 = blockIdx.y * TILE;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    // Loads: tx along K, the contiguous direction of both operands; zeros past the edges.
    const int k = k0 + tx;
    As[ty][tx] = (m0 + ty < M && k < K) ? __half2float(A[(m0 + ty) * lda + k]) : 0.f;
    Bs[ty][tx] = (n0 + ty < N && k < K) ? __half2float(B[(n0 + ty) * ldb + k]) : 0.f;
    __syncthreads();
    for (int kk = 0; kk < TILE; ++kk) acc += As[tx][kk] * Bs[ty][kk];
    __syncthreads();
  }
  const int m = m0 + tx, n = n0 + ty;
  if (m >= M || n >= N) return;
  float out = alpha * acc;
  if (beta != 0.f) out += beta * __half2float(C[n * ldc + m]);  // beta = 0: C is never read
  C[n * ldc + m] = __float2half(out);
}

int supports(const gemmbench_problem* p, const gemmbench_device*, char* reason, size_t size,
             void*) {
  if ((p->n + TILE - 1) / TILE > kMaxGridY) {
    std::snprintf(reason, size, "N must be at most %lld: the grid's y dimension holds N/32 blocks",
                  kMaxGridY * TILE);
    return GEMMBENCH_PLUGIN_DECLINE;
  }
  return GEMMBENCH_PLUGIN_OK;
}

int launch(const gemmbench_launch_args* a, char* error, size_t size, void*) {
  const gemmbench_problem* p = a->problem;
  const dim3 grid(unsigned((p->m + TILE - 1) / TILE), unsigned((p->n + TILE - 1) / TILE));
  tiled_hgemm_tn<<<grid, dim3(TILE, TILE), 0, static_cast<cudaStream_t>(a->stream)>>>(
      int(p->m), int(p->n), int(p->k), static_cast<const __half*>(a->a), p->lda,
      static_cast<const __half*>(a->b), p->ldb, static_cast<__half*>(a->c), p->ldc, a->alpha,
      a->beta);
  // This library's CUDA runtime holds the launch error, not gemmbench's: hand it over.
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return GEMMBENCH_PLUGIN_OK;
  std::snprintf(error, size, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
  return int(e);
}

const int32_t kDtypes[] = {GEMMBENCH_DTYPE_F16};
const int32_t kAccums[] = {GEMMBENCH_ACCUM_F32};
const int32_t kLayouts[] = {GEMMBENCH_LAYOUT_TN};

const gemmbench_kernel kTiledHgemm = {
    sizeof(gemmbench_kernel),
    "tiled_hgemm",  // name
    "example",      // family
    1,              // rung
    "example plugin: 32x32 shared-memory tiles, f32 accumulate, no tensor cores",
    kDtypes,
    1,
    kAccums,
    1,
    kLayouts,
    1,
    70,        // min_sm
    supports,  // supports
    launch,    // launch
    nullptr,   // workspace_bytes: none
    nullptr,   // user
};
const gemmbench_kernel* const kKernels[] = {&kTiledHgemm};
const gemmbench_plugin kPlugin = {sizeof(gemmbench_plugin), GEMMBENCH_PLUGIN_ABI_VERSION,
                                  "gemmbench example plugin", kKernels, 1};

}  // namespace

GEMMBENCH_PLUGIN_ENTRY {
  return &kPlugin;
}
