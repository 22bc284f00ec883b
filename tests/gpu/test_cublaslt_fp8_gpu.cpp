// cuBLASLt's FP8 path on a real device: in every scale mode, output type and with fast
// accumulation, CublasLtGemm given gemmbench's scale layouts (core/types.hpp) matches an fp64
// reference of the dequantized inputs (q * scale) computed here on the host, element by element;
// e4m3 x e4m3 everywhere, e4m3 x e5m2 and e5m2 x e4m3 where cuBLASLt takes them.
// Scales are distinct per row and per block, so a scale read from the wrong place (cuBLASLt's
// block128 layouts differ from gemmbench's) moves elements outside the bound.
//
// The bound, per element: |c - ref| <= u_out * |ref| + (ceil(K/32) + 2) * 2^-13 * sum_k |terms|.
// u_out is C's rounding (bf16 2^-8, f16 2^-11, f32 2^-24); the products of FP8 values are exact.
// The second term models the accumulation in Hopper's tensor cores: each FP8 wgmma (K = 32) adds
// its products into the accumulator keeping about 14 bits (DeepSeek-V3 technical report, 3.3.2,
// https://arxiv.org/abs/2412.19437), read as one truncation of at most 2^-13 of the magnitudes
// summed per wgmma, plus two for the f32 scale, alpha and beta products. Fast accumulation never
// promotes the sum to f32 registers, the case the model describes; without it cuBLASLt promotes
// periodically, which only lowers the error. A 128-block scaled by a wrong one (in [0.5, 2) each)
// moves an element by a fair part of that block's sum, several times the bound at K = 512 for
// most elements. Each case prints the share of the bound it used and the share of a pure-f32
// bound (K * 2^-24 as the second term's factor), which is not enforced.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/cuda_check.hpp"
#include "gpu_test_util.hpp"
#include "runner/cublas_gemm.hpp"
#include "runner/cublaslt_gemm.hpp"
#include "verify/tolerance.hpp"

using namespace gemmbench;

namespace {

// About 14 bits kept per FP8 wgmma add, truncated: an error below 2^-13 of the largest term.
constexpr double kTensorCoreUnit = 1.0 / 8192;

GemmProblem fp8_problem(int64_t m, int64_t n, int64_t k, ScaleMode scale, DType out = DType::bf16,
                        bool fast = false) {
  GemmProblem p{m, n, k, Layout::tn, DType::e4m3, Accum::f32, 1.5, 0.0};
  p.out = out;
  p.scale = scale;
  p.fast_accum = fast;
  return p;
}

// The same problem with A of type a and B of type b.
GemmProblem with_types(GemmProblem p, DType a, DType b) {
  p.dtype = a;
  p.dtype_b.reset();
  if (b != a) p.dtype_b = b;
  return p;
}

// An FP8 value of type t as its byte (round to nearest, saturating), and a byte of type t as the
// number it stands for (exact: both formats fit f16).
uint8_t to_fp8(float v, DType t) {
  return t == DType::e5m2 ? __nv_fp8_e5m2(v).__x : __nv_fp8_e4m3(v).__x;
}
double from_fp8(uint8_t q, DType t) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(q, t == DType::e5m2 ? __NV_E5M2 : __NV_E4M3)));
}

// The value a double becomes when stored as C (out) and read back.
double as_out(DType out, double v) {
  if (out == DType::bf16) return __bfloat162float(__float2bfloat16(float(v)));
  if (out == DType::f16) return __half2float(__float2half(float(v)));
  return float(v);
}

// One FP8 problem on the host: A stored (K,M) and B stored (K,N), both K-contiguous (TN), their
// scales in gemmbench's layout, and C before the call (values of the output type).
struct HostFp8 {
  GemmProblem p;
  std::vector<uint8_t> a, b;  // A's bytes in p.dtype, B's in p.b_type()
  std::vector<float> sa, sb;
  std::vector<double> c0;
};

HostFp8 make_host(const GemmProblem& p, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-16.f, 16.f), scale(0.5f, 2.f), c(-64.f, 64.f);
  HostFp8 h{p, {}, {}, {}, {}, {}};
  for (int64_t i = 0; i < p.m * p.k; ++i) h.a.push_back(to_fp8(value(rng), p.dtype));
  for (int64_t i = 0; i < p.n * p.k; ++i) h.b.push_back(to_fp8(value(rng), p.b_type()));
  for (int64_t i = 0; i < scale_count_a(p.scale, p.m, p.k); ++i) h.sa.push_back(scale(rng));
  for (int64_t i = 0; i < scale_count_b(p.scale, p.n, p.k); ++i) h.sb.push_back(scale(rng));
  for (int64_t i = 0; i < p.m * p.n; ++i) h.c0.push_back(as_out(p.out, c(rng)));
  return h;
}

