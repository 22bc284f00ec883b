// hgemm_decode's index math (kernels/hgemm/decode_schedule.hpp) replayed on the host: the
// stream-K walk exactly as the kernel runs it, the split-tile fixup's contributors and workspace
// slots, the shared-memory chunk swizzle, and one warp's mma fragments against a plain product.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "hgemm/decode_schedule.hpp"

namespace gemmbench::hgemm::decode {
namespace {

// What one CTA does at the end of a tile, as the kernel's mainloop decides it.
struct Finish {
  int64_t cta;
  int tile;
  int64_t units;  // this CTA's units of the tile
};

// The kernel's walk: (tile, k-tile) counters from unit_begin, a tile finished when its k-tiles
// run out or the CTA's units do. Marks every unit in `seen`.
std::vector<Finish> walk(const Schedule& s, std::vector<int>& seen) {
  std::vector<Finish> out;
  const int kt = int(s.kt);
  for (int64_t p = 0; p < s.ctas; ++p) {
    const int64_t u_begin = s.unit_begin(p);
    const int units = int(s.unit_begin(p + 1) - u_begin);
    EXPECT_GE(units, 1) << "CTA " << p << " has no work";
    const int tile_begin = int(u_begin / kt), kt_begin = int(u_begin - int64_t(tile_begin) * kt);
    // The copy counters (load_next) must visit the same units as the mma counters.
    int load_tile = tile_begin, load_kt = kt_begin;
    int cur_tile = tile_begin, cur_kt = kt_begin;
    int64_t in_tile = 0;
    for (int i = 0; i < units; ++i) {
      // Plain ifs: this runs millions of times over the shape grid.
      if (load_tile != cur_tile || load_kt != cur_kt) ADD_FAILURE() << "copy and mma walks differ";
      if (++load_kt == kt) load_kt = 0, ++load_tile;
      const int64_t u = int64_t(cur_tile) * kt + cur_kt;
      if (u != u_begin + i) ADD_FAILURE() << "the counters drifted from the unit index " << u;
      if (s.owner(u) != p) ADD_FAILURE() << "owner(" << u << ") != " << p;
      ++seen.at(size_t(u));
      ++in_tile;
      if (++cur_kt == kt || i + 1 == units) {
        out.push_back({p, cur_tile, in_tile});
        in_tile = 0;
        cur_kt = 0;
        ++cur_tile;
      }
    }
  }
  return out;
}

void check_schedule(int64_t n, int64_t k, int bn, int bk, int64_t max_ctas) {
  SCOPED_TRACE("N=" + std::to_string(n) + " K=" + std::to_string(k) + " BN=" + std::to_string(bn) +
               " BK=" + std::to_string(bk) + " max_ctas=" + std::to_string(max_ctas));
  const Schedule s = make_schedule(n, k, bn, bk, max_ctas);
  ASSERT_EQ(s.tiles, (n + bn - 1) / bn);
  ASSERT_EQ(s.kt, std::max<int64_t>(1, (k + bk - 1) / bk));
  ASSERT_GE(s.ctas, 1);
  ASSERT_LE(s.ctas, std::min(max_ctas, s.units));
  EXPECT_EQ(s.unit_begin(0), 0);
  EXPECT_EQ(s.unit_begin(s.ctas), s.units);
  // Balanced: every CTA streams floor or ceil of units / ctas.
  for (int64_t p = 0; p < s.ctas; ++p) {
    const int64_t c = s.unit_begin(p + 1) - s.unit_begin(p);
    EXPECT_TRUE(c == s.units / s.ctas || c == (s.units + s.ctas - 1) / s.ctas) << "CTA " << p;
  }

  std::vector<int> seen(size_t(s.units), 0);
  const std::vector<Finish> fin = walk(s, seen);
  for (int64_t u = 0; u < s.units; ++u)
    if (seen[size_t(u)] != 1) FAIL() << "unit " << u << " covered " << seen[size_t(u)] << " times";

  std::map<int, std::vector<Finish>> by_tile;
  for (const Finish& f : fin) by_tile[f.tile].push_back(f);
  ASSERT_EQ(int64_t(by_tile.size()), s.tiles) << "every tile is finished by someone";
  std::set<int64_t> slots_written;
  for (const auto& [tile, fs] : by_tile) {
    const int64_t first = s.first_cta(tile), last = s.last_cta(tile);
    ASSERT_EQ(int64_t(fs.size()), last - first + 1) << "tile " << tile << ": contributors";
    int64_t units = 0;
    for (size_t i = 0; i < fs.size(); ++i) {
      EXPECT_EQ(fs[i].cta, first + int64_t(i)) << "contributors are consecutive CTAs";
      units += fs[i].units;
    }
    EXPECT_EQ(units, s.kt) << "tile " << tile << " gets all its k-tiles";
    if (first == last) continue;  // whole: straight from registers, no slot
    for (const Finish& f : fs) {
      const int64_t slot = s.slot(f.cta, tile);
      EXPECT_GE(slot, 2 * f.cta);
      EXPECT_LT(slot, 2 * f.cta + 2);
      EXPECT_LT(slot, s.slots());
      EXPECT_TRUE(slots_written.insert(slot).second) << "slot " << slot << " written twice";
    }
  }
}

TEST(DecodeSchedule, CoversEveryUnitOnceAndEverySplitTileHasDistinctSlots) {
  const int64_t ns[] = {1, 3, 8, 63, 64, 65, 127, 129, 1000, 2112, 4096, 6144, 7168};
  const int64_t ks[] = {0, 8, 64, 72, 128, 136, 512, 1000, 1536, 4096, 7168};
  const int tiles[][2] = {{64, 128}, {128, 64}};
  const int64_t ctas[] = {1, 2, 7, 132, 264, 396, 528};
  for (int64_t n : ns)
    for (int64_t k : ks)
      for (const auto& t : tiles)
        for (int64_t c : ctas) check_schedule(n, k, t[0], t[1], c);
}

TEST(DecodeSchedule, LlamaAndDeepSeekDecodeShapes) {
  const int64_t nk[][2] = {{6144, 4096}, {4096, 4096},  {28672, 4096}, {4096, 14336}, {10240, 8192},
                           {8192, 8192}, {57344, 8192}, {8192, 28672}, {2112, 7168},  {24576, 1536},
                           {32768, 512}, {7168, 16384}, {4096, 7168},  {7168, 2048}};
  for (const auto& s : nk) {
    check_schedule(s[0], s[1], 64, 128, 132 * 4);
    check_schedule(s[0], s[1], 64, 128, 132 * 3);
    check_schedule(s[0], s[1], 128, 64, 132 * 2);
    check_schedule(s[0], s[1], 128, 64, 132);
  }
}

TEST(DecodeSchedule, OneCtaOwnsWholeTilesWhenTheUnitsDivideEvenly) {
  // 8 tiles of 4 k-tiles on 4 CTAs: 2 whole tiles each, nothing to fix up.
  const Schedule s = make_schedule(8 * 64, 4 * 128, 64, 128, 4);
  for (int64_t t = 0; t < s.tiles; ++t) EXPECT_EQ(s.first_cta(t), s.last_cta(t));
  // 1 tile on 4 CTAs: four contributors, each its own slot 2p.
  const Schedule one = make_schedule(64, 4 * 128, 64, 128, 4);
  EXPECT_EQ(one.first_cta(0), 0);
  EXPECT_EQ(one.last_cta(0), 3);
  for (int64_t p = 0; p < 4; ++p) EXPECT_EQ(one.slot(p, 0), 2 * p);
}

TEST(DecodeSchedule, LargeShapesStayInInt64) {
  // The largest N * K supports() admits uses unit indices near 2^48 times a few thousand CTAs.
  const Schedule s = make_schedule(int64_t(1) << 30, int64_t(1) << 30, 64, 128, 4096);
  EXPECT_EQ(s.unit_begin(s.ctas), s.units);
  EXPECT_EQ(s.owner(s.units - 1), s.ctas - 1);
  EXPECT_EQ(s.owner(0), 0);
  for (int64_t p : {int64_t(1), int64_t(1000), s.ctas - 1}) EXPECT_EQ(s.owner(s.unit_begin(p)), p);
}

// ---- shared memory ------------------------------------------------------------------------

template <int BK>
void check_swizzle(int rows) {
  constexpr int CH = BK / 8;
  std::vector<int> hits(size_t(rows * CH), 0);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < CH; ++c) {
      const int o = chunk_offset<BK>(r, c);
      ASSERT_GE(o, r * CH) << "stays in its row";
      ASSERT_LT(o, (r + 1) * CH);
      ++hits[size_t(o)];
    }
  for (int h : hits) EXPECT_EQ(h, 1) << "the swizzle is a bijection";

