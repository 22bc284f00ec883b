#include "runner/cublaslt_gemm.hpp"

#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <stdexcept>
#include <vector>

#include "core/cuda_check.hpp"
#include "plan/fp8_baseline.hpp"
#include "runner/cublas_gemm.hpp"
#include "stats/stats.hpp"

namespace gemmbench {

namespace {

bool same_problem(const GemmProblem& x, const GemmProblem& y) {
  return x.m == y.m && x.n == y.n && x.k == y.k && x.layout == y.layout && x.dtype == y.dtype &&
         x.b_type() == y.b_type() && x.accum == y.accum && x.out == y.out && x.scale == y.scale &&
         x.fast_accum == y.fast_accum && x.blocks_on_a == y.blocks_on_a;
}

int64_t ceil_div(int64_t x, int64_t d) {
  return (x + d - 1) / d;
}

// cuBLASLt's modes for gemmbench's: row is its "outer vector" mode (M scales for A, N for B);
// block128 is 1x128 along K for A (VEC128) and 128x128 for B (BLK128x128), DeepSeek-V3's split,
// or the other way round where p.blocks_on_a (a grouped case's group: the weights are A).
int32_t lt_scale_mode(const GemmProblem& p, bool operand_a) {
  switch (p.scale) {
    case ScaleMode::row:
      return CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    case ScaleMode::block128:
      return operand_a != p.blocks_on_a ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F
                                        : CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    default:
      return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  }
}

// The layouts cuBLASLt wants for the 128 modes (cuBLAS docs, "Scaling factors layouts",
// https://docs.nvidia.com/cuda/cublas/#scaling-factors-layouts; KB = ceil(K/128)), for the
// operand of X rows (of K) that has the mode, A (X = M) or B (X = N):
//   VEC128_32F: an X x KB matrix, X-major: scale (x, kb) at kb*X + x. gemmbench's is
//     row-major, x*KB + kb, so it is transposed.
//   BLK128x128_32F: K-major, ceil(X/128) columns whose stride must be a multiple of 4:
//     scale (xb, kb) at xb*KB4 + kb, KB4 = KB rounded up to 4. gemmbench's is xb*KB + kb,
//     the same when KB is a multiple of 4; otherwise the columns are padded (with zeros, never
//     read).
// PyTorch's _scaled_mm checks the same strides before it calls cuBLASLt: a 1x128 scale of
// shape (M, KB) with strides (1, M), a 128x128 one K-contiguous (is_blockwise_1x128_scaling and
// is_blockwise_128x128_scaling in aten/src/ATen/native/cuda/ScaledBlas.cpp). SCALAR_32F and
// OUTER_VEC_32F (M values for A, N for B) read gemmbench's tensor and row scales as they are.
std::vector<float> to_vec128_layout(const std::vector<float>& s, int64_t rows, int64_t kb) {
  std::vector<float> out(s.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < kb; ++j) out[size_t(j * rows + r)] = s[size_t(r * kb + j)];
  return out;
}

std::vector<float> to_blk128_layout(const std::vector<float>& s, int64_t blocks, int64_t kb) {
  const int64_t kb4 = ceil_div(kb, 4) * 4;
  std::vector<float> out(size_t(blocks * kb4), 0.f);
  for (int64_t nb = 0; nb < blocks; ++nb)
    std::copy_n(s.begin() + nb * kb, kb, out.begin() + nb * kb4);
  return out;
}

std::vector<float> download(const float* d, int64_t count, cudaStream_t stream) {
  std::vector<float> h(static_cast<size_t>(count));
  CUDA_CHECK(
      cudaMemcpyAsync(h.data(), d, h.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return h;
}

void upload(DeviceBuffer& buf, const std::vector<float>& h, cudaStream_t stream) {
  const size_t bytes = h.size() * sizeof(float);
  if (buf.bytes() != bytes) buf = DeviceBuffer(bytes);
  CUDA_CHECK(cudaMemcpyAsync(buf.get(), h.data(), bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // h is pageable and the caller's to free
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
// A (M,K) or, for op(A) = T, (K,M); B (K,N) or (N,K); C and D (M,N) of p.out_type(); all
// column-major. FP8 problems add their scale modes and pointers (`lt`, in cuBLASLt's layout)
// and fast accumulation.
struct CublasLtGemm::Descriptors {
  Descriptors(const GemmProblem& p, ScalePtrs lt) {
    const bool half_compute = p.accum == Accum::f16;
    const cublasComputeType_t compute = half_compute ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F;
    const cudaDataType_t scale = half_compute ? CUDA_R_16F : CUDA_R_32F;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&op, compute, scale));
    const cublasOperation_t op_a = a_is_k_major(p.layout) ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = b_is_k_major(p.layout) ? CUBLAS_OP_N : CUBLAS_OP_T;
    set(CUBLASLT_MATMUL_DESC_TRANSA, op_a);
    set(CUBLASLT_MATMUL_DESC_TRANSB, op_b);
    const cudaDataType_t ta = cuda_type(p.dtype), tb = cuda_type(p.b_type());
    const bool at = op_a == CUBLAS_OP_T, bt = op_b == CUBLAS_OP_T;
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a, ta, at ? p.k : p.m, at ? p.m : p.k, p.lda()));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b, tb, bt ? p.n : p.k, bt ? p.k : p.n, p.ldb()));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c, cuda_type(p.out_type()), p.m, p.n, p.ldc()));
    if (is_fp8(p.dtype)) set_fp8(p, lt);
  }
  ~Descriptors() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  template <class T>
  void set(cublasLtMatmulDescAttributes_t attr, const T& v) {
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, attr, &v, sizeof(v)));
  }
  void set_fp8(const GemmProblem& p, ScalePtrs lt) {
    set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, lt_scale_mode(p, true));
    set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, lt_scale_mode(p, false));
    set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(lt.a));
    set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(lt.b));
    if (p.fast_accum) set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, int8_t{1});
  }

  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
};

