// The ldmatrix model (src/inspect/ldmatrix_model.hpp) against the hardware: every variant
// (.x1/.x2/.x4, with and without .trans), run through kernels/common/ptx.cuh's wrappers by
// src/inspect/ldmatrix_device.cu. Skips, saying why, where no CUDA device is usable.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "inspect/inspect.hpp"
#include "inspect/ldmatrix_device.hpp"
#include "inspect/ldmatrix_model.hpp"

namespace gemmbench::inspect {
namespace {

#define SKIP_WITHOUT_DEVICE()                                              \
  do {                                                                     \
    if (const std::string why = device_unavailable_reason(); !why.empty()) \
      GTEST_SKIP() << "no CUDA device: " << why;                           \
  } while (0)

// Register by register, with both halves decoded, so a mismatch says which rule broke.
void expect_same(const LdmatrixRegs& hw, const LdmatrixRegs& model, const std::string& what) {
  int mismatches = 0;
  for (int t = 0; t < 32; ++t) {
    for (int i = 0; i < 4; ++i) {
      if (hw[t][i] == model[t][i]) continue;
      if (++mismatches > 16) continue;  // enough to see the pattern
      ADD_FAILURE() << what << ": thread " << t << " r" << i << " hardware (" << lo_half(hw[t][i])
                    << ", " << hi_half(hw[t][i]) << ") model (" << lo_half(model[t][i]) << ", "
                    << hi_half(model[t][i]) << ")";
    }
  }
  EXPECT_EQ(mismatches, 0) << what;
}

struct Variant {
  int num;
  bool trans;
};

void PrintTo(const Variant& v, std::ostream* os) {
  *os << "x" << v.num << (v.trans ? ".trans" : "");
}

class LdmatrixOnDevice : public ::testing::TestWithParam<Variant> {};

// Seed 002's setup: thread t points at row t, the matrices hold 0..64*num-1.
TEST_P(LdmatrixOnDevice, StandardAddressesMatchModel) {
  SKIP_WITHOUT_DEVICE();
  const auto [num, trans] = GetParam();
  const LdmatrixSpec spec = standard_ldmatrix_spec(num, trans);
  expect_same(run_ldmatrix_on_device(spec), ldmatrix_model(spec), ldmatrix_instruction(num, trans));
}

// Rows scattered over shared memory (a permutation no identity mapping can pass), and the
// threads whose addresses the instruction ignores pointing at rows it must not read.
TEST_P(LdmatrixOnDevice, ScatteredAddressesMatchModel) {
  SKIP_WITHOUT_DEVICE();
  const auto [num, trans] = GetParam();
  LdmatrixSpec spec = standard_ldmatrix_spec(num, trans);
  for (int t = 0; t < 32; ++t)
    spec.row_of_thread[t] = t < 8 * num ? (5 * t + 3) % (8 * num) : 31 - (t % 8);
  expect_same(run_ldmatrix_on_device(spec), ldmatrix_model(spec),
              ldmatrix_instruction(num, trans) + " scattered rows");

  // Every row of the array, in an order that mixes the matrices (.x4 only reads all 32).
  for (int t = 0; t < 32; ++t) spec.row_of_thread[t] = (7 * t + 11) % 32;
  expect_same(run_ldmatrix_on_device(spec), ldmatrix_model(spec),
              ldmatrix_instruction(num, trans) + " rows (7t+11)%32");
}

INSTANTIATE_TEST_SUITE_P(AllVariants, LdmatrixOnDevice,
                         ::testing::Values(Variant{1, false}, Variant{2, false}, Variant{4, false},
                                           Variant{1, true}, Variant{2, true}, Variant{4, true}),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return "x" + std::to_string(info.param.num) +
                                  (info.param.trans ? "_trans" : "");
                         });

// Seed 002's printed table, straight from the hardware (first and last thread).
TEST(LdmatrixOnDevice, Seed002X4TransCorners) {
  SKIP_WITHOUT_DEVICE();
  const LdmatrixRegs regs = run_ldmatrix_on_device(standard_ldmatrix_spec(4, true));
  EXPECT_EQ(lo_half(regs[0][0]), 0);
  EXPECT_EQ(hi_half(regs[0][0]), 8);
  EXPECT_EQ(lo_half(regs[0][3]), 192);
  EXPECT_EQ(hi_half(regs[0][3]), 200);
  EXPECT_EQ(lo_half(regs[31][0]), 55);
  EXPECT_EQ(hi_half(regs[31][0]), 63);
  EXPECT_EQ(lo_half(regs[31][3]), 247);
  EXPECT_EQ(hi_half(regs[31][3]), 255);
}

// The command main() runs (inspect.hpp's hook), on the GPU: exit 0 and the hardware agrees.
TEST(LdmatrixOnDevice, InspectCommandRunsOnGpu) {
  SKIP_WITHOUT_DEVICE();
  CLI::App app{"gemmbench"};
  const std::function<int()> command = add_subcommand(app);
  app.parse("inspect ldmatrix --trans --json", false);
  ::testing::internal::CaptureStdout();
  const int code = command();
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["source"], "gpu");
  EXPECT_EQ(j["matches_model"], true);
}

}  // namespace
}  // namespace gemmbench::inspect
