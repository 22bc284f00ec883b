#include "inspect/inspect_cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "core/errors.hpp"
#include "core/types.hpp"
#include "inspect/mma_peak.hpp"
#include "inspect/raster_map.hpp"
#include "inspect/render.hpp"
#include "inspect/swizzle_map.hpp"

namespace gemmbench::inspect {
namespace {

// Every option is read as text and checked here, so that each mistake is a UsageError (exit 2)
// with the bad value and what is accepted, rather than a CLI11 conversion error.
struct Options {
  bool json = false;
  // ldmatrix
  bool trans = false;
  bool model = false;
  std::string num = "4";
  // swizzle
  std::string bits, swizzle_tile, dtype, access = "ldmatrix";
  // raster
  std::string tiles, problem, raster_tile, log_tile;
  // mma-peak
  std::string accum = "both", mma_dtype = "f16", seconds = "2.0";
  // ldmatrix and mma-peak
  std::string device = "0";
};

// One signed integer, the whole of `text`.
std::optional<int64_t> parse_int(std::string_view text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

// One finite number, the whole of `text`.
std::optional<double> parse_double(std::string_view text) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

// --device: a CUDA device index, 0 or more (whether it exists is the device's to say).
int parse_device(const std::string& text) {
  const auto v = parse_int(text);
  if (!v || *v < 0 || *v > 1024)
    throw UsageError("--device: '" + text + "' is not a device index (0, 1, ...)");
  return int(*v);
}

int run_ldmatrix(const Options& o, const LdmatrixRunner& run_on_device, std::ostream& out) {
  const std::optional<int64_t> num = parse_int(o.num);
  if (!num || (*num != 1 && *num != 2 && *num != 4))
    throw UsageError(fmt::format("--num {}: accepted 1, 2 or 4 (ldmatrix .x1/.x2/.x4)", o.num));
  const LdmatrixSpec spec = standard_ldmatrix_spec(int(*num), o.trans);
  const LdmatrixRegs model = ldmatrix_model(spec);
  LdmatrixRegs regs = model;
  LdmatrixSource source = LdmatrixSource::model;
  if (!o.model) {
    regs = run_on_device(spec, parse_device(o.device));
    source = LdmatrixSource::gpu;
  }
  const bool matches = regs == model;
  if (o.json)
    out << ldmatrix_json(spec, regs, source, matches).dump(2) << '\n';
  else
    out << ldmatrix_text(spec, regs, source, matches);
  return matches ? kExitOk : kExitFailedVerification;
}

int run_swizzle(const Options& o, std::ostream& out) {
  if (o.bits.empty()) throw UsageError("inspect swizzle needs --bits B,M,S (e.g. --bits 3,3,3)");
  if (o.swizzle_tile.empty())
    throw UsageError("inspect swizzle needs --tile ROWSxCOLS (e.g. --tile 64x64)");
  if (o.dtype.empty()) throw UsageError("inspect swizzle needs --dtype (f16, bf16 or f32)");
  SwizzleParams p;
  // B, M, S may be 0, and negatives get their own message from make_swizzle_map, so they are
  // parsed as plain integers here.
  {
    std::vector<int64_t> bms;
    std::string_view rest = o.bits;
    for (int i = 0; i < 3; ++i) {
      const size_t comma = rest.find(',');
      const std::string_view field = rest.substr(0, comma);
      const std::optional<int64_t> v = parse_int(field);
      if (!v || (i < 2) == (comma == std::string_view::npos) || *v < -64 || *v > 64)
        throw UsageError(
            fmt::format("--bits {}: expected B,M,S, three small integers (e.g. 3,3,3)", o.bits));
      bms.push_back(*v);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    p.bits_b = int(bms[0]);
    p.base_m = int(bms[1]);
    p.shift_s = int(bms[2]);
  }
  const std::vector<int64_t> tile =
      parse_extents(o.swizzle_tile, 'x', 2, "--tile", "ROWSxCOLS, e.g. 64x64");
  p.rows = int(tile[0]);
  p.cols = int(tile[1]);
  const std::optional<DType> dtype = parse_dtype(o.dtype);
  if (!dtype || is_fp8(*dtype))
    throw UsageError(fmt::format("--dtype {}: accepted f16, bf16, f32", o.dtype));
  p.dtype = *dtype;
  if (o.access == "ldmatrix")
    p.access = SwizzleAccess::ldmatrix;
  else if (o.access == "cp.async")
    p.access = SwizzleAccess::cp_async;
  else if (o.access == "row")
    p.access = SwizzleAccess::row;
  else
    throw UsageError(fmt::format("--access {}: accepted ldmatrix, cp.async, row", o.access));

  const SwizzleMap map = make_swizzle_map(p);
  if (o.json)
    out << swizzle_json(map).dump(2) << '\n';
  else
    out << swizzle_text(map);
  return kExitOk;
}

int run_raster(const Options& o, std::ostream& out) {
  if (o.log_tile.empty())
    throw UsageError(fmt::format("inspect raster needs --log-tile L (0..{})", kMaxRasterLogTile));
  const std::optional<int64_t> log_tile = parse_int(o.log_tile);
  if (!log_tile || *log_tile < 0 || *log_tile > kMaxRasterLogTile)
    throw UsageError(fmt::format("--log-tile {}: accepted an integer 0..{} (CUTLASS picks 0..3)",
                                 o.log_tile, kMaxRasterLogTile));
  if (o.tiles.empty() == o.problem.empty())
    throw UsageError(
        "inspect raster needs either --tiles MxN or --problem MxNxK with --tile BMxBN (not both)");
  RasterParams p;
  if (!o.tiles.empty()) {
    if (!o.raster_tile.empty())
      throw UsageError("--tile BMxBN goes with --problem MxNxK; --tiles already counts tiles");
    const std::vector<int64_t> t = parse_extents(o.tiles, 'x', 2, "--tiles", "MxN, e.g. 8x6");
    p.tiles_m = int(t[0]);
    p.tiles_n = int(t[1]);
    p.log_tile = int(*log_tile);
  } else {
    if (o.raster_tile.empty())
      throw UsageError("--problem MxNxK needs --tile BMxBN (e.g. --tile 128x128)");
    const std::vector<int64_t> mnk =
        parse_extents(o.problem, 'x', 3, "--problem", "MxNxK, e.g. 5120x4096x4096");
    const std::vector<int64_t> t =
        parse_extents(o.raster_tile, 'x', 2, "--tile", "BMxBN, e.g. 128x128");
    p = raster_params_from_problem(mnk[0], mnk[1], mnk[2], int(t[0]), int(t[1]), int(*log_tile));
  }
  const RasterMap map = make_raster_map(p);
  if (o.json)
    out << raster_json(map).dump(2) << '\n';
  else
    out << raster_text(map);
  return kExitOk;
}

int run_mma_peak(const Options& o, const MmaPeakRunner& run_on_device, std::ostream& out) {
  std::vector<Accum> accums;
  if (o.accum == "both")
    accums = {Accum::f16, Accum::f32};
  else if (const std::optional<Accum> a = parse_accum(o.accum))
    accums = {*a};
  else
    throw UsageError(fmt::format("--accum {}: accepted f16, f32, both", o.accum));
  const std::optional<DType> dtype = parse_dtype(o.mma_dtype);
  if (!dtype || *dtype == DType::f32 || is_fp8(*dtype))
    throw UsageError(fmt::format("--dtype {}: accepted f16, bf16 (the mma inputs)", o.mma_dtype));
  if (*dtype == DType::bf16 && accums != std::vector<Accum>{Accum::f32})
    throw UsageError(fmt::format(
        "--dtype bf16 needs --accum f32 (got {}): mma.sync m16n8k16 accumulates bf16 in f32 only",
        o.accum));
  const std::optional<double> seconds = parse_double(o.seconds);
  if (!seconds || *seconds < kMmaPeakMinSeconds || *seconds > kMmaPeakMaxSeconds)
    throw UsageError(fmt::format("--seconds {}: accepted a number of seconds, {}..{}", o.seconds,
                                 kMmaPeakMinSeconds, kMmaPeakMaxSeconds));

  MmaPeakRequest req;
  req.seconds = *seconds;
  for (Accum a : accums)
    for (int w : kMmaPeakWarps) req.configs.push_back(MmaPeakConfig{a, *dtype, w});
  req.device = parse_device(o.device);
  MmaPeakReport report = run_on_device(req);
  derive_mma_peak(report);
  if (o.json)
    out << mma_peak_json(report).dump(2) << '\n';
  else
    out << mma_peak_text(report);
  return kExitOk;
}

}  // namespace

std::vector<int64_t> parse_extents(std::string_view text, char sep, int count,
                                   std::string_view option, std::string_view form) {
  std::vector<int64_t> values;
  std::string_view rest = text;
  for (int i = 0; i < count; ++i) {
    const size_t at = rest.find(sep);
    const bool last = i == count - 1;
    if (last != (at == std::string_view::npos))
      throw UsageError(fmt::format("{} {}: expected {}", option, text, form));
    const std::optional<int64_t> v = parse_int(rest.substr(0, at));
    if (!v) throw UsageError(fmt::format("{} {}: expected {}", option, text, form));
    if (*v < 1 || *v > std::numeric_limits<int32_t>::max())
      throw UsageError(fmt::format("{} {}: expected {}, each number in 1..{}", option, text, form,
                                   std::numeric_limits<int32_t>::max()));
    values.push_back(*v);
    if (!last) rest = rest.substr(at + 1);
  }
  return values;
}

std::function<int()> add_inspect_subcommand(CLI::App& app, DeviceRunners run_on_device,
                                            std::ostream& out) {
  auto o = std::make_shared<Options>();
  CLI::App* inspect = app.add_subcommand(
      "inspect", "Show the mechanisms the kernels rely on: ldmatrix, swizzle, raster, mma-peak");
  inspect->require_subcommand(0, 1);
  // The parent's footer is about benchmarking; these say how to use what is here.
  inspect->footer(
      "Examples:\n"
      "  gemmbench inspect ldmatrix --trans            each thread's registers, on the GPU\n"
      "  gemmbench inspect ldmatrix --trans --model    the same from the host-side model\n"
      "  gemmbench inspect swizzle --bits 3,3,3 --tile 64x64 --dtype f16\n"
      "  gemmbench inspect raster --problem 5120x4096x4096 --tile 128x128 --log-tile 2\n"
      "  gemmbench inspect mma-peak --accum f32        mma.sync's ceiling on this GPU\n"
      "Add --json for machines; scripts/plot_inspect.py draws the ldmatrix, swizzle and raster\n"
      "JSON as PNG heat maps.");

  CLI::App* ldm = inspect->add_subcommand(
      "ldmatrix", "Run one ldmatrix on the GPU and print each thread's registers");
  ldm->add_flag("--trans", o->trans, "Use the .trans variant");
  ldm->add_option("--num", o->num, "Matrices per instruction: 1, 2 or 4 (default 4)");
  ldm->add_flag("--model", o->model, "Print the host-side model of the instruction (no GPU)");
  ldm->add_flag("--json", o->json, "Print JSON instead of a table");
  ldm->add_option("--device", o->device, "CUDA device index (default 0)");
  ldm->footer(
      "Shared memory holds 8x8 b16 matrices with values 0..64*num-1 (matrix i, row r, column c\n"
      "holds 64i+8r+c); thread t gives the address of row t%8 of matrix t/8. Without a GPU the\n"
      "command exits 3; --model needs none.");

  CLI::App* swz = inspect->add_subcommand(
      "swizzle", "Map a shared-memory tile through Swizzle<B,M,S>; banks and conflicts");
  swz->add_option("--bits", o->bits, "B,M,S of Swizzle<B,M,S> (required), e.g. 3,3,3");
  swz->add_option("--tile", o->swizzle_tile, "ROWSxCOLS in elements, row-major (required)");
  swz->add_option("--dtype", o->dtype, "Element type: f16, bf16 or f32 (required)");
  swz->add_option("--access", o->access,
                  "Access pattern to count conflicts for: ldmatrix (default), cp.async, row");
  swz->add_flag("--json", o->json, "Print JSON instead of tables");
  swz->footer(
      "Banks: 32 x 4 bytes. Wavefronts per phase = most distinct 4-byte words in one bank.\n"
      "ldmatrix: one .x4 per 16x16 (or 8x32) block, 4 phases of 8 rows x 16 B; cp.async: 16 B per\n"
      "thread, 512 B per request in 4 phases of 8 threads; row: one 4-byte word per thread.\n"
      "Seed 000: --bits 3,3,3 --tile 64x64 --dtype f16 turns 8-way ldmatrix conflicts into none.");

  CLI::App* ras = inspect->add_subcommand(
      "raster",
      "Grid shape and block->tile map of the threadblock rasterization (CUTLASS's "
      "GemmIdentityThreadblockSwizzle)");
  ras->add_option("--tiles", o->tiles, "Output tiles MxN (or use --problem with --tile)");
  ras->add_option("--problem", o->problem, "Problem MxNxK, with --tile BMxBN");
  ras->add_option("--tile", o->raster_tile, "CTA tile BMxBN, with --problem");
  ras->add_option("--log-tile", o->log_tile, "log2 of the raster width L, 0..10 (required)");
  ras->add_flag("--json", o->json, "Print JSON instead of tables");
  ras->footer(
      "Grid = (tiles_m << L, ceil(tiles_n / 2^L)); block (x,y) computes tile (x >> L,\n"
      "(y << L) + (x & (2^L-1))); blocks past the last tile column are no-op CTAs.");

  CLI::App* mma = inspect->add_subcommand(
      "mma-peak", "Throughput ceiling of mma.sync m16n8k16 from registers, at this GPU's clocks");
  mma->add_option("--accum", o->accum, "Accumulate type: f16, f32 or both (default both)");
  mma->add_option("--dtype", o->mma_dtype, "Input type: f16 (default) or bf16 (with --accum f32)");
  mma->add_option("--seconds", o->seconds,
                  fmt::format("Timed seconds per row, {}..{} (default 2)", kMmaPeakMinSeconds,
                              kMmaPeakMaxSeconds));
  mma->add_flag("--json", o->json, "Print JSON instead of a table");
  mma->add_option("--device", o->device, "CUDA device index (default 0)");
  mma->footer(
      "One CTA per SM of 4, 8 and 16 warps; each warp loads A and B fragments (uniform in [-1,1])\n"
      "once and then issues only mma.sync over 16 independent accumulators. Every row warms up\n"
      "(a quarter of --seconds, at most 0.5 s), then runs back-to-back launches for --seconds\n"
      "while NVML is sampled. SM MHz is clock64 cycles over the event time; FLOP/clk/SM uses the\n"
      "cycles alone. Runs on --device (default 0); without a GPU (or below sm_80) it exits 3.");

  return [o, ldm, swz, ras, mma, run = std::move(run_on_device), &out]() -> int {
    if (ldm->parsed()) return run_ldmatrix(*o, run.ldmatrix, out);
    if (swz->parsed()) return run_swizzle(*o, out);
    if (ras->parsed()) return run_raster(*o, out);
    if (mma->parsed()) return run_mma_peak(*o, run.mma_peak, out);
    throw UsageError(
        "inspect needs one of: ldmatrix, swizzle, raster, mma-peak (see gemmbench inspect --help)");
  };
}

}  // namespace gemmbench::inspect
