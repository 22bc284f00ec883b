// The --devices parent with fake workers (tests/data/fleet/fake_worker.sh hands back canned part
// reports): every worker done, one failing, one killed, SIGINT to the parent, a fleet check with
// an outlier; and the parts of it that need no process: the worker's arguments, the progress
// protocol, --devices/--mode on the command line and in a config.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/cli.hpp"
#include "config/config.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "fleet/launch.hpp"
#include "fleet/orchestrate.hpp"
#include "fleet/workers.hpp"
#include "plan/plan.hpp"
#include "plan/shard.hpp"
#include "report/report_file.hpp"
#include "report/report_reader.hpp"

using namespace gemmbench;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(GEMMBENCH_SOURCE_DIR) / "tests" / "data" / "fleet";

// A fresh folder for one test's parts and outputs.
fs::path scratch(const std::string& name) {
  const fs::path p =
      fs::temp_directory_path() / fmt::format("gemmbench_fleet_{}_{}", ::getpid(), name);
  fs::remove_all(p);
  fs::create_directories(p / "parts");
  return p;
}

// A --devices run of two (or `devices.size()`) fake workers acting as `behaviours` says.
fleet::FleetRequest fake_request(const fs::path& dir, FleetMode mode, const std::string& prefix,
                                 const std::string& behaviours, std::vector<int> devices) {
  fleet::FleetRequest r;
  r.mode = mode;
  r.devices = std::move(devices);
  r.program = "/bin/sh";
  r.prefix_args = {(kFixtures / "fake_worker.sh").string(), (kFixtures / prefix).string(),
                   behaviours};
  r.base_args = {"--kernel", "hgemm_tn"};
  r.parts_dir = (dir / "parts").string();
  r.json = (dir / "merged.json").string();
  r.csv = (dir / "merged.csv").string();
  r.command_line = "gemmbench --kernel hgemm_tn --devices 0,1 (test)";
  return r;
}

struct FleetRun {
  int code = -1;
  std::string out, err;
  json report;
};

FleetRun run(const fleet::FleetRequest& req) {
  std::ostringstream out, err;
  FleetRun r;
  r.code = fleet::run_fleet(req, out, err);
  r.out = out.str();
  r.err = err.str();
  if (fs::exists(req.json)) r.report = read_json_file(req.json);  // plain or gzipped
  return r;
}

size_t lines_in(const fs::path& p) {
  std::ifstream f(p);
  size_t n = 0;
  for (std::string line; std::getline(f, line);) ++n;
  return n;
}

std::vector<size_t> indices(const json& report) {
  std::vector<size_t> v;
  for (const json& r : report["results"]) v.push_back(r["index"].get<size_t>());
  return v;
}

}  // namespace

TEST(FleetArgs, WorkerArgsDropWhatOnlyTheParentActsOn) {
  const std::vector<std::string> argv = {"./gemmbench", "--config",
                                         "c.json",      "--devices",
                                         "0,1",         "--json=all.json",
                                         "--csv",       "all.csv",
                                         "-q",          "--mode",
                                         "replicate",   "--markdown",
                                         "f.md",        "--outlier-threshold=3",
                                         "--quiet",     "--min-time",
                                         "0.2",         "--keep-samples"};
  EXPECT_EQ(
      fleet::worker_base_args(argv),
      (std::vector<std::string>{"--config", "c.json", "--min-time", "0.2", "--keep-samples"}));
}

TEST(FleetArgs, EachWorkerGetsItsShardDeviceModeAndPart) {
  fleet::FleetRequest r;
  r.mode = FleetMode::replicate;
  r.devices = {3, 0};
  r.program = "/x/gemmbench";
  r.base_args = {"--kernel", "hgemm"};
  r.parts_dir = "/tmp/p";
  const auto specs = fleet::worker_specs(r);
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[1].label, "w1 gpu0");
  EXPECT_EQ(specs[1].argv, (std::vector<std::string>{"/x/gemmbench", "--kernel", "hgemm", "--shard",
                                                     "1/2", "--device", "0", "--mode", "replicate",
                                                     "--json", "/tmp/p/part_1.json", "--worker"}));
}

