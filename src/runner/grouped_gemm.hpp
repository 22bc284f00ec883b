// Grouped GEMM on the device for the providers of issue 51 (docs/grouped.md): the operands of a
// grouped case, its fp64 reference group by group, the check of an output against it with the
// padding rows left out, and cuBLAS's two ways of running it (a cublasGemmEx per group, and the
// grouped API cublasGemmGroupedBatchedEx). f16, bf16 and f32 inputs: cuBLAS has no grouped FP8.
//
// Storage (core/grouping.hpp): A [rows, K] K-contiguous, B [G, N, K] K-contiguous, C [rows, N]
// N-contiguous, group g's rows from row_offsets()[g]. In gemmbench's column-major terms group g's
// C_g = A_g B_g^T, stored row-major [M_g, N], is the column-major (N, M_g) matrix B_g A_g^T: the
// dense TN problem group_dense_problem() describes, with B_g as its A and A_g as its B. Every
// dense piece (the reference, cublasGemmEx) then serves a group unchanged.
//
// The runner's baseline rows of an f16/bf16/f32 grouped case (runner.cpp, bind_baselines):
// "cublas" the loop, "cublas_grouped" the grouped API (plan.hpp, has_grouped_api_row).
// tests/gpu/test_grouped_gpu.cpp checks these pieces on a GPU, test_runner_gpu the rows.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "core/grouping.hpp"
#include "core/types.hpp"
#include "device/buffer.hpp"
#include "runner/cublas_gemm.hpp"
#include "verify/device_verify.hpp"

namespace gemmbench {

// Group g's product as one dense TN GEMM (see above): m = N, n = rows, k = K; types, alpha and
// beta those of `p` (the grouped case's problem, m = sum(M_g)).
GemmProblem group_dense_problem(const GemmProblem& p, int64_t rows);

// The arrays of one cublasGemmGroupedBatchedEx call for a grouping: the groups with rows, bucketed
// by equal M_g (one API group per distinct M_g, largest first, its experts in group order), each
// bucket's dimensions as group_dense_problem() gives them and its problems' element offsets into
// A, B and C. Groups without rows take no part.
struct GroupedBatchPlan {
  std::vector<int> m, n, k, lda, ldb, ldc, group_size;  // one entry per API group
  std::vector<int64_t> a_offset, b_offset, c_offset;    // one per problem, bucket by bucket
  int problems() const { return int(a_offset.size()); }
};
GroupedBatchPlan plan_grouped_batch(const GemmProblem& p, const Grouping& g);

// A grouped case's operands: A and B seeded (tensors 0 and 1 of `seed`, as a dense case's), C
// seeded too (tensor 2) and kept in c0 where beta != 0; padding rows hold seeded values as well
// and are never read into a result.
struct GroupedOperands {
  std::vector<int64_t> first_row;  // Grouping::row_offsets(), once
  DeviceBuffer a, b, c, c0;
  // The fp64 reference of the valid rows only, group after group: [sum(M_g), N], N-contiguous.
  DeviceBuffer ref;
  double ref_rms = 0;
  DeviceBuffer valid;  // verify_grouped's gather of C's valid rows, the reference's shape
};
// with_reference false (the case is not verified): no reference and no gather buffer, as
// Runner::bytes_needed counts it.
GroupedOperands make_grouped_operands(const GemmProblem& p, const Grouping& g, uint64_t seed,
                                      DataDist d, ErrorMeter& meter, cudaStream_t stream,
                                      bool with_reference = true);

// Poisons C (restores it from c0 where beta != 0), runs `launch` once, gathers the valid rows of
// each group and compares them with the reference: padding rows are neither compared nor able to
// hide a group's unwritten rows. Synchronizes `stream`.
ErrorStats verify_grouped(const GemmProblem& p, const Grouping& g, GroupedOperands& d,
                          ErrorMeter& meter, cudaStream_t stream,
                          const std::function<void()>& launch);

// What a grouped kernel's launch points to (GemmArgs::grouped, core/grouping.hpp): each group's
// first stored row and M_g on the device, and, where the kernel declares its tile rows
// (KernelInfo::group_tile_rows > 0), the row tiles before each group (group_tile_prefix). Built
// once per case and kernel, outside every timed region; `launch` points into the buffers and to
// `g`, which must outlive it. Not movable: `launch` points into this.
struct GroupedLaunchTables {
  GroupedLaunchTables(const Grouping& g, int tile_rows, cudaStream_t stream);
  GroupedLaunchTables(const GroupedLaunchTables&) = delete;
  GroupedLaunchTables& operator=(const GroupedLaunchTables&) = delete;
  DeviceBuffer first_row, rows, tile_prefix;
  GroupedLaunch launch;
};

// cuBLAS's two ways, on the dense baseline's handle and workspace (the CublasGemm given, which
// must outlive this). prepare() builds the grouped API's arrays (device pointer arrays included)
// once per case, outside any timed region.
class CublasGrouped {
 public:
  explicit CublasGrouped(CublasGemm& cublas) : cublas_(cublas) {}
  // One cublasGemmEx per group with rows (what many serving engines still do).
  void run_loop(const GemmProblem& p, const Grouping& g, GroupedOperands& d, cudaStream_t stream);
  // cublasGemmGroupedBatchedEx over the buckets of plan_grouped_batch(), f32 accumulation only
  // (std::invalid_argument otherwise); prepare() first. prepare() keeps d's pointers.
  void prepare(const GemmProblem& p, const Grouping& g, const GroupedOperands& d,
               cudaStream_t stream);
  void run_grouped_api(const GemmProblem& p, cudaStream_t stream);

 private:
  CublasGemm& cublas_;  // the handle and workspace of both ways: the dense baseline's
  GroupedBatchPlan plan_;
  DeviceBuffer ptrs_;  // problems() pointers to A, then to B, then to C
  // One per API group: the operations, and alpha and beta (CUBLAS_COMPUTE_32F: float scalars).
  std::vector<cublasOperation_t> op_a_, op_b_;
  std::vector<float> alpha_, beta_;
};

}  // namespace gemmbench
