// Grouped GEMM on the device for the providers of issue 51 (docs/grouped.md): the operands of a
// grouped case, its fp64 reference group by group, the check of an output against it with the
// padding rows left out, cuBLAS's two ways of running it (a cublasGemmEx per group, and the
// grouped API cublasGemmGroupedBatchedEx) for f16, bf16 and f32 inputs, and for FP8 inputs, which
// neither cuBLAS way takes (cuBLAS has no grouped FP8 GEMM), a cublasLtMatmul per group.
//
// Storage (core/grouping.hpp): A [rows, K] K-contiguous, B [G, N, K] K-contiguous, C [rows, N]
// N-contiguous, group g's rows from row_offsets()[g]; FP8 scales as GroupedScales lays them out.
// In gemmbench's column-major terms group g's C_g = A_g B_g^T, stored row-major [M_g, N], is the
// column-major (N, M_g) matrix B_g A_g^T: the dense TN problem group_dense_problem() describes,
// with B_g as its A and A_g as its B. Every dense piece (the reference, the FP8 reference,
// cublasGemmEx, cuBLASLt) then serves a group unchanged.
//
// The runner's baseline rows of a grouped case (runner.cpp, bind_grouped_baselines): f16, bf16,
// f32: "cublas" the loop, "cublas_grouped" the grouped API (plan.hpp, has_grouped_api_row); FP8:
// "cublas", provider cuBLASLt, the per-group cuBLASLt loop (CublasLtGroupedLoop).
// tests/gpu/test_grouped_gpu.cpp checks these pieces on a GPU, test_runner_gpu the rows.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "core/grouping.hpp"
#include "core/registry.hpp"
#include "core/types.hpp"
#include "device/buffer.hpp"
#include "runner/cublas_gemm.hpp"
#include "runner/cublaslt_gemm.hpp"
#include "verify/device_verify.hpp"

