// Plugins without a GPU: the example plugin (examples/plugin, built by tests/CMakeLists.txt)
// loads and its kernel carries the facts it declared; every bad plugin is refused with a UsageError
// that names it, and registers nothing; --plugin and a config's "plugins" reach the request;
// grouped plugin kernels get grouped cases with their groups, older plugins none; reports record
// the plugin and its SHA-256.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "config/config.hpp"
#include "core/cuda_check.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "merge/merge.hpp"
#include "plugin/plugin.hpp"
#include "plugin/plugin_abi.hpp"
#include "plugin/sha256.hpp"
#include "report/json_codec.hpp"

using namespace gemmbench;

namespace {

// The UsageError message of loading `path` into `reg`, or "(loaded)".
std::string refusal(const std::string& path, KernelRegistry& reg) {
  PluginSet plugins(reg);
  try {
    plugins.load({path, "--plugin"});
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(loaded)";
}

KernelInfo builtin_named(const std::string& name) {
  KernelInfo k;
  k.name = name;
  k.family = "hgemm";
  k.rung = 1;
  k.dtypes = {DType::f16};
  k.accums = {Accum::f32};
  k.layouts = {Layout::tn};
  k.launch = [](const GemmArgs&, cudaStream_t) {};
  return k;
}

GemmProblem tn_f16(int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.layout = Layout::tn;
  p.dtype = DType::f16;
  p.accum = Accum::f32;
  return p;
}

DeviceCaps h100() {
  DeviceCaps c;
  c.sm = 90;
  c.num_sms = 132;
  return c;
}

class Collect : public Reporter {
 public:
  void begin(const RunMetadata&) override {}
  void add(const CaseResult& r) override { rows.push_back(r); }
  void end(const RunSummary&) override {}
  std::vector<CaseResult> rows;
};

}  // namespace

TEST(Sha256, KnownVectors) {  // FIPS 180-4 examples
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, FileMatchesBytes) {
  const std::string path = ::testing::TempDir() + "gemmbench_sha256_test.bin";
  std::string bytes;
  for (int i = 0; i < 200000; ++i) bytes += char(i * 7 + 3);  // crosses read and block edges
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_EQ(sha256_file_hex(path), sha256_hex(bytes));
  std::filesystem::remove(path);
  EXPECT_THROW(sha256_file_hex(path), std::runtime_error);
}

TEST(Plugin, ExampleLoadsWithTheFactsItDeclares) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_EXAMPLE, "--plugin"});
  const KernelInfo* k = reg.find("tiled_hgemm");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->family, "example");
  EXPECT_EQ(k->rung, 1);
  EXPECT_EQ(k->dtypes, std::vector<DType>{DType::f16});
  EXPECT_EQ(k->accums, std::vector<Accum>{Accum::f32});
  EXPECT_EQ(k->layouts, std::vector<Layout>{Layout::tn});
  EXPECT_EQ(k->min_sm, 70);
  EXPECT_NE(k->summary.find("example plugin"), std::string::npos);
  ASSERT_EQ(plugins.records().size(), 1u);
  const PluginRecord& r = plugins.records()[0];
  EXPECT_EQ(r.path, GB_PLUGIN_EXAMPLE);
  EXPECT_EQ(r.sha256, sha256_file_hex(GB_PLUGIN_EXAMPLE));
  EXPECT_EQ(r.sha256.size(), 64u);
  EXPECT_EQ(r.name, "gemmbench example plugin");
  EXPECT_EQ(r.kernels, std::vector<std::string>{"tiled_hgemm"});
  EXPECT_EQ(plugins.plugin_of("tiled_hgemm"), &r);
  EXPECT_EQ(plugins.plugin_of("hgemm_tn"), nullptr);
}

TEST(Plugin, ExampleSupportsDeclinesWhatItCannotRun) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_EXAMPLE, "--plugin"});
  const KernelInfo& k = *reg.find("tiled_hgemm");
  EXPECT_EQ(why_unsupported(k, tn_f16(4096, 4096, 4096), h100()), "");
  EXPECT_EQ(why_unsupported(k, tn_f16(1, 1, 1), h100()), "");
  // Past the grid's y dimension: the plugin's own reason.
  EXPECT_EQ(why_unsupported(k, tn_f16(64, 65535 * 32 + 1, 64), h100()),
            "N must be at most 2097120: the grid's y dimension holds N/32 blocks");
  // What the declared lists rule out never reaches the plugin.
  GemmProblem nn = tn_f16(64, 64, 64);
  nn.layout = Layout::nn;
  EXPECT_EQ(why_unsupported(k, nn, h100()), "layout nn not implemented by this kernel");
  DeviceCaps old = h100();
  old.sm = 61;
  EXPECT_EQ(why_unsupported(k, tn_f16(64, 64, 64), old), "needs sm_70, device is sm_61");
}