TEST(FleetArgs, ProgressLinesRoundTrip) {
  const auto p = fleet::parse_progress_line(fleet::progress_line(3, 20, "hgemm_tn 64x64x64 tn"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->row, 3u);
  EXPECT_EQ(p->total, 20u);
  EXPECT_EQ(p->what, "hgemm_tn 64x64x64 tn");
  EXPECT_FALSE(fleet::parse_progress_line("gemmbench: CUDA error"));
  EXPECT_FALSE(fleet::parse_progress_line("gemmbench-progress x y"));
}

TEST(FleetArgs, DevicesArgument) {
  EXPECT_TRUE(parse_devices_arg("all").all);
  EXPECT_EQ(parse_devices_arg("0,1,3").list, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(parse_devices_arg("0,0").list, (std::vector<int>{0, 0}));  // testing on one GPU
  for (const char* bad : {"", "a", "1,,2", "-1", "0,1,", "1/2"})
    EXPECT_THROW(parse_devices_arg(bad), UsageError) << bad;
  try {
    parse_devices_arg("0,x");
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(),
                 "--devices: '0,x' is not a list of device indices (accepted: all, or device "
                 "indices separated by commas: 0,1,3)");
  }
}

TEST(FleetArgs, CommandLineAndConfig) {
  const auto parse = [](std::vector<std::string> args) {
    args.insert(args.begin(), "gemmbench");
    return parse_command_line(args).options;
  };
  const auto fleet_of = [&](std::vector<std::string> args, const RunRequest& req = {}) {
    return resolve_fleet(parse(std::move(args)), req);
  };
  EXPECT_THROW(parse({"--devices", "0,1", "--shard", "0/2"}), UsageError);
  EXPECT_THROW(parse({"--devices", "0,1", "--device", "1"}), UsageError);
  EXPECT_THROW(parse({"--mode", "fleet"}), UsageError);
  EXPECT_THROW(parse({"--outlier-threshold", "0"}), UsageError);
  EXPECT_THROW(fleet_of({"--mode", "replicate"}), UsageError);                     // on which GPUs?
  EXPECT_THROW(fleet_of({"--devices", "0,1", "--markdown", "f.md"}), UsageError);  // not replicate
  EXPECT_THROW(fleet_of({"--worker"}), UsageError);
  const FleetChoice f = fleet_of({"--devices", "all", "--mode", "replicate"});
  ASSERT_TRUE(f.devices);
  EXPECT_TRUE(f.devices->all);
  EXPECT_EQ(f.mode, FleetMode::replicate);
  EXPECT_EQ(f.outlier_threshold_pct, kDefaultOutlierThresholdPct);
  // Under a launcher each rank runs the whole plan.
  EXPECT_FALSE(fleet_of({"--mode", "replicate", "--shard", "auto"}).devices);

  const SweepConfig cfg = parse_config_text(
      R"({"devices": [0, 2], "mode": "replicate", "outlier_threshold_pct": 3,
          "runs": [{"kernels": ["hgemm_tn"], "shapes": [[64, 64, 64]]}]})",
      "fleet.json");
  RunRequest req;
  req.devices = cfg.devices;
  req.mode = cfg.mode;
  req.outlier_threshold_pct = cfg.outlier_threshold_pct;
  const FleetChoice c = fleet_of({}, req);
  ASSERT_TRUE(c.devices);
  EXPECT_EQ(c.devices->list, (std::vector<int>{0, 2}));
  EXPECT_EQ(c.mode, FleetMode::replicate);
  EXPECT_EQ(c.outlier_threshold_pct, 3.0);
  // Flags win: a mode, a threshold, and --device or --shard (one process) over the config's GPUs.
  EXPECT_EQ(fleet_of({"--mode", "shard"}, req).mode, FleetMode::shard);
  EXPECT_EQ(fleet_of({"--outlier-threshold", "7"}, req).outlier_threshold_pct, 7.0);
  EXPECT_FALSE(fleet_of({"--device", "1", "--mode", "shard"}, req).devices);
  EXPECT_FALSE(fleet_of({"--shard", "0/2"}, req).devices);
  EXPECT_EQ(parse_config_text(R"({"devices": "all", "runs": [{"kernels": ["hgemm_tn"],
                                  "shapes": [[64, 64, 64]]}]})",
                              "all.json")
                .devices->all,
            true);
  for (const char* bad : {R"("devices": "0,x")", R"("devices": {})", R"("mode": "fleet")",
                          R"("outlier_threshold_pct": -1)"})
    EXPECT_THROW(parse_config_text(fmt::format(R"({{{}, "runs": [{{"kernels": ["hgemm_tn"],
                                                   "shapes": [[64, 64, 64]]}}]}})",
                                               bad),
                                   "bad.json"),
                 UsageError)
        << bad;
}

