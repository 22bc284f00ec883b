#include "plugin/plugin.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <stdexcept>

#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "gemmbench/plugin.h"
#include "plugin/plugin_abi.hpp"
#include "plugin/sha256.hpp"

namespace gemmbench {

namespace {

// The plugin ABI versions this gemmbench loads, newest first: each version's entry point, and the
// smallest structs a plugin of that version may hand over. Version 2 appended fields to version
// 1's structs, so a version-1 plugin's structs are a prefix of version 2's; a field is read only
// where the plugin's struct_size covers it (and where fields are appended within a version, its
// smallest size stays the size it first shipped with).
constexpr int kOldestAbi = 1;
constexpr size_t kPluginSizeV1 = sizeof(gemmbench_plugin);
constexpr size_t kKernelSizeV1 = offsetof(gemmbench_kernel, prepare);
// The sizeof a struct had when `last` was its last field: where the next field may start. A field
// placed in the tail padding before it would be read from a plugin built then, whose struct_size
// covers that padding and whose compiler left anything there.
constexpr size_t size_ending_at(size_t last_offset, size_t last_size, size_t align) {
  return (last_offset + last_size + align - 1) / align * align;
}
// Version 2 as it first shipped (the FP8 fields): the grouped fields came after it.
constexpr size_t kKernelSizeV2 = size_ending_at(offsetof(gemmbench_kernel, c_row_major),
                                                sizeof(int32_t), alignof(gemmbench_kernel));
static_assert(offsetof(gemmbench_kernel, group_layouts) >= kKernelSizeV2,
              "a grouped field in the tail padding of version 2's first gemmbench_kernel would "
              "read what an older plugin's compiler left there");
static_assert(offsetof(gemmbench_problem, groups) >=
                  size_ending_at(offsetof(gemmbench_problem, c_row_major), sizeof(int32_t),
                                 alignof(gemmbench_problem)),
              "the grouped fields of gemmbench_problem must start past its earlier tail padding");
static_assert(offsetof(gemmbench_launch_args, group_first_row) >=
                  size_ending_at(offsetof(gemmbench_launch_args, scale_layout), sizeof(int32_t),
                                 alignof(gemmbench_launch_args)),
              "the grouped fields of gemmbench_launch_args must start past its earlier padding");
size_t min_kernel_size(int abi) {
  return abi >= 2 ? kKernelSizeV2 : kKernelSizeV1;
}
// Whether a kernel of `struct_size` bytes has the field at `offset` of `size` bytes.
constexpr bool covers(uint32_t struct_size, size_t offset, size_t size) {
  return struct_size >= offset + size;
}
std::string entry_name(int abi) {
  return fmt::format("gemmbench_plugin_v{}", abi);
}
// A sanity bound on num_kernels: a garbage count reads as an error, not as a walk through memory.
constexpr int32_t kMaxKernelsPerPlugin = 100000;
// Room for a plugin's reason or error message, NUL included.
constexpr size_t kMessageBytes = 1024;

// The element types of ABI `abi`: FP8 came with version 2.
std::optional<DType> dtype_from_c(int32_t v, int abi) {
  switch (v) {
    case GEMMBENCH_DTYPE_F32:
      return DType::f32;
    case GEMMBENCH_DTYPE_F16:
      return DType::f16;
    case GEMMBENCH_DTYPE_BF16:
      return DType::bf16;
    case GEMMBENCH_DTYPE_E4M3:
      if (abi >= 2) return DType::e4m3;
      break;
    case GEMMBENCH_DTYPE_E5M2:
      if (abi >= 2) return DType::e5m2;
      break;
  }
  return std::nullopt;
}
std::optional<Accum> accum_from_c(int32_t v) {
  switch (v) {
    case GEMMBENCH_ACCUM_F32:
      return Accum::f32;
    case GEMMBENCH_ACCUM_F16:
      return Accum::f16;
  }
  return std::nullopt;
}
std::optional<Layout> layout_from_c(int32_t v) {
  switch (v) {
    case GEMMBENCH_LAYOUT_NN:
      return Layout::nn;
    case GEMMBENCH_LAYOUT_NT:
      return Layout::nt;
    case GEMMBENCH_LAYOUT_TN:
      return Layout::tn;
    case GEMMBENCH_LAYOUT_TT:
      return Layout::tt;
  }
  return std::nullopt;
}

int32_t to_c(DType d) {
  switch (d) {
    case DType::f32:
      return GEMMBENCH_DTYPE_F32;
    case DType::f16:
      return GEMMBENCH_DTYPE_F16;
    case DType::bf16:
      return GEMMBENCH_DTYPE_BF16;
    case DType::e4m3:  // version 2; a version-1 plugin cannot declare FP8, so is never asked
      return GEMMBENCH_DTYPE_E4M3;
    case DType::e5m2:
      return GEMMBENCH_DTYPE_E5M2;
  }
  return 0;
}
int32_t to_c(ScaleMode m) {
  switch (m) {
    case ScaleMode::none:
      return GEMMBENCH_SCALE_NONE;
    case ScaleMode::tensor:
      return GEMMBENCH_SCALE_TENSOR;
    case ScaleMode::row:
      return GEMMBENCH_SCALE_ROW;
    case ScaleMode::block128:
      return GEMMBENCH_SCALE_BLOCK128;
  }
  return 0;
}
int32_t to_c(Accum a) {
  return a == Accum::f32 ? GEMMBENCH_ACCUM_F32 : GEMMBENCH_ACCUM_F16;
}
int32_t to_c(Layout l) {
  switch (l) {
    case Layout::nn:
      return GEMMBENCH_LAYOUT_NN;
    case Layout::nt:
      return GEMMBENCH_LAYOUT_NT;
    case Layout::tn:
      return GEMMBENCH_LAYOUT_TN;
    case Layout::tt:
      return GEMMBENCH_LAYOUT_TT;
  }
  return 0;
}

int32_t to_c(GroupLayout l) {
  return l == GroupLayout::contiguous ? GEMMBENCH_GROUP_LAYOUT_CONTIGUOUS
                                      : GEMMBENCH_GROUP_LAYOUT_MASKED;
}
constexpr uint32_t kKnownGroupLayouts =
    GEMMBENCH_GROUP_LAYOUT_CONTIGUOUS | GEMMBENCH_GROUP_LAYOUT_MASKED;
std::vector<GroupLayout> group_layouts_from_c(uint32_t bits) {
  std::vector<GroupLayout> out;
  for (GroupLayout l : {GroupLayout::contiguous, GroupLayout::masked})
    if (bits & uint32_t(to_c(l))) out.push_back(l);
  return out;
}

}  // namespace

// A plugin of any version gets the newest struct: an older plugin reads its prefix.
gemmbench_problem plugin_problem(const GemmProblem& p, const Grouping* grouping, bool c_row_major) {
  // A grouped case's C is [stored_rows, N], N-contiguous (core/grouping.hpp), for every kernel.
  const bool rows = c_row_major || grouping;
  gemmbench_problem c{};
  c.struct_size = sizeof(c);
  c.layout = to_c(p.layout);
  c.dtype = to_c(p.dtype);
  c.accum = to_c(p.accum);
  c.m = p.m, c.n = p.n, c.k = p.k;
  c.lda = p.lda(), c.ldb = p.ldb(), c.ldc = rows ? p.n : p.ldc();
  c.alpha = p.alpha, c.beta = p.beta;
  c.dtype_b = to_c(p.b_type());
  c.out_dtype = to_c(p.out_type());
  c.scale = to_c(p.scale);
  c.fast_accum = p.fast_accum ? 1 : 0;
  c.c_row_major = rows ? 1 : 0;
  if (grouping) {
    const bool masked = grouping->layout == GroupLayout::masked;
    c.groups = grouping->groups();
    c.stored_rows = grouping->stored_rows();
    c.group_max_m = masked ? grouping->max_m : 0;
    c.group_align = masked ? 0 : std::max<int64_t>(grouping->align, 1);
    c.group_layout = to_c(grouping->layout);
  }
  return c;
}

gemmbench_launch_args plugin_launch_args(const GemmArgs& args, const gemmbench_problem& problem,
                                         cudaStream_t stream) {
  gemmbench_launch_args c{};
  c.struct_size = sizeof(c);
  c.problem = &problem;
  c.a = args.a;
  c.b = args.b;
  c.c = args.c;
  c.alpha = args.alpha;
  c.beta = args.beta;
  c.stream = static_cast<void*>(stream);
  c.scale_a = args.scale_a;
  c.scale_b = args.scale_b;
  c.scale_layout = GEMMBENCH_SCALE_LAYOUT_ROW_MAJOR;
  if (const GroupedLaunch* g = args.grouped) {
    static_assert(sizeof(*g->rows) == sizeof(int32_t), "M_g on the device is handed over as int32");
    c.group_first_row = g->first_row;
    c.group_m = reinterpret_cast<const int32_t*>(g->rows);
    c.host_group_m = g->grouping ? g->grouping->m.data() : nullptr;
  }
  return c;
}

namespace {

gemmbench_device to_c(const DeviceCaps& caps) {
  gemmbench_device c{};
  c.struct_size = sizeof(c);
  c.sm = caps.sm;
  c.num_sms = caps.num_sms;
  c.smem_per_block_optin = caps.smem_per_block_optin;
  c.l2_bytes = caps.l2_bytes;
  return c;
}

// A plugin's message buffer as a string: NUL-terminated whatever the plugin wrote.
std::string message(char (&buf)[kMessageBytes]) {
  buf[kMessageBytes - 1] = '\0';
  return buf;
}

// One plugin kernel behind a KernelInfo: its callbacks, and the workspace its launches share.
struct Adapter {
  std::string name, path;
  gemmbench_supports_fn supports = nullptr;
  gemmbench_launch_fn launch = nullptr;
  gemmbench_workspace_fn workspace_bytes = nullptr;
  gemmbench_prepare_fn prepare = nullptr;
  bool c_row_major = false;
  bool grouped = false;  // declares group layouts: handed grouped cases only
  void* user = nullptr;
  void* workspace = nullptr;
  size_t workspace_size = 0;
  int workspace_device = -1;