TEST(Plugin, TheSameFileTwiceLoadsOnce) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  const std::filesystem::path p = GB_PLUGIN_EXAMPLE;
  // Another spelling of the same file: through "..".
  const std::string other = (p.parent_path() / ".." / p.parent_path().filename() / p.filename());
  plugins.load_all(std::vector<PluginSource>{{p.string(), "--plugin"}, {other, "cfg: plugins[0]"}});
  EXPECT_EQ(plugins.records().size(), 1u);
  EXPECT_EQ(reg.all().size(), 1u);
}

TEST(Plugin, MissingFileAndDirectoryAreRefused) {
  KernelRegistry reg;
  EXPECT_EQ(refusal("/nonexistent/libp.so", reg), "--plugin: '/nonexistent/libp.so': no such file");
  EXPECT_EQ(refusal("/tmp", reg), "--plugin: '/tmp': is a directory, not a shared library");
  EXPECT_EQ(refusal("", reg), "--plugin: '': empty path");
}

TEST(Plugin, NotASharedLibraryIsRefused) {
  KernelRegistry reg;
  const std::string readme = std::string(GEMMBENCH_SOURCE_DIR) + "/README.md";
  const std::string e = refusal(readme, reg);
  EXPECT_EQ(e.rfind("--plugin: '" + readme + "': not a loadable shared library: ", 0), 0u) << e;
}

TEST(Plugin, NoEntryPointIsRefused) {
  KernelRegistry reg;
  EXPECT_NE(refusal(GB_PLUGIN_NO_ENTRY, reg)
                .find("no entry point: it exports none of gemmbench_plugin_v2, "
                      "gemmbench_plugin_v1 (define it with GEMMBENCH_PLUGIN_ENTRY"),
            std::string::npos);
}

TEST(Plugin, AnotherAbiVersionIsRefused) {
  KernelRegistry reg;
  EXPECT_NE(
      refusal(GB_PLUGIN_WRONG_ABI, reg)
          .find("says it was built for plugin ABI version 99 but exports "
                "gemmbench_plugin_v2 (version 2), and this gemmbench speaks versions 1 and 2"),
      std::string::npos);
  EXPECT_NE(refusal(GB_PLUGIN_FUTURE_ABI, reg)
                .find("exports gemmbench_plugin_v3 but not gemmbench_plugin_v2: it was built for "
                      "plugin ABI version 3, and this gemmbench speaks versions 1 and 2"),
            std::string::npos);
  EXPECT_TRUE(reg.all().empty());
}

// A plugin built against version 1's header (tests/plugins/abi1, the header as it shipped) loads
// and runs unchanged: the example plugin's source, compiled the way it was compiled then.
TEST(Plugin, Version1PluginsLoadUnchanged) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_EXAMPLE_ABI1, "--plugin"});
  const KernelInfo* k = reg.find("tiled_hgemm");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->dtypes, std::vector<DType>{DType::f16});
  EXPECT_EQ(k->layouts, std::vector<Layout>{Layout::tn});
  EXPECT_FALSE(k->prepare);
  EXPECT_FALSE(k->c_row_major);
  // Its supports() reads version 1's fields of the problem gemmbench hands over.
  EXPECT_EQ(why_unsupported(*k, tn_f16(64, 64, 64), h100()), "");
  EXPECT_EQ(why_unsupported(*k, tn_f16(64, 65535 * 32 + 1, 64), h100()),
            "N must be at most 2097120: the grid's y dimension holds N/32 blocks");
}

