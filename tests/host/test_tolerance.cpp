#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "verify/tolerance.hpp"

using namespace gemmbench;

TEST(Tolerance, GrowsWithKAndPrecision) {
  for (int64_t k : {1, 64, 4096}) {
    EXPECT_LT(verification_tolerance(DType::f32, Accum::f32, k),
              verification_tolerance(DType::f16, Accum::f32, k));
    EXPECT_LT(verification_tolerance(DType::f16, Accum::f32, k),
              verification_tolerance(DType::f16, Accum::f16, k));
    EXPECT_LT(verification_tolerance(DType::f16, Accum::f32, k),
              verification_tolerance(DType::bf16, Accum::f32, k));
  }
  EXPECT_LT(verification_tolerance(DType::f32, Accum::f32, 64),
            verification_tolerance(DType::f32, Accum::f32, 4096));
}

TEST(Tolerance, DocumentedValues) {
  // tol = 2*u_out + u_acc*sqrt(K), as README.md and tolerance.hpp state.
  EXPECT_NEAR(verification_tolerance(DType::f32, Accum::f32, 4096), 2 * 0x1p-24 + 0x1p-24 * 64,
              1e-15);
  EXPECT_NEAR(verification_tolerance(DType::f16, Accum::f16, 4096), 2 * 0x1p-11 + 0x1p-11 * 64,
              1e-12);
  EXPECT_NEAR(verification_tolerance(DType::bf16, Accum::f32, 1), 2 * 0x1p-8 + 0x1p-24, 1e-12);
}

TEST(Tolerance, RejectsADroppedKTile) {
  // Dropping 64 of 4096 products leaves a relative error near sqrt(64/4096) = 0.125.
  for (auto [d, a] : {std::pair{DType::f32, Accum::f32}, std::pair{DType::f16, Accum::f16},
                      std::pair{DType::f16, Accum::f32}, std::pair{DType::bf16, Accum::f32}})
    EXPECT_LT(verification_tolerance(d, a, 4096), 0.125 / 2) << to_string(d) << "/" << to_string(a);
}

TEST(Tolerance, PassRequiresFiniteAndBelowBound) {
  ErrorStats e;
  e.computed = true;
  e.tolerance = 1e-3;
  e.normwise = 5e-4;
  EXPECT_TRUE(verification_passed(e));
  e.normwise = 2e-3;
  EXPECT_FALSE(verification_passed(e));
  e.normwise = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(verification_passed(e)) << "NaN > tol is false: a NaN error must still fail";
  e.normwise = 0;
  e.nonfinite = 1;
  EXPECT_FALSE(verification_passed(e));
  ErrorStats not_run;
  EXPECT_FALSE(verification_passed(not_run));
}