TEST(FleetRun, EveryWorkerDoneMergesThePlan) {
  const fs::path dir = scratch("ok");
  const FleetRun r = run(fake_request(dir, FleetMode::shard, "shard_", "ok,ok", {0, 1}));
  EXPECT_EQ(r.code, kExitOk) << r.err << r.out;
  EXPECT_EQ(indices(r.report), (std::vector<size_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(r.report["summary"]["complete"].get<bool>());
  EXPECT_EQ(r.report["metadata"]["mode"], "shard");
  EXPECT_EQ(r.report["metadata"]["command_line"],
            "gemmbench --kernel hgemm_tn --devices 0,1 (test)");
  ASSERT_EQ(r.report["metadata"]["workers"].size(), 2u);
  EXPECT_EQ(r.report["metadata"]["workers"][1]["device"], 1);
  EXPECT_EQ(r.report["metadata"]["workers"][1]["exit_code"], 0);
  EXPECT_EQ(lines_in(dir / "merged.csv"), 9u);
  // The parent prints the table once, the workers none; the parts are gone once merged.
  EXPECT_NE(r.out.find("8 rows: 8 ok"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("[w1 gpu1] exit 0"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir / "parts"));
  // The merged report reads back as a report.
  EXPECT_EQ(load_report((dir / "merged.json").string()).rows.size(), 8u);
}

// A .gz name gets what a one-GPU run writes there: gzip, one row per line (the merged report was
// once written plain and indented whatever its name: 3-4 times the bytes in bench_results/).
TEST(FleetRun, AGzNameGetsAGzippedReportOneRowPerLine) {
  const fs::path dir = scratch("gz");
  fleet::FleetRequest req = fake_request(dir, FleetMode::shard, "shard_", "ok,ok", {0, 1});
  req.json = (dir / "merged.json.gz").string();
  const FleetRun r = run(req);
  EXPECT_EQ(r.code, kExitOk) << r.err << r.out;
  std::ifstream f(req.json, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  f.read(reinterpret_cast<char*>(magic), 2);
  EXPECT_EQ(magic[0], 0x1f);
  EXPECT_EQ(magic[1], 0x8b);
  EXPECT_EQ(indices(r.report), (std::vector<size_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  // One line per row: the text between "results" and "summary" has a line per row and the
  // brackets' own.
  const std::string text = read_text_file(req.json);
  const size_t from = text.find("\"results\""), to = text.find("\"summary\"");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_LE(size_t(std::count(text.begin() + long(from), text.begin() + long(to), '\n')), 8u + 2u);
}

TEST(FleetRun, AFailingWorkerKeepsTheOthersRowsAndMarksItsOwn) {
  const fs::path dir = scratch("fail");
  const FleetRun r = run(fake_request(dir, FleetMode::shard, "shard_", "ok,fail", {0, 1}));
  EXPECT_EQ(r.code, kExitCudaError) << r.err;
  // Shard 0's four rows, and shard 1's first (row 3); rows 4, 7, 8 named as missing.
  EXPECT_EQ(indices(r.report), (std::vector<size_t>{1, 2, 3, 5, 6}));
  EXPECT_FALSE(r.report["summary"]["complete"].get<bool>());
  ASSERT_EQ(r.report["summary"]["missing"].size(), 3u);
  EXPECT_EQ(r.report["summary"]["missing"][0],
            "row 4: hgemm_tn 1024x1024x1024 tn f16/f32 (shard 1/2)");
  EXPECT_NE(r.err.find("[w1 gpu1] gemmbench: CUDA error: an illegal memory access"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("MISSING (3)"), std::string::npos) << r.out;
}

TEST(FleetRun, AKilledWorkerKeepsTheOthersRowsAndExitsFive) {
  const fs::path dir = scratch("kill");
  const FleetRun r = run(fake_request(dir, FleetMode::shard, "shard_", "ok,kill", {0, 1}));
  EXPECT_EQ(r.code, kExitWorkerLost) << r.err;
  EXPECT_EQ(indices(r.report), (std::vector<size_t>{1, 2, 3, 5, 6}));
  EXPECT_EQ(r.report["summary"]["missing"].size(), 3u);
  EXPECT_EQ(r.report["metadata"]["workers"][1]["signal"],
            fmt::format("signal {} ({})", SIGKILL, strsignal(SIGKILL)));
  EXPECT_TRUE(r.report["metadata"]["workers"][1]["exit_code"].is_null());
  EXPECT_NE(r.err.find("[w1 gpu1] ENDED by signal 9"), std::string::npos) << r.err;
}

TEST(FleetRun, AWorkerWithoutAReportIsMissingWhole) {
  const fs::path dir = scratch("nothing");
  const FleetRun r = run(fake_request(dir, FleetMode::shard, "shard_", "ok,nothing", {0, 1}));
  EXPECT_EQ(r.code, kExitNoDevice) << r.err;  // the worker's own reason
  EXPECT_EQ(indices(r.report), (std::vector<size_t>{1, 2, 5, 6}));
  EXPECT_NE(r.err.find("[w1 gpu1] wrote no report"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("shard 1/2: no report given"), std::string::npos) << r.out;

  // No worker can start at all: nothing to merge, nothing written.
  const fs::path dir2 = scratch("noexec");
  fleet::FleetRequest req = fake_request(dir2, FleetMode::shard, "shard_", "ok,ok", {0, 1});
  req.program = "/nonexistent/gemmbench";
  req.prefix_args.clear();
  const FleetRun n = run(req);
  EXPECT_EQ(n.code, kExitWorkerLost);
  EXPECT_NE(n.err.find("cannot start worker /nonexistent/gemmbench"), std::string::npos) << n.err;
  EXPECT_FALSE(fs::exists(dir2 / "merged.json"));
}

TEST(FleetRun, SigintStopsEveryWorkerAndStillWritesTheMergedReport) {
  const fs::path dir = scratch("sigint");
  const fleet::FleetRequest req = fake_request(dir, FleetMode::shard, "shard_", "ok,wait", {0, 1});
  stop_signal().store(0);
  install_stop_handlers();
  // Ctrl-C once worker 1 waits in its loop (its part written) and worker 0 has ended.
  std::thread ctrl_c([&] {
    const fs::path part = dir / "parts" / "part_1.json";
    for (int i = 0; i < 200 && !fs::exists(part); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    kill(getpid(), SIGINT);
  });
  const FleetRun r = run(req);
  ctrl_c.join();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  stop_signal().store(0);
  EXPECT_EQ(r.code, 130) << r.err;
  // Shard 0 whole, shard 1's two rows from before the signal.
  EXPECT_EQ(indices(r.report), (std::vector<size_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(r.report["summary"]["interrupted"].get<bool>());
  EXPECT_EQ(r.report["summary"]["interrupted_by"], "SIGINT");
  EXPECT_FALSE(r.report["summary"]["complete"].get<bool>());
  EXPECT_EQ(r.report["metadata"]["workers"][1]["exit_code"], 130);
  EXPECT_NE(r.err.find("SIGINT forwarded to the workers"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[w1 gpu1] waiting for SIGINT"), std::string::npos) << r.err;
}

TEST(FleetRun, ReplicateFlagsTheSlowGpuAndExitsOne) {
  const fs::path dir = scratch("replicate");
  fleet::FleetRequest req =
      fake_request(dir, FleetMode::replicate, "replica_", "ok,ok,ok", {0, 1, 2});
  req.markdown = (dir / "fleet.md").string();
  const FleetRun r = run(req);
  EXPECT_EQ(r.code, kExitFailedVerification) << r.err;  // exit 1: an outlier
  EXPECT_EQ(r.report["results"].size(), 24u);           // every GPU's rows kept
  EXPECT_EQ(r.report["results"][23]["gpu"]["replica"], 2);
  EXPECT_EQ(r.report["results"][23]["gpu"]["serial"], "1652020000002");
  const json& fleet = r.report["fleet"];
  EXPECT_TRUE(fleet["any_outlier"].get<bool>());
  EXPECT_EQ(fleet["threshold_pct"], 5.0);
  ASSERT_EQ(fleet["cases"].size(), 8u);
  EXPECT_EQ(fleet["cases"][1]["outliers"].size(), 1u);
  EXPECT_EQ(fleet["cases"][1]["outliers"][0]["replica"], 2);
  EXPECT_EQ(fleet["cases"][1]["outliers"][0]["pci_bus_id"], "00000000:1B:00.0");
  EXPECT_EQ(fleet["per_gpu"][2]["outlier_cases"], 1);
  EXPECT_NE(r.out.find("OUTLIER"), std::string::npos) << r.out;
  std::ifstream md(req.markdown);
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("| replica |"), std::string::npos) << text;
  EXPECT_NE(text.find("**OUTLIER"), std::string::npos) << text;
  EXPECT_EQ(lines_in(dir / "merged.csv"), 25u);

  // A threshold above replica 2's 7.4%: no outlier, exit 0.
  const fs::path dir2 = scratch("replicate_loose");
  fleet::FleetRequest loose =
      fake_request(dir2, FleetMode::replicate, "replica_", "ok,ok,ok", {0, 1, 2});
  loose.outlier_threshold_pct = 8;
  EXPECT_EQ(run(loose).code, kExitOk);
}

TEST(FleetRun, ReplicateWithAKilledGpuKeepsTheOthers) {
  const fs::path dir = scratch("replicate_kill");
  const FleetRun r =
      run(fake_request(dir, FleetMode::replicate, "replica_", "ok,kill,ok", {0, 1, 2}));
  EXPECT_EQ(r.code, kExitWorkerLost) << r.err;
  EXPECT_EQ(r.report["results"].size(), 8u + 3u + 8u);
  ASSERT_EQ(r.report["summary"]["missing"].size(), 1u);
  EXPECT_NE(r.report["summary"]["missing"][0].get<std::string>().find(
                "replica 1 (fleet-test dev 1 (00000000:1A:00.0, serial 1652020000001)): 5 of 8 "
                "rows missing: 4-8 (its run did not finish)"),
            std::string::npos)
      << r.report["summary"]["missing"][0];
}

TEST(FleetLaunch, WorkersOnlyForAFleetAndTheDevicesCheckedBeforeAnyStarts) {
  EXPECT_FALSE(fleet::needs_workers(std::nullopt, FleetMode::shard));
  EXPECT_FALSE(fleet::needs_workers(DevicesArg{false, {3}}, FleetMode::shard));  // as --device 3
  EXPECT_TRUE(fleet::needs_workers(DevicesArg{false, {3}}, FleetMode::replicate));
  EXPECT_TRUE(fleet::needs_workers(DevicesArg{true, {}}, FleetMode::shard));
  EXPECT_TRUE(fleet::needs_workers(DevicesArg{false, {0, 1}}, FleetMode::shard));

  const auto config = fs::path(GEMMBENCH_SOURCE_DIR) / "configs" / "llm_prefill.json";
  const Plan plan = build_plan(load_config_file(config.string()).runs, MeasureSettings{},
                               MeasureOverrides{}, KernelRegistry::instance());
  fleet::FleetLaunch launch;
  launch.devices = DevicesArg{false, {0, 2}};
  launch.argv = {"gemmbench", "--config", config.string(), "--devices", "0,2"};
  int counted = 0;
  launch.device_count = [&] {
    ++counted;
    return 2;
  };
  // A dry run lists each worker's part and counts no device (no CUDA call on a GPU-less host).
  launch.dry_run = true;
  std::ostringstream out;
  EXPECT_EQ(fleet::launch_fleet(launch, plan, out), kExitOk);
  EXPECT_EQ(counted, 0);
  EXPECT_NE(
      out.str().find(fmt::format("worker 1 on device 2 (shard 1/2): {} of the plan's {} cases",
                                 shard_plan(plan, {1, 2}).row_count(), plan.row_count())),
      std::string::npos)
      << out.str();
  // A device the machine does not have is one line before any worker starts.
  launch.dry_run = false;
  try {
    fleet::launch_fleet(launch, plan, out);
    ADD_FAILURE() << "device 2 of 2 accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--devices: device 2: this machine has 2 CUDA device(s), indices 0..1");
  }
  EXPECT_EQ(counted, 1);
}
