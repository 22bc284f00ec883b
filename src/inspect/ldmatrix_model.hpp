// Host-side model of ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16: which b16 values
// each thread of the warp receives in each register. A pure function, so `inspect ldmatrix
// --model` runs without a GPU and tests/gpu/test_inspect_ldmatrix compares it to the hardware.
//
// The experiment (seed 002): shared memory holds kLdmatrixSmemRows rows of 8 b16 values, row-major,
// the element at (row r, column c) holding the value 8*r + c, so every value names its own
// position. Thread t supplies the address of row row_of_thread[t]; the hardware reads matrix i
// from the rows that threads 8i..8i+7 point at (matrix i row j = smem row row_of_thread[8i+j]).
// Threads at and above 8*num give addresses the instruction ignores (sm_80+).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace gemmbench::inspect {

inline constexpr int kLdmatrixSmemRows = 32;  // (32,8) b16 smem, row-major, 16 B rows

struct LdmatrixSpec {
  int num = 4;                          // matrices per instruction: 1, 2 or 4 (.x1/.x2/.x4)
  bool trans = false;                   // .trans
  std::array<int, 32> row_of_thread{};  // smem row (0..31) whose address thread t supplies
};

// [thread][register]: register i holds two b16 values, the low half first; registers at and
// above num are 0.
using LdmatrixRegs = std::array<std::array<uint32_t, 4>, 32>;

// Seed 002's addressing: thread t points at smem row t, so matrix i holds the values
// 64*i .. 64*i+63 (0..N-1 with N = 64*num, over the matrices the instruction reads).
LdmatrixSpec standard_ldmatrix_spec(int num, bool trans);

// Throws std::invalid_argument for a num other than 1, 2, 4 or a row outside
// 0..kLdmatrixSmemRows-1 among the threads the instruction uses (threads 0..8*num-1).
void validate_ldmatrix_spec(const LdmatrixSpec& spec);

// What the instruction puts in each register (validates the spec first).
//   no .trans: thread t, register i = (M_i[t/4][2(t%4)], M_i[t/4][2(t%4)+1])
//   .trans:    thread t, register i = (M_i[2(t%4)][t/4], M_i[2(t%4)+1][t/4])
// where M_i[j][c] is the value at column c of the row thread 8i+j points at.
LdmatrixRegs ldmatrix_model(const LdmatrixSpec& spec);

// "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" for the spec's variant.
std::string ldmatrix_instruction(int num, bool trans);

inline uint16_t lo_half(uint32_t reg) {
  return uint16_t(reg & 0xffffu);
}
inline uint16_t hi_half(uint32_t reg) {
  return uint16_t(reg >> 16);
}

}  // namespace gemmbench::inspect
