// Every registered kernel, in every layout, dtype and accumulate type it declares, against the
// fp64 reference over shapes that break tile assumptions; and cuBLAS held to the same bound.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/cuda_check.hpp"
#include "gpu_test_util.hpp"
#include "core/registry.hpp"
#include "runner/cublas_gemm.hpp"
#include "device/buffer.hpp"
#include "verify/device_verify.hpp"

using namespace gemmbench;

namespace {

struct Shape3 {
  int m, n, k;
};

// 1x1x1, primes, tile +-1 for 32/64/128/256 tiles, tall-skinny and long-K, K multiples of 8 with
// prime M and N (for kernels that need 16-byte rows), a long K with a partial last k-tile under
// CTA tiles both inside and across the M and N edges (264x520x1000: the Ampere kernels' inside
// CTAs switch from unpredicated to predicated copies mid-K), shapes the persistent Ampere schedule
// takes (M, N at least a tile, K whole 32-wide k-tiles, M % 8 == 0: 264x520x96 with exactly the
// STAGES-1 k-tiles of its prologue, 392x776x512 with more k-tiles than store batches, both with
// shifted edge tiles), token counts the tensor-core GEMV takes (M <= 16: 16 and 13 with whole
// 32-wide K strides and a partial one, 9 with an odd K), and a grid of more tiles than SMs.
const std::vector<Shape3> kShapes = {
    {1, 1, 1},       {2, 3, 5},        {37, 53, 71},     {1, 1, 8},       {5, 3, 8},
    {127, 131, 136}, {64, 64, 64},     {128, 128, 128},  {129, 257, 63},  {257, 129, 72},
    {255, 256, 257}, {300, 520, 264},  {1000, 1, 999},   {1, 1000, 64},   {1024, 8, 2048},
    {513, 257, 136}, {130, 130, 64},   {136, 264, 77},   {264, 37, 40},   {8, 129, 24},
    {520, 77, 256},  {264, 520, 1000}, {264, 520, 96},   {392, 776, 512}, {16, 264, 1032},
    {13, 37, 4104},  {9, 1000, 999},   {4096, 2048, 128}};

// Under compute-sanitizer: GEMMBENCH_TEST_SMALL=1 leaves out the last, largest shape;
// GEMMBENCH_TEST_FEW=1 (racecheck, which is slow) keeps a few shapes that still cross tile edges
// (264x520x192: also one the persistent Ampere schedule takes, BK 32 or 64; 100x136x264: one
// the decode path, M <= 128 with K % 8 == 0, takes; 1x136x264: one the GEMV path, M <= 4, takes;
// 12x136x264: one the tensor-core GEMV, M <= 16, takes with more than one warp per row group).
// FP8 problems need K % 16 == 0 (16-byte rows of 8-bit elements), which most of kShapes have not;
// these add partial last 128-wide k-blocks (K = 128 n + 16) beside M and N tile edges, and many
// k-blocks per tile (a long K whose promotions and block scales add up), and token counts the
// FP8 decode path takes (M <= 16: one and two groups of 8 tokens, rows past N within a 16- and
// 32-row group, a partial last k-block, more k-blocks than the warps of a row group), and
// K % 512 == 0 with M not a multiple of 256 for fp8gemm_sm90_persistent_t_m256c2ts (whose scale
// map needs it; 256 x 128 tiles on 2-CTA clusters along N, 3 stages): M < 256 beside an odd count
// of N tiles (a cluster's padding tile) and 4 k-blocks (one box as wide as scale_a's rows); a
// third M tile of 8 rows (M % 8 == 0: the TMA-store epilogue where beta is 0) with 8 k-blocks over
// 3 stages (a stage's column of the box moves lap by lap); M past a tile, whose second consumer's
// rows are all past M, with 16 k-blocks (every column of a box read); 28 k-blocks of a
// 130-row tile; and 65-127 tokens, where the FP8 decode path's second token tile is partly
// filled (72: its 8 rows a tail box; 96: a second tile of 32 rows; 100: of 36) and a 256-row
// tile's second 128-row slice lies wholly past M.
const std::vector<Shape3> kFp8Shapes = {{200, 384, 656},
                                        {129, 257, 1040},
                                        {37, 1000, 400},
                                        {300, 136, 2064},
                                        {1000, 264, 4112},
                                        {1, 300, 656},
                                        {7, 1000, 1040},
                                        {13, 264, 400},
                                        {16, 136, 4112},
                                        // _m64 on 64 rows of B (fill_tile_n at 132 SMs)
                                        {64, 7168, 272},
                                        {200, 264, 512},
                                        {520, 136, 1024},
                                        {300, 520, 2048},
                                        {130, 264, 3584},
                                        {72, 1000, 1040},
                                        {96, 264, 656},
                                        {100, 520, 2064},
                                        // _wmcfit's second 40-token tile ending inside its last
                                        // 8-token chunk (the pair-by-pair stores, C unaligned)
                                        {77, 1000, 1040},
                                        // _wmcfit's 48-token tiles, the second ending inside
                                        // its fifth chunk (100x520x2064 ends the 56-token one's,
                                        // 37x1000x400 the 24-token one's)
                                        {85, 520, 1040},
                                        // _wmcfit's 16-token tiles, the second ending inside its
                                        // second chunk (13x264x400 ends the 8-token one's); 8-
                                        // and 16-token tiles on 96-, 160- and 192-row weight
                                        // tiles (shared_weight_rows at 132 SMs)
                                        {30, 520, 2064},
                                        {20, 6144, 272},
                                        {10, 10240, 256}};

bool few_shapes() {
  return std::getenv("GEMMBENCH_TEST_FEW") != nullptr;
}
std::vector<Shape3> test_shapes() {
  if (few_shapes())
    return {{37, 53, 71},    {257, 129, 72},  {130, 136, 64}, {264, 37, 40}, {136, 264, 77},
            {264, 520, 192}, {100, 136, 264}, {1, 136, 264},  {12, 136, 264}};
  std::vector<Shape3> s = kShapes;
  if (std::getenv("GEMMBENCH_TEST_SMALL")) s.pop_back();
  return s;
}

struct Combo {
  const KernelInfo* kernel;  // nullptr: cuBLAS
  Layout layout;
  DType dtype;
  Accum accum;
  ScaleMode scale = ScaleMode::none;  // FP8 kernels: each scaling is its own combination,
  bool fast_accum = false;            // and fast accumulation where the scaling allows it
  DType dtype_b = dtype;              // FP8: B's type (each pair its own combination)

