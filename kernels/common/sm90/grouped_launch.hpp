// What the grouped Hopper kernels (hgemm/sm90/grouped.cu, fp8gemm/grouped.cu) share on the host:
// the checks of a grouped case that come from the tile walk and the tensor maps rather than from
// the kernel's arithmetic, and a launch's tensor maps, walk and grid. Both kernels place every
// tile the same way (common/grouped_schedule.hpp): the weights of all G experts as one K-major
// map [G*N, K], all activation rows as one K-major map [stored_rows, K], group g's tiles read at
// rows g*N + n_tile * tile_n and first_row[g] + row_tile * tile_rows. A kernel that stores C
// [stored_rows, N] with whole-tile TMA stores (fp8gemm_grouped_sm90_tma) adds the layout check and
// the C map at the end. Host code.
#pragma once

#include <cuda.h>

#include <string>

#include "common/grouped_schedule.hpp"
#include "core/grouping.hpp"
#include "core/registry.hpp"

namespace gemmbench {

// Empty when the case fits the walk's and the tensor maps' 32-bit coordinates, else why not:
// G*N, the stored rows and K below 2^31 (tensor-map rows), and every tile of the walk
// (sum over groups of ceil(M_g / tile_rows), times ceil(N / tile_n)) below 2^31.
std::string sm90_grouped_size_unsupported(const GemmProblem& p, const Grouping& g, int tile_n,
                                          int tile_rows);

// One launch of a grouped Hopper kernel, from its arguments.
struct Sm90GroupedLaunch {
  CUtensorMap weights;  // B (G*N, K) of p.b_type(): box (128 bytes of K, tile_n rows)
  CUtensorMap rows;     // A (stored_rows, K) of p.dtype: box (128 bytes of K, rows_box rows)
  GroupedWalk walk;     // tile_prefix on the device, tiles_n = ceil(N / tile_n)
  int ctas;             // the grid: the resident CTAs, capped by GemmArgs::test_max_ctas
};

// Throws std::invalid_argument, naming `kernel`, where the arguments lack the case's tile table
// in tile_rows-row tiles (GemmArgs::grouped, built for KernelInfo::group_tile_rows) or A or B is
// not 16-byte aligned (TMA).
// rows_box: the activation map's box height, tile_rows unless given (_fit_trim loads its tiles'
// token rows in boxes of 32; the pair, 256-row tiles of the walk, one 128-row box a CTA);
// weights_box: the weight map's, tile_n unless given (the pair: each CTA's half of the tile).
Sm90GroupedLaunch sm90_grouped_launch(const GemmArgs& args, const char* kernel, int tile_n,
                                      int tile_rows, int resident_ctas, int rows_box = 0,
                                      int weights_box = 0);

// Whole-tile TMA stores of C write every row of a row tile, the group's or not, and never read C:
// empty when beta == 0, each group's row tiles lie inside its own stored rows (contiguous: each
// group's rows rounded up to align a multiple of tile_rows, as any align that is one gives;
// masked: max_m a multiple of tile_rows), so that a tile's rows past M_g
// are the group's padding and never another group's rows, and N % 8 == 0 (16-byte row strides of
// C); else the one-line reason, naming the flag that fixes it or (beta) `register_kernel`, the
// register-epilogue kernel that takes the case. whole_tiles false (a kernel that stores by TMA only
// the boxes inside their group, hgemm_grouped_sm90_tma): beta and N alone, any grouping.
std::string sm90_grouped_tile_store_unsupported(const GemmProblem& p, const Grouping& g,
                                                int tile_rows, const char* register_kernel,
                                                bool whole_tiles = true);

// C [stored_rows, N] bf16 row-major, as make_c_store_map's column-major (N, stored_rows): boxes of
// (box columns of N, box rows), read from 128B-swizzled staging boxes of box rows x 128 bytes;
// stores past N or past the stored rows are clipped. Throws std::invalid_argument, naming
// `kernel`, where beta != 0 (a TMA-store epilogue never reads C: every kernel that stores by TMA
// takes its map here, before its launch), C is not 16-byte aligned or N % 8 != 0, or where the
// grouping fails
// sm90_grouped_tile_store_unsupported (checked at every launch, not only in supports()), unless
// whole_tiles is false: a kernel that stores by TMA only the boxes that lie in their group
// (hgemm_grouped_sm90_tma, hgemm_grouped_sm90_pairg) takes any grouping.
CUtensorMap sm90_grouped_c_store_map(const GemmArgs& args, const char* kernel, int box,
                                     bool whole_tiles = true);

}  // namespace gemmbench
