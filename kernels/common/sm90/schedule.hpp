// The Hopper kernel's tile schedule: which cluster computes which output tile, in which order,
// and (stream-K) which k-blocks of the tiles of the last waves. Host and device share this code
// (GB_HD); tests/host/test_sm90_schedule.cpp checks that every output tile is covered once and
// every stream-K k-block once, over many shapes and grid sizes. Plain C++ as well as CUDA.
#pragma once

#include "common/hd.hpp"
#include "common/raster.hpp"

namespace gemmbench {

// The raster of seed 003 (common/raster.hpp) over cluster tiles of BM x (BN * CLUSTER): linear
// index t -> (t % raster_x, t / raster_x) -> raster_tile. A cluster's CTA of rank r computes N
// tile cluster_tile.n * CLUSTER + r.
// Both walks number the valid tiles densely in raster order (dense_cluster_tile), skipping the
// raster's no-op slots, and cluster c takes d = c, c + clusters, ... . (Striding over the raw
// raster slots instead, no-op slots included, left some clusters one tile more than the average
// whenever the tile columns are not a whole number of raster bands: 8 tiles instead of 7 per
// cluster at 4096x7168, 0.88x cuBLAS; see docs/hgemm-hopper.md.)
// Plain walk: every tile whole. Stream-K walk: the first dp_tiles walked whole as above; the
// k-blocks of the rest, sk_units = (tiles_total - dp_tiles) * k_blocks "units" (tile-major), cut
// into contiguous ranges [sk_range_begin(c), sk_range_begin(c + 1)), one per cluster (see
// Sm90WorkIter).
struct Sm90Schedule {
  int tiles_m;          // ceil(M / BM)
  int tiles_n;          // ceil(N / BN)
  int cluster_tiles_n;  // ceil(tiles_n / CLUSTER)
  int log_tile;         // raster_log_tile(cluster_tiles_n, 8)
  int raster_x;         // raster_grid(...).x
  int raster_y;         // raster_grid(...).y
  int raster_total;     // raster_grid(...).x * .y, no-op slots included
  int last_row_n;       // valid cluster-tile columns in the raster's last row (1 .. 2^log_tile)
  int tiles_total;      // tiles_m * cluster_tiles_n, the valid cluster tiles
  int k_blocks;         // ceil(K / BK)
  int clusters;         // the persistent grid, in clusters
  int dp_tiles;         // stream-K walk: tiles walked whole (tiles_total in the plain walk)
  long long sk_units;   // stream-K walk: (tiles_total - dp_tiles) * k_blocks
  int c_tma;            // 1: the TMA-store epilogue runs (C's tensor map is valid, beta == 0)
};

// Stream-K tiles: the remainder of tiles_total over the clusters, plus one whole wave when the
// remainder is under half a wave, so that every cluster gets at least half a tile of k-blocks
// (a tile is then split among at most 3 clusters, and its finisher adds at most 2 partials).
// Called with clusters <= tiles_total, so the extra wave always exists; with fewer tiles than
// clusters make_schedule splits every tile of at most kSkSplitMaxTileArea instead (a finisher
// may then add more partials), and a larger tile runs whole, one cluster each.
GB_HD int sk_tile_count(int tiles_total, int clusters) {
  const int rem = tiles_total % clusters;
  if (rem == 0) return 0;
  return 2 * rem < clusters ? rem + clusters : rem;
}

// The fewest k-blocks a cluster takes when the stream-K walk splits every tile (fewer tiles than
// clusters): below it the partials' fix-up outweighs the k-blocks it spreads.
inline constexpr int kSkMinKBlocks = 4;
// Only tiles of at most 128x128 split every tile over the grid (the decode path's narrow tiles,
// hgemm_tn_sm90_128x128_sk): their partials are at most 64 KB. The 256x128 tile's 128 KB partials
// cost more than the split gains: hgemm_tn_sm90_sk_defer split that way ran 0.38x at 1024^3 and
// 0.72x at 2048^3 against 0.49x / 0.91x unsplit, and 0.43-0.87x at the decode shapes
// (bench_results/h100/2026-11-25_split_candidates.json.gz, _decode_sm90_candidates.json.gz).
inline constexpr int kSkSplitMaxTileArea = 128 * 128;

// The decode split: how many clusters share each tile's k-blocks when the tiles are one row
// (M <= BM) and fewer than the grid. The stream-K ranges then end on tile boundaries, so every
// tile has exactly that many contributors, each with one equal range, and no cluster straddles
// two tiles. The count puts about `target` clusters to work (decode_grid_target), at least
// kSkMinKBlocks k-blocks per cluster, and is 1 (no split, no fix-up) from `target` tiles up. Half
// the SMs stream the weights as fast as all of them (cuBLAS runs its split-K decode kernel on 64
// CTAs), and fewer contributors per tile cost less in the fix-up: at 16x4096x4096 the 32 tiles
// split in 2 (64 CTAs) take 19.0 us, in 4 (128) 20.7 us, and spread over all 132 CTAs as
// before 22.8 us; at 16x2112x7168 the 17 tiles in 3 (51 CTAs) 19.7 us against 24.7 us; at
// 16x7168x2048 the 56 tiles unsplit 16.4 us against 20.4 us (scripts/dev/sm90_trace.cu, H100, event
// time of one launch after a cold-L2 flush;
// bench_results/h100/reference/2026-11-25_sm90_decode_split.txt.gz). Over 14 decode shapes and 1 to
// 7 parts each, half the grid is never slower than the old walk and within 2% of the best split at
// 11; at 128 tokens it is 2-9% behind the best at 2112x7168, 6144x4096 and 8192x8192, which want
// more parts (decode_grid_target gives the last two the whole grid).
GB_HD int decode_split_count(int tiles, int k_blocks, int target) {
  int split = target / tiles;
  const int by_k = k_blocks / kSkMinKBlocks;
  if (split > by_k) split = by_k;
  return split > 1 ? split : 1;
}

// The decode split's grid: half of it, except for a 128-token tile over more than 40 MB of
// weights, which takes all of it. A 128-row token tile is as many bytes per k-block as the
// weight tile it meets, so each CTA moves twice the weight bytes through its SM; on the large
// matrices half the grid then streams too slowly: 128x6144x4096 takes 26.6 us on 96 CTAs and
// 28.9 us on 48, 128x8192x8192 54.4 us on 128 and 58.0 us on 64 (same probe), and 128x7168x18432
// ran at 0.93x cuBLAS on its 56 tiles unsplit (bench_results/h100/
// 2026-11-25_decode_split_candidates.json.gz) against 1.00x spread over the grid before
// (2026-11-25_decode_sm90_candidates.json.gz).
// One-byte weights (FP8) take the whole grid at every size: a k-block of them is half the bytes
// of bf16's for the same FLOPs, so an SM spends twice the tensor time per byte it streams, and
// DeepGEMM runs 128-132 CTAs on every one of its shapes at M 64-128 (issue 50, step 6).
GB_HD int decode_grid_target(int bm, int n, int k, int clusters_max, int elem_bytes = 2) {
  if (elem_bytes == 1) return clusters_max;
  const long long weight_bytes = 2LL * n * k;
  return bm >= 128 && weight_bytes > (40LL << 20) ? clusters_max : clusters_max / 2;
}

// One row of tiles (decode) that fills the grid, with a short K: every tile whole, no stream-K
// tail. A tile of at most 64 k-blocks is a few microseconds of streaming; splitting the last
// wave's tiles costs more in fix-up than the idle SMs of that wave. Same probe, plain walk against
// the stream-K tail: 16x32768x512 16.8 us against 19.7, 128x32768x512 18.3 against 23.1,
// 16x24576x1536 32.8 against 35.1 (1.45 waves), 16x28672x4096 84.9 against 87.9 (64 k-blocks);
// at 16x36864x7168 (112 k-blocks, 2.18 waves) the tail wins, 184.6 us against 195.7.
inline constexpr int kDecodeWholeTileMaxKBlocks = 64;
GB_HD bool decode_walks_whole_tiles(int tiles_m, int tiles_total, int k_blocks, int clusters_max) {
  return tiles_m == 1 && tiles_total >= clusters_max && k_blocks <= kDecodeWholeTileMaxKBlocks;
}

// hgemm_decode_sm90_wmc's and fp8gemm_decode_sm90_wmc's weight tile at 65-128 tokens, and FP8's at
// 33-64 too (two token tiles on a 2-CTA cluster that share it): the fewest rows of 64, 96, 128, 160
// and 192 whose doubled tiles fit one wave of `ctas`, as cuBLAS picks 64x64, 64x96 and 64x128 at N
// = 4096, 6144 and 7168 with 128 tokens; 0 where none fits (the kernel then walks 64-row tiles).
// Under 128-row block scales (whole_scale_blocks) only multiples of 64: a consumer's 64 rows of a
// 96- or 160-row tile would straddle two of B's scale blocks.
GB_HD int shared_weight_rows(long long n, int ctas, bool whole_scale_blocks = false) {
  const int widths[] = {64, 96, 128, 160, 192};
  for (int w : widths)
    if (!(whole_scale_blocks && w % 64 != 0) && 2 * ((n + w - 1) / w) <= ctas) return w;
  return 0;
}

// The weight-sharing decode tiles' token tile: the pair's two tiles cover the tokens. Unfitted
// (fit_up_to 0: fp8gemm_decode_sm90_wmc, 33-128 tokens) 32 up to 64 tokens and 64 past them;
// fitted (fp8gemm_decode_sm90_wmcfit: 56, 9-128 tokens) in the fewest rows of 8 among 8, 16, 24,
// 32, 40, 48, 56, 64 (wgmma's N), a fitted width (8-24, 40-56) only up to fit_up_to: 8 at 9-16,
// 16 at 17-32, 24 at 33-48, 40 at 65-80, 48 at 81-96, 56 at 97-112. Rule F40
// (dispatch/rules.cpp) runs it at 33-48 and 65-112, with the figures.
GB_HD int fitted_token_tile(long long m, int fit_up_to) {
  const int tiles[] = {8, 16, 24, 32, 40, 48, 56, 64};
  for (int t : tiles) {
    const bool fitted = t != 32 && t != 64;
    if ((!fitted || t <= fit_up_to) && m <= 2 * t) return t;
  }
  return 64;
}

// FP8's 64-row tile (fp8gemm_sm90_persistent_t_m64): the rows of B a tile takes, 128, 64 or 32
// (16: m64c2_tile_n's one-wave case).
// fill_tile_n: the width whose tiles take the fewest columns per CTA over the grid's waves
// (waves x rows), the widest among equals. DeepGEMM picks BLOCK_N that way at M 64-128 (16 to
// 112, any multiple of 8; gen_instances.py prints its choice): 64x4096x7168 in 128 tiles of 32.
GB_HD int fill_tile_n(int m, int n, int bm, int ctas) {
  const int widths[] = {128, 64, 32};
  const long long tiles_m = (m + bm - 1) / bm;
  int best = 128;
  long long best_cost = -1;
  for (int w : widths) {
    const long long tiles = tiles_m * ((n + w - 1) / w);
    const long long cost = (tiles + ctas - 1) / (ctas > 0 ? ctas : 1) * w;
    if (best_cost < 0 || cost < best_cost) best = w, best_cost = cost;
  }
  return best;
}
// m64c2_tile_n: what _m64c2 runs: fill_tile_n's width, or 16 rows of B where its one consumer
// warpgroup runs (e4m3 x e4m3 block128: wgmma m64n16k32) on one row of tiles whose 64 x 16 tiles
// make one wave. 64x2112x7168: 132 tiles of 16, not 66 of 32, 1.060x the speed on DeepGEMM's
// shape and 1.061-1.068x at 32-64 tokens on N 1024-2112 (H200 sustained, one board; measured as
// _m64c2n16, bench_results/h200/2026-12-02_fp8_m64c2n16_ab_{dg,ds}.json.gz). Not on two rows of
// tiles nor past one wave: fill_tile_n's cost, columns a CTA, leaves out A's 64 rows that every
// tile reads, and at 128x7168x16384 it picked 16 (7 waves of 896 tiles) for 0.336x the speed.
GB_HD int m64c2_tile_n(int m, int n, int ctas, bool one_consumer) {
  if (one_consumer && m <= 64 && (n + 15) / 16 <= ctas) return 16;
  return fill_tile_n(m, n, 64, ctas);
}
// m64_tile_n: what _m64 runs. Narrower tiles filled the grid but each took about twice
// DeepGEMM's time per k-block (64x4096x7168 in DeepGEMM's own 128 tiles of 32: 21.6 us against
// its 14.3), so they pay only where 128 rows of B would split each tile's k-blocks more than 4
// ways (64x2112x7168: 16.0 us in 66 tiles of 32 against 18.1 in 17 tiles split 7 ways) or where a
// tile has at most 16 k-blocks (64x7168x2048: 12.2 us in 112 tiles of 64 against 13.1); with one
// row of tiles only (at M 128 both rows' narrow tiles ran 8-10% slower), and nowhere the 128-row
// tiles fill the grid (64x24576x1536: 21.2 us in tiles of 64 against 18.8). bench_results/h200/
// 2026-11-29_fp8_m64_widths.json.gz and 2026-11-29_fp8_m64_whole_grid.json.gz, sustained.
GB_HD int m64_tile_n(int m, int n, int k, int ctas) {
  const int bm = 64, kb = (k + 127) / 128;
  const int tiles_128 = (n + 127) / 128;
  if (m > bm || tiles_128 >= ctas) return 128;
  if (decode_split_count(tiles_128, kb, ctas) > 4 || kb <= 16) return fill_tile_n(m, n, bm, ctas);
  return 128;
}

// Whether _m64 pipelines its promotion (k-block kb + 1's wgmmas issued before kb's partial is
// added). It paid at 7 to 56 k-blocks (64x4096x7168 0.719x to 0.749x DeepGEMM, 64x7168x2048
// 0.801 to 0.826, 64x2112x7168 0.792 to 0.842; 12 k-blocks even) and lost at 4 (64x32768x512:
// 12.2 to 13.3 us in two calls): bench_results/h200/2026-11-29_fp8_narrow_pipe.json.gz and
// _fp8_m64_fill_ab.json.gz against 2026-11-29_fp8_m64_{whole_grid,widths}.json.gz. At most 8
// k-blocks (a guess between the two measured points) the 128-row-of-B tile runs the plain loop.
inline constexpr int kM64PlainMaxKBlocks = 8;
GB_HD bool m64_pipelined_promotion(int k) {
  return (k + 127) / 128 > kM64PlainMaxKBlocks;
}

// The plain walk's grid in whole waves: the fewest clusters that walk tiles_total tiles in as
// many waves as `clusters` would (every cluster then takes the same count but perhaps one, and
// the tiles a cluster walks, the makespan, do not grow). DeepGEMM sizes its grid so (128 CTAs for
// 896 tiles of 256x128 at 4096x7168, where 132 leave a last wave 79% full); the SMs left idle
// spend no power under the cap.
GB_HD int whole_wave_clusters(int tiles_total, int clusters) {
  if (clusters < 1 || tiles_total <= clusters) return clusters;
  const int waves = (tiles_total + clusters - 1) / clusters;
  return (tiles_total + waves - 1) / waves;
}

// The decode walk's last wave, where one row of tiles fills the grid and K is short
// (decode_walks_whole_tiles). kDecodeTailWhole (the 16-bit decode path): every tile whole on the
// whole grid, the last wave part full. kDecodeTailFit (the FP8 decode path, F5): every tile whole
// on whole_wave_clusters (each CTA the same number of tiles, as cuBLASLt runs 120 CTAs of 160-row
// tiles at 16x57344x8192) where those keep at least 4/5 of the grid or K is at most
// kDecodeTailShortKBlocks; else the last waves' k-blocks split stream-K, as at longer K.
// Measured (H200, FP8 at 16 tokens, each alone at steady state; bench_results/h200/
// 2026-11-30_fp8_decode_tail_ab{,_block128}.json.gz) against the whole grid, whole waves and the
// stream-K tail:
//   16x57344x8192 (448 tiles, 64 k-blocks; 112 CTAs): 127.4 / 119.6 / 122.7 us
//   16x28672x4096 (224, 32; 112):                      36.0 / 35.8 / 37.7
//   16x24576x1536 (192, 12; 96):                       21.5 / 19.6 / 21.9
//   16x36864x7168 (288, 56; 96):                       89.6 / 81.2 / 75.1
//   16x32768x512  (256, 4; 128):                       12.5 / 12.5 / 14.7
// Fewer CTAs stream less (96 of 132 read 36864x7168 at 3.3 TB/s), so at long K the split
// tail wins; at short K its fix-up costs more than the idle SMs.
inline constexpr int kDecodeTailWhole = 0, kDecodeTailFit = 1;
inline constexpr int kDecodeTailShortKBlocks = 16;

// clusters_max: how many clusters the grid may have (resident clusters, capped). The raster
// bands are raster_log_tile(cluster_tiles_n, 8) cluster tiles wide (the width measured best;
// see docs/hgemm-hopper.md). whole_waves: the plain walk on whole_wave_clusters (FP8's rung F3
// family; stream-K splits the last wave instead).
GB_HD Sm90Schedule make_schedule(int m, int n, int k, int bm, int bn, int bk, int cluster,
                                 int clusters_max, bool stream_k, bool whole_waves = false,
                                 int elem_bytes = 2, int decode_tail = kDecodeTailWhole) {
  Sm90Schedule s{};
  s.tiles_m = ceil_div(m, bm);
  s.tiles_n = ceil_div(n, bn);
  s.cluster_tiles_n = ceil_div(s.tiles_n, cluster);
  s.log_tile = raster_log_tile(s.cluster_tiles_n, 8);
  const RasterGrid g = raster_grid(s.tiles_m, s.cluster_tiles_n, s.log_tile);
  s.raster_x = g.x;
  s.raster_y = g.y;
  s.raster_total = g.x * g.y;
  s.last_row_n = s.cluster_tiles_n - (g.y - 1) * (1 << s.log_tile);
  s.tiles_total = s.tiles_m * s.cluster_tiles_n;
  s.k_blocks = ceil_div(k, bk);
  int clusters = clusters_max < s.tiles_total ? clusters_max : s.tiles_total;
  if (stream_k && s.tiles_total < clusters_max && bm * bn <= kSkSplitMaxTileArea) {
    if (s.tiles_m == 1) {
      // One row of tiles (decode: every token in one tile, the weights streamed once): each
      // tile's k-blocks are split into the same number of equal parts, one cluster each, for
      // about half the grid (decode_split_count).
      clusters = s.tiles_total *
                 decode_split_count(s.tiles_total, s.k_blocks,
                                    decode_grid_target(bm, n, k, clusters_max, elem_bytes));
    } else {
      // Fewer tiles than clusters (a narrow N, or a small square, with a long K): every tile's
      // k-blocks are split over up to the whole grid, at least kSkMinKBlocks per cluster.
      const long long by_k = (long long)s.tiles_total * s.k_blocks / kSkMinKBlocks;
      clusters = by_k < clusters_max ? int(by_k) : clusters_max;
      if (clusters < s.tiles_total) clusters = s.tiles_total;
    }
  }
  if (whole_waves && !stream_k) clusters = whole_wave_clusters(s.tiles_total, clusters);
  bool whole =
      !stream_k || decode_walks_whole_tiles(s.tiles_m, s.tiles_total, s.k_blocks, clusters_max);
  if (stream_k && whole && decode_tail == kDecodeTailFit) {
    const int ww = whole_wave_clusters(s.tiles_total, clusters);
    if (5 * ww >= 4 * clusters || s.k_blocks <= kDecodeTailShortKBlocks)
      clusters = ww;
    else
      whole = false;
  }
  s.clusters = clusters > 1 ? clusters : 1;
  s.dp_tiles = whole ? s.tiles_total
               : s.tiles_total < s.clusters
                   ? 0  // every tile split
                   : s.tiles_total - sk_tile_count(s.tiles_total, s.clusters);
  s.sk_units = (long long)(s.tiles_total - s.dp_tiles) * s.k_blocks;
  s.c_tma = 0;
  return s;
}

// Rule D5's line (kernels/dispatch/rules.cpp): at up to 32 tokens (one token tile of 32), F5's
// 128-row weight tiles walked on whole waves (kDecodeTailFit) against its 64-row tile walked
// whole on the whole grid (fp8gemm_decode_sm90_n64, kDecodeTailWhole), on `ctas` resident CTAs
// (one an SM). True where F5 walks whole tiles (more tiles than CTAs, at most 64 k-blocks, whole
// waves: fewer tiles are split over clusters instead) and the 64-row walk gives its busiest CTA
// fewer weight rows: at 57344x8192, 448 tiles of 128 on 112 CTAs (512 rows each) against 896 of
// 64 on 132 (at most 448). Where the rows are equal (28672x4096: 2 x 128 against 4 x 64) the
// 128-row tile's two consumers stream faster (H200, 2026-12-02_fp8_decode_n64_makespan_ab).
GB_HD bool decode_n64_walk_shorter(int m, int n, int k, int ctas) {
  if (m < 1 || m > 32) return false;
  const Sm90Schedule f5 =
      make_schedule(m, n, k, 32, 128, 128, 1, ctas, true, false, 2, kDecodeTailFit);
  if (!decode_walks_whole_tiles(f5.tiles_m, f5.tiles_total, f5.k_blocks, ctas) ||
      f5.dp_tiles != f5.tiles_total)
    return false;
  // Twice F5's tiles (or one fewer), as many k-blocks: walked whole on the whole grid.
  const Sm90Schedule n64 =
      make_schedule(m, n, k, 32, 64, 128, 1, ctas, true, false, 2, kDecodeTailWhole);
  const long long rows_f5 = 128LL * ceil_div(f5.tiles_total, f5.clusters);
  const long long rows_n64 = 64LL * ceil_div(n64.tiles_total, n64.clusters);
  return rows_n64 < rows_f5;
}

// Dense index d (0 .. tiles_total - 1) -> cluster tile, in raster order. Every raster row but
// the last is full; in the last one only columns (x % 2^log_tile) < last_row_n are tiles.
GB_HD TileCoord dense_cluster_tile(const Sm90Schedule& s, int d) {
  const int full = (s.raster_y - 1) * s.raster_x;
  if (d < full) return raster_tile(d % s.raster_x, d / s.raster_x, s.log_tile);
  const int e = d - full;
  const int x = ((e / s.last_row_n) << s.log_tile) + e % s.last_row_n;
  return raster_tile(x, s.raster_y - 1, s.log_tile);
}

// First stream-K unit of cluster c (c = clusters: sk_units). Ranges differ by at most one unit.
GB_HD long long sk_range_begin(const Sm90Schedule& s, int c) {
  return s.sk_units * c / s.clusters;
}

// The finisher of stream-K tile `sk_tile` (in some cluster above `from`) adds the partials of the
// lower clusters whose ranges end inside the tile, nearest first: this returns the next such
// cluster below `from`, or -1. A non-empty range ending inside the tile (after its first unit)
// ends with a partial item of that tile; empty ranges published nothing.
GB_HD int sk_prev_contributor(const Sm90Schedule& s, int from, int sk_tile) {
  const long long tile_u0 = (long long)sk_tile * s.k_blocks;
  for (int cc = from - 1; cc >= 0; --cc) {
    const long long e = sk_range_begin(s, cc + 1);
    if (e <= tile_u0) return -1;
    if (sk_range_begin(s, cc) < e) return cc;
  }
  return -1;
}

// One work item: k-blocks [kb_begin, kb_end) of a cluster tile. A stream-K item with
// kb_end < k_blocks is a PARTIAL (its accumulators go to the workspace); with kb_end == k_blocks
// it FINISHES the tile (after adding the partials of the lower clusters when kb_begin > 0).
struct Sm90Work {
  TileCoord tile;  // cluster tile
  int kb_begin;
  int kb_end;
  int sk_tile;  // stream-K tile index (dense index - dp_tiles), -1 for a whole tile
};

// The work items of one cluster, in processing order; the producer and the consumers of every
// CTA of the cluster walk the same sequence. Stream-K order: the whole tiles, then the cluster's
// range from its END backwards, so that its one possible partial item (the range's last units,
// the first k-blocks of a tile whose end lies in a higher cluster) is computed and published
// first, and its finishing item (the range's first units, whose tile began in lower clusters)
// comes last, when the lower clusters' partials are long published. The state is three ints
// (it stays live across the mainloop, where the 128 accumulators leave little room): pos_ is
// the next whole tile's raster slot / dense index, then, once the stream-K range starts
// (sk_left_ >= 0), the stream-K tile of the range's last unit not handed out yet.
template <bool STREAM_K>
class Sm90WorkIter {
 public:
  // parts: unused (the in-cluster split's iterator takes it).
  GB_HD Sm90WorkIter(const Sm90Schedule& s, int cluster, int /*parts*/ = 1)
      : s_(s), pos_(cluster) {}
  GB_HD bool next(Sm90Work& w) {
    if constexpr (!STREAM_K) {
      if (pos_ >= s_.tiles_total) return false;
      w.tile = dense_cluster_tile(s_, pos_);
      w.kb_begin = 0, w.kb_end = s_.k_blocks, w.sk_tile = -1;
      pos_ += s_.clusters;
      return true;
    } else {
      if (sk_left_ < 0) {  // whole tiles
        if (pos_ < s_.dp_tiles) {
          w.tile = dense_cluster_tile(s_, pos_);
          w.kb_begin = 0, w.kb_end = s_.k_blocks, w.sk_tile = -1;
          pos_ += s_.clusters;
          return true;
        }
        // pos_ = cluster + i * clusters: the cluster is pos_ % clusters.
        const int cluster = pos_ % s_.clusters;
        const long long b = sk_range_begin(s_, cluster), e = sk_range_begin(s_, cluster + 1);
        sk_left_ = int(e - b);  // at most 2 * k_blocks + 1: sk_tile_count keeps < 2 waves
        if (sk_left_ == 0) return false;
        pos_ = int((e - 1) / s_.k_blocks);
        sk_kb_end_ = int(e - (long long)pos_ * s_.k_blocks);  // 1 .. k_blocks
      }
      if (sk_left_ == 0) return false;
      const int len = sk_left_ < sk_kb_end_ ? sk_left_ : sk_kb_end_;  // stop at the tile's start
      w.tile = dense_cluster_tile(s_, s_.dp_tiles + pos_);
      w.kb_begin = sk_kb_end_ - len, w.kb_end = sk_kb_end_, w.sk_tile = pos_;
      sk_left_ -= len;
      --pos_;
      sk_kb_end_ = s_.k_blocks;
      return true;
    }
  }

