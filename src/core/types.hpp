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

enum class DType { f32, f16, bf16 };
enum class Accum { f32, f16 };
enum class Layout { nn, nt, tn, tt };

inline constexpr DType kAllDTypes[] = {DType::f32, DType::f16, DType::bf16};
inline constexpr Accum kAllAccums[] = {Accum::f32, Accum::f16};
inline constexpr Layout kAllLayouts[] = {Layout::nn, Layout::nt, Layout::tn, Layout::tt};

const char* to_string(DType d);
const char* to_string(Accum a);
const char* to_string(Layout l);
std::optional<DType> parse_dtype(std::string_view s);
std::optional<Accum> parse_accum(std::string_view s);
std::optional<Layout> parse_layout(std::string_view s);

// Bytes of one element of the stored type (A, B and C share it).
int dtype_bytes(DType d);

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

struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  Layout layout = Layout::nn;
  DType dtype = DType::f32;
  Accum accum = Accum::f32;
  double alpha = 1.0, beta = 0.0;

  int64_t lda() const { return a_is_k_major(layout) ? k : m; }
  int64_t ldb() const { return b_is_k_major(layout) ? k : n; }
  int64_t ldc() const { return m; }
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }  // kFlopsConvention
  std::string shape_string() const;                                         // "MxNxK"
};

}  // namespace gemmbench
