#include "runner/cublaslt_gemm.hpp"

#include <cuda_fp16.h>

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

#include "core/cuda_check.hpp"
#include "runner/cublas_gemm.hpp"
#include "stats/stats.hpp"

namespace gemmbench {

namespace {

bool same_problem(const GemmProblem& x, const GemmProblem& y) {
  return x.m == y.m && x.n == y.n && x.k == y.k && x.layout == y.layout && x.dtype == y.dtype &&
         x.accum == y.accum;
}

const char* reduction_name(uint32_t scheme) {
  switch (scheme) {
    case CUBLASLT_REDUCTION_SCHEME_NONE:
      return "none";
    case CUBLASLT_REDUCTION_SCHEME_INPLACE:
      return "inplace";
    case CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE:
      return "compute";
    case CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE:
      return "output";
    default:
      return "?";
  }
}

template <class T>
T config_attr(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  T v{};
  size_t written = 0;
  // An attribute an older library lacks reads as its default (zero).
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &v, sizeof(v), &written) !=
      CUBLAS_STATUS_SUCCESS)
    return T{};
  return v;
}

}  // namespace

// The matmul and matrix-layout descriptors of one problem, the order cublasGemmEx takes them in:
// A (M,K) or, for op(A) = T, (K,M); B (K,N) or (N,K); C and D (M,N); all column-major.
struct CublasLtGemm::Descriptors {
  explicit Descriptors(const GemmProblem& p) {
    const bool half_compute = p.accum == Accum::f16;
    const cublasComputeType_t compute = half_compute ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F;
    const cudaDataType_t scale = half_compute ? CUDA_R_16F : CUDA_R_32F;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&op, compute, scale));
    const cublasOperation_t op_a = a_is_k_major(p.layout) ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = b_is_k_major(p.layout) ? CUBLAS_OP_N : CUBLAS_OP_T;
    CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)));
    CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)));
    const cudaDataType_t t = cuda_type(p.dtype);
    const bool at = op_a == CUBLAS_OP_T, bt = op_b == CUBLAS_OP_T;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a, t, at ? p.k : p.m, at ? p.m : p.k, p.lda()));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b, t, bt ? p.n : p.k, bt ? p.k : p.n, p.ldb()));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c, t, p.m, p.n, p.ldc()));
  }
  ~Descriptors() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
};

CublasLtGemm::CublasLtGemm() : workspace_(kWorkspaceBytes) {
  CUBLAS_CHECK(cublasLtCreate(&handle_));
}

CublasLtGemm::~CublasLtGemm() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
  desc_.reset();
  if (handle_) cublasLtDestroy(handle_);
}

cudaEvent_t CublasLtGemm::event(size_t i) {
  while (events_.size() <= i) {
    cudaEvent_t e;
    CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
  }
  return events_[i];
}

cublasStatus_t CublasLtGemm::launch(const cublasLtMatmulAlgo_t& algo, const GemmProblem& p,
                                    const void* a, const void* b, void* c, cudaStream_t stream) {
  // Host scalars of the scale type: read before cublasLtMatmul returns.
  const Descriptors& d = *desc_;
  if (p.accum == Accum::f16) {
    const __half alpha = __double2half(p.alpha), beta = __double2half(p.beta);
    return cublasLtMatmul(handle_, d.op, &alpha, a, d.a, b, d.b, &beta, c, d.c, c, d.c, &algo,
                          workspace_.get(), workspace_.bytes(), stream);
  }
  const float alpha = float(p.alpha), beta = float(p.beta);
  return cublasLtMatmul(handle_, d.op, &alpha, a, d.a, b, d.b, &beta, c, d.c, c, d.c, &algo,
                        workspace_.get(), workspace_.bytes(), stream);
}