namespace gemmbench {

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
// and are never read into a result. FP8: A and B quantized from the f32 values of the same
// tensors with their scales (make_fp8_grouped_inputs), C of p.out_type().
struct GroupedOperands {
  std::vector<int64_t> first_row;  // Grouping::row_offsets(), once
  DeviceBuffer a, b, c, c0;
  // The fp64 reference of the valid rows only, group after group: [sum(M_g), N], N-contiguous.
  DeviceBuffer ref;
  double ref_rms = 0;
  DeviceBuffer valid;  // verify_grouped's gather of C's valid rows, the reference's shape
  // FP8: the scales (core/grouping.hpp, GroupedScales: where each group's begin), and the fp64
  // product of the f32 inputs before quantization, laid out as `ref`: verification reports the
  // quantization error against it (docs/fp8.md).
  GroupedScales scales;
  DeviceBuffer scale_a, scale_b, ref_unquantized;
  double ref_unquantized_rms = 0;
};
// with_reference false (the case is not verified): no reference and no gather buffer, as
// Runner::bytes_needed counts it.
GroupedOperands make_grouped_operands(const GemmProblem& p, const Grouping& g, uint64_t seed,
                                      DataDist d, ErrorMeter& meter, cudaStream_t stream,
                                      bool with_reference = true);

// Group g's operands as its dense problem (group_dense_problem) takes them: its expert's weights
// (the dense A), its stored rows of activations (the dense B) and of C, and for FP8 their scales
// (the weights' as the dense A's, the activations' as the dense B's; null otherwise).
struct GroupPointers {
  const void* weights = nullptr;
  const void* rows = nullptr;
  void* c = nullptr;
  ScalePtrs scales;
};
GroupPointers group_pointers(const GemmProblem& p, const GroupedOperands& d, int64_t g);

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
// interleave (KernelInfo::group_walk_interleave): the walk's order too (group_walk_order), the
// prefix counted over it, and GroupedLaunch::interleave set.
struct GroupedLaunchTables {
  GroupedLaunchTables(const Grouping& g, int tile_rows, cudaStream_t stream,
                      bool interleave = false);
  GroupedLaunchTables(const GroupedLaunchTables&) = delete;
  GroupedLaunchTables& operator=(const GroupedLaunchTables&) = delete;
  DeviceBuffer first_row, rows, tile_prefix, group_order;
  GroupedLaunch launch;
};

// A kernel's launch arguments on operands d of problem p, a dense case's (GroupData) or a grouped
// one's (GroupedOperands) alike: A, B and C, alpha and beta in f32, the FP8 scales (null
// otherwise).
template <class Operands>
GemmArgs operand_args(const GemmProblem& p, const Operands& d) {
  return GemmArgs{p,
                  d.a.get(),
                  d.b.get(),
                  d.c.get(),
                  float(p.alpha),
                  float(p.beta),
                  d.scale_a.template as<float>(),
                  d.scale_b.template as<float>()};
}

// A grouped kernel's launch arguments on the operands d of problem p (p.m = sum(M_g) of the
// tables' grouping): A, B and C, alpha and beta in f32, the FP8 scales (null otherwise), and the
// tables, which must outlive the arguments.
GemmArgs grouped_kernel_args(const GemmProblem& p, const GroupedOperands& d,
                             const GroupedLaunchTables& tables);

// cuBLAS's two ways, on the dense baseline's handle and workspace (the CublasGemm given, which
// must outlive this). prepare() builds the grouped API's arrays (device pointer arrays included)
// once per case, outside any timed region. Both refuse FP8 (std::invalid_argument): cuBLAS has no
// grouped FP8 GEMM and cublasGemmEx no FP8 at all (CublasLtGroupedLoop below).
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

// The baseline of an FP8 grouped case: one cublasLtMatmul per group with rows, each on its group's
// dense problem (group_dense_problem: the weights as A, so block128 runs BLK128x128 on A and
// VEC128 on B) through the runner's dense FP8 path (the CublasLtGemm given, whose handle and
// workspace every call shares; it must outlive this). cuBLAS has no grouped FP8 GEMM
// (cublasGemmGroupedBatchedEx takes no FP8 type, and cuBLASLt no grouped matmul), hence a loop,
// as an engine without a grouped FP8 kernel runs it.
class CublasLtGroupedLoop {
 public:
  explicit CublasLtGroupedLoop(CublasLtGemm& lt) : lt_(lt) {}
  // Tunes every group with rows as the dense FP8 baseline is tuned (CublasLtGemm::tune: the
  // fastest of the heuristic's top candidates, block128's scales converted once), once per case,
  // outside any timed region; `prepare_sample` runs before each of its launches (the runner's L2
  // flush and C restore). Returns empty when every group has its plan, else why not, naming the
  // first group cuBLASLt refuses (the loop then runs nothing). Keeps d's pointers.
  std::string prepare(const GemmProblem& p, const Grouping& g, const GroupedOperands& d,
                      cudaStream_t stream, const std::function<void()>& prepare_sample);
  // One cublasLtMatmul per group with rows, in group order, with its tuned algorithm.
  void run(cudaStream_t stream);
  size_t calls() const { return calls_.size(); }
  // The groups prepare() ran on more rows than their own (kLtPadMultiples below).
  int padded_groups() const { return padded_; }

 private:
  struct Call {
    GemmProblem q;
    GroupPointers at;
    CublasLtGemm::Plan plan;
  };
  CublasLtGemm& lt_;
  std::vector<Call> calls_;
  int padded_ = 0;
};

// cuBLASLt's block128 (VEC128 on the tokens) offers no algorithm for a group whose rows are not a
// multiple of 4 (37, 7 and 3 rows refused, 32, 64, 100 and 128 run; H200, cuBLAS 13.1,
// test_grouped_gpu's GroupedCublasLtFp8 cases). Such a group runs on its rows rounded up to the
// first of these multiples cuBLASLt takes, as an engine that pads each expert's tokens would: the
// rows past the group are its padding or the next groups' rows, which their own calls, later in
// group order, overwrite; past the last stored row, the slack rows below. beta != 0 with rows of
// another group in reach is refused (that group's C would be read after it was written).
inline constexpr int kLtPadMultiples[] = {4, 8, 16};
// Rows allocated past an FP8 grouped case's stored rows (A, A's scales, C): the most the padding
// above adds to the last group. Never read into a result.
inline constexpr int64_t kGroupedFp8SlackRows = 15;

}  // namespace gemmbench
