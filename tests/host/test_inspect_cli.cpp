// `gemmbench inspect` end to end through its options (src/inspect/inspect_cli.hpp), with the GPU
// runs of `inspect ldmatrix` and `inspect mma-peak` replaced by stand-ins.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "inspect/inspect_cli.hpp"

namespace gemmbench::inspect {
namespace {

LdmatrixRegs no_device(const LdmatrixSpec&, int) {
  throw NoDeviceError("inspect ldmatrix runs the instruction on a GPU and none is usable");
}

MmaPeakReport no_mma_device(const MmaPeakRequest&) {
  throw NoDeviceError("inspect mma-peak runs on a GPU and none is usable");
}

struct CommandResult {
  int code = -1;
  std::string out;
};

// Parses `args` as gemmbench's command line would be and runs the selected command.
CommandResult run(const std::string& args, LdmatrixRunner device = no_device,
                  MmaPeakRunner mma = no_mma_device) {
  CLI::App app{"gemmbench"};
  std::ostringstream out;
  const std::function<int()> command =
      add_inspect_subcommand(app, DeviceRunners{std::move(device), std::move(mma)}, out);
  app.parse(args, false);
  CommandResult r;
  r.code = command();
  r.out = out.str();
  return r;
}

std::string usage_error(const std::string& args) {
  try {
    run(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no UsageError)";
}

TEST(InspectCli, LdmatrixModelPrintsSeed002Rows) {
  const CommandResult r = run("inspect ldmatrix --trans --model");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16, host-side model"),
            std::string::npos)
      << r.out;
  // Seed 002, threads 0 and 31.
  EXPECT_NE(r.out.find("     0 |   0,   8 |  64,  72 | 128, 136 | 192, 200\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    31 |  55,  63 | 119, 127 | 183, 191 | 247, 255\n"), std::string::npos)
      << r.out;
}

TEST(InspectCli, LdmatrixModelJson) {
  const CommandResult r = run("inspect ldmatrix --model --num 2 --json");
  EXPECT_EQ(r.code, 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inspect"], "ldmatrix");
  EXPECT_EQ(j["source"], "model");
  EXPECT_EQ(j["num"], 2);
  EXPECT_EQ(j["trans"], false);
  ASSERT_EQ(j["threads"].size(), 32u);
  EXPECT_EQ(j["threads"][5]["regs"], nlohmann::json::parse("[[10, 11], [74, 75]]"));
  EXPECT_EQ(j["row_of_thread"].size(), 16u);
}

TEST(InspectCli, LdmatrixWithoutGpuPassesNoDeviceErrorOn) {
  EXPECT_THROW(run("inspect ldmatrix"), NoDeviceError);
  // The real message comes from ldmatrix_device.cu; the CLI only passes it on.
}

TEST(InspectCli, LdmatrixOnDeviceComparesWithModel) {
  const CommandResult good = run("inspect ldmatrix --num 1 --json",
                                 [](const LdmatrixSpec& s, int) { return ldmatrix_model(s); });
  EXPECT_EQ(good.code, 0);
  const nlohmann::json j = nlohmann::json::parse(good.out);
  EXPECT_EQ(j["source"], "gpu");
  EXPECT_EQ(j["matches_model"], true);

  auto wrong = [](const LdmatrixSpec& spec, int) {
    LdmatrixRegs regs = ldmatrix_model(spec);
    regs[7][0] ^= 1u;
    return regs;
  };
  const CommandResult bad = run("inspect ldmatrix --num 1", wrong);
  EXPECT_EQ(bad.code, kExitFailedVerification);
  EXPECT_NE(bad.out.find("hardware matches the host model: NO"), std::string::npos) << bad.out;
}

TEST(InspectCli, SwizzleSeed000Claim) {
  const CommandResult r =
      run("inspect swizzle --bits 3,3,3 --tile 64x64 --dtype f16 --access ldmatrix --json");
  EXPECT_EQ(r.code, 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"]["max_phase_wavefronts_before"], 8);
  EXPECT_EQ(j["summary"]["max_phase_wavefronts_after"], 1);
  EXPECT_EQ(j["summary"]["wavefronts_before"], 512);
  EXPECT_EQ(j["summary"]["wavefronts_after"], 64);
  EXPECT_EQ(j["bank_after"][3][0], 12);
  EXPECT_EQ(j["physical"][1][0], 72);

  const CommandResult text = run("inspect swizzle --bits 3,3,3 --tile 8x64 --dtype f16");
  EXPECT_NE(text.out.find("worst phase: before 8-way conflict, after conflict-free"),
            std::string::npos)
      << text.out;
}

TEST(InspectCli, RasterJsonAndText) {
  const CommandResult r =
      run("inspect raster --problem 640x384x4096 --tile 128x128 --log-tile 1 --json");
  EXPECT_EQ(r.code, 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["grid"], nlohmann::json::parse("[10, 2]"));
  EXPECT_EQ(j["noop_ctas"], nlohmann::json::parse("[11, 13, 15, 17, 19]"));
  EXPECT_EQ(j["visit_id"][0], nlohmann::json::parse("[0, 1, 10]"));

  const CommandResult text = run("inspect raster --tiles 5x3 --log-tile 1");
  EXPECT_NE(text.out.find("           1 | 0,2  -- 1,2  -- 2,2  -- 3,2  -- 4,2  --\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("no-op CTAs (linear ids): 11 13 15 17 19"), std::string::npos);
}

TEST(InspectCli, BadInputIsOneLineUsageError) {
  const std::pair<const char*, const char*> cases[] = {
      {"inspect", "one of: ldmatrix, swizzle, raster"},
      {"inspect ldmatrix --model --num 3", "--num 3"},
      {"inspect ldmatrix --model --num four", "--num four"},
      {"inspect swizzle --tile 64x64 --dtype f16", "needs --bits"},
      {"inspect swizzle --bits 3,3,3 --dtype f16", "needs --tile"},
      {"inspect swizzle --bits 3,3,3 --tile 64x64", "needs --dtype"},
      {"inspect swizzle --bits 3,3 --tile 64x64 --dtype f16", "--bits 3,3"},
      {"inspect swizzle --bits 3,3,3,3 --tile 64x64 --dtype f16", "--bits 3,3,3,3"},
      {"inspect swizzle --bits 3,3,3 --tile 64y64 --dtype f16", "--tile 64y64"},
      {"inspect swizzle --bits 3,3,3 --tile 0x64 --dtype f16", "--tile 0x64"},
      {"inspect swizzle --bits 3,3,3 --tile x64 --dtype f16", "--tile x64"},
      {"inspect swizzle --bits 3,3,3 --tile 64x64 --dtype f64", "--dtype f64"},
      {"inspect swizzle --bits 3,3,3 --tile 64x64 --dtype f32", "--access ldmatrix loads b16"},
      {"inspect swizzle --bits 3,3,3 --tile 64x64 --dtype f16 --access col", "--access col"},
      {"inspect swizzle --bits 3,3,3 --tile 4x64 --dtype f16", "multiple of 512"},
      {"inspect raster --tiles 4x4", "needs --log-tile"},
      {"inspect raster --tiles 4x4 --log-tile -1", "--log-tile -1"},
      {"inspect raster --tiles 4x4 --log-tile 11", "--log-tile 11"},
      {"inspect raster --tiles 4x4 --log-tile 1.5", "--log-tile 1.5"},
      {"inspect raster --tiles 4x0 --log-tile 1", "--tiles 4x0"},
      {"inspect raster --tiles 4by4 --log-tile 1", "--tiles 4by4"},
      {"inspect raster --log-tile 1", "either --tiles"},
      {"inspect raster --tiles 4x4 --problem 8x8x8 --tile 2x2 --log-tile 1", "either --tiles"},
      {"inspect raster --problem 8x8 --tile 2x2 --log-tile 1", "--problem 8x8"},
      {"inspect raster --problem 8x8x8 --log-tile 1", "needs --tile"},
      {"inspect raster --problem 8x8x8 --tile 0x2 --log-tile 1", "--tile 0x2"},
      {"inspect mma-peak --accum f64", "--accum f64"},
      {"inspect mma-peak --accum F32", "--accum F32"},
      {"inspect mma-peak --dtype f32", "--dtype f32"},
      {"inspect mma-peak --dtype half", "--dtype half"},
      {"inspect mma-peak --dtype bf16", "--dtype bf16 needs --accum f32 (got both)"},
      {"inspect mma-peak --dtype bf16 --accum f16", "--dtype bf16 needs --accum f32 (got f16)"},
      {"inspect mma-peak --seconds 0", "--seconds 0"},
      {"inspect mma-peak --seconds 0.01", "--seconds 0.01"},
      {"inspect mma-peak --seconds 61", "--seconds 61"},
      {"inspect mma-peak --seconds -2", "--seconds -2"},
      {"inspect mma-peak --seconds 2s", "--seconds 2s"},
      {"inspect mma-peak --seconds nan", "--seconds nan"},
      {"inspect mma-peak --seconds inf", "--seconds inf"},
  };
  for (const auto& [args, needle] : cases) {
    const std::string what = usage_error(args);
    EXPECT_NE(what.find(needle), std::string::npos) << args << " -> " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << args << " -> " << what;
  }
}

// ---- mma-peak ----------------------------------------------------------------------------------

// A GPU stand-in with known measurements: every CTA runs 1.5e9 cycles in 1250 ms (1200 MHz), at
// a FLOP/clk/SM that depends on the config; it records what it was asked for.
struct FakeMmaPeak {
  std::shared_ptr<MmaPeakRequest> seen = std::make_shared<MmaPeakRequest>();
  MmaPeakReport operator()(const MmaPeakRequest& req) const {
    *seen = req;
    MmaPeakReport rep;
    rep.device_name = "Fake H100";
    rep.date_utc = "2026-11-22T12:00:00Z";
    rep.driver_version = "580.159.04";
    rep.cuda_runtime = "13.0";
    rep.cuda_driver_api = "13.0";
    rep.sm = 90;
    rep.num_sms = 132;
    rep.seconds = req.seconds;
    rep.warmup_seconds = 0.5;
    for (const MmaPeakConfig& c : req.configs) {
      MmaPeakRow r;
      r.config = c;
      r.ctas = 132;
      r.launches = 100;
      r.iters_per_launch = 1000;
      r.elapsed_ms = 1250;
      r.mean_cta_cycles = 1.5e9;
      r.flop = 132 * 1.5e9 * flop_per_clk(c);
      r.clock.sm_clock_mhz = 1470;
      r.clock.sm_clock_max_mhz = 1980;
      r.clock.power_w = 699.6;
      r.clock.throttle_reasons = "sw_power_cap";
      r.clock.throttled = true;
      rep.rows.push_back(r);
    }
    return rep;
  }
  // Best: 8 warps for f16 accumulate, 16 for f32.
  static double flop_per_clk(const MmaPeakConfig& c) {
    if (c.accum == Accum::f16)
      return c.warps_per_sm == 8 ? 3000 : c.warps_per_sm == 16 ? 2500 : 2000;
    return c.warps_per_sm == 16 ? 1800 : c.warps_per_sm == 8 ? 1500 : 1000;
  }
};

TEST(InspectCli, MmaPeakDefaultsAskForBothAccumsAtEachWarpCount) {
  FakeMmaPeak fake;
  const CommandResult r = run("inspect mma-peak --json", no_device, fake);
  EXPECT_EQ(r.code, 0);
  ASSERT_EQ(fake.seen->configs.size(), 6u);
  EXPECT_EQ(fake.seen->seconds, 2.0);
  const int warps[] = {4, 8, 16, 4, 8, 16};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(fake.seen->configs[i].accum, i < 3 ? Accum::f16 : Accum::f32) << i;
    EXPECT_EQ(fake.seen->configs[i].dtype, DType::f16) << i;
    EXPECT_EQ(fake.seen->configs[i].warps_per_sm, warps[i]) << i;
  }

  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inspect"], "mma-peak");
  EXPECT_EQ(j["instruction"], "mma.sync.aligned.m16n8k16.row.col");
  EXPECT_EQ(j["device"]["name"], "Fake H100");
  EXPECT_EQ(j["device"]["num_sms"], 132);
  // Provenance, as docs/contributing.md#reports asks of every report a figure is quoted from.
  EXPECT_EQ(j["date_utc"], "2026-11-22T12:00:00Z");
  EXPECT_EQ(j["driver_version"], "580.159.04");
  EXPECT_EQ(j["cuda_runtime"], "13.0");
  EXPECT_FALSE(j["git_commit"].get<std::string>().empty());
  EXPECT_FALSE(j["tool_version"].get<std::string>().empty());
  ASSERT_EQ(j["rows"].size(), 6u);
  const nlohmann::json& row = j["rows"][1];  // f16 accumulate, 8 warps/SM
  EXPECT_EQ(row["accum"], "f16");
  EXPECT_EQ(row["warps_per_sm"], 8);
  EXPECT_DOUBLE_EQ(row["tflops"].get<double>(), 132 * 1.5e9 * 3000 / 1.25 / 1e12);  // 475.2
  EXPECT_DOUBLE_EQ(row["clock_mhz"].get<double>(), 1200.0);
  EXPECT_DOUBLE_EQ(row["flop_per_clk_per_sm"].get<double>(), 3000.0);
  EXPECT_EQ(row["nvml"]["sm_min_mhz"], 1470);
  EXPECT_DOUBLE_EQ(row["nvml"]["max_power_w"].get<double>(), 699.6);
  EXPECT_EQ(row["nvml"]["throttle_reasons"], "sw_power_cap");
  EXPECT_EQ(row["nvml"]["throttled"], true);
  int best = 0;
  for (const nlohmann::json& x : j["rows"]) best += x["best"].get<bool>();
  EXPECT_EQ(best, 2);
  EXPECT_EQ(j["rows"][1]["best"], true);
  EXPECT_EQ(j["rows"][5]["best"], true);
  EXPECT_EQ(j["best"]["f16"]["warps_per_sm"], 8);
  EXPECT_EQ(j["best"]["f32"]["warps_per_sm"], 16);
  EXPECT_DOUBLE_EQ(j["best"]["f32"]["flop_per_clk_per_sm"].get<double>(), 1800.0);
}

TEST(InspectCli, MmaPeakTextTableAndSummary) {
  FakeMmaPeak fake;
  const CommandResult r =
      run("inspect mma-peak --dtype bf16 --accum f32 --seconds 0.5", no_device, fake);
  EXPECT_EQ(r.code, 0);
  ASSERT_EQ(fake.seen->configs.size(), 3u);
  EXPECT_EQ(fake.seen->configs[0].dtype, DType::bf16);
  EXPECT_EQ(fake.seen->configs[2].accum, Accum::f32);
  EXPECT_EQ(fake.seen->seconds, 0.5);
  EXPECT_NE(r.out.find("mma.sync.aligned.m16n8k16.row.col from registers on Fake H100 (device 0, "
                       "sm_90, 132 SMs)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("best f32 accumulate (bf16 inputs): 16 warps/SM, 285.1 TFLOP/s at 1200 MHz, "
                       "1800 FLOP/clk/SM\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("best f16"), std::string::npos) << r.out;
  // The 16-warp row: its numbers, NVML's readings and the best mark on one line.
  const size_t at = r.out.find("285.1");
  ASSERT_NE(at, std::string::npos) << r.out;
  const size_t begin = r.out.rfind('\n', at) + 1;
  const std::string line = r.out.substr(begin, r.out.find('\n', at) - begin);
  for (const char* part : {"f32 |", "bf16", " 16 ", "1200", "1800", "1470", "700", "sw_power_cap"})
    EXPECT_NE(line.find(part), std::string::npos) << part << " in: " << line;
  EXPECT_EQ(line.back(), '*') << line;
}

TEST(InspectCli, MmaPeakWithoutGpuPassesNoDeviceErrorOn) {
  EXPECT_THROW(run("inspect mma-peak --accum f16 --seconds 0.05"), NoDeviceError);
}

TEST(DeriveMmaPeak, ArithmeticAndBestPerAccum) {
  MmaPeakReport rep;
  MmaPeakRow a;
  a.config = {Accum::f32, DType::f16, 4};
  a.ctas = 100;
  a.flop = 4e12;
  a.elapsed_ms = 2000;
  a.mean_cta_cycles = 2e9;
  MmaPeakRow b = a;
  b.config.warps_per_sm = 8;
  b.elapsed_ms = 1000;  // twice the TFLOP/s and MHz, the same FLOP/clk/SM
  MmaPeakRow empty;     // a row that never ran: zeros, never best
  empty.config = {Accum::f16, DType::f16, 4};
  rep.rows = {a, b, empty};
  derive_mma_peak(rep);
  EXPECT_DOUBLE_EQ(rep.rows[0].tflops, 2.0);
  EXPECT_DOUBLE_EQ(rep.rows[0].clock_mhz, 1000.0);
  EXPECT_DOUBLE_EQ(rep.rows[0].flop_per_clk_per_sm, 20.0);
  EXPECT_DOUBLE_EQ(rep.rows[1].tflops, 4.0);
  EXPECT_DOUBLE_EQ(rep.rows[1].clock_mhz, 2000.0);
  EXPECT_DOUBLE_EQ(rep.rows[1].flop_per_clk_per_sm, 20.0);
  EXPECT_FALSE(rep.rows[0].best);
  EXPECT_TRUE(rep.rows[1].best);
  EXPECT_EQ(rep.rows[2].tflops, 0.0);
  EXPECT_EQ(rep.rows[2].flop_per_clk_per_sm, 0.0);
  EXPECT_FALSE(rep.rows[2].best);
}

TEST(ParseExtents, AcceptsExactlyCountPositiveIntegers) {
  EXPECT_EQ(parse_extents("64x32", 'x', 2, "--tile", "ROWSxCOLS"), (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(parse_extents("5120x4096x1", 'x', 3, "--problem", "MxNxK"),
            (std::vector<int64_t>{5120, 4096, 1}));
  for (const char* bad : {"", "x", "64", "64x", "x64", "64x32x", "64x32x1", "-1x4", "4x+4", " 4x4",
                          "4x4 ", "99999999999x1"})
    EXPECT_THROW(parse_extents(bad, 'x', 2, "--tile", "ROWSxCOLS"), UsageError) << bad;
}

}  // namespace
}  // namespace gemmbench::inspect

namespace gemmbench::inspect {

TEST(InspectCli, DeviceIndexReachesTheGpuRunsAndBadIndicesAreUsageErrors) {
  int seen = -1;
  const CommandResult r =
      run("inspect ldmatrix --num 1 --device 3", [&](const LdmatrixSpec& s, int d) {
        seen = d;
        return ldmatrix_model(s);
      });
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(seen, 3);
  int mma_seen = -1;
  EXPECT_THROW(run("inspect mma-peak --accum f16 --seconds 0.05 --device 2", no_device,
                   [&](const MmaPeakRequest& req) -> MmaPeakReport {
                     mma_seen = req.device;
                     throw NoDeviceError("stand-in");
                   }),
               NoDeviceError);
  EXPECT_EQ(mma_seen, 2);
  for (const char* bad : {"inspect ldmatrix --device -1", "inspect ldmatrix --device x",
                          "inspect mma-peak --device 1.5"})
    EXPECT_THROW(run(bad), UsageError) << bad;
}

}  // namespace gemmbench::inspect