// gemmbench's scale of element (row, k) of op(A) (rows = M) or op(B)^T (rows = N).
double scale_at(const std::vector<float>& s, ScaleMode mode, int64_t row, int64_t k, int64_t kk,
                bool operand_a) {
  const int64_t kb = (kk + kScaleBlock - 1) / kScaleBlock;
  switch (mode) {
    case ScaleMode::row:
      return s[size_t(row)];
    case ScaleMode::block128:
      return s[size_t((operand_a ? row : row / kScaleBlock) * kb + k / kScaleBlock)];
    default:
      return s[0];
  }
}

// q * scale of a K-contiguous operand with `rows` rows, its bytes read in its own type.
std::vector<double> dequantized(const std::vector<uint8_t>& q, const std::vector<float>& s,
                                const GemmProblem& p, int64_t rows, bool operand_a) {
  const DType t = operand_a ? p.dtype : p.b_type();
  std::vector<double> x(q.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < p.k; ++k)
      x[size_t(r * p.k + k)] =
          from_fp8(q[size_t(r * p.k + k)], t) * scale_at(s, p.scale, r, k, p.k, operand_a);
  return x;
}

// C = alpha * op(A) op(B) + beta * C0 in fp64, and the sum of the magnitudes of its terms.
void reference(const HostFp8& h, std::vector<double>& ref, std::vector<double>& magnitude) {
  const GemmProblem& p = h.p;
  const std::vector<double> a = dequantized(h.a, h.sa, p, p.m, true);
  const std::vector<double> b = dequantized(h.b, h.sb, p, p.n, false);
  ref.assign(size_t(p.m * p.n), 0.0);
  magnitude.assign(ref.size(), 0.0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t m = 0; m < p.m; ++m) {
      double dot = 0, mag = 0;
      for (int64_t k = 0; k < p.k; ++k) {
        const double t = a[size_t(m * p.k + k)] * b[size_t(n * p.k + k)];
        dot += t;
        mag += std::fabs(t);
      }
      const size_t i = size_t(n * p.m + m);
      ref[i] = p.alpha * dot + p.beta * h.c0[i];
      magnitude[i] = std::fabs(p.alpha) * mag + std::fabs(p.beta * h.c0[i]);
    }
}

std::vector<char> to_out_bytes(DType out, const std::vector<double>& v) {
  std::vector<char> bytes(v.size() * size_t(dtype_bytes(out)));
  for (size_t i = 0; i < v.size(); ++i) {
    if (out == DType::bf16)
      reinterpret_cast<__nv_bfloat16*>(bytes.data())[i] = __float2bfloat16(float(v[i]));
    else if (out == DType::f16)
      reinterpret_cast<__half*>(bytes.data())[i] = __float2half(float(v[i]));
    else
      reinterpret_cast<float*>(bytes.data())[i] = float(v[i]);
  }
  return bytes;
}

std::vector<double> from_out_bytes(DType out, const std::vector<char>& bytes) {
  std::vector<double> v(bytes.size() / size_t(dtype_bytes(out)));
  for (size_t i = 0; i < v.size(); ++i) {
    if (out == DType::bf16)
      v[i] = __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(bytes.data())[i]);
    else if (out == DType::f16)
      v[i] = __half2float(reinterpret_cast<const __half*>(bytes.data())[i]);
    else
      v[i] = reinterpret_cast<const float*>(bytes.data())[i];
  }
  return v;
}

template <class T>
DeviceBuffer upload(const std::vector<T>& h) {
  DeviceBuffer d(h.size() * sizeof(T));
  CUDA_CHECK(cudaMemcpy(d.get(), h.data(), d.bytes(), cudaMemcpyHostToDevice));
  return d;
}

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// What one case gave: cuBLASLt's refusal, or the elements outside the bound and the largest
// shares of the bound and of the pure-f32 bound that an element used.
struct Outcome {
  std::string why_not;
  int64_t outside = 0, nonfinite = 0;
  double bound_share = 0, f32_share = 0;
};

