// Index math of hgemm_decode (kernels/hgemm/decode.cu), shared by the kernel and its host test
// (tests/host/test_decode_schedule.cpp): one implementation (docs/contributing.md#kernels).
//
// Work. The weight matrix W (N,K), K-contiguous (GemmArgs::b in TN), is cut into tiles of BN
// rows; a tile's K extent into KT k-tiles of BK columns. A unit is one (tile, k-tile) pair,
// numbered tile-major, u = tile * KT + kt, so consecutive units walk K inside a tile first. The
// grid has CTAS CTAs (at most what is resident at once, at most one per unit) and CTA p owns the
// contiguous units [p*U/CTAS, (p+1)*U/CTAS): every CTA streams the same number of weight bytes
// within one unit (stream-K), whatever N, K and the SM count are.
//
// Fixup. A tile whose units all belong to one CTA is written by that CTA straight from its
// registers. A tile split between CTAs (its contributors, consecutive CTAs first_cta..last_cta,
// in K order) is summed deterministically: each contributor stores its f32 partial in its own
// workspace slot, counts itself in the tile's counter, and the last to arrive adds the partials
// in contributor order (never arrival order) and runs the epilogue. A CTA contributes partials to
// at most two tiles, its first and its last, so slot 2p (first tile) and 2p+1 (last tile) give
// every partial a place of its own: 2 * CTAS slots in all.
//
// Shared memory. A stage holds BN weight rows and 8*MT token rows of BK halves each, K
// contiguous, copied in 16-byte chunks (8 halves); chunk c of row r is stored at chunk
// c ^ 4*(r & 1) of that row. The mma fragments are read with one 16-byte load per lane (see
// frag_k below): the 8 lanes of one shared-memory phase read rows g and g+1 (g even), chunks
// 4q..4q+3 of each, and the XOR puts the odd row in the other half of the 128-byte bank line,
// so the 8 loads hit 32 distinct banks.
#pragma once

#include <cstdint>

#include "common/hd.hpp"

namespace gemmbench::hgemm::decode {

struct Schedule {
  int64_t tiles = 0;  // ceil(N / BN)
  int64_t kt = 0;     // k-tiles per tile, ceil(K / BK) (at least 1: K = 0 runs one empty k-tile)
  int64_t units = 0;  // tiles * kt
  int64_t ctas = 0;   // grid size, 1 <= ctas <= units

  // First unit of CTA p (p in [0, ctas]; p = ctas gives the end of the last range).
  GB_HD int64_t unit_begin(int64_t p) const { return p * units / ctas; }
  // The CTA whose range holds unit u: the largest p with unit_begin(p) <= u.
  GB_HD int64_t owner(int64_t u) const { return ((u + 1) * ctas - 1) / units; }
  GB_HD int64_t first_cta(int64_t tile) const { return owner(tile * kt); }
  GB_HD int64_t last_cta(int64_t tile) const { return owner((tile + 1) * kt - 1); }
  GB_HD int64_t first_tile(int64_t p) const { return unit_begin(p) / kt; }
  // Workspace slot of contributor p's partial sum of a split tile.
  GB_HD int64_t slot(int64_t p, int64_t tile) const {
    return 2 * p + (tile == first_tile(p) ? 0 : 1);
  }
  GB_HD int64_t slots() const { return 2 * ctas; }
};

// max_ctas: CTAs resident at once on the device (blocks per SM x SMs); more would only queue.
GB_HD Schedule make_schedule(int64_t n, int64_t k, int bn, int bk, int64_t max_ctas) {
  Schedule s;
  s.tiles = (n + bn - 1) / bn;
  s.kt = k > 0 ? (k + bk - 1) / bk : 1;
  s.units = s.tiles * s.kt;
  s.ctas = max_ctas < s.units ? max_ctas : s.units;
  if (s.ctas < 1) s.ctas = 1;
  return s;
}

// Offset in 16-byte chunks of chunk `chunk` (8 halves of K) of row `row` within one operand
// tile of a stage whose rows are BK halves long.
template <int BK>
GB_HD int chunk_offset(int row, int chunk) {
  static_assert(BK % 64 == 0, "rows must be whole 128-byte bank lines for the XOR swizzle");
  return row * (BK / 8) + (chunk ^ ((row & 1) << 2));
}

// Fragment k permutation. Lane (g = lane/4, t = lane%4) loads 16 bytes, halves 8t..8t+7 of a
// 32-wide k group, from one weight row and one token row; 32-bit register r of that load holds
// halves 8t+2r, 8t+2r+1. The two m16n8k16 steps h = 0, 1 of the group take registers
// {2h, 2h+1} as the (k 2t..2t+1, k 2t+8..2t+9) pairs that ptx.cuh's fragment layout asks for
// (a0/a2 of row g, a1/a3 of row g+8, b0/b1 of token g). So the mma's logical k index j (0..15)
// of step h is physical k frag_k(h, j) of the group; A and B agree on it, and since it is a
// bijection of 0..31 the sum over the group is the plain dot product.
GB_HD constexpr int frag_reg(int h, int upper) {
  return 2 * h + upper;
}
GB_HD constexpr int frag_k(int h, int j) {
  return 8 * ((j % 8) / 2) + 2 * frag_reg(h, j / 8) + j % 2;
}

// Accumulator element i (0..3) of a lane's m16n8 fragment of 16-row weight slab `slab` (counted
// over the CTA: warp * SLABS + s) and token tile j sits at CTA row frag_row and token frag_token
// (ptx.cuh's C/D layout: c0, c1 = (g, 2t..2t+1), c2, c3 = (g+8, 2t..2t+1)).
GB_HD constexpr int frag_row(int slab, int lane, int i) {
  return slab * 16 + lane / 4 + 8 * (i / 2);
}
GB_HD constexpr int frag_token(int j, int lane, int i) {
  return 8 * j + 2 * (lane % 4) + i % 2;
}
// A workspace slot holds a CTA's partial tile in fragment order: float4 number
// partial_index(slab, j, lane) is the four accumulators of that lane's fragment (slab, j), so
// every thread stores and the reducer reads 16-byte pieces. partial_slab / partial_j /
// partial_lane invert it.
template <int MT>
GB_HD constexpr int partial_index(int slab, int j, int lane) {
  return (slab * MT + j) * 32 + lane;
}
template <int MT>
GB_HD constexpr int partial_slab(int e) {
  return e / (32 * MT);
}
template <int MT>
GB_HD constexpr int partial_j(int e) {
  return (e / 32) % MT;
}
GB_HD constexpr int partial_lane(int e) {
  return e % 32;
}

}  // namespace gemmbench::hgemm::decode
