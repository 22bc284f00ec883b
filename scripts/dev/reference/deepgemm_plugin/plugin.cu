// DeepGEMM's dense FP8 GEMM (v1: e4m3 A and B, A scaled per 1x128 slice along K, B per 128x128
// block, bf16 D) as a gemmbench plugin of ABI version 2, so that one gemmbench report holds
// `fp8gemm`, cuBLASLt and DeepGEMM on the same data, flush, regime and timer; and its m-grouped
// contiguous and masked kernels as grouped plugin kernels (deepgemm_contiguous, deepgemm_masked;
// below, "DeepGEMM's m-grouped kernels"). A reference peer,
// not part of gemmbench: built only when CMake is given GEMMBENCH_DEEPGEMM_DIR (CMakeLists.txt
// beside this file; docs/plugins.md, "DeepGEMM in the harness").
//
// The problem as gemmbench states it (TN, C (M,N)) is DeepGEMM's as it states it: A stored (K,M)
// K-contiguous is DeepGEMM's lhs (M,K) row-major; B stored (K,N) K-contiguous is its rhs (N,K);
// gemmbench's block scales are its lhs scales (M, K/128) and rhs scales (N/128, K/128). DeepGEMM
// writes D (M,N) row-major, N contiguous (an LLM layer's output order), so the kernel declares
// c_row_major and gemmbench verifies C in that order.
//
// What DeepGEMM's Python wrapper does per call and what is done here once per problem, in
// prepare(), outside the timed samples: A's scales laid out K-block by K-block with M rounded up
// to 4 (get_col_major_tma_aligned_tensor), and the four TMA descriptors. launch() then does what
// DeepGEMM's JIT-generated launch() does after its descriptors: Gemm::run, which sets the shared
// memory limit and launches with DeepGEMM's cluster size on DeepGEMM's grid.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "deepgemm_plugin.hpp"
#include "gemmbench/plugin.h"

namespace gb_deepgemm {
namespace {

constexpr int64_t kBlock = 128;

const Shape* find_shape(int64_t m, int64_t n, int64_t k) {
  for (int i = 0; i < kNumShapes; ++i)
    if (kShapes[i].m == m && kShapes[i].n == n && kShapes[i].k == k) return &kShapes[i];
  return nullptr;
}

// M rounded up to 4 floats: DeepGEMM's TMA-aligned stride of A's scales.
int64_t aligned_m(int64_t m) {
  return (m + 3) / 4 * 4;
}

// gemmbench's A scales [m][kb] -> DeepGEMM's [kb][aligned m] (the padding rows are zeroed first).
__global__ void scales_by_kblock(const float* in, float* out, int64_t m, int64_t kb, int64_t ld) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m * kb;
       i += int64_t(gridDim.x) * blockDim.x)
    out[(i % kb) * ld + i / kb] = in[i];
}

// The descriptors prepare() built, by the arguments they describe (the launches of a problem
// get the same pointers; a later problem may reuse an address, so the key holds them all).
using Key = std::tuple<const void*, const void*, const void*, const void*, const void*, int64_t,
                       int64_t, int64_t>;
std::mutex g_mutex;
std::map<Key, Descriptors> g_prepared;
std::map<Key, std::vector<int>> g_indices;  // the grouped contiguous cases' m_indices, host side

Key key_of(const gemmbench_launch_args* a) {
  const gemmbench_problem* p = a->problem;
  return {a->a, a->b, a->c, a->scale_b, a->workspace, p->m, p->n, p->k};
}

int say(char* buf, size_t size, int rc, const char* fmt, const char* what) {
  std::snprintf(buf, size, fmt, what);
  return rc;
}

// prepare()'s last step, dense or grouped: DeepGEMM's descriptors of the launch's tensors (m: the
// rows it describes), kept for the problem's launches.
int describe_and_keep(const gemmbench_launch_args* a, const Instance& instance,
                      const float* scales_a, uint32_t m, char* error, size_t size) {
  try {
    const Descriptors d = instance.describe(a->a, a->b, scales_a, a->c, m);
    std::lock_guard<std::mutex> lock(g_mutex);
    g_prepared[key_of(a)] = d;
  } catch (const std::exception& e) {
    return say(error, size, 4, "prepare(): DeepGEMM's descriptors: %s", e.what());
  }
  return GEMMBENCH_PLUGIN_OK;
}