Outcome compare(const HostFp8& h, const std::vector<double>& c) {
  std::vector<double> ref, magnitude;
  reference(h, ref, magnitude);
  const double u = unit_roundoff(h.p.out_type());
  const double gamma = double((h.p.k + 31) / 32 + 2) * kTensorCoreUnit;
  const double gamma_f32 = double(h.p.k) * std::ldexp(1.0, -24);
  Outcome o;
  for (size_t i = 0; i < c.size(); ++i) {
    if (!std::isfinite(c[i])) {
      ++o.nonfinite;
      continue;
    }
    const double err = std::fabs(c[i] - ref[i]);
    const double share = err / (u * std::fabs(ref[i]) + gamma * magnitude[i]);
    o.outside += share > 1.0;
    o.bound_share = std::max(o.bound_share, share);
    o.f32_share = std::max(o.f32_share, err / (u * std::fabs(ref[i]) + gamma_f32 * magnitude[i]));
  }
  return o;
}

// Tunes and runs h.p through CublasLtGemm with h's scales (gemmbench's layout), C poisoned with
// NaN where beta is 0, and compares the result with the fp64 reference.
Outcome run_case(const HostFp8& h) {
  const GemmProblem& p = h.p;
  const DeviceBuffer a = upload(h.a), b = upload(h.b), sa = upload(h.sa), sb = upload(h.sb);
  const std::vector<char> c0 = to_out_bytes(p.out_type(), h.c0);
  DeviceBuffer c(c0.size());
  Stream stream;
  const auto restore_c = [&] {
    if (p.beta == 0.0)
      CUDA_CHECK(cudaMemsetAsync(c.get(), 0xff, c.bytes(), stream.get()));  // NaN in every type
    else
      CUDA_CHECK(
          cudaMemcpyAsync(c.get(), c0.data(), c.bytes(), cudaMemcpyHostToDevice, stream.get()));
  };
  const ScalePtrs scales{sa.as<float>(), sb.as<float>()};
  CublasLtGemm lt;
  Outcome o;
  if (!lt.tune(p, a.get(), b.get(), c.get(), stream.get(), restore_c, o.why_not, scales)) return o;
  restore_c();
  lt.run(p, a.get(), b.get(), c.get(), stream.get(), scales);
  std::vector<char> out(c.bytes());
  CUDA_CHECK(cudaMemcpyAsync(out.data(), c.get(), c.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  EXPECT_THROW(lt.run(p, a.get(), b.get(), c.get(), stream.get(), ScalePtrs{}), std::logic_error)
      << "run() with scales other than tune()'s";
  return compare(h, from_out_bytes(p.out_type(), out));
}

void expect_within_bound(const GemmProblem& p, uint32_t seed) {
  SCOPED_TRACE(p.shape_string() + " " + p.type_string() + " beta " + std::to_string(p.beta));
  const Outcome o = run_case(make_host(p, seed));
  ASSERT_EQ(o.why_not, "") << "cuBLASLt refused the problem";
  std::printf("%-14s %-28s beta %4.1f: %.3g of the bound, %.3g of a pure-f32 bound\n",
              p.shape_string().c_str(), p.type_string().c_str(), p.beta, o.bound_share,
              o.f32_share);
  ::testing::Test::RecordProperty(p.shape_string() + " " + p.type_string() + " bound_share",
                                  std::to_string(o.bound_share));
  EXPECT_EQ(o.nonfinite, 0);
  EXPECT_EQ(o.outside, 0) << "elements outside the bound; worst used " << o.bound_share;
}

// How many algorithms cuBLASLt's heuristic offers for VEC128 x BLK128x128 at M x N x K (bf16 C),
// asked directly: the evidence for fp8_unsupported's N % 128 rule.
int block128_algorithms(int64_t m, int64_t n, int64_t k) {
  const int64_t kb = (k + kScaleBlock - 1) / kScaleBlock, nb = (n + kScaleBlock - 1) / kScaleBlock;
  DeviceBuffer sa(size_t(m * kb) * sizeof(float)),
      sb(size_t(nb * ((kb + 3) / 4 * 4)) * sizeof(float));
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  CUBLAS_CHECK(cublasLtCreate(&handle));
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const auto set = [&](cublasLtMatmulDescAttributes_t attr, const auto& v) {
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, attr, &v, sizeof(v)));
  };
  set(CUBLASLT_MATMUL_DESC_TRANSA, cublasOperation_t{CUBLAS_OP_T});
  set(CUBLASLT_MATMUL_DESC_TRANSB, cublasOperation_t{CUBLAS_OP_N});
  set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, int32_t{CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F});
  set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, int32_t{CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F});
  set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(sa.get()));
  set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(sb.get()));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a, CUDA_R_8F_E4M3, k, m, k));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b, CUDA_R_8F_E4M3, k, n, k));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c, CUDA_R_16BF, m, n, m));
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t ws = CublasLtGemm::kWorkspaceBytes;
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &ws, sizeof(ws)));
  cublasLtMatmulHeuristicResult_t heur[CublasLtGemm::kCandidates] = {};
  int returned = 0;
  const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
      handle, op, a, b, c, c, pref, CublasLtGemm::kCandidates, heur, &returned);
  cublasLtMatmulPreferenceDestroy(pref);
  for (cublasLtMatrixLayout_t l : {a, b, c}) cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(handle);
  return st == CUBLAS_STATUS_SUCCESS ? returned : 0;
}

}  // namespace

