// Host side of the grouped Hopper kernels' launches (common/sm90/grouped_launch.hpp).
#include "common/sm90/grouped_launch.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "common/sm90/tma_desc.hpp"

namespace gemmbench {

std::string sm90_grouped_size_unsupported(const GemmProblem& p, const Grouping& g, int tile_n,
                                          int tile_rows) {
  constexpr int64_t kMax = int64_t(1) << 31;
  if (g.groups() * p.n >= kMax || g.stored_rows() >= kMax || p.k >= kMax)
    return "G*N, the stored rows and K must be below 2^31 (32-bit tensor-map rows)";
  const int64_t tiles_n = (p.n + tile_n - 1) / tile_n;
  int64_t row_tiles = 0;
  for (int64_t m : g.m) row_tiles += (m + tile_rows - 1) / tile_rows;
  if (row_tiles * tiles_n >= kMax) return "too many tiles for the 32-bit tile index";
  return {};
}

Sm90GroupedLaunch sm90_grouped_launch(const GemmArgs& args, const char* kernel, int tile_n,
                                      int tile_rows, int resident_ctas, int rows_box,
                                      int weights_box) {
  if (!args.grouped || !args.grouped->grouping || !args.grouped->tile_prefix ||
      args.grouped->tile_rows != tile_rows)
    throw std::invalid_argument(std::string(kernel) +
                                ": needs GemmArgs::grouped with its tile table of " +
                                std::to_string(tile_rows) + "-row tiles");
  const Grouping& g = *args.grouped->grouping;
  const GemmProblem& p = args.problem;
  const int N = int(p.n), K = int(p.k), G = int(g.groups());
  if (reinterpret_cast<uintptr_t>(args.a) % 16 != 0 || reinterpret_cast<uintptr_t>(args.b) % 16)
    throw std::invalid_argument(std::string(kernel) + ": TMA needs 16-byte aligned A and B");
  Sm90GroupedLaunch l;
  l.weights = make_kmajor_map(args.b, p.b_type(), G * N, K, weights_box > 0 ? weights_box : tile_n);
  l.rows = make_kmajor_map(args.a, p.dtype, int(g.stored_rows()), K,
                           rows_box > 0 ? rows_box : tile_rows);
  l.walk = GroupedWalk{args.grouped->tile_prefix, G, (N + tile_n - 1) / tile_n};
  l.ctas = args.test_max_ctas > 0 ? std::min(resident_ctas, args.test_max_ctas) : resident_ctas;
  return l;
}

std::string sm90_grouped_tile_store_unsupported(const GemmProblem& p, const Grouping& g,
                                                int tile_rows, const char* register_kernel,
                                                bool whole_tiles) {
  if (p.beta != 0)
    return std::string("beta != 0 is not built: the TMA-store epilogue never reads C (") +
           register_kernel + " takes it)";
  if (p.n % 8 != 0)
    return "N must be a multiple of 8: TMA stores of C need 16-byte aligned row strides";
  if (!whole_tiles) return {};
  const std::string rows = std::to_string(tile_rows);
  // Contiguous: every group's stored rows whole tiles, so that no tile reaches the next group's
  // rows. Any align that is a multiple of the tile gives that; so does any align where each
  // group's rows, rounded up to it, already are (align 1 with groups of 128, 256, ... rows: every
  // balanced MoE case at 4096 tokens).
  if (g.layout == GroupLayout::contiguous && g.align % tile_rows != 0) {
    for (int64_t m : g.m)
      if (round_up_rows(m, g.align) % tile_rows != 0)
        return "TMA stores of whole " + rows + "-row tiles need each group padded to " + rows +
               " rows (--group-align " + rows + "): align " + std::to_string(g.align) +
               " would let the last tile of a group of " + std::to_string(m) +
               " rows write the next group's rows";
  }
  if (g.layout == GroupLayout::masked && g.max_m % tile_rows != 0)
    return "TMA stores of whole " + rows + "-row tiles need max_m a multiple of " + rows +
           " (--group-max-m " + rows + "): max_m " + std::to_string(g.max_m) +
           " would let a group's last tile write the next group's rows";
  return {};
}

CUtensorMap sm90_grouped_c_store_map(const GemmArgs& args, const char* kernel, int box,
                                     bool whole_tiles) {
  const GemmProblem& p = args.problem;
  if (args.beta != 0.f)  // the launch's own beta (the grouping's check below reads the problem's)
    throw std::invalid_argument(std::string(kernel) + ": beta != 0 (C is never read)");
  if (reinterpret_cast<uintptr_t>(args.c) % 16 != 0 || p.n % 8 != 0)
    throw std::invalid_argument(std::string(kernel) +
                                ": TMA stores need a 16-byte aligned C and N % 8 == 0");
  // The grouping's own check again, at every launch (O(G) on the host): a launch that reaches this
  // kernel on a grouping it refuses (a caller's stale choice) would store whole tiles over the next
  // group's rows, a wrong answer and a race; it is refused instead.
  if (std::string why = sm90_grouped_tile_store_unsupported(
          p, *args.grouped->grouping, args.grouped->tile_rows, kernel, whole_tiles);
      !why.empty())
    throw std::invalid_argument(std::string(kernel) + ": " + why);
  return make_c_store_map(args.c, DType::bf16, int(p.n), int(args.grouped->grouping->stored_rows()),
                          box);
}

}  // namespace gemmbench
