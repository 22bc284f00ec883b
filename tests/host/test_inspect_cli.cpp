// `gemmbench inspect` end to end through its options (src/inspect/inspect_cli.hpp), with the GPU
// run of `inspect ldmatrix` replaced by stand-ins.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "inspect/inspect_cli.hpp"

namespace gemmbench::inspect {
namespace {

LdmatrixRegs no_device(const LdmatrixSpec&) {
  throw NoDeviceError("inspect ldmatrix runs the instruction on a GPU and none is usable");
}

struct CommandResult {
  int code = -1;
  std::string out;
};

// Parses `args` as gemmbench's command line would be and runs the selected command.
CommandResult run(const std::string& args, LdmatrixRunner device = no_device) {
  CLI::App app{"gemmbench"};
  std::ostringstream out;
  const std::function<int()> command = add_inspect_subcommand(app, std::move(device), out);
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
  const CommandResult good = run("inspect ldmatrix --num 1 --json", ldmatrix_model);
  EXPECT_EQ(good.code, 0);
  const nlohmann::json j = nlohmann::json::parse(good.out);
  EXPECT_EQ(j["source"], "gpu");
  EXPECT_EQ(j["matches_model"], true);

  auto wrong = [](const LdmatrixSpec& spec) {
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
  };
  for (const auto& [args, needle] : cases) {
    const std::string what = usage_error(args);
    EXPECT_NE(what.find(needle), std::string::npos) << args << " -> " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << args << " -> " << what;
  }
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