// Every scale mode at a square shape and at an odd one (M not a multiple of 128, K with
// a partial 16-wide last block and 6 K-blocks, so cuBLASLt's BLK128x128 columns are padded to 8);
// tensor and row also at an N that is not a multiple of 128.
TEST(CublasLtFp8, EveryScaleModeMatchesTheDequantizedReference) {
  GEMMBENCH_REQUIRE_GPU();
  for (ScaleMode mode : kFp8ScaleModes) {
    expect_within_bound(fp8_problem(256, 256, 512, mode), 1);
    expect_within_bound(fp8_problem(200, 384, 656, mode), 2);
    if (mode != ScaleMode::block128) expect_within_bound(fp8_problem(72, 200, 176, mode), 3);
  }
}

// C of each output type, with beta != 0 (C read, in its type) and alpha != 1.
TEST(CublasLtFp8, OutputTypesAndBetaFollowTheReference) {
  GEMMBENCH_REQUIRE_GPU();
  for (ScaleMode mode : kFp8ScaleModes)
    for (DType out : {DType::bf16, DType::f16, DType::f32}) {
      GemmProblem p = fp8_problem(200, 384, 656, mode, out);
      p.alpha = 0.75;
      p.beta = -0.5;
      expect_within_bound(p, 4);
    }
}

// Fast accumulation (tensor and row scales; block128 has none) up to K = 4096, where the
// unpromoted sum shows, beside the same problem without it; the printed shares compare the two.
TEST(CublasLtFp8, FastAccumulationStaysWithinTheTensorCoreBound) {
  GEMMBENCH_REQUIRE_GPU();
  for (ScaleMode mode : {ScaleMode::tensor, ScaleMode::row}) {
    expect_within_bound(fp8_problem(256, 256, 512, mode, DType::bf16, true), 5);
    expect_within_bound(fp8_problem(128, 128, 4096, mode, DType::f32, true), 6);
    expect_within_bound(fp8_problem(128, 128, 4096, mode, DType::f32, false), 6);
  }
}

TEST(CublasLtFp8, FastAccumulationWithBlock128IsRefusedWithAReason) {
  GEMMBENCH_REQUIRE_GPU();
  const GemmProblem p = fp8_problem(256, 256, 512, ScaleMode::block128, DType::bf16, true);
  CublasLtGemm lt;
  std::string why_not;
  Stream stream;
  EXPECT_FALSE(lt.tune(
      p, nullptr, nullptr, nullptr, stream.get(), [] {}, why_not));
  EXPECT_NE(why_not.find("fast accumulation"), std::string::npos) << why_not;
}

// A partial last 128-column block of B with block scales: PyTorch's wrapper refuses it, cuBLAS
// 13.1's heuristic offers an algorithm, and the result must then be right, not merely returned:
// DeepSeek-V3's q_a/kv_a projection (N = 2112) and a narrow N that is not a multiple of 8.
TEST(CublasLtFp8, Block128WithAPartialNBlockRunsWithinTheBound) {
  GEMMBENCH_REQUIRE_GPU();
  ASSERT_GT(block128_algorithms(4096, 2112, 7168), 0) << "cuBLASLt offers no algorithm at N = 2112";
  expect_within_bound(fp8_problem(4096, 2112, 7168, ScaleMode::block128), 11);
  expect_within_bound(fp8_problem(256, 196, 640, ScaleMode::block128), 12);
}

