#include "core/registry.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace gemmbench {

namespace {
[[noreturn]] void registration_failure(const std::string& name, const char* what) {
  std::fprintf(stderr, "gemmbench: kernel registration of '%s' is invalid: %s\n", name.c_str(),
               what);
  std::abort();
}

template <class T, class U>
bool contains(const std::vector<T>& v, const U& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
}  // namespace

KernelRegistry& KernelRegistry::instance() {
  static KernelRegistry registry;
  return registry;
}

bool KernelRegistry::add(KernelInfo info) {
  if (const std::string why = problem(info); !why.empty())
    registration_failure(info.name, why.c_str());
  kernels_.push_back(std::move(info));
  return true;
}

std::string KernelRegistry::try_add(KernelInfo info) {
  std::string why = problem(info);
  if (why.empty()) kernels_.push_back(std::move(info));
  return why;
}

std::string KernelRegistry::problem(const KernelInfo& info) const {
  if (info.name.empty()) return "empty name";
  for (char ch : info.name)
    if (!(std::islower(static_cast<unsigned char>(ch)) ||
          std::isdigit(static_cast<unsigned char>(ch)) || ch == '_'))
      return "names use lower-case letters, digits and '_' only";
  if (info.name == "cublas" || info.name == "cublaslt" || info.name == "all")
    return "name is reserved";
  if (find(info.name)) return "duplicate name";
  if (info.dtypes.empty() || info.accums.empty() || info.layouts.empty())
    return "dtypes, accums and layouts must be non-empty";
  if (!info.launch) return "no launcher";
  if (info.rung <= 0 || info.family.empty()) return "needs family and rung";
  if (info.group_tile_rows < 0 || (info.group_tile_rows > 0 && info.group_layouts.empty()))
    return "group_tile_rows is for grouped kernels, and not negative";
  if ((info.dense_too || info.choose_grouped) && info.group_layouts.empty())
    return "dense_too and choose_grouped are for kernels that declare group layouts";
  return {};
}

std::vector<const KernelInfo*> KernelRegistry::all() const {
  std::vector<const KernelInfo*> out;
  for (const auto& k : kernels_) out.push_back(&k);
  std::sort(out.begin(), out.end(), [](const KernelInfo* a, const KernelInfo* b) {
    if (a->family != b->family) return a->family > b->family;  // "sgemm" before "hgemm"
    if (a->rung != b->rung) return a->rung < b->rung;
    return a->name < b->name;
  });
  return out;
}

const KernelInfo* KernelRegistry::find(const std::string& name) const {
  for (const auto& k : kernels_)
    if (k.name == name) return &k;
  return nullptr;
}

int grouped_launch_tile_rows(const KernelInfo& k, const GemmProblem& p, const Grouping& g,
                             const DeviceCaps& caps) {
  if (k.choose_grouped) {
    const DispatchChoice c = k.choose_grouped(p, g, caps);
    if (c.kernel) return c.kernel->group_tile_rows;
  }
  return k.group_tile_rows;
}

std::string why_unsupported(const KernelInfo& k, const GemmProblem& p, const DeviceCaps& caps,
                            const Grouping* grouping) {
  if (grouping && k.group_layouts.empty()) return kDenseKernelGroupedReason;
  if (!grouping && !k.group_layouts.empty() && !k.dense_too) return kGroupedKernelDenseReason;
  if (grouping && !contains(k.group_layouts, grouping->layout))
    return std::string("group layout ") + to_string(grouping->layout) +
           " not implemented by this kernel";
  if (!contains(k.dtypes, p.dtype))
    return std::string("dtype ") + to_string(p.dtype) + " not implemented by this kernel";
  if (!contains(k.accums, p.accum))
    return std::string("accumulate type ") + to_string(p.accum) + " not implemented by this kernel";
  if (!contains(k.layouts, p.layout))
    return std::string("layout ") + to_string(p.layout) + " not implemented by this kernel";
  if (caps.sm < k.min_sm)
    return "needs sm_" + std::to_string(k.min_sm) + ", device is sm_" + std::to_string(caps.sm);
  if (k.c_row_major && p.beta != 0)
    return "writes C row-major (N contiguous), so it runs with beta = 0 only: the seeded C of "
           "beta != 0 is column-major";
  if (grouping) return k.supports_grouped ? k.supports_grouped(p, *grouping, caps) : std::string();
  if (k.supports) return k.supports(p, caps);
  return {};
}

namespace {
thread_local const KernelInfo* g_dispatched = nullptr;
}  // namespace

void note_dispatched(const KernelInfo* k) {
  if (!g_dispatched) g_dispatched = k;
}

const KernelInfo* take_dispatched() {
  const KernelInfo* k = g_dispatched;
  g_dispatched = nullptr;
  return k;
}

}  // namespace gemmbench