  // Fragment loads: lanes 8i..8i+7 form one shared-memory phase of a 16-byte load; lane
  // (g, t) reads row base + g (and base + g + 8), chunk 4q + t.
  for (int base = 0; base + 16 <= rows; base += 8)
    for (int q = 0; q < BK / 32; ++q)
      for (int half = 0; half < 2; ++half)
        for (int phase = 0; phase < 4; ++phase) {
          std::set<int> banks;
          for (int lane = 8 * phase; lane < 8 * phase + 8; ++lane) {
            const int g = lane / 4, t = lane % 4;
            const int byte = chunk_offset<BK>(base + g + 8 * half, 4 * q + t) * 16;
            for (int w = 0; w < 4; ++w) banks.insert((byte / 4 + w) % 32);
          }
          EXPECT_EQ(banks.size(), 32u) << "row base " << base << " q " << q << " phase " << phase;
        }
  // cp.async stores: thread i copies chunk i % CH of row i / CH; 8 consecutive threads.
  for (int i0 = 0; i0 + 8 <= rows * CH; i0 += 8) {
    std::set<int> banks;
    for (int i = i0; i < i0 + 8; ++i) {
      const int byte = chunk_offset<BK>(i / CH, i % CH) * 16;
      for (int w = 0; w < 4; ++w) banks.insert((byte / 4 + w) % 32);
    }
    EXPECT_EQ(banks.size(), 32u) << "copy phase at thread " << i0;
  }
}

TEST(DecodeSwizzle, BijectiveAndConflictFreeForFragmentLoadsAndCopies) {
  check_swizzle<64>(128);
  check_swizzle<128>(64);
  check_swizzle<256>(32);
}

// ---- fragments ----------------------------------------------------------------------------

TEST(DecodeFragments, FragKIsABijectionOfTheGroup) {
  std::set<int> ks;
  for (int h = 0; h < 2; ++h)
    for (int j = 0; j < 16; ++j) ks.insert(frag_k(h, j));
  EXPECT_EQ(ks.size(), 32u);
  EXPECT_EQ(*ks.begin(), 0);
  EXPECT_EQ(*ks.rbegin(), 31);
}

// One warp, one 32-wide k group: lanes load their 16-byte pieces of a (16 x 32) weight slab and
// an (8 x 32) token tile exactly as the kernel does, build a/b registers with frag_reg, and the
// two m16n8k16 steps run with ptx.cuh's documented operand layout. The sum must be W x^T.
TEST(DecodeFragments, OneWarpGroupEqualsThePlainProduct) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> val(-8, 8);
  for (int trial = 0; trial < 20; ++trial) {
    int w[16][32], x[8][32];
    for (auto& r : w)
      for (int& v : r) v = val(rng);
    for (auto& r : x)
      for (int& v : r) v = val(rng);
    // Each lane's loads: register r of a 16-byte piece holds halves 2r, 2r+1 of k 8t..8t+7.
    auto piece = [](const int* row, int t, int reg, int half) {
      return row[8 * t + 2 * reg + half];
    };
    long d[16][8] = {};
    for (int h = 0; h < 2; ++h) {
      // Logical mma operands, filled from each lane's registers as ptx.cuh lays them out.
      int A[16][16], B[16][8];
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        for (int half = 0; half < 2; ++half) {
          // a0 = A[g][2t..], a1 = A[g+8][2t..], a2 = A[g][2t+8..], a3 = A[g+8][2t+8..]
          A[g][2 * t + half] = piece(w[g], t, frag_reg(h, 0), half);
          A[g + 8][2 * t + half] = piece(w[g + 8], t, frag_reg(h, 0), half);
          A[g][2 * t + 8 + half] = piece(w[g], t, frag_reg(h, 1), half);
          A[g + 8][2 * t + 8 + half] = piece(w[g + 8], t, frag_reg(h, 1), half);
          // b0 = B[2t..2t+1][g], b1 = B[2t+8..2t+9][g]
          B[2 * t + half][g] = piece(x[g], t, frag_reg(h, 0), half);
          B[2 * t + 8 + half][g] = piece(x[g], t, frag_reg(h, 1), half);
        }
      }
      for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 8; ++c)
          for (int j = 0; j < 16; ++j) d[r][c] += long(A[r][j]) * B[j][c];
      // frag_k names the physical k behind logical j.
      for (int r = 0; r < 16; ++r)
        for (int j = 0; j < 16; ++j) ASSERT_EQ(A[r][j], w[r][frag_k(h, j)]);
    }
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 8; ++c) {
        long want = 0;
        for (int k = 0; k < 32; ++k) want += long(w[r][k]) * x[c][k];
        ASSERT_EQ(d[r][c], want) << "row " << r << " token " << c;
      }
  }
}