  GemmProblem problem(int m, int n, int k, double alpha, double beta) const {
    GemmProblem p{m, n, k, layout, dtype, accum, alpha, beta};
    if (is_fp8(dtype)) {
      p.out = default_out(dtype), p.scale = scale, p.fast_accum = fast_accum;
      if (dtype_b != dtype) p.dtype_b = dtype_b;
    }
    return p;
  }
};

// "fp8gemm_sm90_tn_e4m3_f32_row_fast"; another B type shows as the pair, "..._e4m3xe5m2_f32_...".
std::string combo_name(const ::testing::TestParamInfo<Combo>& info) {
  const Combo& c = info.param;
  const GemmProblem p = c.problem(1, 1, 1, 1.0, 0.0);
  std::string name = (c.kernel ? c.kernel->name : std::string("cublas")) + "_" +
                     to_string(c.layout) + "_" + p.input_types() + "_" + to_string(c.accum);
  if (is_fp8(c.dtype))
    name += std::string("_") + to_string(c.scale) + (c.fast_accum ? "_fast" : "");
  return name;
}

// FP8 kernels run every pair of the types they declare (as the plan gives them), e5m2 x e5m2 aside:
// e4m3 x e4m3 for the e4m3-only rungs, and e4m3 x e5m2, e5m2 x e4m3 too where e5m2 is declared.
std::vector<Combo> kernel_combos() {
  std::vector<Combo> out;
  for (const KernelInfo* k : KernelRegistry::instance().all()) {
    // Grouped kernels take no dense shape: test_grouped_kernel_gpu checks them group by group.
    if (!k->group_layouts.empty() && !k->dense_too) continue;
    for (Layout l : k->layouts)
      for (DType d : k->dtypes)
        for (Accum a : k->accums) {
          if (!accum_valid_for(d, a)) continue;
          if (!is_fp8(d)) {
            out.push_back({k, l, d, a});
            continue;
          }
          if (l != Layout::tn) continue;  // FP8 is TN only (the plan's rule)
          for (DType b : k->dtypes) {
            if (!fp8_pair_unsupported(d, b).empty()) continue;
            for (ScaleMode sm : kFp8ScaleModes) {
              // _m256c2ts takes block scales only (what its stages carry): its refusal of the
              // others is a host test (test_registry), not a suite of skipped shapes here.
              if (k->name == "fp8gemm_sm90_persistent_t_m256c2ts" && sm != ScaleMode::block128)
                continue;
              out.push_back({k, l, d, a, sm, false, b});
              if (sm != ScaleMode::block128) out.push_back({k, l, d, a, sm, true, b});
            }
          }
        }
  }
  return out;
}

std::vector<Combo> cublas_combos() {
  std::vector<Combo> out;
  for (Layout l : kAllLayouts)
    for (DType d : kAllDTypes)
      for (Accum a : kAllAccums)
        if (accum_valid_for(d, a)) out.push_back({nullptr, l, d, a});
  return out;
}

DeviceCaps device_caps() {
  return current_device_caps();
}

// An FP8 case: inputs quantized as the runner makes them, the reference of the dequantized
// inputs, C of p.out_type().
template <class Launch>
ErrorStats run_case_fp8(const GemmProblem& p, uint64_t seed, Launch&& launch) {
  const size_t es = dtype_bytes(p.out_type());
  Fp8Inputs in = make_fp8_inputs(p, seed, 0, 1, DataDist::uniform, nullptr);
  DeviceBuffer c(size_t(p.m * p.n) * es), c0(size_t(p.m * p.n) * es);
  DeviceBuffer ref(size_t(p.m * p.n) * sizeof(double));
  fill_uniform(c0.get(), p.out_type(), p.m * p.n, seed, 2, nullptr);
  reference_gemm_fp8(p, in.a.get(), in.scale_a.as<float>(), in.b.get(), in.scale_b.as<float>(),
                     c0.get(), ref.as<double>(), nullptr);
  if (p.beta != 0)
    CUDA_CHECK(cudaMemcpy(c.get(), c0.get(), c.bytes(), cudaMemcpyDeviceToDevice));
  else
    fill_nan(c.get(), p.out_type(), p.m * p.n, nullptr);
  GemmArgs args{p, in.a.get(), in.b.get(), c.get(), float(p.alpha), float(p.beta)};
  args.scale_a = in.scale_a.as<float>();
  args.scale_b = in.scale_b.as<float>();
  launch(args);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  ErrorMeter meter;
  const double rms = meter.reference_rms(ref.as<double>(), p.m * p.n, nullptr);
  ErrorStats e = meter.measure(p.out_type(), c.get(), ref.as<double>(), p.m * p.n, rms, nullptr);
  e.tolerance = verification_tolerance(p);
  return e;
}

// Runs one case and returns its error statistics (tolerance filled in).
template <class Launch>
ErrorStats run_case(const GemmProblem& p, uint64_t seed, Launch&& launch) {
  if (is_fp8(p.dtype)) return run_case_fp8(p, seed, std::forward<Launch>(launch));
  const size_t es = dtype_bytes(p.dtype);
  DeviceBuffer a(size_t(p.m * p.k) * es), b(size_t(p.k * p.n) * es), c(size_t(p.m * p.n) * es);
  DeviceBuffer c0(size_t(p.m * p.n) * es), ref(size_t(p.m * p.n) * sizeof(double));
  fill_uniform(a.get(), p.dtype, p.m * p.k, seed, 0, nullptr);
  fill_uniform(b.get(), p.dtype, p.k * p.n, seed, 1, nullptr);
  fill_uniform(c0.get(), p.dtype, p.m * p.n, seed, 2, nullptr);
  reference_gemm(p, a.get(), b.get(), c0.get(), ref.as<double>(), nullptr);
  if (p.beta != 0)
    CUDA_CHECK(cudaMemcpy(c.get(), c0.get(), c.bytes(), cudaMemcpyDeviceToDevice));
  else
    fill_nan(c.get(), p.dtype, p.m * p.n, nullptr);
  launch(GemmArgs{p, a.get(), b.get(), c.get(), float(p.alpha), float(p.beta)});
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  ErrorMeter meter;
  const double rms = meter.reference_rms(ref.as<double>(), p.m * p.n, nullptr);
  ErrorStats e = meter.measure(p.dtype, c.get(), ref.as<double>(), p.m * p.n, rms, nullptr);
  e.tolerance = verification_tolerance(p.dtype, p.accum, p.k);
  return e;
}

class KernelVsReference : public ::testing::TestWithParam<Combo> {};
class CublasVsReference : public ::testing::TestWithParam<Combo> {};

// max_ctas > 0: the persistent grid capped there (GemmArgs::test_max_ctas), so that the suite's
// small shapes walk several tiles per CTA and split stream-K tiles between clusters.
void check_all_shapes(const Combo& c, int max_ctas = 0) {
  const DeviceCaps caps = device_caps();
  CublasGemm cublas;
  int ran = 0;
  std::vector<std::string> skipped;
  std::vector<Shape3> shapes = test_shapes();
  if (is_fp8(c.dtype)) shapes.insert(shapes.end(), kFp8Shapes.begin(), kFp8Shapes.end());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Shape3 s = shapes[i];
    // Every third shape runs with beta != 0 and a non-unit alpha, and every third with a
    // non-unit alpha alone (epilogues that skip C when beta == 0 still scale).
    const bool with_beta = i % 3 == 1, with_alpha = i % 3 == 2;
    const double alpha = with_beta ? -0.75 : with_alpha ? 1.5 : 1.0;
    const GemmProblem p = c.problem(s.m, s.n, s.k, alpha, with_beta ? 0.5 : 0.0);
    SCOPED_TRACE(p.shape_string() + " alpha=" + std::to_string(p.alpha) +
                 " beta=" + std::to_string(p.beta));
    if (c.kernel) {
      const std::string why = why_unsupported(*c.kernel, p, caps);
      if (!why.empty()) {
        skipped.push_back(p.shape_string() + ": " + why);
        continue;
      }
    }
    const ErrorStats e = run_case(p, 1000 + i, [&](GemmArgs args) {
      args.test_max_ctas = max_ctas;
      if (c.kernel)
        c.kernel->launch(args, nullptr);
      else
        cublas.run(args.problem, args.a, args.b, args.c, nullptr);
    });
    ++ran;
    EXPECT_EQ(e.nonfinite, 0) << "elements left NaN (unwritten) or overflowed";
    EXPECT_TRUE(verification_passed(e))
        << "normwise " << e.normwise << " > tolerance " << e.tolerance << " (max abs " << e.max_abs
        << ", max rel " << e.max_rel << ")";
  }
  for (const auto& s : skipped) std::printf("  skipped %s\n", s.c_str());
  EXPECT_GE(ran, few_shapes() ? 1 : 4)
      << "too few shapes ran: the kernel's supports() rejects most odd shapes";
}

}  // namespace