// e4m3 x e5m2 and e5m2 x e4m3 (cuBLASLt's FP8 types with one e5m2 operand): per-tensor scales,
// with and without fast accumulation, must run and match the reference, each operand read in its
// own format; row and block scales run where cuBLASLt's heuristic offers an algorithm, and are
// otherwise refused with a reason that names the types (printed, for the record of which run).
TEST(CublasLtFp8, MixedPairsMatchTheDequantizedReference) {
  GEMMBENCH_REQUIRE_GPU();
  for (const auto& [a, b] : {std::pair{DType::e4m3, DType::e5m2}, {DType::e5m2, DType::e4m3}}) {
    expect_within_bound(with_types(fp8_problem(256, 256, 512, ScaleMode::tensor), a, b), 21);
    expect_within_bound(with_types(fp8_problem(200, 384, 656, ScaleMode::tensor), a, b), 22);
    expect_within_bound(
        with_types(fp8_problem(128, 128, 4096, ScaleMode::tensor, DType::f32, true), a, b), 23);
    for (ScaleMode mode : {ScaleMode::row, ScaleMode::block128}) {
      const GemmProblem p = with_types(fp8_problem(200, 384, 656, mode), a, b);
      SCOPED_TRACE(p.type_string());
      const Outcome o = run_case(make_host(p, 24));
      if (!o.why_not.empty()) {
        std::printf("%-14s %-28s cuBLASLt refused: %s\n", p.shape_string().c_str(),
                    p.type_string().c_str(), o.why_not.c_str());
        EXPECT_NE(o.why_not.find(p.type_string()), std::string::npos) << o.why_not;
        continue;
      }
      std::printf("%-14s %-28s %.3g of the bound\n", p.shape_string().c_str(),
                  p.type_string().c_str(), o.bound_share);
      EXPECT_EQ(o.nonfinite, 0);
      EXPECT_EQ(o.outside, 0) << "elements outside the bound; worst used " << o.bound_share;
    }
  }
}

TEST(CublasLtFp8, CublasGemmExRefusesFp8) {
  GEMMBENCH_REQUIRE_GPU();
  CublasGemm cublas;
  EXPECT_THROW(
      cublas.run(fp8_problem(256, 256, 512, ScaleMode::tensor), nullptr, nullptr, nullptr, nullptr),
      std::invalid_argument);
}

// Needs no GPU: the reasons the planner skips a row with.
TEST(CublasLtFp8, Fp8UnsupportedNamesEachBadShape) {
  const auto why = [](GemmProblem p) { return CublasLtGemm::fp8_unsupported(p); };
  const auto names = [&](GemmProblem p, const std::string& phrase) {
    const std::string w = why(p);
    EXPECT_NE(w.find(phrase), std::string::npos)
        << p.shape_string() << " " << p.type_string() << ": \"" << w << "\"";
  };
  for (ScaleMode mode : kFp8ScaleModes) {
    EXPECT_EQ(why(fp8_problem(256, 256, 512, mode)), "");
    EXPECT_EQ(why(fp8_problem(200, 384, 656, mode)), "");
    names(fp8_problem(256, 256, 520, mode), "K must be a multiple of 16");
    names(fp8_problem(100, 256, 512, mode), "M must be a multiple of 8");
  }
  EXPECT_EQ(why(fp8_problem(100, 256, 512, ScaleMode::row, DType::f32)), "") << "f32 C: M % 4";
  names(fp8_problem(98, 256, 512, ScaleMode::row, DType::f32), "M must be a multiple of 4");
  EXPECT_EQ(why(fp8_problem(72, 202, 176, ScaleMode::row)), "") << "no limit on N without blocks";
  EXPECT_EQ(why(fp8_problem(256, 200, 512, ScaleMode::block128)), "") << "a partial N block runs";
  EXPECT_EQ(why(fp8_problem(4096, 2112, 7168, ScaleMode::block128)), "");
  EXPECT_EQ(why(fp8_problem(4096, 2112, 7168, ScaleMode::row)), "");
  names(fp8_problem(256, 256, 512, ScaleMode::block128, DType::bf16, true), "fast accumulation");
  GemmProblem nt = fp8_problem(256, 256, 512, ScaleMode::tensor);
  nt.layout = Layout::nt;
  names(nt, "TN");
  const GemmProblem e4 = fp8_problem(256, 256, 512, ScaleMode::tensor);
  EXPECT_EQ(why(with_types(e4, DType::e4m3, DType::e5m2)), "");
  EXPECT_EQ(why(with_types(e4, DType::e5m2, DType::e4m3)), "");
  names(with_types(e4, DType::e5m2, DType::e5m2), "e5m2 x e5m2");
  EXPECT_EQ(why(GemmProblem{100, 3, 7, Layout::nn, DType::f16, Accum::f32, 1.0, 0.0}), "")
      << "nothing to refuse in a non-FP8 problem";
}
