// Grouped GEMM as Mixture-of-Experts layers run it (docs/grouped.md): G groups share N and K, each
// group g has its own M_g rows of activations and its own weights. TN, as a dense preset layer:
// A holds the activations K-contiguous, B the weights [G, N, K] K-contiguous, C_g = A_g * B_g^T.
// C has A's rows: [rows, N], N-contiguous (what torch's x @ W.T and DeepGEMM's grouped kernels
// write), so that a group's output rows are one contiguous range, as its input rows are.
//
// Why the type lives in the ground layer but is not a field of GemmProblem: a grouped kernel's
// supports() and its launch arguments will need exactly this description (the counts, the layout,
// the padding), and what a kernel needs from the driver belongs here. It is held beside the
// problem (ProblemGroup::grouped, CaseResult::grouped) rather than inside it because every consumer
// of GemmProblem today (each kernel's supports() and launcher, the cuBLAS baselines, the plugin
// adapter, the fp64 reference) reads it as one dense GEMM: a field they all ignore would let a
// grouped problem reach a dense kernel as an M x N x K GEMM, a wrong answer instead of a skipped
// row. A grouped kernel gets it through GemmArgs::grouped (GroupedLaunch, below) and declares the
// layouts it takes in KernelInfo::group_layouts, so that why_unsupported (core/registry.hpp) turns
// dense kernels away from grouped cases, and grouped kernels from dense ones, in one place.
//
// The GemmProblem of a grouped case has M = sum(M_g): 2*M*N*K is then the grouped FLOP count,
// and padding rows are neither counted nor compared.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.hpp"

namespace gemmbench {

// contiguous: the rows of all groups stacked in one [rows, K] activation (DeepGEMM's m-grouped
//   contiguous, torch._grouped_mm's offsets); each group's rows start at a multiple of `align`
//   (DeepGEMM on sm90: 128), the rows between a group's last and the next group's first are
//   padding. masked: [G, max_m, K], group g's first M_g rows valid (DeepGEMM's masked layout for
//   decode under CUDA graphs, where the shapes must not change with the routing).
enum class GroupLayout { contiguous, masked };
const char* to_string(GroupLayout l);
std::optional<GroupLayout> parse_group_layout(std::string_view s);

struct Grouping {
  std::vector<int64_t> m;  // M_g, one per group (G = m.size()); 0: an expert no token chose
  GroupLayout layout = GroupLayout::contiguous;
  int64_t align = 1;  // contiguous: each group's rows padded to a multiple of this
  int64_t max_m = 0;  // masked: rows per group in storage, >= every M_g