TEST_P(KernelVsReference, OddShapesAlphaBeta) {
  GEMMBENCH_REQUIRE_GPU();
  const Combo& c = GetParam();
  if (device_caps().sm < c.kernel->min_sm) GTEST_SKIP() << "needs sm_" << c.kernel->min_sm;
  check_all_shapes(c);
}

TEST_P(CublasVsReference, OddShapesAlphaBeta) {
  GEMMBENCH_REQUIRE_GPU();
  check_all_shapes(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Registry, KernelVsReference, ::testing::ValuesIn(kernel_combos()),
                         combo_name);

// The persistent kernels with a capped grid: the persistent Ampere binding (hgemm_tn and the
// other layouts' short names) at caps of 1, 3 and 7 CTAs, the Hopper kernels (2-CTA clusters,
// stream-K and every layout included; the 1-CTA decode tiles too; the persistent FP8 rung) at 1,
// 3, 7 and 14 CTAs; and
// sgemm_splitk at 1, 3 and 7, where the suite's few-tile shapes split K 1, 3 and up to 7 ways
// (with a partial last k-tile in the last split) in its 64- and 128-row configurations (the
// narrower ones split in test_decode.cpp's SgemmSplitK); sgemm_streamk at 1, 3 and 7 CTAs, which
// walk every tile whole (1) or share the suite's few tiles between neighbours (3, 7).
struct CappedCombo {
  Combo combo;
  int max_ctas;
};
std::vector<CappedCombo> capped_combos() {
  std::vector<CappedCombo> out;
  for (const Combo& c : kernel_combos()) {
    const std::string& n = c.kernel->name;
    const bool sm90 =
        n == "hgemm_tn_sm90" || n == "hgemm_tn_sm90_sk_defer" || n == "hgemm_nn_sm90" ||
        n == "hgemm_nt_sm90" || n == "hgemm_tt_sm90" || n == "hgemm_decode_sm90" ||
        n == "hgemm_decode_sm90_n64" || n == "hgemm_decode_sm90_n64_cs" ||
        n == "hgemm_decode_sm90_wmc" || n == "hgemm_decode_sm90_n48" ||
        n == "hgemm_tn_sm90_128x128_sk" || n == "hgemm_tn_sm90_c1_sk" ||
        n == "hgemm_tn_sm90_192x192" || n == "hgemm_nn_sm90_192x192" ||
        n == "hgemm_nt_sm90_192x192" || n == "hgemm_tt_sm90_192x192" ||
        n == "fp8gemm_sm90_persistent" || n == "fp8gemm_sm90_persistent_c2" ||
        n == "fp8gemm_sm90_persistent_t" || n == "fp8gemm_sm90_persistent_t_sk" ||
        n == "fp8gemm_sm90_persistent_t_pipe" || n == "fp8gemm_sm90_persistent_t_n192" ||
        n == "fp8gemm_sm90_persistent_t_m256c2" || n == "fp8gemm_sm90_persistent_t_m64" ||
        n == "fp8gemm_sm90_persistent_t_m64c2" || n == "fp8gemm_sm90_persistent_t_m256c2ts" ||
        n == "fp8gemm_decode_sm90" || n == "fp8gemm_decode_sm90_n64" ||
        n == "fp8gemm_decode_sm90_n64_cs" || n == "fp8gemm_decode_sm90_wmc" ||
        n == "fp8gemm_decode_sm90_wmcfit";
    const bool ampere = n == "hgemm_tn" || n == "hgemm_nn" || n == "hgemm_nt" || n == "hgemm_tt";
    // sgemm_splitk takes the cap as the CTAs its split may fill: fewer splits (1 at cap 1);
    // sgemm_streamk as the CTAs of its walk.
    const bool split = n == "sgemm_splitk" || n == "sgemm_streamk";
    if (!sm90 && !ampere && !split) continue;
    for (int cap : {1, 3, 7}) out.push_back({c, cap});
    if (sm90) out.push_back({c, 14});
  }
  return out;
}
class KernelCappedGrid : public ::testing::TestWithParam<CappedCombo> {};
TEST_P(KernelCappedGrid, OddShapesAlphaBeta) {
  GEMMBENCH_REQUIRE_GPU();
  const CappedCombo& c = GetParam();
  if (device_caps().sm < c.combo.kernel->min_sm)
    GTEST_SKIP() << "needs sm_" << c.combo.kernel->min_sm;
  check_all_shapes(c.combo, c.max_ctas);
}
INSTANTIATE_TEST_SUITE_P(CappedGrid, KernelCappedGrid, ::testing::ValuesIn(capped_combos()),
                         [](const ::testing::TestParamInfo<CappedCombo>& info) {
                           return combo_name({info.param.combo, info.index}) + "_cap" +
                                  std::to_string(info.param.max_ctas);
                         });
INSTANTIATE_TEST_SUITE_P(Baseline, CublasVsReference, ::testing::ValuesIn(cublas_combos()),
                         combo_name);

// The oracle itself, against a host fp64 product of the same stored inputs.
TEST(Reference, MatchesHostFp64InEveryLayout) {
  GEMMBENCH_REQUIRE_GPU();
  for (Layout l : kAllLayouts) {
    const GemmProblem p{37, 29, 45, l, DType::f32, Accum::f32, 0.5, -1.25};
    SCOPED_TRACE(to_string(l));
    DeviceBuffer a(p.m * p.k * 4), b(p.k * p.n * 4), c0(p.m * p.n * 4), ref(p.m * p.n * 8);
    fill_uniform(a.get(), p.dtype, p.m * p.k, 7, 0, nullptr);
    fill_uniform(b.get(), p.dtype, p.k * p.n, 7, 1, nullptr);
    fill_uniform(c0.get(), p.dtype, p.m * p.n, 7, 2, nullptr);
    reference_gemm(p, a.get(), b.get(), c0.get(), ref.as<double>(), nullptr);
    std::vector<float> ha(p.m * p.k), hb(p.k * p.n), hc(p.m * p.n);
    std::vector<double> hr(p.m * p.n);
    CUDA_CHECK(cudaMemcpy(ha.data(), a.get(), a.bytes(), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hb.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hc.data(), c0.get(), c0.bytes(), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hr.data(), ref.get(), ref.bytes(), cudaMemcpyDeviceToHost));
    // Layout definitions written out independently of the device code
    // (core/include/core/types.hpp).
    auto A = [&](int m, int k) {
      return double(a_is_k_major(l) ? ha[m * p.k + k] : ha[m + k * p.m]);
    };
    auto B = [&](int k, int n) {
      return double(b_is_k_major(l) ? hb[k + n * p.k] : hb[n + k * p.n]);
    };
    double worst = 0;
    for (int m = 0; m < p.m; ++m)
      for (int n = 0; n < p.n; ++n) {
        double acc = 0;
        for (int k = 0; k < p.k; ++k) acc += A(m, k) * B(k, n);
        const double want = p.alpha * acc + p.beta * double(hc[m + n * p.m]);
        worst = std::max(worst, std::abs(want - hr[m + n * p.m]));
      }
    EXPECT_LT(worst, 1e-12);
  }
}

TEST(Inputs, AreUniformInMinusOneOneAndNotConstant) {
  GEMMBENCH_REQUIRE_GPU();
  const int n = 1 << 16;
  DeviceBuffer buf(n * 4);
  fill_uniform(buf.get(), DType::f32, n, 42, 0, nullptr);
  std::vector<float> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), buf.get(), n * 4, cudaMemcpyDeviceToHost));
  double sum = 0, lo = 1, hi = -1;
  for (float x : h) sum += x, lo = std::min<double>(lo, x), hi = std::max<double>(hi, x);
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);
  EXPECT_NEAR(sum / n, 0.0, 0.02);
  fill_uniform(buf.get(), DType::f32, n, 43, 0, nullptr);
  std::vector<float> h2(n);
  CUDA_CHECK(cudaMemcpy(h2.data(), buf.get(), n * 4, cudaMemcpyDeviceToHost));
  EXPECT_NE(h, h2) << "the seed changes the data";
}