  Adapter() = default;
  Adapter(const Adapter&) = delete;
  Adapter& operator=(const Adapter&) = delete;
  // At process exit the CUDA runtime may be gone already: the result of the free is of no use.
  ~Adapter() {
    if (workspace) cudaFree(workspace);
  }

  // Grows only, and only on a launch whose problem needs more than any before it on this device;
  // the runner's first launch of a problem is its verified run or a warm-up, outside the timed
  // samples (docs/plugins.md says where this is not so).
  void* workspace_for(size_t bytes) {
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    if (workspace && (dev != workspace_device || bytes > workspace_size)) {
      CUDA_CHECK(cudaFree(workspace));
      workspace = nullptr;
      workspace_size = 0;
    }
    if (!workspace) {
      CUDA_CHECK(cudaMalloc(&workspace, bytes));
      workspace_size = bytes;
      workspace_device = dev;
    }
    return workspace;
  }
};

using PluginCallFn = int (*)(const gemmbench_launch_args*, char*, size_t, void*);

// One call of launch() or prepare() with `args`: the same arguments for both, so that what
// prepare() keeps (host state keyed by them, the workspace's contents) matches the launches.
void call_plugin_kernel(Adapter& a, PluginCallFn fn, const char* what, const GemmArgs& args,
                        cudaStream_t stream) {
  // The runner hands grouped arguments only to a kernel that declared the case's layout.
  const Grouping* grouping = args.grouped ? args.grouped->grouping : nullptr;
  const gemmbench_problem p = plugin_problem(args.problem, grouping, a.c_row_major);
  const size_t ws_bytes = a.workspace_bytes ? a.workspace_bytes(&p, a.user) : 0;
  gemmbench_launch_args c = plugin_launch_args(args, p, stream);
  c.workspace = ws_bytes ? a.workspace_for(ws_bytes) : nullptr;
  c.workspace_bytes = ws_bytes;
  char error[kMessageBytes] = {};
  const int rc = fn(&c, error, sizeof(error), a.user);
  if (rc == GEMMBENCH_PLUGIN_OK) return;
  const std::string msg = message(error);
  // A CudaError without a CUDA code: the runner records the row as an error with this text and,
  // unless the context itself was lost, goes on with the next row.
  throw CudaError(fmt::format("plugin kernel '{}' ({}): {} returned {}{}", a.name, a.path, what, rc,
                              msg.empty() ? std::string(" without a message") : ": " + msg));
}

std::string supports_plugin_kernel(const Adapter& a, const GemmProblem& problem,
                                   const Grouping* grouping, const DeviceCaps& caps) {
  if (!a.supports) return {};
  const gemmbench_problem p = plugin_problem(problem, grouping, a.c_row_major);
  const gemmbench_device d = to_c(caps);
  char reason[kMessageBytes] = {};
  if (a.supports(&p, &d, reason, sizeof(reason), a.user) == GEMMBENCH_PLUGIN_OK) return {};
  const std::string why = message(reason);
  return why.empty() ? "declined by the plugin's supports() (no reason given)" : why;
}

struct BadPlugin : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class T, class Parse>
std::vector<T> enum_list(const int32_t* values, int32_t count, const char* what, Parse parse,
                         const std::string& accepted) {
  if (!values || count <= 0)
    throw BadPlugin(fmt::format("{} is empty (give at least one of {})", what, accepted));
  std::vector<T> out;
  for (int32_t i = 0; i < count; ++i) {
    const auto v = parse(values[i]);
    if (!v)
      throw BadPlugin(fmt::format("{}[{}] is {}, not one of {}", what, i, values[i], accepted));
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
  }
  return out;
}

// The KernelInfo of one entry of the table of a plugin of ABI `abi`; throws BadPlugin for a
// malformed entry.
KernelInfo adapt(const gemmbench_kernel& k, int abi, const std::string& path) {
  if (k.struct_size < min_kernel_size(abi))
    throw BadPlugin(fmt::format("struct_size is {}, smaller than ABI {}'s gemmbench_kernel ({})",
                                k.struct_size, abi, min_kernel_size(abi)));
  if (!k.name || !*k.name) throw BadPlugin("has no name");
  if (!k.family || !*k.family) throw BadPlugin("has no family");
  if (k.rung < 1) throw BadPlugin(fmt::format("rung is {}, must be 1 or more", k.rung));
  if (!k.launch) throw BadPlugin("has no launch function");
  KernelInfo info;
  info.name = k.name;
  info.family = k.family;
  info.rung = k.rung;
  info.summary = k.summary ? k.summary : "";
  info.dtypes = enum_list<DType>(
      k.dtypes, k.num_dtypes, "dtypes", [abi](int32_t v) { return dtype_from_c(v, abi); },
      fmt::format("the GEMMBENCH_DTYPE_* values of plugin ABI version {}", abi));
  info.accums = enum_list<Accum>(k.accums, k.num_accums, "accums", accum_from_c,
                                 "the GEMMBENCH_ACCUM_* values");
  info.layouts = enum_list<Layout>(k.layouts, k.num_layouts, "layouts", layout_from_c,
                                   "the GEMMBENCH_LAYOUT_* values");
  if (!accum_valid_for(info.dtypes[0], info.accums[0]))
    throw BadPlugin(
        fmt::format("its native accumulate type {} does not go with its native dtype {}",
                    to_string(info.accums[0]), to_string(info.dtypes[0])));
  for (Accum a : info.accums)
    if (std::none_of(info.dtypes.begin(), info.dtypes.end(),
                     [&](DType d) { return accum_valid_for(d, a); }))
      throw BadPlugin(fmt::format("accumulate type {} goes with none of its dtypes", to_string(a)));
  info.min_sm = k.min_sm;
  auto a = std::make_shared<Adapter>();
  a->name = info.name;
  a->path = path;
  a->supports = k.supports;
  a->launch = k.launch;
  a->workspace_bytes = k.workspace_bytes;
  a->user = k.user;
  if (abi >= 2) {
    if (k.c_row_major != 0 && k.c_row_major != 1)
      throw BadPlugin(fmt::format("c_row_major is {}, must be 0 or 1", k.c_row_major));
    a->prepare = k.prepare;
    a->c_row_major = k.c_row_major == 1;
  }
  // A plugin built before the grouped fields (its struct_size short of them) is dense only:
  // why_unsupported turns a kernel without group layouts away from every grouped case.
  if (abi >= 2 &&
      covers(k.struct_size, offsetof(gemmbench_kernel, group_layouts), sizeof(k.group_layouts))) {
    if (k.group_layouts & ~kKnownGroupLayouts)
      throw BadPlugin(fmt::format(
          "group_layouts is {:#x}, has bits other than GEMMBENCH_GROUP_LAYOUT_* ({:#x})",
          k.group_layouts, kKnownGroupLayouts));
    info.group_layouts = group_layouts_from_c(k.group_layouts);
    a->grouped = !info.group_layouts.empty();
  }
  info.c_row_major = a->c_row_major;
  if (a->grouped) {
    // Grouped only (dense_too false); no tile prefix: a plugin walks its own tiles.
    info.supports_grouped = [a](const GemmProblem& p, const Grouping& g, const DeviceCaps& caps) {
      return supports_plugin_kernel(*a, p, &g, caps);
    };
    info.group_tile_rows = 0;
  } else {
    info.supports = [a](const GemmProblem& p, const DeviceCaps& caps) {
      return supports_plugin_kernel(*a, p, nullptr, caps);
    };
  }
  info.launch = [a](const GemmArgs& args, cudaStream_t stream) {
    call_plugin_kernel(*a, a->launch, "launch", args, stream);
  };
  if (a->prepare)
    info.prepare = [a](const GemmArgs& args, cudaStream_t stream) {
      call_plugin_kernel(*a, a->prepare, "prepare", args, stream);
    };
  return info;
}

// The versions this gemmbench speaks, for messages: "1 and 2".
std::string spoken_versions() {
  std::string s;
  for (int v = kOldestAbi; v <= GEMMBENCH_PLUGIN_ABI_VERSION; ++v)
    s += (s.empty() ? "" : v == GEMMBENCH_PLUGIN_ABI_VERSION ? " and " : ", ") + std::to_string(v);
  return s;
}

struct Entry {
  gemmbench_plugin_entry_fn fn = nullptr;
  int abi = 0;  // the version whose entry point the library exports
};

// The entry point of the newest version the library exports, or why there is none.
Entry find_entry(void* handle) {
  dlerror();
  for (int v = GEMMBENCH_PLUGIN_ABI_VERSION; v >= kOldestAbi; --v)
    if (void* sym = dlsym(handle, entry_name(v).c_str()))
      return {reinterpret_cast<gemmbench_plugin_entry_fn>(sym), v};
  for (int v = GEMMBENCH_PLUGIN_ABI_VERSION + 1; v <= GEMMBENCH_PLUGIN_ABI_VERSION + 8; ++v)
    if (dlsym(handle, entry_name(v).c_str()))
      throw BadPlugin(fmt::format(
          "exports {} but not {}: it was built for plugin ABI version {}, and this gemmbench "
          "speaks versions {}",
          entry_name(v), GEMMBENCH_PLUGIN_ENTRY_NAME, v, spoken_versions()));
  std::string names;
  for (int v = GEMMBENCH_PLUGIN_ABI_VERSION; v >= kOldestAbi; --v)
    names += (names.empty() ? "" : ", ") + entry_name(v);
  throw BadPlugin(fmt::format(
      "no entry point: it exports none of {} (define it with GEMMBENCH_PLUGIN_ENTRY from "
      "gemmbench/plugin.h; docs/plugins.md)",
      names));
}

}  // namespace

PluginSet::PluginSet(KernelRegistry& reg) : reg_(reg) {}
PluginSet::~PluginSet() = default;

void PluginSet::load_all(const std::vector<PluginSource>& sources) {
  for (const PluginSource& s : sources) load(s);
}

void PluginSet::load(const PluginSource& source) {
  namespace fs = std::filesystem;
  const auto fail = [&](const std::string& what) {
    throw UsageError(fmt::format("{}: '{}': {}", source.from, source.path, what));
  };
  if (source.path.empty()) fail("empty path");
  std::error_code ec;
  const fs::file_status st = fs::status(source.path, ec);
  if (!fs::exists(st)) fail("no such file");
  if (fs::is_directory(st)) fail("is a directory, not a shared library");
  const std::string canonical = fs::canonical(source.path, ec).string();
  if (ec) fail("cannot resolve the path (" + ec.message() + ")");
  if (std::find(canonical_paths_.begin(), canonical_paths_.end(), canonical) !=
      canonical_paths_.end())
    return;  // named twice (flag and config, say): one library, loaded once
  PluginRecord rec;
  rec.path = source.path;
  try {
    rec.sha256 = sha256_file_hex(canonical);
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
  // An absolute path: dlopen would search the library path for a bare name. RTLD_LOCAL keeps
  // the plugin's symbols (its own CUDA runtime, say) out of every other library's way.
  void* handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    fail(std::string("not a loadable shared library: ") + (err ? err : "dlopen failed"));
  }
  // From here the library stays loaded even when it is refused: its static initialisers have
  // run, and unloading code that may have registered itself elsewhere is not worth the risk.
  std::vector<KernelInfo> kernels;
  try {
    const Entry entry = find_entry(handle);
    const gemmbench_plugin* p = entry.fn();
    if (!p) throw BadPlugin(entry_name(entry.abi) + " returned NULL");
    if (p->abi_version != uint32_t(entry.abi))
      throw BadPlugin(fmt::format(
          "says it was built for plugin ABI version {} but exports {} (version {}), and this "
          "gemmbench speaks versions {} (rebuild it against this gemmbench's gemmbench/plugin.h)",
          p->abi_version, entry_name(entry.abi), entry.abi, spoken_versions()));
    if (p->struct_size < kPluginSizeV1)
      throw BadPlugin(fmt::format("struct_size is {}, smaller than ABI 1's gemmbench_plugin ({})",
                                  p->struct_size, kPluginSizeV1));
    if (p->num_kernels <= 0 || !p->kernels)
      throw BadPlugin("lists no kernels (num_kernels is " + std::to_string(p->num_kernels) + ")");
    if (p->num_kernels > kMaxKernelsPerPlugin)
      throw BadPlugin(
          fmt::format("num_kernels is {}, more than {}", p->num_kernels, kMaxKernelsPerPlugin));
    rec.name = p->name ? p->name : "";
    for (int32_t i = 0; i < p->num_kernels; ++i) {
      const gemmbench_kernel* k = p->kernels[i];
      const std::string which =
          fmt::format("kernel {}{}", i, k && k->name ? fmt::format(" ('{}')", k->name) : "");
      if (!k) throw BadPlugin(which + ": NULL entry");
      try {
        kernels.push_back(adapt(*k, entry.abi, source.path));
      } catch (const BadPlugin& e) {
        throw BadPlugin(which + ": " + e.what());
      }
      const KernelInfo& info = kernels.back();
      for (size_t j = 0; j + 1 < kernels.size(); ++j)
        if (kernels[j].name == info.name) throw BadPlugin(which + ": listed twice");
      if (reg_.find(info.name)) {
        const PluginRecord* other = plugin_of(info.name);
        throw BadPlugin(
            other ? fmt::format("{}: the name is taken by plugin '{}' (loaded before it)", which,
                                other->path)
                  : which + ": the name is taken by gemmbench's built-in kernel of that name");
      }
      if (std::string why = reg_.problem(info); !why.empty()) throw BadPlugin(which + ": " + why);
    }
  } catch (const BadPlugin& e) {
    fail(e.what());
  }
  for (KernelInfo& info : kernels) {
    rec.kernels.push_back(info.name);
    if (std::string why = reg_.try_add(std::move(info)); !why.empty())
      fail("kernel '" + rec.kernels.back() + "': " + why);  // checked above: not expected
  }
  canonical_paths_.push_back(canonical);
  records_.push_back(std::move(rec));
}

const PluginRecord* PluginSet::plugin_of(const std::string& kernel_name) const {
  for (const PluginRecord& r : records_)
    if (std::find(r.kernels.begin(), r.kernels.end(), kernel_name) != r.kernels.end()) return &r;
  return nullptr;
}

PluginSet& process_plugins() {
  static PluginSet plugins(KernelRegistry::instance());
  return plugins;
}

void PluginRowTagger::add(const CaseResult& row) {
  const PluginRecord* p = plugins_.plugin_of(row.kernel);
  if (!p) return inner_.add(row);
  CaseResult tagged = row;
  tagged.plugin_path = p->path;
  tagged.plugin_sha256 = p->sha256;
  inner_.add(tagged);
}

}  // namespace gemmbench