// Version 1 has no FP8: a version-1 plugin that declares version 2's e4m3 value is refused, so
// no FP8 problem ever reaches a plugin that could not read its scales.
TEST(Plugin, Version1PluginsCannotDeclareFp8) {
  KernelRegistry reg;
  EXPECT_EQ(refusal(GB_PLUGIN_ABI1_FP8, reg),
            std::string("--plugin: '") + GB_PLUGIN_ABI1_FP8 +
                "': kernel 0 ('abi1_fp8'): dtypes[0] is 4, not one of the GEMMBENCH_DTYPE_* "
                "values of plugin ABI version 1");
  EXPECT_TRUE(reg.all().empty());
}

GemmProblem tn_fp8(int64_t m, int64_t n, int64_t k, ScaleMode scale, double beta = 0) {
  GemmProblem p = tn_f16(m, n, k);
  p.dtype = DType::e4m3;
  p.out = DType::bf16;
  p.scale = scale;
  p.beta = beta;
  return p;
}

// Version 2: FP8 types declared, the prepare() callback and the row-major C carried into the
// KernelInfo, and a row-major kernel kept from beta != 0 with the reason.
TEST(Plugin, Version2CarriesFp8PrepareAndRowMajorC) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_FP8_REFERENCE, "--plugin"});
  const KernelInfo* cols = reg.find("fp8_ref_cols");
  const KernelInfo* rows = reg.find("fp8_ref_rows");
  ASSERT_NE(cols, nullptr);
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(cols->dtypes, (std::vector<DType>{DType::e4m3, DType::e5m2}));
  EXPECT_FALSE(cols->prepare);
  EXPECT_FALSE(cols->c_row_major);
  EXPECT_TRUE(rows->prepare);
  EXPECT_TRUE(rows->c_row_major);
  for (ScaleMode s : {ScaleMode::tensor, ScaleMode::row, ScaleMode::block128}) {
    EXPECT_EQ(why_unsupported(*cols, tn_fp8(64, 64, 256, s, 0.5), h100()), "");
    EXPECT_EQ(why_unsupported(*rows, tn_fp8(64, 64, 256, s), h100()), "");
  }
  EXPECT_EQ(why_unsupported(*rows, tn_fp8(64, 64, 256, ScaleMode::block128, 0.5), h100()),
            "writes C row-major (N contiguous), so it runs with beta = 0 only: the seeded C of "
            "beta != 0 is column-major");
  // The plugin's supports() sees version 2's fields: it declines an unscaled problem.
  EXPECT_EQ(why_unsupported(*cols, tn_fp8(64, 64, 256, ScaleMode::none), h100()),
            "FP8 inputs only");
}

// ---- Grouped problems (docs/plugins.md, "Grouped problems") ----

// 5, 0, 17 and 128 rows: M = 150; contiguous with align 8 stores 8 + 0 + 24 + 128 = 160 rows,
// masked with max_m 130 stores 4 * 130 = 520.
Grouping four_groups(GroupLayout layout) {
  Grouping g;
  g.m = {5, 0, 17, 128};
  g.layout = layout;
  if (layout == GroupLayout::contiguous)
    g.align = 8;
  else
    g.max_m = 130;
  return g;
}

GemmProblem grouped_bf16(const Grouping& g, int64_t n, int64_t k) {
  GemmProblem p = tn_f16(g.total_m(), n, k);
  p.dtype = DType::bf16;
  return p;
}

TEST(PluginGrouped, AKernelDeclaringGroupLayoutsRegistersAsGrouped) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_GROUPED, "--plugin"});
  const KernelInfo* contig = reg.find("grouped_contig");
  const KernelInfo* both = reg.find("grouped_both");
  ASSERT_NE(contig, nullptr);
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(contig->group_layouts, std::vector<GroupLayout>{GroupLayout::contiguous});
  EXPECT_EQ(both->group_layouts,
            (std::vector<GroupLayout>{GroupLayout::contiguous, GroupLayout::masked}));
  for (const KernelInfo* k : {contig, both}) {
    EXPECT_TRUE(k->supports_grouped);
    EXPECT_FALSE(k->supports);
    EXPECT_EQ(k->group_tile_rows, 0);
    EXPECT_FALSE(k->dense_too);
    // Grouped only: a dense case is turned away before the plugin's supports().
    EXPECT_EQ(why_unsupported(*k, tn_f16(64, 64, 64), h100()), kGroupedKernelDenseReason);
  }
  const Grouping masked = four_groups(GroupLayout::masked);
  EXPECT_EQ(why_unsupported(*contig, grouped_bf16(masked, 256, 256), h100(), &masked),
            "group layout masked not implemented by this kernel");
  EXPECT_EQ(why_unsupported(*both, grouped_bf16(masked, 256, 256), h100(), &masked), "");
}

