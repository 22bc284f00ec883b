// The cuBLASLt baseline: cublasLtMatmul over exactly the problem CublasGemm runs (BLAS
// column-major, op(A) and op(B) as in core/types.hpp, D = C in place; f32: CUBLAS_COMPUTE_32F,
// which never uses TF32; f16 with f16 accumulate: CUBLAS_COMPUTE_16F with f16 scalars; otherwise
// CUBLAS_COMPUTE_32F with f32 scalars), with the fastest of the heuristic's top candidates.
//
// Per problem, tune() asks cublasLtMatmulAlgoGetHeuristic for its top kCandidates algorithms
// (given kWorkspaceBytes of workspace), launches each once untimed, then times them round-robin
// (1 2 .. 8, 1 2 .. 8, ...) for kTuneSamples rounds with gemmbench's method: one CUDA event pair
// per sample and the caller's prepare() (L2 flush when cold, C restore when beta != 0) before
// each, outside the events. The lowest median wins; ties keep the heuristic's order. PyTorch's
// x @ w.T at 128x7168x16384 f16 ran 9% faster through cuBLASLt than through cublasGemmEx, so the
// default cuBLAS call alone is a baseline that can be beaten without beating the library.
//
// FP8 problems, which cublasGemmEx cannot run, take the same path: TN only (cuBLASLt's FP8 kernels
// want A transposed and B not), A and B of their own types (CUDA_R_8F_E4M3 or CUDA_R_8F_E5M2; no
// e5m2 x e5m2), C and D of p.out_type(),
// CUBLAS_COMPUTE_32F, and the scales of p.scale through the A/B scale pointers and modes
// (cublaslt_gemm.cpp maps the modes and converts block128's scales to cuBLASLt's layout).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "report/result.hpp"
#include "device/buffer.hpp"

namespace gemmbench {

// FP8 problems: device pointers to the f32 scales of A and B in the layout of p.scale
// (core/types.hpp, above ScaleMode). Null for the other types.
struct ScalePtrs {
  const float* a = nullptr;
  const float* b = nullptr;
};

class CublasLtGemm {
  struct Descriptors;

 public:
  static constexpr int kCandidates = 8;
  static constexpr int kTuneSamples = 5;
  // cuBLAS's recommendation for Hopper, as CublasGemm gives; allocated once per Runner.
  static constexpr size_t kWorkspaceBytes = size_t(32) << 20;

  // One problem's tuned call: its descriptors (which hold the scale pointers cuBLASLt reads,
  // block128's converted copies kept here), the candidates that ran and the winner. tune() fills
  // one and run() launches it, on the CublasLtGemm that tuned it (its handle and workspace): a
  // grouped case's loop keeps one per group (runner/grouped_gemm.hpp, CublasLtGroupedLoop) beside
  // one handle and workspace.
  class Plan {
   public:
    Plan();
    ~Plan();
    Plan(Plan&&) noexcept;
    Plan& operator=(Plan&&) noexcept;
    size_t candidate_count() const { return algos_.size(); }

   private:
    friend class CublasLtGemm;
    std::unique_ptr<Descriptors> desc_;  // of the tuned problem
    std::optional<GemmProblem> tuned_;   // the problem algos_ belong to
    ScalePtrs tuned_scales_;             // the scales tune() was given with it
    // block128: the scales in cuBLASLt's layout; tensor and row: a copy of a scale pointer that
    // is not 16-byte aligned (lt_scales).
    DeviceBuffer lt_scale_a_, lt_scale_b_;
    std::vector<cublasLtMatmulAlgo_t> algos_;  // candidates that ran, in the heuristic's order
    size_t best_ = 0;
  };

  CublasLtGemm();
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  // Tunes for p as described above into `plan`; writes C. Returns the choice, or nothing with
  // `why_not` set when fp8_unsupported(p) names a reason or the heuristic offers no algorithm
  // that runs. FP8 problems need `scales` (std::invalid_argument without them); block128's are
  // read back and converted here, once. Throws CudaError on CUDA/cuBLAS failures.
  std::optional<CublasLtChoice> tune(Plan& plan, const GemmProblem& p, const void* a, const void* b,
                                     void* c, cudaStream_t stream,
                                     const std::function<void()>& prepare, std::string& why_not,
                                     ScalePtrs scales = {});
  // Enqueues C = alpha*op(A)*op(B) + beta*C with the plan's algorithm. p and `scales` must be
  // those of the plan's successful tune() (std::logic_error otherwise): the block128 scales
  // cuBLASLt reads are tune()'s conversion, so their values must not change in between either.
  void run(const Plan& plan, const GemmProblem& p, const void* a, const void* b, void* c,
           cudaStream_t stream, ScalePtrs scales = {});

  // The same on one plan of its own: the dense baselines' use.
  std::optional<CublasLtChoice> tune(const GemmProblem& p, const void* a, const void* b, void* c,
                                     cudaStream_t stream, const std::function<void()>& prepare,
                                     std::string& why_not, ScalePtrs scales = {}) {
    return tune(plan_, p, a, b, c, stream, prepare, why_not, scales);
  }
  void run(const GemmProblem& p, const void* a, const void* b, void* c, cudaStream_t stream,
           ScalePtrs scales = {}) {
    run(plan_, p, a, b, c, stream, scales);
  }
  // The same with the heuristic's i-th candidate (0: its first choice), for tests.
  void run_candidate(size_t i, const GemmProblem& p, const void* a, const void* b, void* c,
                     cudaStream_t stream, ScalePtrs scales = {});
  size_t candidate_count() const { return plan_.candidate_count(); }

  static std::string method();  // how it is called and tuned, for the report's metadata
  // Why cuBLASLt cannot run the FP8 problem p, as a phrase ("K must be a multiple of 16: ..."),
  // so that a row can be skipped with it; empty when it can, and for every non-FP8 problem
  // (plan/fp8_baseline.hpp, cublaslt_fp8_unsupported: the plan asks it too).
  static std::string fp8_unsupported(const GemmProblem& p);

 private:
  cublasStatus_t launch(const Plan& plan, const cublasLtMatmulAlgo_t& algo, const GemmProblem& p,
                        const void* a, const void* b, void* c, cudaStream_t stream);
  static void check_tuned(const Plan& plan, const GemmProblem& p, ScalePtrs scales);
  // The scale pointers cuBLASLt is given for p: `scales` itself, or for block128 the plan's
  // lt_scale_a_/b_ filled from them (synchronises `stream`).
  static ScalePtrs lt_scales(Plan& plan, const GemmProblem& p, ScalePtrs scales,
                             cudaStream_t stream);
  cudaEvent_t event(size_t i);

  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer workspace_;
  Plan plan_;  // the dense baselines' (tune and run without a plan)
  std::vector<cudaEvent_t> events_;
};

// Names of cuBLASLt's enum ids for reports (cublaslt_names.cpp): "128x256", "64x4", "2x1x1";
// "tile#N" and the like for an id this build does not know.
std::string cublaslt_tile_name(unsigned id);
std::string cublaslt_stages_name(unsigned id);
std::string cublaslt_cluster_name(unsigned id);

}  // namespace gemmbench
