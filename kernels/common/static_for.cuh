// static_for<N>(f): f(std::integral_constant<int, i>{}) for i = 0 .. N-1, in order. A loop whose
// index is a compile-time constant in the body, so register arrays indexed by it stay in
// registers and a template argument may depend on it (the Hopper kernel's epilogue boxes).
#pragma once

#include <type_traits>
#include <utility>

namespace gemmbench {

template <class F, int... I>
__device__ __forceinline__ void static_for_impl(F&& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
__device__ __forceinline__ void static_for(F&& f) {
  static_for_impl(f, std::make_integer_sequence<int, N>{});
}

}  // namespace gemmbench