// launch(), dense or grouped: the descriptors prepare() kept, and DeepGEMM's Gemm::run on them
// with its grid and shared memory (instance null: a case supports() declines).
int run_prepared(const gemmbench_launch_args* a, const Instance* instance, int* grouped_layout,
                 uint32_t m, int num_sms, uint32_t smem_bytes, char* error, size_t size) {
  Descriptors d;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = g_prepared.find(key_of(a));
    if (!instance || it == g_prepared.end())
      return say(error, size, 2, "%s", "launch() of a problem prepare() did not see");
    d = it->second;
  }
  try {
    instance->run(d, a->c, a->scale_b, grouped_layout, m, static_cast<cudaStream_t>(a->stream),
                  num_sms, smem_bytes);
  } catch (const std::exception& e) {
    return say(error, size, 4, "DeepGEMM's Gemm::run: %s", e.what());
  }
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    return say(error, size, 3, "launch: %s", cudaGetErrorString(e));
  return GEMMBENCH_PLUGIN_OK;
}

int supports(const gemmbench_problem* p, const gemmbench_device* dev, char* reason, size_t size,
             void*) {
  const auto no = [&](const char* why) { return say(reason, size, 1, "%s", why); };
  if (p->struct_size < sizeof(gemmbench_problem))
    return no("needs a gemmbench that speaks plugin ABI version 2");
  if (p->dtype != GEMMBENCH_DTYPE_E4M3 || p->dtype_b != GEMMBENCH_DTYPE_E4M3)
    return no("DeepGEMM's dense FP8 GEMM multiplies e4m3 by e4m3 only");
  if (p->scale != GEMMBENCH_SCALE_BLOCK128)
    return no("DeepGEMM's dense FP8 GEMM takes block128 scales only (A 1x128, B 128x128)");
  if (p->out_dtype != GEMMBENCH_DTYPE_BF16) return no("DeepGEMM writes C in bf16 only");
  if (p->fast_accum) return no("DeepGEMM promotes every k-block: no fast accumulation");
  if (p->alpha != 1.0 || p->beta != 0.0)
    return no("DeepGEMM computes D = A B: alpha 1 and beta 0 only");
  if (p->n % 64 != 0 || p->k % kBlock != 0)
    return no("DeepGEMM's dense API needs N % 64 == 0 and K % 128 == 0");
  if (dev->sm != 90) return no("DeepGEMM v1's kernel is built for sm_90a only");
  if (dev->num_sms != kBuiltForSms) {
    char why[160];
    std::snprintf(why, sizeof(why),
                  "built for %d SMs (DeepGEMM chooses its tiles and grid by the SM count); this "
                  "device has %d: rebuild with GEMMBENCH_DEEPGEMM_NUM_SMS",
                  kBuiltForSms, dev->num_sms);
    return no(why);
  }
  if (!find_shape(p->m, p->n, p->k)) {
    char why[200];
    std::snprintf(why, sizeof(why),
                  "this build has no instance for %lldx%lldx%lld: DeepGEMM compiles one per "
                  "shape's configuration; add the shape to GEMMBENCH_DEEPGEMM_SHAPES and rebuild",
                  static_cast<long long>(p->m), static_cast<long long>(p->n),
                  static_cast<long long>(p->k));
    return no(why);
  }
  return GEMMBENCH_PLUGIN_OK;
}

size_t workspace_bytes(const gemmbench_problem* p, void*) {
  return size_t(aligned_m(p->m)) * size_t((p->k + kBlock - 1) / kBlock) * sizeof(float);
}

