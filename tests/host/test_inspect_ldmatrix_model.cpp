// The host-side model of ldmatrix (src/inspect/ldmatrix_model.hpp) against seed 002's measured
// table, and the properties every variant must have.
#include <gtest/gtest.h>

#include <array>
#include <ostream>
#include <set>
#include <stdexcept>

#include "inspect/ldmatrix_model.hpp"

namespace gemmbench::inspect {
namespace {

// Seed 002 (002_680a571d4a2de217.txt), the printed output of ldmatrix.sync.aligned.m8n8.x4.trans
// .b16 on four 8x8 matrices holding 0..255, thread t pointing at row t: per thread, registers
// 0..3, each as (low half, high half). Transcribed from the article's text, not computed.
constexpr int kSeed002X4Trans[32][8] = {
    {0, 8, 64, 72, 128, 136, 192, 200},      // thread 0
    {16, 24, 80, 88, 144, 152, 208, 216},    // thread 1
    {32, 40, 96, 104, 160, 168, 224, 232},   // thread 2
    {48, 56, 112, 120, 176, 184, 240, 248},  // thread 3
    {1, 9, 65, 73, 129, 137, 193, 201},      // thread 4
    {17, 25, 81, 89, 145, 153, 209, 217},    // thread 5
    {33, 41, 97, 105, 161, 169, 225, 233},   // thread 6
    {49, 57, 113, 121, 177, 185, 241, 249},  // thread 7
    {2, 10, 66, 74, 130, 138, 194, 202},     // thread 8
    {18, 26, 82, 90, 146, 154, 210, 218},    // thread 9
    {34, 42, 98, 106, 162, 170, 226, 234},   // thread 10
    {50, 58, 114, 122, 178, 186, 242, 250},  // thread 11
    {3, 11, 67, 75, 131, 139, 195, 203},     // thread 12
    {19, 27, 83, 91, 147, 155, 211, 219},    // thread 13
    {35, 43, 99, 107, 163, 171, 227, 235},   // thread 14
    {51, 59, 115, 123, 179, 187, 243, 251},  // thread 15
    {4, 12, 68, 76, 132, 140, 196, 204},     // thread 16
    {20, 28, 84, 92, 148, 156, 212, 220},    // thread 17
    {36, 44, 100, 108, 164, 172, 228, 236},  // thread 18
    {52, 60, 116, 124, 180, 188, 244, 252},  // thread 19
    {5, 13, 69, 77, 133, 141, 197, 205},     // thread 20
    {21, 29, 85, 93, 149, 157, 213, 221},    // thread 21
    {37, 45, 101, 109, 165, 173, 229, 237},  // thread 22
    {53, 61, 117, 125, 181, 189, 245, 253},  // thread 23
    {6, 14, 70, 78, 134, 142, 198, 206},     // thread 24
    {22, 30, 86, 94, 150, 158, 214, 222},    // thread 25
    {38, 46, 102, 110, 166, 174, 230, 238},  // thread 26
    {54, 62, 118, 126, 182, 190, 246, 254},  // thread 27
    {7, 15, 71, 79, 135, 143, 199, 207},     // thread 28
    {23, 31, 87, 95, 151, 159, 215, 223},    // thread 29
    {39, 47, 103, 111, 167, 175, 231, 239},  // thread 30
    {55, 63, 119, 127, 183, 191, 247, 255},  // thread 31
};

TEST(LdmatrixModel, ReproducesSeed002X4TransTable) {
  const LdmatrixRegs regs = ldmatrix_model(standard_ldmatrix_spec(4, true));
  for (int t = 0; t < 32; ++t) {
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(lo_half(regs[t][i]), kSeed002X4Trans[t][2 * i]) << "thread " << t << " r" << i;
      EXPECT_EQ(hi_half(regs[t][i]), kSeed002X4Trans[t][2 * i + 1]) << "thread " << t << " r" << i;
    }
  }
}

struct Variant {
  int num;
  bool trans;
};

void PrintTo(const Variant& v, std::ostream* os) {
  *os << "x" << v.num << (v.trans ? ".trans" : "");
}

class LdmatrixVariant : public ::testing::TestWithParam<Variant> {};

// Every value of the matrices read lands in exactly one (thread, register, half), register i
// holds only matrix i, and registers at and above num stay 0.
TEST_P(LdmatrixVariant, EveryValueOnceAndRegisterIHoldsMatrixI) {
  const auto [num, trans] = GetParam();
  const LdmatrixRegs regs = ldmatrix_model(standard_ldmatrix_spec(num, trans));
  std::set<int> seen;
  for (int t = 0; t < 32; ++t) {
    for (int i = 0; i < 4; ++i) {
      if (i >= num) {
        EXPECT_EQ(regs[t][i], 0u) << "thread " << t << " r" << i;
        continue;
      }
      for (int v : {int(lo_half(regs[t][i])), int(hi_half(regs[t][i]))}) {
        EXPECT_EQ(v / 64, i) << "thread " << t << " r" << i << " holds " << v;
        EXPECT_TRUE(seen.insert(v).second) << v << " held twice";
      }
    }
  }
  EXPECT_EQ(int(seen.size()), 64 * num);
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), 64 * num - 1);
}

