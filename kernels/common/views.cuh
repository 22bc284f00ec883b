// Strided views of the operands in any layout, for kernels that index elements one at a time
// (the bottom rungs). See core/include/core/types.hpp for the layout convention.
#pragma once

#include "core/types.hpp"

namespace gemmbench {

template <class T>
struct StridedView {
  T* ptr;
  int row_stride;  // elements between (r, c) and (r + 1, c)
  int col_stride;  // elements between (r, c) and (r, c + 1)
  __device__ __forceinline__ T& operator()(int r, int c) const {
    return ptr[static_cast<long long>(r) * row_stride + static_cast<long long>(c) * col_stride];
  }
};

// op(A) as an (M,K) view.
template <class T>
StridedView<T> view_a(const GemmProblem& p, T* a) {
  const int ld = static_cast<int>(p.lda());
  return a_is_k_major(p.layout) ? StridedView<T>{a, ld, 1} : StridedView<T>{a, 1, ld};
}
// op(B) as a (K,N) view.
template <class T>
StridedView<T> view_b(const GemmProblem& p, T* b) {
  const int ld = static_cast<int>(p.ldb());
  return b_is_k_major(p.layout) ? StridedView<T>{b, 1, ld} : StridedView<T>{b, ld, 1};
}
// C as an (M,N) column-major view.
template <class T>
StridedView<T> view_c(const GemmProblem& p, T* c) {
  return StridedView<T>{c, 1, static_cast<int>(p.ldc())};
}

}  // namespace gemmbench