namespace {

// The fill written out on the host from its definition (device_verify.hpp): u is the top 24 bits
// of splitmix64(key + i) over 2^24, with key = splitmix64(seed ^ splitmix64(tensor + 1)).
uint64_t host_splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
double host_u(uint64_t seed, uint64_t tensor, int64_t i) {
  const uint64_t key = host_splitmix64(seed ^ host_splitmix64(tensor + 1));
  return double(host_splitmix64(key + uint64_t(i)) >> 40) / 16777216.0;  // exact in a double
}

std::vector<float> fill_f32(int n, uint64_t seed, uint64_t tensor, DataDist d) {
  DeviceBuffer buf(size_t(n) * 4);
  fill_inputs(buf.get(), DType::f32, n, seed, tensor, d, nullptr);
  std::vector<float> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), buf.get(), size_t(n) * 4, cudaMemcpyDeviceToHost));
  return h;
}

std::vector<uint16_t> fill_16bit(DType t, int n, uint64_t seed, uint64_t tensor, DataDist d) {
  DeviceBuffer buf(size_t(n) * 2);
  fill_inputs(buf.get(), t, n, seed, tensor, d, nullptr);
  std::vector<uint16_t> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), buf.get(), size_t(n) * 2, cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace

// --data uniform must stay bit for bit what every committed report measured.
TEST(Inputs, UniformIsTheDocumentedHashBitForBit) {
  GEMMBENCH_REQUIRE_GPU();
  const int n = 1 << 16;
  const std::vector<float> h = fill_f32(n, 42, 1, DataDist::uniform);
  DeviceBuffer buf(n * 4);
  fill_uniform(buf.get(), DType::f32, n, 42, 1, nullptr);
  std::vector<float> legacy(n);
  CUDA_CHECK(cudaMemcpy(legacy.data(), buf.get(), n * 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h, legacy) << "fill_uniform is fill_inputs(uniform)";
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += double(h[i]) != 2.0 * host_u(42, 1, i) - 1.0;
  EXPECT_EQ(wrong, 0) << "2u - 1 is exact in f32 for 24-bit u";
}

// cutlass_profiler's default f16 data: integers uniform in [-3, 3], each of the 7 about 1/7.
TEST(Inputs, Int3AreSeededIntegersInMinusThreeThreeEachAboutOneSeventh) {
  GEMMBENCH_REQUIRE_GPU();
  const int n = 1 << 16;
  const std::vector<float> h = fill_f32(n, 42, 0, DataDist::int3);
  int counts[7] = {};
  int not_int = 0, off_model = 0;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const float x = h[i];
    if (!(x >= -3.0f && x <= 3.0f) || x != std::floor(x)) {
      ++not_int;
      continue;
    }
    ++counts[int(x) + 3];
    sum += x;
    off_model += double(x) != std::floor(7.0 * host_u(42, 0, i)) - 3.0;
  }
  ASSERT_EQ(not_int, 0) << "every value is an integer in [-3, 3]";
  EXPECT_EQ(off_model, 0) << "value = floor(7u) - 3";
  for (int v = -3; v <= 3; ++v) {
    EXPECT_GT(counts[v + 3], 0) << v << " never appears";
    // 1/7 of 2^16 is 9362 with a binomial sigma of 90: 5% is more than 5 sigma.
    EXPECT_NEAR(counts[v + 3], n / 7.0, 0.05 * n / 7.0) << v;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.05);  // sigma of the mean: 2 / 256

  EXPECT_EQ(fill_f32(n, 42, 0, DataDist::int3), h) << "the same seed gives the same data";
  EXPECT_NE(fill_f32(n, 43, 0, DataDist::int3), h) << "the seed changes the data";
  EXPECT_NE(fill_f32(n, 42, 1, DataDist::int3), h) << "each tensor has its own stream";

  // The same integers, exactly, in f16 and bf16 (bf16 is the top half of the f32 bits).
  const uint16_t f16_bits[7] = {0xC200, 0xC000, 0xBC00, 0x0000, 0x3C00, 0x4000, 0x4200};
  const std::vector<uint16_t> h16 = fill_16bit(DType::f16, n, 42, 0, DataDist::int3);
  const std::vector<uint16_t> hbf = fill_16bit(DType::bf16, n, 42, 0, DataDist::int3);
  int bad16 = 0, badbf = 0;
  for (int i = 0; i < n; ++i) {
    uint32_t f32_bits;
    std::memcpy(&f32_bits, &h[i], 4);
    bad16 += h16[i] != f16_bits[int(h[i]) + 3];
    badbf += hbf[i] != uint16_t(f32_bits >> 16);
  }
  EXPECT_EQ(bad16, 0) << "f16 holds the same integers";
  EXPECT_EQ(badbf, 0) << "bf16 holds the same integers";
}