CublasLtGemm::Plan::Plan() = default;
CublasLtGemm::Plan::~Plan() = default;
CublasLtGemm::Plan::Plan(Plan&&) noexcept = default;
CublasLtGemm::Plan& CublasLtGemm::Plan::operator=(Plan&&) noexcept = default;

CublasLtGemm::CublasLtGemm() : workspace_(kWorkspaceBytes) {
  CUBLAS_CHECK(cublasLtCreate(&handle_));
}

CublasLtGemm::~CublasLtGemm() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
  plan_ = Plan();
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

cublasStatus_t CublasLtGemm::launch(const Plan& plan, const cublasLtMatmulAlgo_t& algo,
                                    const GemmProblem& p, const void* a, const void* b, void* c,
                                    cudaStream_t stream) {
  // Host scalars of the scale type: read before cublasLtMatmul returns.
  const Descriptors& d = *plan.desc_;
  if (p.accum == Accum::f16) {
    const __half alpha = __double2half(p.alpha), beta = __double2half(p.beta);
    return cublasLtMatmul(handle_, d.op, &alpha, a, d.a, b, d.b, &beta, c, d.c, c, d.c, &algo,
                          workspace_.get(), workspace_.bytes(), stream);
  }
  const float alpha = float(p.alpha), beta = float(p.beta);
  return cublasLtMatmul(handle_, d.op, &alpha, a, d.a, b, d.b, &beta, c, d.c, c, d.c, &algo,
                        workspace_.get(), workspace_.bytes(), stream);
}