int prepare(const gemmbench_launch_args* a, char* error, size_t size, void*) {
  const gemmbench_problem* p = a->problem;
  const Shape* s = find_shape(p->m, p->n, p->k);
  if (!s) return say(error, size, 2, "%s", "prepare(): a shape supports() declines");
  const auto stream = static_cast<cudaStream_t>(a->stream);
  const int64_t kb = (p->k + kBlock - 1) / kBlock;
  auto* scales_a = static_cast<float*>(a->workspace);
  cudaMemsetAsync(scales_a, 0, a->workspace_bytes, stream);
  scales_by_kblock<<<unsigned(std::min<int64_t>((p->m * kb + 255) / 256, 4096)), 256, 0, stream>>>(
      a->scale_a, scales_a, p->m, kb, aligned_m(p->m));
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    return say(error, size, 3, "prepare(): laying out A's scales: %s", cudaGetErrorString(e));
  return describe_and_keep(a, *s->instance, scales_a, uint32_t(p->m), error, size);
}

int launch(const gemmbench_launch_args* a, char* error, size_t size, void*) {
  const gemmbench_problem* p = a->problem;
  const Shape* s = find_shape(p->m, p->n, p->k);
  return run_prepared(a, s ? s->instance : nullptr, nullptr, uint32_t(p->m), s ? s->num_sms : 0,
                      s ? s->smem_bytes : 0, error, size);
}

// ---- DeepGEMM's m-grouped kernels (issue 51): contiguous and masked -------------------------
// gemmbench's grouped memory (gemmbench/plugin.h) is DeepGEMM's: A [stored rows, K] (masked
// [G, max_m, K]), B [G, N, K], B's scales [G, N/128, K/128], D [stored rows, N]. What its Python
// API builds per call is built here once per problem, in prepare(): contiguous, m_indices (each
// stored row's group; DeepGEMM needs every 128-row block in one group, so the groups are padded
// to 128 rows: --group-align 128) and A's scales K-block by K-block over all stored rows; masked,
// A's scales K-block by K-block per group (get_col_major_tma_aligned_tensor of a 3-D tensor), and
// masked_m is gemmbench's own device M_g array.

const GroupedShape* find_grouped(const gemmbench_problem* p, int kind) {
  const int64_t m = kind == kContiguous ? p->stored_rows : p->group_max_m;
  for (int i = 0; i < kNumGroupedShapes; ++i) {
    const GroupedShape& g = kGroupedShapes[i];
    if (g.kind == kind && g.groups == p->groups && g.n == p->n && g.k == p->k && g.m == m)
      return &g;
  }
  return nullptr;
}

int grouped_kind(const gemmbench_problem* p) {
  return p->group_layout == GEMMBENCH_GROUP_LAYOUT_MASKED ? kMasked : kContiguous;
}

template <int KIND>
int supports_grouped(const gemmbench_problem* p, const gemmbench_device* dev, char* reason,
                     size_t size, void* user) {
  const auto no = [&](const char* why) { return say(reason, size, 1, "%s", why); };
  if (p->struct_size < offsetof(gemmbench_problem, group_layout) + sizeof(int32_t))
    return no("needs a gemmbench that hands plugins grouped problems");
  if (p->groups < 1 || grouped_kind(p) != KIND) return no("not this kernel's group layout");
  if (KIND == kContiguous && p->group_align % 128 != 0)
    return no(
        "DeepGEMM's contiguous layout pads each group to 128 rows: run with "
        "--group-align 128");
  // The dense checks (types, scales, C, alpha/beta, N and K, the device) hold as they are.
  gemmbench_problem dense = *p;
  if (const int rc = supports(&dense, dev, reason, size, user); rc != GEMMBENCH_PLUGIN_OK) {
    // supports() also looks the dense shape up; a grouped case has its own table.
    if (std::strncmp(reason, "this build has no instance", 26) != 0) return rc;
  }
  const GroupedShape* s = find_grouped(p, KIND);
  if (!s) {
    char why[220];
    std::snprintf(why, sizeof(why),
                  "this build has no %s instance for G%lld %lldx%lld with %lld rows: DeepGEMM "
                  "compiles one per configuration; build with GEMMBENCH_DEEPGEMM_PLAN from this "
                  "case's --dry-run",
                  KIND == kContiguous ? "contiguous" : "masked", static_cast<long long>(p->groups),
                  static_cast<long long>(p->n), static_cast<long long>(p->k),
                  static_cast<long long>(KIND == kContiguous ? p->stored_rows : p->group_max_m));
    return no(why);
  }
  // DeepGEMM's masked kernel stores D in whole BLOCK_M-row TMA boxes over all groups' rows, so a
  // max_m that is not a multiple of BLOCK_M lets a group's box write the next group's rows
  // (m_grouped_gemm.py asserts the multiple above BLOCK_M only; below it, 11 of 12 masked rows
  // failed verification here at max_m 1-32, H200, 2026-11-29). Every masked configuration
  // get_best_configs picks has BLOCK_M 64.
  const int64_t block_m = s->instance->block_m;
  if (KIND == kMasked && p->group_max_m % block_m != 0) {
    char why[200];
    std::snprintf(why, sizeof(why),
                  "DeepGEMM's masked kernel stores whole %lld-row boxes: max_m %lld would let a "
                  "group overwrite the next one's rows; run with --group-max-m %lld (or a "
                  "multiple)",
                  static_cast<long long>(block_m), static_cast<long long>(p->group_max_m),
                  static_cast<long long>(block_m));
    return no(why);
  }
  return GEMMBENCH_PLUGIN_OK;
}