// The plugin's supports() declines K = 7 with the grouped fields it read.
TEST(PluginGrouped, SupportsSeesTheGroups) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_GROUPED, "--plugin"});
  const KernelInfo& contig = *reg.find("grouped_contig");
  const KernelInfo& both = *reg.find("grouped_both");
  const Grouping c = four_groups(GroupLayout::contiguous);
  EXPECT_EQ(why_unsupported(contig, grouped_bf16(c, 256, 7), h100(), &c),
            "G 4 layout 1 m 150 n 256 stored_rows 160 max_m 0 align 8 ldc 256 c_row_major 1");
  EXPECT_EQ(why_unsupported(contig, grouped_bf16(c, 256, 256), h100(), &c), "");
  const Grouping m = four_groups(GroupLayout::masked);
  EXPECT_EQ(why_unsupported(both, grouped_bf16(m, 96, 7), h100(), &m),
            "G 4 layout 2 m 150 n 96 stored_rows 520 max_m 130 align 0 ldc 96 c_row_major 1");
  // What the declared lists rule out still never reaches the plugin.
  GemmProblem f32 = grouped_bf16(c, 256, 7);
  f32.dtype = DType::f32;
  EXPECT_EQ(why_unsupported(contig, f32, h100(), &c), "dtype f32 not implemented by this kernel");
}

// A grouped launch through the registry's launcher: the plugin's launch() fails at alpha = 7
// with the grouped fields it read. No workspace is asked for, so no CUDA call is made.
TEST(PluginGrouped, LaunchSeesTheGroupArrays) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_GROUPED, "--plugin"});
  const KernelInfo& contig = *reg.find("grouped_contig");
  const Grouping g = four_groups(GroupLayout::contiguous);
  const std::vector<int64_t> first = g.row_offsets();
  const std::vector<int> rows = {5, 0, 17, 128};
  GroupedLaunch launch;  // host arrays stand in for the device ones: the plugin reads neither
  launch.grouping = &g;
  launch.first_row = first.data();
  launch.rows = rows.data();
  GemmArgs args{grouped_bf16(g, 256, 256)};
  args.alpha = 7;
  args.grouped = &launch;
  try {
    contig.launch(args, nullptr);
    FAIL() << "the grouped launch did not report what it saw";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "launch returned 5: G 4, device arrays first_row m, M_g 5 0 17 128"),
              std::string::npos)
        << e.what();
  }
}