ScalePtrs CublasLtGemm::lt_scales(Plan& plan, const GemmProblem& p, ScalePtrs s,
                                  cudaStream_t stream) {
  if (p.scale != ScaleMode::block128) {
    // A scale pointer that is not 16-byte aligned is copied once into the plan's own buffer:
    // cuBLASLt's heuristic offers candidates for it, but none of them runs (a grouped case's
    // per-expert tensor scale at expert 2, 8 bytes past an aligned address; H200, cuBLAS 13.1,
    // test_grouped_gpu's unequal_tensor).
    const auto aligned = [&](DeviceBuffer& to, const float* from, int64_t count) {
      if (reinterpret_cast<uintptr_t>(from) % 16 == 0) return from;
      to = DeviceBuffer(size_t(count) * sizeof(float));
      CUDA_CHECK(cudaMemcpyAsync(to.get(), from, to.bytes(), cudaMemcpyDeviceToDevice, stream));
      return static_cast<const float*>(to.as<float>());
    };
    return {aligned(plan.lt_scale_a_, s.a, scale_count_a(p)),
            aligned(plan.lt_scale_b_, s.b, scale_count_b(p))};
  }
  const int64_t kb = ceil_div(p.k, kScaleBlock);
  // Each operand's scales in its mode's layout: rows are M for A, N for B.
  const auto convert = [&](DeviceBuffer& to, const float* from, int64_t count, int64_t rows,
                           bool operand_a) {
    const std::vector<float> h = download(from, count, stream);
    upload(to,
           lt_scale_mode(p, operand_a) == CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F
               ? to_vec128_layout(h, rows, kb)
               : to_blk128_layout(h, ceil_div(rows, kScaleBlock), kb),
           stream);
  };
  convert(plan.lt_scale_a_, s.a, scale_count_a(p), p.m, true);
  convert(plan.lt_scale_b_, s.b, scale_count_b(p), p.n, false);
  return {plan.lt_scale_a_.as<float>(), plan.lt_scale_b_.as<float>()};
}