 private:
  const Sm90Schedule& s_;
  int pos_;
  int sk_left_ = -1;   // stream-K: units of the range not handed out yet (-1: not started)
  int sk_kb_end_ = 0;  // stream-K: one past the k-block of the last of them, in tile pos_
};

// ---- The in-cluster split (hgemm_decode_sm90) -----------------------------------------------
// One row of tiles fewer than the grid, as above, but each tile's `parts` equal k-ranges go to the
// CTAs of one cluster (rank r: k-blocks [k_blocks * r / parts, k_blocks * (r + 1) / parts)), and
// their partial accumulators are summed in the cluster's shared memory instead of a global
// workspace (sm90/cluster_split.cuh): no flags, no L2 round trips. The tile's `blocks` warp blocks
// (16 GEMM-N rows x BM, one consumer warp's wgmma fragment; block wb = consumer * 4 + warp: 8 for
// the 128-row weight tile, 4 for the 64-row one) are shared out: CTA cs_owner(wb) receives the
// other CTAs' copies of block wb, adds them in rank order and stores it. A cluster has at most
// `blocks` CTAs, so that each owns a block.
inline constexpr int kCsWarpBlocks = 8;  // 2 consumer warpgroups x 4 warps (the default)
inline constexpr int kCsMaxParts = 8;    // the portable cluster size
GB_HD constexpr int cs_owner(int wb, int parts, int blocks = kCsWarpBlocks) {
  return wb * parts / blocks;
}
// The first warp block CTA `rank` owns (the smallest wb with cs_owner(wb) == rank).
GB_HD constexpr int cs_first_block(int rank, int parts, int blocks = kCsWarpBlocks) {
  return (rank * blocks + parts - 1) / parts;
}
// Receive slots per CTA: (blocks owned, at most ceil(blocks / parts)) x (one per rank, its own
// unused).
GB_HD constexpr int cs_slots(int parts, int blocks = kCsWarpBlocks) {
  return (blocks + parts - 1) / parts * parts;
}
// The most receive slots any cluster size needs (8 blocks: parts = 7, 2 blocks x 7).
GB_HD constexpr int cs_slots_max(int blocks = kCsWarpBlocks) {
  int m = 0;
  for (int p = 1; p <= kCsMaxParts && p <= blocks; ++p)
    m = cs_slots(p, blocks) > m ? cs_slots(p, blocks) : m;
  return m;
}
// Where the copy of block wb from CTA `sender` lands in its owner's receive slots.
GB_HD constexpr int cs_slot(int wb, int sender, int parts, int blocks = kCsWarpBlocks) {
  return (wb - cs_first_block(cs_owner(wb, parts, blocks), parts, blocks)) * parts + sender;
}
GB_HD int cs_kb_begin(int k_blocks, int rank, int parts) {
  return int((long long)k_blocks * rank / parts);
}
// The cluster size for a grid target: the decode split's equal parts, at most kCsMaxParts and at
// most the tile's `blocks` warp blocks, so that every CTA owns one (the launcher lowers it further
// until that many clusters of it can be resident at once).
GB_HD int cs_parts_for(int tiles, int k_blocks, int target, int blocks = kCsWarpBlocks) {
  const int cap = blocks < kCsMaxParts ? blocks : kCsMaxParts;
  const int p = decode_split_count(tiles, k_blocks, target);
  return p < cap ? p : cap;
}
// The cluster size by shape (hgemm_decode_sm90), on a grid of `grid` CTAs. From the two
// candidate runs (bench_results/h100/2026-11-25_decode_dsmem_candidates{,_r2}.json.gz, H100,
// sustained, cold L2, f16, the 10th-percentile times of both runs averaged) against the workspace
// walk's split (decode_split_count with decode_grid_target):
// - Half the grid, as the walk: 16 and 64 tokens at 17 and 32 tiles (16x2112x7168 17.7 us on 3
//   parts against 18.3 on 6 and the walk's 18.6; 16x4096x4096 18.1 on 2 against 18.6 on 4 and
//   18.6). At 48 tiles (6144x4096) no split: 22.9 us against 23.7 on 2 parts.
// - The whole grid for the 128-token tile from 64 k-blocks up: 128x2112x7168 21.4 us on 6 parts
//   against 22.8 on 3 and the walk's 23.3; 128x4096x4096 21.0 on 4 (3 resident) against 21.9 on 2
//   and 21.5. At 32 k-blocks (128x7168x2048) no split: 18.4 us against 18.6 on 2.
// - Two parts at 33 to 66 tiles when K is long (>= 128 k-blocks), which the walk ran whole:
//   16x8192x28672 158.2 us against 165.4, 64x7168x18432 94.6 against 99.0, 16x8192x8192 50.0
//   against 50.7; at 64 k-blocks and less it loses (16x7168x2048 16.5 against 15.8).
// whole_grid (the 64-row weight tile, hgemm_decode_sm90_n64_cs: Sm90Config::CS_WHOLE_GRID):
// parts for the whole grid, whatever the tokens and K. One CTA per 64-row tile reads a 4096-wide
// layer no faster than 17.7 us at 4096x4096, two per tile in 15.7 us
// (bench_results/h100/reference/2026-11-26_read_roof.jsonl.gz).
inline constexpr int kCsLongKBlocks = 128;
inline constexpr int kCsN64Blocks = 4;  // the 64-row tile's: 1 consumer warpgroup x 4 warps
GB_HD int cs_parts(int tiles, int k_blocks, int bm, int grid, int blocks = kCsWarpBlocks,
                   bool whole_grid = false) {
  if (whole_grid) return cs_parts_for(tiles, k_blocks, grid, blocks);
  const int target = bm >= 128 && k_blocks >= 64 ? grid : grid / 2;
  const int p = cs_parts_for(tiles, k_blocks, target, blocks);
  if (p == 1 && 2 * tiles <= grid && k_blocks >= kCsLongKBlocks) return 2;
  return p;
}

// The one work item of CTA `cta` of the in-cluster split (clusters of `parts` CTAs along x, one
// per tile): tile cta / parts (dense index), the k-range of rank cta % parts.
class Sm90ClusterSplitIter {
 public:
  GB_HD Sm90ClusterSplitIter(const Sm90Schedule& s, int cta, int parts)
      : s_(s), tile_(cta / parts), rank_(cta % parts), parts_(parts) {}
  GB_HD bool next(Sm90Work& w) {
    if (done_) return false;
    done_ = true;
    w.tile = dense_cluster_tile(s_, tile_);
    w.kb_begin = cs_kb_begin(s_.k_blocks, rank_, parts_);
    w.kb_end = cs_kb_begin(s_.k_blocks, rank_ + 1, parts_);
    w.sk_tile = -1;
    return true;
  }

 private:
  const Sm90Schedule& s_;
  int tile_, rank_, parts_;
  bool done_ = false;
};

// Stream-K role of a work item in the consumer: kFixupNone for a whole tile or a finisher that
// holds the tile's k-block 0; kFixupPublish for a partial (publish the accumulators, no
// epilogue); a value >= 0 for a finisher that first adds the partials of that stream-K tile.
inline constexpr int kFixupNone = -1;
inline constexpr int kFixupPublish = -2;

}  // namespace gemmbench