// The launch arguments a plugin kernel gets, built on the host from gemmbench's own.
TEST(PluginGrouped, LaunchArgsCarryTheDeviceAndHostArrays) {
  const Grouping g = four_groups(GroupLayout::contiguous);
  const std::vector<int64_t> first = g.row_offsets();
  const std::vector<int> rows = {5, 0, 17, 128};
  const std::vector<int> prefix = {0, 1, 1, 2, 3};
  GroupedLaunch launch;
  launch.grouping = &g;
  launch.first_row = first.data();
  launch.rows = rows.data();
  launch.tile_prefix = prefix.data();
  launch.tile_rows = 128;
  int a = 0, b = 0, c = 0;
  float sa = 0, sb = 0;
  GemmArgs args{grouped_bf16(g, 256, 512), &a, &b, &c, 1.5f, 0.5f, &sa, &sb};
  args.grouped = &launch;
  const auto stream = reinterpret_cast<cudaStream_t>(uintptr_t(0x1234));
  const gemmbench_problem p = plugin_problem(args.problem, &g, false);
  const gemmbench_launch_args la = plugin_launch_args(args, p, stream);
  EXPECT_EQ(la.struct_size, sizeof(gemmbench_launch_args));
  EXPECT_EQ(la.problem, &p);
  EXPECT_EQ(la.a, &a);
  EXPECT_EQ(la.b, &b);
  EXPECT_EQ(la.c, &c);
  EXPECT_EQ(la.alpha, 1.5f);
  EXPECT_EQ(la.beta, 0.5f);
  EXPECT_EQ(la.stream, reinterpret_cast<void*>(stream));
  EXPECT_EQ(la.scale_a, &sa);
  EXPECT_EQ(la.scale_b, &sb);
  EXPECT_EQ(la.workspace, nullptr);
  EXPECT_EQ(la.workspace_bytes, 0u);
  EXPECT_EQ(la.group_first_row, first.data());
  EXPECT_EQ(static_cast<const void*>(la.group_m), static_cast<const void*>(rows.data()));
  EXPECT_EQ(la.host_group_m, g.m.data());
  // The grouped problem: m = sum(M_g), C [stored_rows, N] row-major, A and B K-contiguous.
  EXPECT_EQ(p.groups, 4);
  EXPECT_EQ(p.group_layout, GEMMBENCH_GROUP_LAYOUT_CONTIGUOUS);
  EXPECT_EQ(p.m, 150);
  EXPECT_EQ(p.stored_rows, 160);
  EXPECT_EQ(p.group_align, 8);
  EXPECT_EQ(p.group_max_m, 0);
  EXPECT_EQ(p.lda, 512);
  EXPECT_EQ(p.ldb, 512);
  EXPECT_EQ(p.ldc, 256);
  EXPECT_EQ(p.c_row_major, 1);

  // A dense problem: no group fields, no arrays, C column-major unless the kernel says otherwise.
  GemmArgs dense{tn_f16(64, 32, 16), &a, &b, &c};
  const gemmbench_problem dp = plugin_problem(dense.problem, nullptr, false);
  const gemmbench_launch_args dl = plugin_launch_args(dense, dp, stream);
  EXPECT_EQ(dp.groups, 0);
  EXPECT_EQ(dp.group_layout, 0);
  EXPECT_EQ(dp.stored_rows, 0);
  EXPECT_EQ(dp.ldc, 64);
  EXPECT_EQ(dp.c_row_major, 0);
  EXPECT_EQ(dl.group_first_row, nullptr);
  EXPECT_EQ(dl.group_m, nullptr);
  EXPECT_EQ(dl.host_group_m, nullptr);
  EXPECT_EQ(plugin_problem(dense.problem, nullptr, true).ldc, 32);
}

// A version-2 plugin built before the grouped fields (tests/plugins/abi2_fp8, its tail padding
// filled with 0xff) loads as a dense kernel and is refused every grouped case with the one-line
// reason, its supports() never called for one.
TEST(PluginGrouped, APluginBuiltBeforeTheGroupedFieldsIsDenseOnly) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_PREGROUPED, "--plugin"});
  const KernelInfo* k = reg.find("pregrouped");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->group_layouts.empty());
  EXPECT_FALSE(k->supports_grouped);
  const GemmProblem dense = grouped_bf16(four_groups(GroupLayout::contiguous), 64, 7);
  EXPECT_EQ(why_unsupported(*k, dense, h100()), "pregrouped: m 150");
  for (GroupLayout l : {GroupLayout::contiguous, GroupLayout::masked}) {
    const Grouping g = four_groups(l);
    EXPECT_EQ(why_unsupported(*k, grouped_bf16(g, 64, 7), h100(), &g), kDenseKernelGroupedReason);
  }
}

TEST(Plugin, AMalformedKernelRefusesThePluginWhole) {
  KernelRegistry reg;
  EXPECT_EQ(refusal(GB_PLUGIN_MISSING_LAUNCH, reg),
            std::string("--plugin: '") + GB_PLUGIN_MISSING_LAUNCH +
                "': kernel 1 ('incomplete_no_launch'): has no launch function");
  EXPECT_EQ(reg.find("incomplete_good"), nullptr);  // kernel 0 was fine, and is not registered
}

TEST(Plugin, ANameClashIsRefused) {
  KernelRegistry reg;
  ASSERT_EQ(reg.try_add(builtin_named("hgemm_tn")), "");
  EXPECT_NE(refusal(GB_PLUGIN_CLASH_BUILTIN, reg)
                .find("kernel 0 ('hgemm_tn'): the name is taken by gemmbench's built-in kernel of "
                      "that name"),
            std::string::npos);
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_EXAMPLE, "--plugin"});
  try {
    plugins.load({GB_PLUGIN_CLASH_EXAMPLE, "--plugin"});
    FAIL() << "a second 'tiled_hgemm' was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("--plugin: '") + GB_PLUGIN_CLASH_EXAMPLE +
                  "': kernel 0 ('tiled_hgemm'): the name is taken by plugin '" + GB_PLUGIN_EXAMPLE +
                  "' (loaded before it)");
  }
  EXPECT_EQ(plugins.records().size(), 1u);
}