template <int MT, int SLABS_TOTAL>
void check_partial_layout() {
  std::set<std::pair<int, int>> cells;
  for (int e = 0; e < SLABS_TOTAL * MT * 32; ++e) {
    const int slab = partial_slab<MT>(e), j = partial_j<MT>(e), lane = partial_lane(e);
    ASSERT_EQ(partial_index<MT>(slab, j, lane), e) << "the slot layout inverts";
    for (int i = 0; i < 4; ++i) {
      const int row = frag_row(slab, lane, i), tok = frag_token(j, lane, i);
      ASSERT_LT(row, 16 * SLABS_TOTAL);
      ASSERT_LT(tok, 8 * MT);
      EXPECT_TRUE(cells.insert({row, tok}).second) << "(" << row << "," << tok << ") twice";
    }
  }
  EXPECT_EQ(cells.size(), size_t(16 * SLABS_TOTAL * 8 * MT)) << "the slot covers the tile";
}

TEST(DecodeFragments, PartialSlotCoversTheTileOnce) {
  check_partial_layout<1, 4>();
  check_partial_layout<2, 4>();
  check_partial_layout<4, 4>();
  check_partial_layout<8, 8>();
  check_partial_layout<16, 8>();
}

}  // namespace
}  // namespace gemmbench::hgemm::decode