// Workspace: contiguous, m_indices (int, stored rows) then A's scales (K/128 x stored rows
// rounded up to 4); masked, A's scales (G x K/128 x max_m rounded up to 4).
size_t grouped_scales_offset(const gemmbench_problem* p) {
  return p->group_layout == GEMMBENCH_GROUP_LAYOUT_MASKED
             ? 0
             : (size_t(p->stored_rows) * sizeof(int) + 255) / 256 * 256;
}
size_t workspace_grouped(const gemmbench_problem* p, void*) {
  const int64_t kb = (p->k + kBlock - 1) / kBlock;
  const int64_t rows = p->group_layout == GEMMBENCH_GROUP_LAYOUT_MASKED
                           ? p->groups * kb * aligned_m(p->group_max_m)
                           : kb * aligned_m(p->stored_rows);
  return grouped_scales_offset(p) + size_t(rows) * sizeof(float);
}

// A's scales [rows][kb] per group of `rows` rows -> [group][kb][aligned rows].
__global__ void scales_by_kblock_grouped(const float* in, float* out, int64_t groups, int64_t rows,
                                         int64_t kb, int64_t ld) {
  const int64_t per = rows * kb;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < groups * per;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t g = i / per, r = (i % per) / kb, j = i % kb;
    out[(g * kb + j) * ld + r] = in[i];
  }
}

int prepare_grouped(const gemmbench_launch_args* a, char* error, size_t size, void*) {
  const gemmbench_problem* p = a->problem;
  const int kind = grouped_kind(p);
  const GroupedShape* s = find_grouped(p, kind);
  if (!s) return say(error, size, 2, "%s", "prepare(): a grouped case supports() declines");
  if (!a->host_group_m || !a->group_m)
    return say(error, size, 2, "%s", "prepare(): no group sizes in the launch arguments");
  const auto stream = static_cast<cudaStream_t>(a->stream);
  const int64_t kb = (p->k + kBlock - 1) / kBlock;
  auto* base = static_cast<char*>(a->workspace);
  auto* scales_a = reinterpret_cast<float*>(base + grouped_scales_offset(p));
  cudaMemsetAsync(a->workspace, 0, a->workspace_bytes, stream);
  const bool masked = kind == kMasked;
  const int64_t rows = masked ? p->group_max_m : p->stored_rows;
  const int64_t groups = masked ? p->groups : 1;
  scales_by_kblock_grouped<<<unsigned(std::min<int64_t>((groups * rows * kb + 255) / 256, 4096)),
                             256, 0, stream>>>(a->scale_a, scales_a, groups, rows, kb,
                                               aligned_m(rows));
  if (!masked) {  // m_indices: each stored row's group, padding rows their group's
    std::vector<int> index(size_t(p->stored_rows), 0);
    int64_t row = 0;
    for (int64_t g = 0; g < p->groups; ++g) {
      const int64_t m_g = a->host_group_m[g];
      const int64_t padded = (m_g + p->group_align - 1) / p->group_align * p->group_align;
      for (int64_t i = 0; i < padded && row < p->stored_rows; ++i) index[size_t(row++)] = int(g);
    }
    // Kept until the process ends (prepare() may not synchronise): the copy reads it later.
    std::lock_guard<std::mutex> lock(g_mutex);
    std::vector<int>& kept = g_indices[key_of(a)];
    kept = std::move(index);
    cudaMemcpyAsync(base, kept.data(), kept.size() * sizeof(int), cudaMemcpyHostToDevice, stream);
  }
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    return say(error, size, 3, "prepare(): laying out the grouped inputs: %s",
               cudaGetErrorString(e));
  return describe_and_keep(a, *s->instance, scales_a, uint32_t(rows), error, size);
}