  int64_t groups() const { return int64_t(m.size()); }
  int64_t total_m() const;      // sum(M_g): the rows computed, counted and compared
  int64_t touched() const;      // groups with M_g > 0: the experts whose weights are read
  int64_t stored_rows() const;  // rows of A and C in storage, padding included
  // The first stored row of each group (contiguous: the rows before it, each group's padded to
  // `align`; masked: g * max_m): where group g's rows of A and of C begin.
  std::vector<int64_t> row_offsets() const;
  bool operator==(const Grouping& o) const {
    return m == o.m && layout == o.layout && align == o.align && max_m == o.max_m;
  }
};

// The M_g summary a row records: min, median (the mean of the two middle values for an even G),
// max, mean = sum / G, and imbalance = max / mean (1: every group the same; the cost of the
// largest group over an even split).
struct GroupStats {
  int64_t min = 0, max = 0;
  double median = 0, mean = 0, imbalance = 0;
};
GroupStats group_stats(const Grouping& g);

// What a grouped kernel's launch receives beside the dense arguments (GemmArgs::grouped): the
// grouping on the host and its per-group arrays on the device, which the runner builds once per
// case outside every timed region (runner/grouped_gemm.hpp, GroupedLaunchTables). Any provider (a
// gemmbench kernel, a plugin wrapping DeepGEMM's m-grouped kernels) needs the same things: where
// each group's rows begin, how many there are, and a walk over all the groups' tiles.
// GemmArgs' a, b and c are then the grouped operands: A [stored_rows, K], B [G, N, K], C
// [stored_rows, N]; GemmArgs::problem is the case's (m = sum(M_g), n = N, k = K).
struct GroupedLaunch {
  const Grouping* grouping = nullptr;  // host: M_g, layout, align / max_m
  const int64_t* first_row = nullptr;  // device, G entries: Grouping::row_offsets()
  const int* rows = nullptr;           // device, G entries: M_g
  // device, G + 1 entries: group_tile_prefix(*grouping, tile_rows), tile_rows the kernel's
  // KernelInfo::group_tile_rows; null where the kernel declares none (0).
  const int* tile_prefix = nullptr;
  int tile_rows = 0;
  // The walk's order (issue 51's experiment, KernelInfo::group_walk_interleave): device, G
  // entries, or null for the groups in their own order. group_order[i] is the group the walk
  // takes i-th (group_walk_order: most row tiles first), and tile_prefix then counts the row
  // tiles in that order (group_tile_prefix(g, tile_rows, order)). interleave: the walk takes its
  // tiles alternately from the front and the back of that order (kernels/common/
  // grouped_schedule.hpp), so that the CTAs running at once mix the large groups' compute-bound
  // tiles with the small groups' weight-bound ones.
  const int* group_order = nullptr;
  bool interleave = false;
};

// The row tiles before each group: entry g = sum over h < g of ceil(M_h / tile_rows), entry G the
// total, so that group g's row tiles are [prefix[g], prefix[g + 1]) of one linear order over all
// the groups (an empty group has none). tile_rows >= 1. A kernel whose tiles are also cut along N
// (the same count for every group) multiplies; kernels/common/grouped_schedule.hpp walks it.
std::vector<int> group_tile_prefix(const Grouping& g, int tile_rows);
// The same over the groups in `order` (a permutation of 0..G-1): entry i counts the row tiles of
// order[0..i).
std::vector<int> group_tile_prefix(const Grouping& g, int tile_rows, const std::vector<int>& order);
// The groups by row tiles, most first, ties in group order (a stable sort): GroupedLaunch's
// group_order for the interleaved walk.
std::vector<int> group_walk_order(const Grouping& g, int tile_rows);

// Rounds `rows` up to a multiple of `align` (align >= 1).
constexpr int64_t round_up_rows(int64_t rows, int64_t align) {
  return (rows + align - 1) / align * align;
}

// Group g's product as one dense TN GEMM. C_g = A_g B_g^T stored row-major [M_g, N] is the
// column-major (N, M_g) matrix B_g A_g^T: m = N, n = `rows` (M_g), k = K, the group's weights as
// the dense A and its activations as the dense B; types, alpha, beta and the FP8 settings those
// of `p` (the grouped case's problem, m = sum(M_g)). FP8 operands trade places with their types
// (A's type is the dense B's) and their scales: tensor and row read the same either way, and
// block128's 128x128 blocks, on the weights, land on the dense A (GemmProblem::blocks_on_a). The
// dense reference and the dense baselines (cublasGemmEx, cuBLASLt) then serve a group unchanged.
GemmProblem group_dense_problem(const GemmProblem& p, int64_t rows);

// The f32 scales of an FP8 grouped case (docs/grouped.md, "FP8 grouped cases"), laid out so that
// each group's are a dense problem's (core/types.hpp's layouts, above ScaleMode), found by an
// offset:
//   A (the activations): the layout of one dense A over all stored rows, padding included.
//     tensor: one scale for all of A, every group's; row: one per stored row; block128: [rows,
//     KB] row-major, scale_a[row * KB + kb], KB = ceil(K/128). Group g's begin at its first
//     stored row (Grouping::row_offsets), the tensor scale shared.
//   B (the weights, [G*N, K]): one dense B's layout per expert, G of them stacked. tensor: one
//     scale per expert; row: N per expert; block128: ceil(N/128) x KB per expert, so an expert's
//     partial last 128-row block is its own and never takes rows of the next one. Expert g's
//     begin at g times one expert's count.
// group_dense_problem(p, M_g) then reads group g's weights' scales (at b_offset(g)) as its A's and
// its activations' (at a_offset(first row)) as its B's.
struct GroupedScales {
  ScaleMode mode = ScaleMode::none;
  int64_t k = 0;
  int64_t a_count = 0;                                      // scales of A in all
  int64_t per_expert = 0;                                   // scales of one expert's weights
  int64_t experts = 0;                                      // G
  int64_t b_count() const { return per_expert * experts; }  // scales of B in all
  // The first scale of A's row `first_row` (tensor: 0, the one scale).
  int64_t a_offset(int64_t first_row) const;
  // The first scale of expert `group`'s weights.
  int64_t b_offset(int64_t group) const { return group * per_expert; }
};
GroupedScales grouped_scales(ScaleMode mode, const Grouping& g, int64_t n, int64_t k);

}  // namespace gemmbench
