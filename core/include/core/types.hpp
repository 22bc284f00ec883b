// Vocabulary shared by every stage: element types, accumulate types, layouts and the problem.
//
// Layouts follow the BLAS column-major convention, C = alpha * op(A) * op(B) + beta * C with
// C an (M,N) column-major matrix (M contiguous, ldc = M). The first letter is op(A), the second
// op(B):
//   A 'N': stored (M,K) column-major, M contiguous, lda = M.   A 'T': stored (K,M), K contiguous,
//   lda = K. B 'N': stored (K,N) column-major, K contiguous, ldb = K.   B 'T': stored (N,K), N
//   contiguous, ldb = N.
// So TN is the layout where both operands are K-contiguous (seed 000's TN HGEMM).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gemmbench {

// FP8 inputs, for A and B: e4m3 (4 exponent bits, 3 mantissa bits, largest finite 448) and e5m2
// (5 exponent bits, 2 mantissa bits, largest finite 57344); A and B may differ (GemmProblem::
// dtype_b), except that no kernel or baseline multiplies e5m2 by e5m2 (fp8_pair_unsupported). C is
// `out` (bf16 by default), and the problem carries how the inputs were scaled (ScaleMode).
enum class DType { f32, f16, bf16, e4m3, e5m2 };
enum class Accum { f32, f16 };
enum class Layout { nn, nt, tn, tt };

// How FP8 inputs are scaled: the stored value q and its scale s give the number q * s.
//   tensor:   one f32 scale for A, one for B.
//   row:      one per row of op(A) (M of them) and one per column of op(B) (N).
//   block128: DeepSeek-V3's format: A (the activations) one per 1x128 slice along K
//             (M x ceil(K/128)), B (the weights) one per 128x128 block (ceil(N/128) x ceil(K/128)).
// none: not scaled (f32, f16, bf16 problems). FP8 problems are TN (A stored (K,M), B stored (K,N),
// both K-contiguous); the scales are f32 arrays, row-major in this order:
//   row:      scale_a[m], scale_b[n].
//   block128: scale_a[m * KB + kb], scale_b[nb * KB + kb], KB = ceil(K/128), nb = n / 128; a
//             partial last block (K or N not a multiple of 128) has its own scale.
enum class ScaleMode { none, tensor, row, block128 };

// The classic types (every kernel family and cublasGemmEx); FP8 is listed apart.
inline constexpr DType kAllDTypes[] = {DType::f32, DType::f16, DType::bf16};
inline constexpr DType kFp8DTypes[] = {DType::e4m3, DType::e5m2};
inline constexpr ScaleMode kFp8ScaleModes[] = {ScaleMode::tensor, ScaleMode::row,
                                               ScaleMode::block128};
inline constexpr Accum kAllAccums[] = {Accum::f32, Accum::f16};
inline constexpr Layout kAllLayouts[] = {Layout::nn, Layout::nt, Layout::tn, Layout::tt};

const char* to_string(DType d);
const char* to_string(Accum a);
const char* to_string(Layout l);
const char* to_string(ScaleMode m);
std::optional<DType> parse_dtype(std::string_view s);           // classic and FP8 names
std::optional<DType> parse_fp8_dtype(std::string_view s);       // e4m3, e5m2
std::optional<ScaleMode> parse_scale_mode(std::string_view s);  // tensor, row, block128
// The names --dtype accepts, for messages: "f32, f16, bf16, e4m3, e5m2".
const char* dtype_names();
// The names --dtype-b accepts (B's type, FP8 problems only): "e4m3, e5m2".
const char* fp8_dtype_names();
std::optional<Accum> parse_accum(std::string_view s);
std::optional<Layout> parse_layout(std::string_view s);