std::optional<CublasLtChoice> CublasLtGemm::tune(Plan& plan, const GemmProblem& p, const void* a,
                                                 const void* b, void* c, cudaStream_t stream,
                                                 const std::function<void()>& prepare,
                                                 std::string& why_not, ScalePtrs scales) {
  plan = Plan();
  if (is_fp8(p.dtype)) {
    why_not = fp8_unsupported(p);
    if (!why_not.empty()) return std::nullopt;
    if (!scales.a || !scales.b)
      throw std::invalid_argument("CublasLtGemm::tune: the FP8 problem " + p.shape_string() +
                                  " was given no scales");
  }
  plan.desc_ = std::make_unique<Descriptors>(p, lt_scales(plan, p, scales, stream));
  const Descriptors& desc = *plan.desc_;

  cublasLtMatmulPreference_t pref = nullptr;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t ws = workspace_.bytes();
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  cublasLtMatmulHeuristicResult_t heur[kCandidates] = {};
  int returned = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(handle_, desc.op, desc.a, desc.b, desc.c, desc.c, pref,
                                        kCandidates, heur, &returned);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st == CUBLAS_STATUS_NOT_SUPPORTED)
    returned = 0;
  else
    CUBLAS_CHECK(st);

  // One untimed launch of each: module load, and a candidate that refuses to run drops out.
  std::vector<cublasLtMatmulAlgo_t>& algos = plan.algos_;
  std::vector<size_t> workspace_needed;
  for (int i = 0; i < returned; ++i) {
    if (heur[i].state != CUBLAS_STATUS_SUCCESS) continue;
    prepare();
    const cublasStatus_t ls = launch(plan, heur[i].algo, p, a, b, c, stream);
    if (ls == CUBLAS_STATUS_NOT_SUPPORTED || ls == CUBLAS_STATUS_INVALID_VALUE) continue;
    CUBLAS_CHECK(ls);
    algos.push_back(heur[i].algo);
    workspace_needed.push_back(heur[i].workspaceSize);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (algos.empty()) {
    why_not = returned == 0 ? "cublasLtMatmulAlgoGetHeuristic offers no algorithm for this problem"
                            : "none of cublasLtMatmulAlgoGetHeuristic's " +
                                  std::to_string(returned) + " candidates runs this problem";
    // An FP8 pair or scaling cuBLASLt lacks (e5m2 with a 128-block mode, say) is refused here:
    // the row names the types it was asked for.
    if (is_fp8(p.dtype)) why_not += " (" + p.type_string() + ")";
    return std::nullopt;
  }

  const size_t n = algos.size();
  std::vector<std::vector<double>> times(n);
  for (int s = 0; s < kTuneSamples; ++s) {
    for (size_t i = 0; i < n; ++i) {
      prepare();
      CUDA_CHECK(cudaEventRecord(event(2 * i), stream));
      CUBLAS_CHECK(launch(plan, algos[i], p, a, b, c, stream));
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
  const size_t best = size_t(std::min_element(medians.begin(), medians.end()) - medians.begin());
  plan.best_ = best;
  plan.tuned_ = p;
  plan.tuned_scales_ = scales;

  const cublasLtMatmulAlgo_t& w = algos[best];
  CublasLtChoice ch;
  ch.heuristic_index = int(best);
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
  ch.tuned_ms = medians[best];
  ch.heuristic_first_ms = medians[0];
  ch.gain_over_heuristic = medians[0] / medians[best];
  ch.workspace_bytes = int64_t(workspace_.bytes());
  ch.workspace_needed_bytes = int64_t(workspace_needed[best]);
  return ch;
}

void CublasLtGemm::check_tuned(const Plan& plan, const GemmProblem& p, ScalePtrs scales) {
  if (!plan.tuned_ || !same_problem(*plan.tuned_, p))
    throw std::logic_error("CublasLtGemm::run: the problem " + p.shape_string() + " " +
                           p.type_string() + " was not tuned (call tune() first)");
  // The descriptor holds tune()'s scale pointers (block128: its converted copies).
  if (scales.a != plan.tuned_scales_.a || scales.b != plan.tuned_scales_.b)
    throw std::logic_error("CublasLtGemm::run: the problem " + p.shape_string() +
                           " was tuned with other scales (call tune() with these)");
}

void CublasLtGemm::run(const Plan& plan, const GemmProblem& p, const void* a, const void* b,
                       void* c, cudaStream_t stream, ScalePtrs scales) {
  check_tuned(plan, p, scales);
  CUBLAS_CHECK(launch(plan, plan.algos_[plan.best_], p, a, b, c, stream));
}

void CublasLtGemm::run_candidate(size_t i, const GemmProblem& p, const void* a, const void* b,
                                 void* c, cudaStream_t stream, ScalePtrs scales) {
  check_tuned(plan_, p, scales);
  const std::vector<cublasLtMatmulAlgo_t>& algos = plan_.algos_;
  if (i >= algos.size())
    throw std::out_of_range("CublasLtGemm::run_candidate: " + std::to_string(i) + " of " +
                            std::to_string(algos.size()) + " candidates");
  CUBLAS_CHECK(launch(plan_, algos[i], p, a, b, c, stream));
}

std::string CublasLtGemm::method() {
  return fmt::format(
      "cublasLtMatmul on the same problem as the cublas row (layouts, types, compute type and "
      "scalars), with the fastest of cublasLtMatmulAlgoGetHeuristic's top {} candidates given "
      "{} MiB of workspace (allocated once): per problem, before the rows' samples and not part "
      "of them, each candidate is launched once untimed, then all are timed round-robin for {} "
      "rounds (CUDA events; the rows' L2 flush and C restore before each sample) and the lowest "
      "median wins. FP8 rows (which cublasGemmEx cannot run) call it in the TN layout with A and "
      "B of the row's types (CUDA_R_8F_E4M3, or CUDA_R_8F_E5M2 for an e5m2 operand; never both "
      "e5m2), C and D of the row's output type (CUDA_R_16BF unless the row says f16 "
      "or f32), CUBLAS_COMPUTE_32F with f32 scalars, and the row's scales through "
      "CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER in the A/B scale mode: tensor SCALAR_32F, row "
      "OUTER_VEC_32F, block128 VEC128_32F for A and BLK128x128_32F for B (converted to "
      "cuBLASLt's layout once per problem, while tuning; a tensor or row scale pointer that is "
      "not 16-byte aligned is copied once to one that is); CUBLASLT_MATMUL_DESC_FAST_ACCUM = 1 "
      "on rows marked fast (never with block128, which does not offer it). A grouped FP8 case "
      "(cuBLAS has no grouped FP8 GEMM): one such call per group with rows, C_g^T = B_g A_g^T "
      "(the weights as A: block128 BLK128x128_32F for A and VEC128_32F for B), each group "
      "tuned so once per case, outside timing; a group cuBLASLt's block128 refuses (rows not a "
      "multiple of 4) runs on its rows rounded up to a multiple of 4, 8 or 16, the first it "
      "takes (the rows past the group are padding, or later groups' rows their own calls "
      "overwrite, or slack rows past the last), and the row's note counts such groups",
      kCandidates, kWorkspaceBytes >> 20, kTuneSamples);
}

std::string CublasLtGemm::fp8_unsupported(const GemmProblem& p) {
  return cublaslt_fp8_unsupported(p);
}

}  // namespace gemmbench
