#include "verify/tolerance.hpp"

#include <algorithm>
#include <cmath>

namespace gemmbench {

double unit_roundoff(DType d) {
  switch (d) {
    case DType::f32:
      return std::ldexp(1.0, -24);
    case DType::f16:
      return std::ldexp(1.0, -11);
    case DType::bf16:
      return std::ldexp(1.0, -8);
    case DType::e4m3:
      return std::ldexp(1.0, -4);
    case DType::e5m2:
      return std::ldexp(1.0, -3);
  }
  return 1.0;
}

double unit_roundoff(Accum a) {
  return a == Accum::f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -11);
}

double verification_tolerance(DType dtype, Accum accum, int64_t k) {
  return 2.0 * unit_roundoff(dtype) + unit_roundoff(accum) * std::sqrt(double(k));
}

double verification_tolerance(const GemmProblem& p) {
  if (!is_fp8(p.dtype)) return verification_tolerance(p.dtype, p.accum, p.k);
  const double kept = double(p.fast_accum ? p.k : std::min(p.k, kFp8PromoteK));
  return 2.0 * unit_roundoff(p.out_type()) + std::ldexp(1.0, -14) * std::sqrt(kept) +
         unit_roundoff(Accum::f32) * std::sqrt(double(p.k));
}

bool verification_passed(const ErrorStats& e) {
  // Written so that a NaN normwise error fails: NaN <= tol is false.
  return e.computed && e.nonfinite == 0 && e.normwise <= e.tolerance;
}

}  // namespace gemmbench
