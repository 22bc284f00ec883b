// One switch from a run-time Layout to the compile-time major modes of the two operands, for
// kernels templated on them (A_K_MAJOR, B_K_MAJOR): f(a_k_major, b_k_major) is called with
// std::true_type / std::false_type, so each layout instantiates the kernel once.
#pragma once

#include <type_traits>

#include "core/types.hpp"

namespace gemmbench {

template <class F>
void dispatch_layout(Layout l, F&& f) {
  static_assert(!a_is_k_major(Layout::nn) && b_is_k_major(Layout::nn) &&
                    !a_is_k_major(Layout::nt) && !b_is_k_major(Layout::nt) &&
                    a_is_k_major(Layout::tn) && b_is_k_major(Layout::tn) &&
                    a_is_k_major(Layout::tt) && !b_is_k_major(Layout::tt),
                "the cases below must agree with a_is_k_major / b_is_k_major");
  switch (l) {
    case Layout::nn:
      return f(std::false_type{}, std::true_type{});
    case Layout::nt:
      return f(std::false_type{}, std::false_type{});
    case Layout::tn:
      return f(std::true_type{}, std::true_type{});
    case Layout::tt:
      return f(std::true_type{}, std::false_type{});
  }
}

}  // namespace gemmbench
