#include "inspect/ldmatrix_model.hpp"

#include <stdexcept>

namespace gemmbench::inspect {

LdmatrixSpec standard_ldmatrix_spec(int num, bool trans) {
  LdmatrixSpec spec;
  spec.num = num;
  spec.trans = trans;
  for (int t = 0; t < 32; ++t) spec.row_of_thread[t] = t;
  return spec;
}

void validate_ldmatrix_spec(const LdmatrixSpec& spec) {
  if (spec.num != 1 && spec.num != 2 && spec.num != 4)
    throw std::invalid_argument("ldmatrix reads 1, 2 or 4 matrices, not " +
                                std::to_string(spec.num));
  for (int t = 0; t < 8 * spec.num; ++t)
    if (spec.row_of_thread[t] < 0 || spec.row_of_thread[t] >= kLdmatrixSmemRows)
      throw std::invalid_argument("thread " + std::to_string(t) + " points at smem row " +
                                  std::to_string(spec.row_of_thread[t]) + ", outside 0.." +
                                  std::to_string(kLdmatrixSmemRows - 1));
}

LdmatrixRegs ldmatrix_model(const LdmatrixSpec& spec) {
  validate_ldmatrix_spec(spec);

  // Value at row j, column c of matrix i: the smem element it was read from.
  auto value = [&](int i, int j, int c) -> uint32_t {
    return uint32_t(spec.row_of_thread[8 * i + j] * 8 + c);
  };
  LdmatrixRegs regs{};
  for (int t = 0; t < 32; ++t) {
    const int group = t / 4;       // row (or, transposed, column) of the 8x8 matrix
    const int pair = 2 * (t % 4);  // first of the two consecutive columns (or rows)
    for (int i = 0; i < spec.num; ++i) {
      const uint32_t lo = spec.trans ? value(i, pair, group) : value(i, group, pair);
      const uint32_t hi = spec.trans ? value(i, pair + 1, group) : value(i, group, pair + 1);
      regs[t][i] = lo | (hi << 16);
    }
  }
  return regs;
}

std::string ldmatrix_instruction(int num, bool trans) {
  return "ldmatrix.sync.aligned.m8n8.x" + std::to_string(num) + (trans ? ".trans" : "") +
         ".shared.b16";
}

}  // namespace gemmbench::inspect
