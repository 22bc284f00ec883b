// One instantiation of DeepGEMM's dense FP8 kernel (deep_gemm/fp8_gemm.cuh, v1): the template
// with the constants DeepGEMM's JIT would give it, and its host launch path (Gemm::run, the
// Gemm::make_*_desc descriptors) unchanged. gen_instances.py writes one instance_<i>.cu per
// configuration, each including this.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
// CUDA 13's cudaTypedefs.h has only the versioned typedef, which DeepGEMM v1's tma_utils.cuh uses
// unversioned; deepgemm_pack.sh patches the same line in its archive (a no-op there).
#ifndef PFN_cuTensorMapEncodeTiled
#define PFN_cuTensorMapEncodeTiled PFN_cuTensorMapEncodeTiled_v12000
#endif
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <iostream>

// What DeepGEMM's JIT preloads into every generated source (deep_gemm/jit/template.py).
#include "cutlass/cutlass.h"
#include "deep_gemm/fp8_gemm.cuh"
#include "deepgemm_plugin.hpp"

namespace gb_deepgemm {

template <uint32_t N, uint32_t K, uint32_t BLOCK_M, uint32_t BLOCK_N, uint32_t BLOCK_N_PADDING,
          uint32_t STAGES, uint32_t MULTICAST, bool MULTICAST_ON_A, uint32_t GROUPS = 1,
          deep_gemm::GemmType TYPE = deep_gemm::GemmType::Normal>
struct Make {
  // As deep_gemm/jit_kernels/gemm.py (and m_grouped_gemm.py for the grouped types) name the
  // template: BLOCK_K 128, GROUPS groups of the GemmType.
  using Gemm = deep_gemm::Gemm<N, K, BLOCK_M, BLOCK_N, 128, BLOCK_N_PADDING, GROUPS, STAGES,
                               MULTICAST, MULTICAST_ON_A, TYPE>;

  // m: the rows of A and D (contiguous: every group's padded rows; masked: one group's max_m,
  // which DeepGEMM multiplies by GROUPS itself).
  static Descriptors describe(const void* a, const void* b, const float* scales_a, void* d,
                              uint32_t m) {
    auto* lhs = static_cast<__nv_fp8_e4m3*>(const_cast<void*>(a));
    auto* rhs = static_cast<__nv_fp8_e4m3*>(const_cast<void*>(b));
    return {Gemm::make_2d_tma_a_desc(lhs, m), Gemm::make_2d_tma_b_desc(rhs),
            Gemm::make_2d_tma_scales_a_desc(const_cast<float*>(scales_a), m),
            Gemm::make_3d_tma_d_desc(static_cast<__nv_bfloat16*>(d), m)};
  }

  // grouped_layout: nullptr (dense), each row's group (contiguous) or each group's valid rows
  // (masked), as DeepGEMM's Python API passes m_indices and masked_m.
  static void run(const Descriptors& desc, void* d, const float* scales_b, int* grouped_layout,
                  uint32_t m, cudaStream_t stream, int num_sms, uint32_t smem_bytes) {
    Gemm::run(static_cast<__nv_bfloat16*>(d), const_cast<float*>(scales_b), grouped_layout, m,
              desc.a, desc.b, desc.scales_a, desc.d, stream, num_sms, smem_bytes);
  }

  static Instance instance() {
    return {N, K, BLOCK_M, BLOCK_N, STAGES, MULTICAST, MULTICAST_ON_A, GROUPS, describe, run};
  }
};

}  // namespace gb_deepgemm
