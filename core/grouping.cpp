#include "core/grouping.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gemmbench {

const char* to_string(GroupLayout l) {
  return l == GroupLayout::contiguous ? "contiguous" : "masked";
}

std::optional<GroupLayout> parse_group_layout(std::string_view s) {
  if (s == "contiguous") return GroupLayout::contiguous;
  if (s == "masked") return GroupLayout::masked;
  return std::nullopt;
}

int64_t Grouping::total_m() const {
  return std::accumulate(m.begin(), m.end(), int64_t(0));
}

int64_t Grouping::touched() const {
  return int64_t(std::count_if(m.begin(), m.end(), [](int64_t x) { return x > 0; }));
}

int64_t Grouping::stored_rows() const {
  if (layout == GroupLayout::masked) return groups() * max_m;
  int64_t rows = 0;
  for (int64_t x : m) rows += round_up_rows(x, std::max<int64_t>(align, 1));
  return rows;
}

std::vector<int64_t> Grouping::row_offsets() const {
  std::vector<int64_t> out(m.size());
  int64_t row = 0;
  for (size_t g = 0; g < m.size(); ++g) {
    out[g] = layout == GroupLayout::masked ? int64_t(g) * max_m : row;
    row += round_up_rows(m[g], std::max<int64_t>(align, 1));
  }
  return out;
}

std::vector<int> group_tile_prefix(const Grouping& g, int tile_rows) {
  std::vector<int> out(g.m.size() + 1, 0);
  for (size_t i = 0; i < g.m.size(); ++i)
    out[i + 1] = out[i] + int((g.m[i] + tile_rows - 1) / tile_rows);
  return out;
}

std::vector<int> group_tile_prefix(const Grouping& g, int tile_rows,
                                   const std::vector<int>& order) {
  if (order.size() != g.m.size())
    throw std::invalid_argument("group_tile_prefix: the order must name each group once");
  std::vector<int> out(g.m.size() + 1, 0);
  for (size_t i = 0; i < order.size(); ++i)
    out[i + 1] = out[i] + int((g.m[size_t(order[i])] + tile_rows - 1) / tile_rows);
  return out;
}

std::vector<int> group_walk_order(const Grouping& g, int tile_rows) {
  std::vector<int> order(g.m.size());
  std::iota(order.begin(), order.end(), 0);
  const auto tiles = [&](int i) { return (g.m[size_t(i)] + tile_rows - 1) / tile_rows; };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return tiles(a) > tiles(b); });
  return order;
}

GemmProblem group_dense_problem(const GemmProblem& p, int64_t rows) {
  GemmProblem q = p;
  q.m = p.n;
  q.n = rows;
  q.k = p.k;
  q.layout = Layout::tn;
  if (is_fp8(p.dtype)) {
    q.dtype = p.b_type();
    q.dtype_b.reset();
    if (p.dtype != q.dtype) q.dtype_b = p.dtype;
    q.blocks_on_a = p.scale == ScaleMode::block128 && !p.blocks_on_a;
  }
  return q;
}

int64_t GroupedScales::a_offset(int64_t first_row) const {
  return mode == ScaleMode::tensor ? 0 : scale_count_a(mode, first_row, k);
}

GroupedScales grouped_scales(ScaleMode mode, const Grouping& g, int64_t n, int64_t k) {
  GroupedScales s;
  s.mode = mode;
  s.k = k;
  s.a_count = scale_count_a(mode, g.stored_rows(), k);
  s.per_expert = scale_count_b(mode, n, k);
  s.experts = g.groups();
  return s;
}

GroupStats group_stats(const Grouping& g) {
  GroupStats s;
  if (g.m.empty()) return s;
  std::vector<int64_t> v = g.m;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 ? double(v[n / 2]) : (double(v[n / 2 - 1]) + double(v[n / 2])) / 2;
  s.mean = double(g.total_m()) / double(n);
  s.imbalance = s.mean > 0 ? double(s.max) / s.mean : 0;
  return s;
}

}  // namespace gemmbench