TEST(Plugin, ALaunchErrorBecomesACudaErrorWithThePluginsMessage) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_LAUNCH_FAILS, "--plugin"});
  const KernelInfo& k = *reg.find("failing_launch");
  // The runner records a CudaError as the row's error and goes on (no CUDA code: not sticky).
  GemmArgs args{tn_f16(64, 64, 64)};
  try {
    k.launch(args, nullptr);
    FAIL() << "the failing launch did not throw";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.code, cudaSuccess);
    EXPECT_EQ(std::string(e.what()), std::string("plugin kernel 'failing_launch' (") +
                                         GB_PLUGIN_LAUNCH_FAILS +
                                         "): launch returned 3: no tensor cores today");
  }
  EXPECT_EQ(why_unsupported(k, tn_f16(64, 64, 63), h100()), "K must be even (got 63)");
  EXPECT_EQ(why_unsupported(k, tn_f16(7, 64, 64), h100()),
            "declined by the plugin's supports() (no reason given)");
}

TEST(Registry, TryAddReportsInsteadOfAborting) {
  KernelRegistry reg;
  EXPECT_EQ(reg.try_add(builtin_named("Bad-Name")),
            "names use lower-case letters, digits and '_' only");
  EXPECT_EQ(reg.try_add(builtin_named("cublas")), "name is reserved");
  EXPECT_EQ(reg.try_add(builtin_named("cublaslt")), "name is reserved");
  KernelInfo no_launch = builtin_named("x");
  no_launch.launch = nullptr;
  EXPECT_EQ(reg.try_add(no_launch), "no launcher");
  EXPECT_TRUE(reg.all().empty());
  ASSERT_EQ(reg.try_add(builtin_named("x")), "");
  const KernelInfo* first = reg.find("x");
  EXPECT_EQ(reg.try_add(builtin_named("x")), "duplicate name");
  for (int i = 0; i < 100; ++i) ASSERT_EQ(reg.try_add(builtin_named("y" + std::to_string(i))), "");
  EXPECT_EQ(reg.find("x"), first);  // kernels added later do not move the earlier ones
}

TEST(PluginCli, PluginFlagIsRepeatableSplitsAtCommasAndWorksBeforeOrAfterList) {
  const auto parse = [](std::vector<std::string> args) {
    args.insert(args.begin(), "gemmbench");
    return parse_command_line(args);
  };
  CliOutcome o = parse({"--plugin", "a.so,b.so", "--plugin", "c.so", "list"});
  EXPECT_EQ(o.kind, CliOutcome::Kind::list);
  EXPECT_EQ(o.options.plugins, (std::vector<std::string>{"a.so", "b.so", "c.so"}));
  o = parse({"list", "--all", "--plugin", "d.so"});
  EXPECT_EQ(o.kind, CliOutcome::Kind::list);
  EXPECT_EQ(o.options.plugins, std::vector<std::string>{"d.so"});
  o = parse({"--plugin", "e.so", "--kernel", "mine", "--m", "64"});
  const RunRequest r = resolve_request(o.options);
  ASSERT_EQ(r.plugins.size(), 1u);
  EXPECT_EQ(r.plugins[0].path, "e.so");
  EXPECT_EQ(r.plugins[0].from, "--plugin");
  try {
    parse({"--plugin", "", "--m", "64"});
    FAIL() << "an empty --plugin was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--plugin: empty value (accepted: paths of plugin libraries, comma-separated)");
  }
}