// Bytes of one element of the stored type.
int dtype_bytes(DType d);
constexpr bool is_fp8(DType d) {
  return d == DType::e4m3 || d == DType::e5m2;
}
// The largest finite value of an FP8 type (e4m3: 448, e5m2: 57344), the top of its scaled range.
double fp8_max(DType d);
// Why no FP8 GEMM of A type `a` and B type `b` runs, in one line, or empty: e5m2 x e5m2 is refused
// everywhere, since cuBLASLt has no such pair (on sm_90) and the row would have no baseline.
std::string fp8_pair_unsupported(DType a, DType b);
// C's default type for inputs of type d: d itself, bf16 for FP8 (what FP8 LLM layers write).
DType default_out(DType d);
// Output types an input type can write: d itself; FP8 inputs: bf16, f16 or f32.
bool out_valid_for(DType d, DType out);

// Accumulate types a dtype can be paired with; the first is the default.
bool accum_valid_for(DType d, Accum a);
Accum default_accum(DType d);

// op(A) = A^T: A is stored (K,M) with K contiguous.
constexpr bool a_is_k_major(Layout l) {
  return l == Layout::tn || l == Layout::tt;
}
// op(B) = B: B is stored (K,N) with K contiguous.
constexpr bool b_is_k_major(Layout l) {
  return l == Layout::nn || l == Layout::tn;
}

// How TFLOP/s are counted, as reports record it (cutlass_profiler counts 2*(M*N*K + M*N)).
inline constexpr const char* kFlopsConvention = "2*M*N*K per GEMM";

// Scales per operand in ScaleMode m (their count, f32 each), and the 128 of block128.
inline constexpr int64_t kScaleBlock = 128;
int64_t scale_count_a(ScaleMode m, int64_t rows_m, int64_t k);
int64_t scale_count_b(ScaleMode m, int64_t cols_n, int64_t k);
struct GemmProblem;
// The scales of p's op(A) and op(B): scale_count_a(p.scale, p.m, p.k) and scale_count_b(p.scale,
// p.n, p.k), each operand's the other's where p.blocks_on_a.
int64_t scale_count_a(const GemmProblem& p);
int64_t scale_count_b(const GemmProblem& p);

struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  Layout layout = Layout::nn;
  DType dtype = DType::f32;  // A, and B unless dtype_b says otherwise
  Accum accum = Accum::f32;
  double alpha = 1.0, beta = 0.0;
  // FP8 only (the defaults elsewhere): C's type, how A and B are scaled, and fast accumulation
  // (the tensor cores' own FP8 accumulator kept over all of K, no promotion to f32 registers).
  DType out = DType::f32;
  ScaleMode scale = ScaleMode::none;
  bool fast_accum = false;
  // FP8 only: B's type where it differs from A's (e4m3 x e5m2, e5m2 x e4m3); unset, B has A's
  // type. Read it through b_type(), which is the same for "unset" and "set to A's type".
  std::optional<DType> dtype_b;
  // block128 only: the 128x128 blocks on A and the 1x128 slices on B, the other way round from
  // the layout above. DeepSeek-V3's split puts the blocks on the weights, which a problem the
  // plan makes holds as B; one group of a grouped case computed as C_g^T = B_g A_g^T
  // (group_dense_problem, core/grouping.hpp) holds them as A. Only that function sets it: no
  // command line, config, report or kernel sees such a problem, only the fp64 reference and the
  // cuBLASLt baseline, which read each operand's scales by it (scale_count_a/b below).
  bool blocks_on_a = false;

  DType out_type() const { return is_fp8(dtype) ? out : dtype; }
  DType b_type() const { return is_fp8(dtype) ? dtype_b.value_or(dtype) : dtype; }
  // A's type, or "A x B" where B's differs: "f16", "e4m3", "e4m3xe5m2".
  std::string input_types() const;
  int64_t lda() const { return a_is_k_major(layout) ? k : m; }
  int64_t ldb() const { return b_is_k_major(layout) ? k : n; }
  int64_t ldc() const { return m; }
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }  // kFlopsConvention
  std::string shape_string() const;                                         // "MxNxK"
  // "f16/f32"; FP8: "e4m3/f32 tensor", "e4m3/f32 row fast", "e4m3/f32 block128 ->f16" (C not
  // bf16), "e4m3xe5m2/f32 tensor" (B's type not A's).
  std::string type_string() const;
  // FP8 only (empty otherwise): the format after the types, "row fast", "block128 ->f16".
  std::string fp8_format() const;
};

}  // namespace gemmbench