std::optional<CublasLtChoice> CublasLtGemm::tune(const GemmProblem& p, const void* a, const void* b,
                                                 void* c, cudaStream_t stream,
                                                 const std::function<void()>& prepare,
                                                 std::string& why_not) {
  tuned_.reset();
  algos_.clear();
  desc_.reset();
  desc_ = std::make_unique<Descriptors>(p);

  cublasLtMatmulPreference_t pref = nullptr;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t ws = workspace_.bytes();
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  cublasLtMatmulHeuristicResult_t heur[kCandidates] = {};
  int returned = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(handle_, desc_->op, desc_->a, desc_->b, desc_->c, desc_->c,
                                        pref, kCandidates, heur, &returned);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st == CUBLAS_STATUS_NOT_SUPPORTED)
    returned = 0;
  else
    CUBLAS_CHECK(st);

  // One untimed launch of each: module load, and a candidate that refuses to run drops out.
  std::vector<size_t> workspace_needed;
  for (int i = 0; i < returned; ++i) {
    if (heur[i].state != CUBLAS_STATUS_SUCCESS) continue;
    prepare();
    const cublasStatus_t ls = launch(heur[i].algo, p, a, b, c, stream);
    if (ls == CUBLAS_STATUS_NOT_SUPPORTED || ls == CUBLAS_STATUS_INVALID_VALUE) continue;
    CUBLAS_CHECK(ls);
    algos_.push_back(heur[i].algo);
    workspace_needed.push_back(heur[i].workspaceSize);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (algos_.empty()) {
    why_not = returned == 0 ? "cublasLtMatmulAlgoGetHeuristic offers no algorithm for this problem"
                            : "none of cublasLtMatmulAlgoGetHeuristic's " +
                                  std::to_string(returned) + " candidates runs this problem";
    return std::nullopt;
  }

  const size_t n = algos_.size();
  std::vector<std::vector<double>> times(n);
  for (int s = 0; s < kTuneSamples; ++s) {
    for (size_t i = 0; i < n; ++i) {
      prepare();
      CUDA_CHECK(cudaEventRecord(event(2 * i), stream));
      CUBLAS_CHECK(launch(algos_[i], p, a, b, c, stream));
      CUDA_CHECK(cudaEventRecord(event(2 * i + 1), stream));
    }
    CUDA_CHECK(cudaEventSynchronize(event(2 * n - 1)));
    for (size_t i = 0; i < n; ++i) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, event(2 * i), event(2 * i + 1)));
      times[i].push_back(ms);
    }
  }
  std::vector<double> medians(n);
  for (size_t i = 0; i < n; ++i) medians[i] = summarize(times[i]).median_ms;
  best_ = size_t(std::min_element(medians.begin(), medians.end()) - medians.begin());
  tuned_ = p;

  const cublasLtMatmulAlgo_t& w = algos_[best_];
  CublasLtChoice ch;
  ch.heuristic_index = int(best_);
  ch.candidates = int(n);
  ch.samples = kTuneSamples;
  ch.algo_id = config_attr<int32_t>(w, CUBLASLT_ALGO_CONFIG_ID);
  ch.tile = cublaslt_tile_name(config_attr<uint32_t>(w, CUBLASLT_ALGO_CONFIG_TILE_ID));
  ch.stages = cublaslt_stages_name(config_attr<uint32_t>(w, CUBLASLT_ALGO_CONFIG_STAGES_ID));
  ch.splitk = std::max(1, config_attr<int32_t>(w, CUBLASLT_ALGO_CONFIG_SPLITK_NUM));
  ch.reduction = reduction_name(config_attr<uint32_t>(w, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME));
  ch.cta_swizzling = int(config_attr<uint32_t>(w, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING));
  ch.custom_option = int(config_attr<uint32_t>(w, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION));
  ch.cluster =
      cublaslt_cluster_name(config_attr<uint16_t>(w, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
  ch.tuned_ms = medians[best_];
  ch.heuristic_first_ms = medians[0];
  ch.gain_over_heuristic = medians[0] / medians[best_];
  ch.workspace_bytes = int64_t(workspace_.bytes());
  ch.workspace_needed_bytes = int64_t(workspace_needed[best_]);
  return ch;
}

void CublasLtGemm::check_tuned(const GemmProblem& p) const {
  if (!tuned_ || !same_problem(*tuned_, p))
    throw std::logic_error("CublasLtGemm::run: the problem " + p.shape_string() +
                           " was not tuned (call tune() first)");
}

void CublasLtGemm::run(const GemmProblem& p, const void* a, const void* b, void* c,
                       cudaStream_t stream) {
  check_tuned(p);
  CUBLAS_CHECK(launch(algos_[best_], p, a, b, c, stream));
}

void CublasLtGemm::run_candidate(size_t i, const GemmProblem& p, const void* a, const void* b,
                                 void* c, cudaStream_t stream) {
  check_tuned(p);
  if (i >= algos_.size())
    throw std::out_of_range("CublasLtGemm::run_candidate: " + std::to_string(i) + " of " +
                            std::to_string(algos_.size()) + " candidates");
  CUBLAS_CHECK(launch(algos_[i], p, a, b, c, stream));
}

std::string CublasLtGemm::method() {
  return fmt::format(
      "cublasLtMatmul on the same problem as the cublas row (layouts, types, compute type and "
      "scalars), with the fastest of cublasLtMatmulAlgoGetHeuristic's top {} candidates given "
      "{} MiB of workspace (allocated once): per problem, before the rows' samples and not part "
      "of them, each candidate is launched once untimed, then all are timed round-robin for {} "
      "rounds (CUDA events; the rows' L2 flush and C restore before each sample) and the lowest "
      "median wins",
      kCandidates, kWorkspaceBytes >> 20, kTuneSamples);
}

}  // namespace gemmbench