int launch_grouped(const gemmbench_launch_args* a, char* error, size_t size, void*) {
  const gemmbench_problem* p = a->problem;
  const int kind = grouped_kind(p);
  const GroupedShape* s = find_grouped(p, kind);
  // contiguous: m_indices at the workspace's start; masked: gemmbench's device M_g (int32).
  int* layout = kind == kMasked ? const_cast<int*>(reinterpret_cast<const int*>(a->group_m))
                                : static_cast<int*>(a->workspace);
  const uint32_t m = uint32_t(kind == kMasked ? p->group_max_m : p->stored_rows);
  return run_prepared(a, s ? s->instance : nullptr, layout, m, s ? s->num_sms : 0,
                      s ? s->smem_bytes : 0, error, size);
}

const int32_t kDtypes[] = {GEMMBENCH_DTYPE_E4M3};
const int32_t kAccums[] = {GEMMBENCH_ACCUM_F32};
const int32_t kLayouts[] = {GEMMBENCH_LAYOUT_TN};

const gemmbench_kernel kDeepGemm = {
    sizeof(gemmbench_kernel),
    "deepgemm",
    "peer",
    1,
    "DeepGEMM v1's dense FP8 GEMM (block128, bf16 D row-major), built ahead of time with its own "
    "per-shape configuration (reference peer, scripts/dev/reference/deepgemm_plugin)",
    kDtypes,
    1,
    kAccums,
    1,
    kLayouts,
    1,
    90,
    supports,
    launch,
    workspace_bytes,
    nullptr,
    prepare,
    1};
const gemmbench_kernel kDeepGemmContiguous = {
    sizeof(gemmbench_kernel),
    "deepgemm_contiguous",
    "peer",
    1,
    "DeepGEMM v1's m-grouped contiguous FP8 GEMM (block128, groups padded to 128 rows, bf16 D), "
    "built ahead of time with its own configuration per case (reference peer)",
    kDtypes,
    1,
    kAccums,
    1,
    kLayouts,
    1,
    90,
    supports_grouped<kContiguous>,
    launch_grouped,
    workspace_grouped,
    nullptr,
    prepare_grouped,
    1,
    0,
    GEMMBENCH_GROUP_LAYOUT_CONTIGUOUS};
const gemmbench_kernel kDeepGemmMasked = {
    sizeof(gemmbench_kernel),
    "deepgemm_masked",
    "peer",
    1,
    "DeepGEMM v1's m-grouped masked FP8 GEMM ([G, max_m, K], block128, bf16 D), built ahead of "
    "time with its own configuration per case (reference peer)",
    kDtypes,
    1,
    kAccums,
    1,
    kLayouts,
    1,
    90,
    supports_grouped<kMasked>,
    launch_grouped,
    workspace_grouped,
    nullptr,
    prepare_grouped,
    1,
    0,
    GEMMBENCH_GROUP_LAYOUT_MASKED};
const gemmbench_kernel* const kKernels[] = {&kDeepGemm, &kDeepGemmContiguous, &kDeepGemmMasked};

}  // namespace
}  // namespace gb_deepgemm

GEMMBENCH_PLUGIN_ENTRY {
  static const gemmbench_plugin plugin = {sizeof(gemmbench_plugin), GEMMBENCH_PLUGIN_ABI_VERSION,
                                          gb_deepgemm::kBuiltFrom, gb_deepgemm::kKernels, 3};
  return &plugin;
}