// Without .trans a register holds two neighbours of one row and the four threads of a quad
// together hold that row in order; with .trans it holds two neighbours of one column.
TEST_P(LdmatrixVariant, RowOrColumnPairs) {
  const auto [num, trans] = GetParam();
  const LdmatrixRegs regs = ldmatrix_model(standard_ldmatrix_spec(num, trans));
  for (int i = 0; i < num; ++i) {
    for (int t = 0; t < 32; ++t) {
      const int lo = lo_half(regs[t][i]), hi = hi_half(regs[t][i]);
      const int row = (lo % 64) / 8, col = lo % 8;
      if (!trans) {
        EXPECT_EQ(hi, lo + 1) << "thread " << t;
        EXPECT_EQ(row, t / 4) << "thread " << t;
        EXPECT_EQ(col, 2 * (t % 4)) << "thread " << t;
      } else {
        EXPECT_EQ(hi, lo + 8) << "thread " << t;
        EXPECT_EQ(col, t / 4) << "thread " << t;
        EXPECT_EQ(row, 2 * (t % 4)) << "thread " << t;
      }
    }
  }
}

// .trans on a matrix gives what the plain load gives on its transpose: transposing each value's
// position turns the .trans registers into the plain ones.
TEST_P(LdmatrixVariant, TransIsPlainLoadOfTranspose) {
  const int num = GetParam().num;
  const LdmatrixRegs plain = ldmatrix_model(standard_ldmatrix_spec(num, false));
  const LdmatrixRegs trans = ldmatrix_model(standard_ldmatrix_spec(num, true));
  auto transpose = [](int v) { return (v / 64) * 64 + (v % 8) * 8 + (v % 64) / 8; };
  for (int t = 0; t < 32; ++t) {
    for (int i = 0; i < num; ++i) {
      EXPECT_EQ(transpose(lo_half(trans[t][i])), lo_half(plain[t][i])) << "thread " << t;
      EXPECT_EQ(transpose(hi_half(trans[t][i])), hi_half(plain[t][i])) << "thread " << t;
    }
  }
}

// .x1 and .x2 give the first registers of .x4 (same addresses for the threads they use).
TEST_P(LdmatrixVariant, PrefixOfX4) {
  const auto [num, trans] = GetParam();
  const LdmatrixRegs regs = ldmatrix_model(standard_ldmatrix_spec(num, trans));
  const LdmatrixRegs x4 = ldmatrix_model(standard_ldmatrix_spec(4, trans));
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < num; ++i) EXPECT_EQ(regs[t][i], x4[t][i]) << "thread " << t << " r" << i;
}

// Matrix i row j is the row thread 8i+j points at, wherever that is; threads at and above
// 8*num are ignored.
TEST_P(LdmatrixVariant, RowsFollowTheThreadsAddresses) {
  const auto [num, trans] = GetParam();
  LdmatrixSpec spec = standard_ldmatrix_spec(num, trans);
  for (int t = 0; t < 32; ++t)
    spec.row_of_thread[t] = t < 8 * num ? (5 * t + 3) % (8 * num) : 31 - (t % 8);
  const LdmatrixRegs regs = ldmatrix_model(spec);
  for (int t = 0; t < 32; ++t) {
    for (int i = 0; i < num; ++i) {
      const int j = trans ? 2 * (t % 4) : t / 4;  // matrix row of the low half
      const int c = trans ? t / 4 : 2 * (t % 4);  // matrix column of the low half
      EXPECT_EQ(lo_half(regs[t][i]), spec.row_of_thread[8 * i + j] * 8 + c) << "thread " << t;
      const int j_hi = trans ? j + 1 : j, c_hi = trans ? c : c + 1;
      EXPECT_EQ(hi_half(regs[t][i]), spec.row_of_thread[8 * i + j_hi] * 8 + c_hi) << "thread " << t;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, LdmatrixVariant,
                         ::testing::Values(Variant{1, false}, Variant{2, false}, Variant{4, false},
                                           Variant{1, true}, Variant{2, true}, Variant{4, true}),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return "x" + std::to_string(info.param.num) +
                                  (info.param.trans ? "_trans" : "");
                         });

TEST(LdmatrixModel, PlainX1TableStart) {
  // The PTX ISA's fragment for .x1: thread t holds row t/4, columns 2(t%4) and 2(t%4)+1.
  const LdmatrixRegs regs = ldmatrix_model(standard_ldmatrix_spec(1, false));
  EXPECT_EQ(regs[0][0], 0u | (1u << 16));
  EXPECT_EQ(regs[5][0], 10u | (11u << 16));
  EXPECT_EQ(regs[31][0], 62u | (63u << 16));
}

TEST(LdmatrixModel, RejectsBadSpecs) {
  EXPECT_THROW(ldmatrix_model(standard_ldmatrix_spec(3, false)), std::invalid_argument);
  EXPECT_THROW(ldmatrix_model(standard_ldmatrix_spec(8, true)), std::invalid_argument);
  LdmatrixSpec spec = standard_ldmatrix_spec(1, false);
  spec.row_of_thread[7] = kLdmatrixSmemRows;
  EXPECT_THROW(ldmatrix_model(spec), std::invalid_argument);
  spec.row_of_thread[7] = 7;
  spec.row_of_thread[8] = -1;  // thread 8's address is ignored by .x1
  EXPECT_NO_THROW(ldmatrix_model(spec));
}

TEST(LdmatrixModel, InstructionName) {
  EXPECT_EQ(ldmatrix_instruction(4, true), "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16");
  EXPECT_EQ(ldmatrix_instruction(1, false), "ldmatrix.sync.aligned.m8n8.x1.shared.b16");
}

}  // namespace
}  // namespace gemmbench::inspect
