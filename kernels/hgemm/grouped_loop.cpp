// hgemm_grouped_loop: a grouped case as one dense hgemm launch per group with rows, what cuBLAS's
// per-group loop does with cublasGemmEx, on gemmbench's own dense rungs (issue 51's "no case
// below 1.0x": Mixtral's eight experts of 346-2975 rows at 4096 tokens, where the loop of eight
// dense cuBLAS calls is the faster cuBLAS way and the grouped kernels run 0.90-0.99x it;
// docs/grouped.md, "The per-group loop"). Each group's product is the dense TN problem of
// group_dense_problem (core/grouping.hpp): C_g, row-major [M_g, N], is the column-major (N, M_g)
// matrix W_g X_g^T, so the dense A is the expert's weights and the dense B its rows, and hgemm's
// rule table picks the kernel for that shape. Host code only: the launches are the dense
// kernels'. Registered for an A/B against hgemm's grouped choice (scripts/dev/moe_loop_ab.json);
// hgemm does not pick it.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/grouping.hpp"
#include "core/registry.hpp"
#include "core/types.hpp"

namespace gemmbench {
namespace {

constexpr const char* kLoopName = "hgemm_grouped_loop";

const KernelInfo& dense_hgemm() {
  const KernelInfo* k = KernelRegistry::instance().find("hgemm");
  if (!k) throw std::logic_error(std::string(kLoopName) + ": hgemm is not registered");
  return *k;
}

// Empty where hgemm takes every group's dense problem (each distinct M_g asked once), else the
// first refusal, naming the group's shape.
std::string supports_grouped_loop(const GemmProblem& p, const Grouping& g, const DeviceCaps& caps) {
  const KernelInfo& hgemm = dense_hgemm();
  std::vector<int64_t> asked;
  for (const int64_t m : g.m) {
    if (m == 0 || std::find(asked.begin(), asked.end(), m) != asked.end()) continue;
    asked.push_back(m);
    const GemmProblem q = group_dense_problem(p, m);
    if (std::string why = why_unsupported(hgemm, q, caps); !why.empty())
      return "hgemm refuses a group's dense problem " + std::to_string(q.m) + "x" +
             std::to_string(q.n) + "x" + std::to_string(q.k) + ": " + why;
  }
  return {};
}

void launch_grouped_loop(const GemmArgs& args, cudaStream_t stream) {
  if (!args.grouped || !args.grouped->grouping)
    throw std::invalid_argument(std::string(kLoopName) + ": a grouped case's arguments only");
  const KernelInfo& hgemm = dense_hgemm();
  const Grouping& g = *args.grouped->grouping;
  const GemmProblem& p = args.problem;
  const size_t es = size_t(dtype_bytes(p.dtype)), es_out = size_t(dtype_bytes(p.out_type()));
  const std::vector<int64_t> first_row = g.row_offsets();
  for (size_t i = 0; i < g.m.size(); ++i) {
    if (g.m[i] == 0) continue;
    GemmArgs group;
    group.problem = group_dense_problem(p, g.m[i]);
    group.a = static_cast<const char*>(args.b) + size_t(int64_t(i) * p.n * p.k) * es;
    group.b = static_cast<const char*>(args.a) + size_t(first_row[i] * p.k) * es;
    group.c = static_cast<char*>(args.c) + size_t(first_row[i] * p.n) * es_out;
    group.alpha = args.alpha;
    group.beta = args.beta;
    hgemm.launch(group, stream);
  }
}

}  // namespace

GEMMBENCH_REGISTER_KERNEL(KernelInfo{
    .name = kLoopName,
    .family = "hgemm",
    // Rung 13, the shape-aware dispatcher's: its launches are hgemm's choices, not a tile of
    // the Hopper grouped rung (10).
    .rung = 13,
    .summary = "grouped (MoE experts) as one dense hgemm launch per group with rows, the "
               "dense rule table's kernel for each group's shape (cuBLAS's per-group loop on "
               "gemmbench's rungs)",
    .dtypes = {DType::f16, DType::bf16},
    .accums = {Accum::f32, Accum::f16},
    .layouts = {Layout::tn},
    .min_sm = 80,
    .launch = launch_grouped_loop,
    .group_layouts = {GroupLayout::contiguous, GroupLayout::masked},
    .supports_grouped = supports_grouped_loop,
});

}  // namespace gemmbench
