// The Hopper decode path's tiles (sm90/decode.cu: hgemm_decode_sm90 and its variants; the FP8
// decode path, fp8gemm/decode_sm90.cu, runs the same tiles on e4m3): the weights (GEMM N) on
// wgmma's 64-row M side, the tokens (GEMM M) on its narrow N side, one of three token tiles by M.
// Included by those two files only (it includes sm90/launch.cuh).
#pragma once

#include "hgemm/sm90/launch.cuh"

namespace gemmbench {
namespace {

// CSPLIT: the in-cluster split where it applies (hgemm_decode_sm90), else the same tile's
// stream-K walk (CSPLIT = false: hgemm_tn_sm90_128x128_sk, the walk alone).
template <bool CSPLIT>
using Decode32 = Sm90Variant<32, 128, 8, 1, !CSPLIT, Layout::tn, CSPLIT>;
template <bool CSPLIT>
using Decode64 = Sm90Variant<64, 128, 7, 1, !CSPLIT, Layout::tn, CSPLIT>;
template <bool CSPLIT>
using Decode128 = Sm90Variant<128, 128, 5, 1, !CSPLIT, Layout::tn, CSPLIT>;

// hgemm_decode_sm90_n64: 64 weight rows per CTA (one consumer warpgroup, 256 threads), twice the
// CTAs of the 128-row tile, a ring of 8-16 stages (about 192 KB), the stream-K walk (whole tiles
// at short K; with fewer tiles than half the grid, each tile's K split in equal parts through the
// workspace, 8-32 KB partials). cuBLAS runs 64-row weight tiles at these shapes too (nvjet
// 64x64, 13 stages, at 128x4096x7168; bench_results/h100/ncu_decode_sm90/). The `hgemm` rule
// at 33-128 tokens (kernels/dispatch/rules.cpp, N on the H100, O on the H200).
using N64Tile32 = Sm90Variant<32, 64, 16, 1, true>;
using N64Tile64 = Sm90Variant<64, 64, 12, 1, true>;
using N64Tile128 = Sm90Variant<128, 64, 8, 1, true>;

constexpr int kMaxTokens = 128;

template <bool CSPLIT>
using SplitTiles = TokenTiles<Decode32<CSPLIT>, Decode64<CSPLIT>, Decode128<CSPLIT>>;
using N64Tiles = TokenTiles<N64Tile32, N64Tile64, N64Tile128>;
// hgemm_decode_sm90_n64_cs: the 64-row tile with the in-cluster split (sm90/cluster_split.cuh,
// 2-4 CTAs per tile, 4 warp blocks) for the whole grid where its tiles are at most half of it;
// elsewhere its stream-K twin, _n64 itself. One CTA per 64-row tile reads a 4096-wide layer no
// faster than 17.7 us, two in 15.7 (bench_results/h100/reference/2026-11-26_read_roof.jsonl.gz).
// The `hgemm` rule P at 16-128 tokens where ceil(N/64) <= SMs/2 and K >= 7168 (4096 on the H200):
// 128x2112x7168 0.972x against _n64's 0.922x (f16, bench_results/h100/
// 2026-11-26_decode_n64_cs_candidates*.json.gz).
template <class V>
using N64Split = Sm90Variant<V::BM, V::BN, V::STAGES, 1, false, Layout::tn, true>;
using N64SplitTiles = TokenTiles<N64Split<N64Tile32>, N64Split<N64Tile64>, N64Split<N64Tile128>>;

// A decode variant whose walk ends its last wave as `TAIL` says (make_schedule's decode_tail):
// the same kernel, another schedule.
template <class V, int TAIL>
using WithDecodeTail = Sm90Variant<V::BM, V::BN, V::STAGES, V::CLUSTER, V::STREAM_K, V::LAYOUT,
                                   V::CSPLIT, V::CLUSTER_M, TAIL>;
template <class Tiles, int TAIL>
using TilesWithDecodeTail =
    TokenTiles<WithDecodeTail<typename Tiles::V32, TAIL>, WithDecodeTail<typename Tiles::V64, TAIL>,
               WithDecodeTail<typename Tiles::V128, TAIL>>;

// The weight-sharing tiles (hgemm_decode_sm90_wmc, fp8gemm_decode_sm90_wmc; sm90/decode.cu and
// fp8gemm/decode_sm90.cu have the why and the figures): the tokens in two M tiles of 32 or 64 on a
// 2-CTA cluster along M that multicasts the weight tile to both. At 65-128 tokens the weight tile
// is shared_weight_rows' (common/sm90/schedule.hpp; only multiples of 64 under block scales, which
// only e4m3 has), at M <= 32 _n64's tile. At 33-64 tokens (32-token tiles) the 16-bit path takes
// 64 rows whatever N; FP8 (NARROW) shared_weight_rows' one-wave tile too, where 64-row tiles ran
// two waves past 4224 rows and lost to F3's 64-row tiles (5120-7168 rows at 48-64 tokens,
// 0.66-0.89x cuBLASLt; on the one-wave tile 0.94-1.04x, H200, kernels/dispatch/rules.cpp's rule
// F). Its rings are as deep as about 200 KB of stages allow (a 96- or 160-row tile's stage holds
// whole 64-row consumers, as the 128- and 192-row ones). The 16-bit path was not measured so.
template <int BM, int BN, int STAGES>
using WeightShare = Sm90Variant<BM, BN, STAGES, 2, false, Layout::tn, false, true>;
// FIT_UP_TO (FP8 only): token tiles fitted to the tokens, the pair covering them
// (fitted_token_tile, common/sm90/schedule.hpp), on rings as deep as the smaller stage allows (each
// ring at most the 208 KB of the 40-token tile's 16 stages of 13 KB on the 64-row shared tile). 56
// (fp8gemm_decode_sm90_wmcfit): 40 at 65-80 tokens, where cuBLASLt runs
// nvjet_sm90_qqtst_40x64_128x16_2x1 (72x4096x14336, H200), 48 at 81-96, 56 at 97-112, 24 at
// 33-48 (18 stages of 11 KB on the 64-row tile), and 8 at 9-16 and 16 at 17-32 (23 stages of 9 KB
// and 20 of 10 KB on the 64-row tile; a stage's B is whole 64-row consumers, so the 96- and
// 160-row tiles' stages are the 128- and 192-row ones'). 0 (_wmc): 32 at 33-64, 64 from 65 tokens
// on, _n64's tile at up to 32.
template <bool NARROW, int FIT_UP_TO = 0>
struct WeightShareTilesT {
  using First = N64Tile32;
  template <int BM, int S64, int S96, int S128, int S160, int S192, class F>
  static auto shared(const GemmProblem& p, int sms, F&& f) {
    switch (shared_weight_rows(p.n, sms, p.scale == ScaleMode::block128)) {
      case 96:
        return f(WeightShare<BM, 96, S96>{});
      case 128:
        return f(WeightShare<BM, 128, S128>{});
      case 160:
        return f(WeightShare<BM, 160, S160>{});
      case 192:
        return f(WeightShare<BM, 192, S192>{});
      default:  // 64 rows fit, or none fits one wave
        return f(WeightShare<BM, 64, S64>{});
    }
  }
  template <class F>
  static auto with(const GemmProblem& p, int sms, F&& f) {
    if constexpr (FIT_UP_TO >= 16) {
      // 9-32 tokens: two tiles of 8 or 16 (cuBLASLt's nvjet_sm90_qqtst_8x64_128x16_2x1 at
      // 16x4096x4096, H200); at 1-8 one token tile holds them all, nothing to share.
      if (p.m > 8 && p.m <= 32) {
        if (fitted_token_tile(p.m, FIT_UP_TO) == 8) return shared<8, 23, 12, 12, 8, 8>(p, sms, f);
        return shared<16, 20, 11, 11, 8, 8>(p, sms, f);
      }
    }
    if (p.m <= 32) return f(N64Tile32{});
    if (p.m <= 64) {
      if constexpr (NARROW) {
        if constexpr (FIT_UP_TO >= 24)
          if (fitted_token_tile(p.m, FIT_UP_TO) == 24)
            return shared<24, 18, 10, 10, 7, 7>(p, sms, f);
        return shared<32, 16, 10, 10, 7, 7>(p, sms, f);
      } else {
        return f(WeightShare<32, 64, 16>{});
      }
    }
    if constexpr (FIT_UP_TO > 0) {
      switch (fitted_token_tile(p.m, FIT_UP_TO)) {
        case 40:
          return shared<40, 16, 10, 10, 7, 7>(p, sms, f);
        case 48:
          return shared<48, 14, 9, 9, 6, 6>(p, sms, f);
        case 56:
          return shared<56, 13, 9, 9, 6, 6>(p, sms, f);
        default:
          break;
      }
    }
    return shared<64, 12, 8, 8, 6, 6>(p, sms, f);
  }
};
using WeightShareTiles = WeightShareTilesT<false>;
using Fp8WeightShareTiles = WeightShareTilesT<true>;
using Fp8WeightShareTilesFit = WeightShareTilesT<true, 56>;

}  // namespace
}  // namespace gemmbench