TEST(PluginConfig, PathsAreRelativeToTheConfig) {
  const SweepConfig c = parse_config_text(
      R"({"plugins": ["build/libmine.so", "/opt/lib/libtheirs.so"],
          "runs": [{"kernels": "mine", "shapes": [[64, 64, 64]]}]})",
      "configs/mine.json");
  ASSERT_EQ(c.plugins.size(), 2u);
  EXPECT_EQ(c.plugins[0].path, "configs/build/libmine.so");
  EXPECT_EQ(c.plugins[0].from, "configs/mine.json: plugins[0]");
  EXPECT_EQ(c.plugins[1].path, "/opt/lib/libtheirs.so");
  const SweepConfig one = parse_config_text(
      R"({"plugins": "../libone.so", "runs": [{"kernels": "one", "shapes": [[8, 8, 8]]}]})",
      "a/b/c.json");
  ASSERT_EQ(one.plugins.size(), 1u);
  EXPECT_EQ(one.plugins[0].path, "a/libone.so");
  const auto error_of = [](const std::string& text) {
    try {
      parse_config_text(text, "x.json");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(error_of(R"({"plugins": [3], "runs": [{"kernels": "k", "shapes": [[8, 8, 8]]}]})"),
            "x.json: plugins[0]: expected a string, got an integer");
  EXPECT_EQ(error_of(R"({"plugins": [""], "runs": [{"kernels": "k", "shapes": [[8, 8, 8]]}]})"),
            "x.json: plugins[0]: empty path (expected the path of a plugin library)");
  EXPECT_NE(error_of(R"({"plugin": ["p.so"], "runs": []})").find("did you mean 'plugins'?"),
            std::string::npos);
}

TEST(PluginReport, RowsAndMetadataNameThePluginAndItsHash) {
  KernelRegistry reg;
  PluginSet plugins(reg);
  plugins.load({GB_PLUGIN_EXAMPLE, "--plugin"});
  Collect collect;
  PluginRowTagger tagger(collect, plugins);
  CaseResult mine, theirs;
  mine.kernel = "tiled_hgemm";
  theirs.kernel = "cublas";
  tagger.add(mine);
  tagger.add(theirs);
  ASSERT_EQ(collect.rows.size(), 2u);
  EXPECT_EQ(collect.rows[0].plugin_path, GB_PLUGIN_EXAMPLE);
  EXPECT_EQ(collect.rows[0].plugin_sha256, sha256_file_hex(GB_PLUGIN_EXAMPLE));
  EXPECT_EQ(collect.rows[1].plugin_path, "");

  const nlohmann::json row = to_json(collect.rows[0]);
  EXPECT_EQ(row["plugin"]["path"], GB_PLUGIN_EXAMPLE);
  EXPECT_EQ(row["plugin"]["sha256"], collect.rows[0].plugin_sha256);
  EXPECT_FALSE(to_json(collect.rows[1]).contains("plugin"));
  const CaseResult back = case_result_from_json(nlohmann::json::parse(row.dump()));
  EXPECT_EQ(back.plugin_path, GB_PLUGIN_EXAMPLE);
  EXPECT_EQ(back.plugin_sha256, collect.rows[0].plugin_sha256);
  EXPECT_EQ(to_json(back), row);

  RunMetadata meta;
  EXPECT_FALSE(to_json(meta).contains("plugins"));
  meta.plugins = plugins.records();
  const nlohmann::json m = to_json(meta);
  ASSERT_EQ(m["plugins"].size(), 1u);
  EXPECT_EQ(m["plugins"][0]["path"], GB_PLUGIN_EXAMPLE);
  EXPECT_EQ(m["plugins"][0]["sha256"], plugins.records()[0].sha256);
  EXPECT_EQ(m["plugins"][0]["name"], "gemmbench example plugin");
  EXPECT_EQ(m["plugins"][0]["kernels"], nlohmann::json::array({"tiled_hgemm"}));
}

TEST(PluginMerge, ShardsThatRanDifferentPluginFilesAreNotMerged) {
  const auto part = [](int index, const std::string& sha) {
    Report r;
    r.path = "part_" + std::to_string(index) + ".json";
    r.metadata = {{"plan_hash", "0123456789abcdef"},
                  {"plan_rows", size_t(2)},
                  {"seed", 1},
                  {"shard", {{"index", index}, {"count", 2}}},
                  {"plugins", {{{"path", "libmine.so"}, {"sha256", sha}, {"kernels", {"mine"}}}}}};
    return r;
  };
  try {
    merge::merge_reports({part(0, "aa"), part(1, "bb")});
    FAIL() << "parts with different plugin files were merged";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "mixed plugins: part_0.json and part_1.json ran different plugin files (metadata "
              "plugins[].sha256)");
  }
  // The same file (by hash) passes this check, wherever it lay on each host.
  try {
    merge::merge_reports({part(0, "aa"), part(1, "aa")});
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find("mixed plugins"), std::string::npos) << e.what();
  }
}
