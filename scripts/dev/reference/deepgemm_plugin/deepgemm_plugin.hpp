// gemmbench's DeepGEMM plugin: what the generated table (table.cu, gen_instances.py) and the
// instances (instance_*.cu) share with the plugin (plugin.cu). No DeepGEMM header here: only the
// instances include DeepGEMM's templates.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

namespace gb_deepgemm {

// DeepGEMM's TMA descriptors of one problem (its Gemm::make_*_desc), built once in prepare().
struct Descriptors {
  CUtensorMap a, b, scales_a;
  std::pair<CUtensorMap, CUtensorMap> d;  // D's aligned and unaligned N parts
};

// One instantiation of DeepGEMM's Gemm<N, K, BLOCK_M, BLOCK_N, ...> (DeepGEMM's kernel template):
// how to describe a problem's tensors to it and how to launch it, as its JIT's generated launch()
// does, with the descriptors made ahead.
struct Instance {
  uint32_t n, k, block_m, block_n, stages, multicast;
  bool multicast_on_a;
  uint32_t groups;  // 1 for the dense kernel; the grouped kernels' G
  // a: A (M,K) e4m3 row-major; b: B (N,K) e4m3 row-major; scales_a: A's block scales K-block by
  // K-block, M rounded up to 4 per K-block (DeepGEMM's TMA-aligned layout); d: D (M,N) bf16.
  Descriptors (*describe)(const void* a, const void* b, const float* scales_a, void* d, uint32_t m);
  // scales_b: B's 128x128 block scales, (N/128, K/128) row-major (grouped: G of them stacked).
  // grouped_layout: nullptr for the dense kernel; contiguous, each row's group (int, m of them);
  // masked, each group's valid rows (G). Throws DeepGEMM's AssertionException when its own
  // launch checks fail.
  void (*run)(const Descriptors& desc, void* d, const float* scales_b, int* grouped_layout,
              uint32_t m, cudaStream_t stream, int num_sms, uint32_t smem_bytes);
};

// A shape the build holds, with the grid and shared memory DeepGEMM's get_best_configs chose.
struct Shape {
  uint32_t m, n, k;
  int num_sms;
  uint32_t smem_bytes;
  const Instance* instance;
};

extern const Shape kShapes[];
extern const int kNumShapes;

// A grouped case the build holds (DeepGEMM's m-grouped kernels): contiguous (each group's rows
// padded to 128, m the stored rows) or masked (m = max_m, expected_m DeepGEMM's hint: the mean
// M_g), with DeepGEMM's configuration for it.
enum GroupedKind : int { kContiguous = 1, kMasked = 2 };
struct GroupedShape {
  int kind;  // GroupedKind
  uint32_t groups, n, k, m;
  int num_sms;
  uint32_t smem_bytes;
  const Instance* instance;
};
extern const GroupedShape kGroupedShapes[];
extern const int kNumGroupedShapes;
extern const int kBuiltForSms;        // the SM count the configurations were chosen for
extern const char* const kBuiltFrom;  // DeepGEMM's commit and the pack's record

}  // namespace gb_deepgemm
