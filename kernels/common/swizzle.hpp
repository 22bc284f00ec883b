// CuTe's Swizzle<B,M,S> on a linear shared-memory offset (in elements), shared by the kernels
// and `gemmbench inspect swizzle`.
//
// The offset's bits [M+S, M+S+B) (the "row" bits) are XORed into bits [M, M+B) (the "column"
// chunk bits); the low M bits (the 2^M elements of one vector access) are untouched. For half
// and Swizzle<3,3,3>: 8-element (16-byte) chunks, 64-element (128-byte) rows; row r's chunk c
// lands in chunk c ^ (r % 8), so the 8 rows an ldmatrix 8x8 reads hit 8 different 16-byte
// bank groups.
#pragma once

#include "common/hd.hpp"

namespace gemmbench {

GB_HD int swizzle_offset(int offset, int bits_b, int base_m, int shift_s) {
  const int yyy_mask = ((1 << bits_b) - 1) << (base_m + shift_s);
  return offset ^ ((offset & yyy_mask) >> shift_s);
}

template <int B, int M, int S>
struct Swizzle {
  static_assert(B >= 0 && M >= 0 && S >= B,
                "Swizzle<B,M,S> needs S >= B so the XORed bit ranges do not overlap");
  GB_HD static int apply(int offset) { return swizzle_offset(offset, B, M, S); }
};

}  // namespace gemmbench
