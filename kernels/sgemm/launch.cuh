// Host pieces the SGEMM rungs share: the registry entry of a rung, what the problem must satisfy
// for the grid-launched rungs (3-7), and their launch over the layout (and the 128-bit path) of
// the kernel a rung names.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "common/layout_dispatch.hpp"
#include "core/registry.hpp"
#include "sgemm/tile_copy.cuh"

namespace gemmbench::sgemm {

// Registry entry of an SGEMM kernel: f32 inputs and accumulation, every layout.
inline KernelInfo rung_info(std::string name, int rung, std::string summary, int min_sm,
                            SupportsFn supports, LaunchFn launch) {
  return KernelInfo{
      .name = std::move(name),
      .family = "sgemm",
      .rung = rung,
      .summary = std::move(summary),
      .dtypes = {DType::f32},
      .accums = {Accum::f32},
      .layouts = {Layout::nn, Layout::nt, Layout::tn, Layout::tt},
      .min_sm = min_sm,
      .supports = std::move(supports),
      .launch = std::move(launch),
  };
}

// Every rung-3..7 kernel takes this argument list: C = alpha * op(A) * op(B) + beta * C, all
// column-major with the given leading dimensions.
using KernelFn = void (*)(int M, int N, int K, float alpha, const float* A, int64_t lda,
                          const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

// What only the problem can rule out for a kernel on a (ceil(M/BM), ceil(N/BN)) grid that
// indexes with int: 32-bit dimensions and the grid's 65535-block y dimension.
template <int BN>
std::string grid_supports(const GemmProblem& p, const DeviceCaps&) {
  if (p.m > INT32_MAX || p.n > INT32_MAX || p.k > INT32_MAX)
    return "M, N and K must fit in 32-bit int (indices are int)";
  if ((p.n + BN - 1) / BN > 65535)
    return "N is too large for the grid's y dimension (65535 blocks of " + std::to_string(BN) +
           " columns)";
  return "";
}

// Launches, on a (ceil(M/BM), ceil(N/BN)) grid of `block`, the kernel that
// pick(a_k_major, b_k_major, vec) returns: the first two are the problem's layout and the third
// can_vectorize(args), each as std::true_type / std::false_type (a rung without a 128-bit path
// ignores it).
template <int BM, int BN, class Pick>
void launch_on_grid(const GemmArgs& args, cudaStream_t stream, dim3 block, Pick pick) {
  const GemmProblem& p = args.problem;
  const dim3 grid(unsigned((p.m + BM - 1) / BM), unsigned((p.n + BN - 1) / BN));
  const bool vec = can_vectorize(args);
  dispatch_layout(p.layout, [&](auto a_k_major, auto b_k_major) {
    const KernelFn kernel = vec ? KernelFn(pick(a_k_major, b_k_major, std::true_type{}))
                                : KernelFn(pick(a_k_major, b_k_major, std::false_type{}));
    kernel<<<grid, block, 0, stream>>>(int(p.m), int(p.n), int(p.k), args.alpha,
                                       static_cast<const float*>(args.a), p.lda(),
                                       static_cast<const float*>(args.b), p.ldb(), args.beta,
                                       static_cast<float*>(args.c), p.ldc());
  });
}

}  // namespace gemmbench::sgemm
