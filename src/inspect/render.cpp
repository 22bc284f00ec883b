#include "inspect/render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "version.hpp"

namespace gemmbench::inspect {
namespace {

// A right-aligned table: `corner` above the row labels, a "|" between labels and cells. Columns
// share one width (number grids line up) unless `uniform` is false; `sep` goes between cells.
std::string grid_table(const std::string& corner, const std::vector<std::string>& col_labels,
                       const std::vector<std::string>& row_labels,
                       const std::vector<std::vector<std::string>>& cells, bool uniform = true,
                       const std::string& sep = " ") {
  size_t label_w = corner.size();
  for (const std::string& l : row_labels) label_w = std::max(label_w, l.size());
  std::vector<size_t> width(col_labels.size(), 1);
  for (size_t c = 0; c < col_labels.size(); ++c)
    width[c] = std::max(width[c], col_labels[c].size());
  for (const auto& row : cells)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  if (uniform && !width.empty()) {
    const size_t widest = *std::max_element(width.begin(), width.end());
    std::fill(width.begin(), width.end(), widest);
  }

  std::string out = fmt::format("{:>{}} |", corner, label_w);
  size_t line = 0;
  for (size_t c = 0; c < col_labels.size(); ++c) {
    out += fmt::format("{}{:>{}}", c == 0 ? " " : sep, col_labels[c], width[c]);
    line += width[c] + (c == 0 ? 1 : sep.size());
  }
  out += '\n' + std::string(label_w + 1, '-') + '+' + std::string(line, '-') + '\n';
  for (size_t r = 0; r < cells.size(); ++r) {
    std::string line_text = fmt::format("{:>{}} |", row_labels[r], label_w);
    for (size_t c = 0; c < cells[r].size() && c < width.size(); ++c)
      line_text += fmt::format("{}{:>{}}", c == 0 ? " " : sep, cells[r][c], width[c]);
    // A short last line of a wrapped listing ends in blank cells.
    line_text.erase(line_text.find_last_not_of(' ') + 1);
    out += line_text + '\n';
  }
  return out;
}

std::vector<std::string> numbered(int count, int step = 1) {
  std::vector<std::string> v;
  for (int i = 0; i < count; ++i) v.push_back(std::to_string(i * step));
  return v;
}

// "0-3" for consecutive banks, else "0,4,8".
std::string banks_text(const std::vector<int>& banks) {
  if (banks.empty()) return "";
  bool consecutive = true;
  for (size_t i = 1; i < banks.size(); ++i) consecutive &= banks[i] == banks[i - 1] + 1;
  if (banks.size() == 1) return std::to_string(banks[0]);
  if (consecutive) return fmt::format("{}-{}", banks.front(), banks.back());
  return fmt::format("{}", fmt::join(banks, ","));
}

std::string conflict_text(int wavefronts) {
  return wavefronts <= 1 ? std::string("conflict-free")
                         : fmt::format("{}-way conflict", wavefronts);
}

bool is_standard(const LdmatrixSpec& spec) {
  for (int t = 0; t < 8 * spec.num; ++t)
    if (spec.row_of_thread[t] != t) return false;
  return true;
}

}  // namespace

// ---- ldmatrix ----------------------------------------------------------------------------------

std::string ldmatrix_text(const LdmatrixSpec& spec, const LdmatrixRegs& regs, LdmatrixSource source,
                          bool matches_model) {
  const int n = 64 * spec.num;
  std::string out = fmt::format(
      "{}, {}\n", ldmatrix_instruction(spec.num, spec.trans),
      source == LdmatrixSource::gpu ? "executed on the GPU" : "host-side model (no GPU)");
  if (is_standard(spec)) {
    out += fmt::format(
        "shared memory: {} 8x8 b16 matri{} holding 0..{}: matrix i, row r, column c holds "
        "64*i + 8*r + c;\nthread t supplies the address of row t%8 of matrix t/8 (threads 0..{})\n",
        spec.num, spec.num == 1 ? "x" : "ces", n - 1, 8 * spec.num - 1);
  } else {
    out +=
        "shared memory: 32 rows of 8 b16, row r column c holds 8*r + c; thread t supplies the "
        "address of row:\n";
    for (int t = 0; t < 8 * spec.num; ++t)
      out += fmt::format("{}{}", t == 0 ? "  " : " ", spec.row_of_thread[t]);
    out += '\n';
  }
  out += spec.trans
             ? "model: thread t, register i = matrix i (rows 2*(t%4), 2*(t%4)+1 ; column t/4)\n"
             : "model: thread t, register i = matrix i (row t/4 ; columns 2*(t%4), 2*(t%4)+1)\n";
  out += "each 32-bit register holds two b16 values, shown as: low half, high half\n";
  if (source == LdmatrixSource::gpu)
    out += fmt::format("hardware matches the host model: {}\n", matches_model ? "yes" : "NO");
  out += '\n';

  std::vector<std::string> cols;
  for (int i = 0; i < spec.num; ++i) cols.push_back(fmt::format("r{}", i));
  std::vector<std::string> rows;
  std::vector<std::vector<std::string>> cells;
  const int w = n > 100 ? 3 : 2;
  for (int t = 0; t < 32; ++t) {
    rows.push_back(std::to_string(t));
    std::vector<std::string> row;
    for (int i = 0; i < spec.num; ++i)
      row.push_back(fmt::format("{:>{}}, {:>{}}", lo_half(regs[t][i]), w, hi_half(regs[t][i]), w));
    cells.push_back(std::move(row));
  }
  out += grid_table("thread", cols, rows, cells, true, " | ");
  return out;
}

nlohmann::json ldmatrix_json(const LdmatrixSpec& spec, const LdmatrixRegs& regs,
                             LdmatrixSource source, bool matches_model) {
  nlohmann::json j;
  j["inspect"] = "ldmatrix";
  j["instruction"] = ldmatrix_instruction(spec.num, spec.trans);
  j["num"] = spec.num;
  j["trans"] = spec.trans;
  j["source"] = source == LdmatrixSource::gpu ? "gpu" : "model";
  if (source == LdmatrixSource::gpu) j["matches_model"] = matches_model;
  j["smem"] = {{"rows", kLdmatrixSmemRows}, {"cols", 8}, {"value", "8*row + col"}};
  j["row_of_thread"] =
      std::vector<int>(spec.row_of_thread.begin(), spec.row_of_thread.begin() + 8 * spec.num);
  nlohmann::json threads = nlohmann::json::array();
  for (int t = 0; t < 32; ++t) {
    nlohmann::json r = nlohmann::json::array();
    for (int i = 0; i < spec.num; ++i) r.push_back({lo_half(regs[t][i]), hi_half(regs[t][i])});
    threads.push_back({{"thread", t}, {"regs", r}});
  }
  j["threads"] = threads;
  return j;
}

// ---- swizzle -----------------------------------------------------------------------------------

std::string swizzle_text(const SwizzleMap& map) {
  const SwizzleParams& p = map.params;
  const int row_bytes = p.cols * map.elem_bytes;
  std::string out =
      fmt::format("Swizzle<{},{},{}> on a {}x{} {} tile: row-major, {} B per row, {} B in all\n",
                  p.bits_b, p.base_m, p.shift_s, p.rows, p.cols, to_string(p.dtype), row_bytes,
                  int64_t(p.rows) * row_bytes);
  if (p.bits_b == 0) {
    out += "B = 0: the swizzle is the identity (nothing is XORed)\n";
  } else {
    const int lo = p.base_m, hi = p.base_m + p.shift_s;
    out += fmt::format(
        "element offset bits [{},{}) are XORed into bits [{},{}): chunks of {} elements ({} B) "
        "move as a unit; the pattern repeats every {} elements\n",
        hi, hi + p.bits_b, lo, lo + p.bits_b, 1 << p.base_m, (1 << p.base_m) * map.elem_bytes,
        1 << (p.bits_b + p.base_m + p.shift_s));
  }
  out += "banks: 32 x 4 bytes, bank = (byte offset / 4) % 32\n\n";

  // Cells of `cell` elements: the swizzle moves 2^M elements as a unit, so one number per cell
  // says everything (cut to a divisor of the row so cells never straddle rows).
  const int cell = std::gcd(1 << std::min(p.base_m, 20), p.cols);
  const int cells_per_row = p.cols / cell;
  std::vector<std::string> col_labels = numbered(cells_per_row, cell);
  std::vector<std::string> row_labels = numbered(p.rows);
  auto table = [&](auto value) {
    std::vector<std::vector<std::string>> cells(size_t(p.rows));
    for (int r = 0; r < p.rows; ++r)
      for (int c = 0; c < p.cols; c += cell) cells[r].push_back(std::to_string(value(r, c)));
    return grid_table("row\\col", col_labels, row_labels, cells);
  };
  const std::string unit = cell == 1 ? "element" : fmt::format("{}-element chunk", cell);
  out +=
      fmt::format("physical element offset of each {} after the swizzle (before: row*{} + col)\n",
                  unit, p.cols);
  out += table([&](int r, int c) { return map.physical_at(r, c); });
  const int cell_banks = std::max(1, cell * map.elem_bytes / 4);
  const std::string span =
      cell_banks > 1 ? fmt::format(" (it covers {} banks from there)", cell_banks) : "";
  out += fmt::format("\nbank of each {}'s first element BEFORE the swizzle{}\n", unit, span);
  out += table([&](int r, int c) { return map.bank_before(r, c); });
  out += fmt::format("\nbank of each {}'s first element AFTER the swizzle\n", unit);
  out += table([&](int r, int c) { return map.bank_after(r, c); });

  out += fmt::format("\naccess {}: {}\n", to_string(p.access), map.access_description);
  if (!map.requests.empty()) {
    const SwizzleRequest& req = map.requests.front();
    out += fmt::format("request 0 touches {}:\n", req.what);
    std::vector<std::string> cols = {"thread",       "(row,col)",  "elems",      "byte before",
                                     "banks before", "byte after", "banks after"};
    std::vector<std::string> rows;
    std::vector<std::vector<std::string>> cells;
    for (size_t ph = 0; ph < req.phases.size(); ++ph) {
      for (const ThreadAccess& a : req.phases[ph].threads) {
        rows.push_back(std::to_string(ph));
        cells.push_back({std::to_string(a.thread), fmt::format("({},{})", a.row, a.col),
                         std::to_string(a.elements), std::to_string(a.byte_before),
                         banks_text(a.banks_before), std::to_string(a.byte_after),
                         banks_text(a.banks_after)});
      }
    }
    out += grid_table("phase", cols, rows, cells, false, "  ");
    for (size_t ph = 0; ph < req.phases.size(); ++ph)
      out += fmt::format(
          "phase {}: {} wavefront(s) before ({}), {} after ({})\n", ph,
          req.phases[ph].wavefronts_before, conflict_text(req.phases[ph].wavefronts_before),
          req.phases[ph].wavefronts_after, conflict_text(req.phases[ph].wavefronts_after));
  }

  constexpr size_t kListed = 32;
  out += fmt::format("\nwavefronts per request (ideal: one per phase)\n");
  {
    std::vector<std::string> cols = {"touches", "phases", "before", "after"};
    std::vector<std::string> rows;
    std::vector<std::vector<std::string>> cells;
    for (size_t i = 0; i < std::min(kListed, map.requests.size()); ++i) {
      const SwizzleRequest& r = map.requests[i];
      rows.push_back(std::to_string(i));
      cells.push_back({r.what, std::to_string(r.phases.size()), std::to_string(r.wavefronts_before),
                       std::to_string(r.wavefronts_after)});
    }
    out += grid_table("request", cols, rows, cells, false, "  ");
    if (map.requests.size() > kListed)
      out += fmt::format("... {} more requests (all of them in --json)\n",
                         map.requests.size() - kListed);
  }
  out += fmt::format(
      "\nsummary over the tile's {} requests: {} wavefronts before, {} after, ideal {}\n"
      "worst phase: before {}, after {}\n",
      map.requests.size(), map.total_wavefronts_before(), map.total_wavefronts_after(),
      map.ideal_wavefronts(), conflict_text(map.max_phase_wavefronts_before()),
      conflict_text(map.max_phase_wavefronts_after()));
  return out;
}

nlohmann::json swizzle_json(const SwizzleMap& map) {
  const SwizzleParams& p = map.params;
  nlohmann::json j;
  j["inspect"] = "swizzle";
  j["bits"] = {p.bits_b, p.base_m, p.shift_s};
  j["tile"] = {p.rows, p.cols};
  j["dtype"] = to_string(p.dtype);
  j["elem_bytes"] = map.elem_bytes;
  j["access"] = to_string(p.access);
  j["access_description"] = map.access_description;
  nlohmann::json physical = nlohmann::json::array(), before = nlohmann::json::array(),
                 after = nlohmann::json::array();
  for (int r = 0; r < p.rows; ++r) {
    std::vector<int> ph, b, a;
    for (int c = 0; c < p.cols; ++c) {
      ph.push_back(map.physical_at(r, c));
      b.push_back(map.bank_before(r, c));
      a.push_back(map.bank_after(r, c));
    }
    physical.push_back(ph);
    before.push_back(b);
    after.push_back(a);
  }
  j["physical"] = physical;
  j["bank_before"] = before;
  j["bank_after"] = after;
  nlohmann::json requests = nlohmann::json::array();
  for (const SwizzleRequest& r : map.requests) {
    nlohmann::json phases = nlohmann::json::array();
    for (const SwizzlePhase& ph : r.phases) {
      nlohmann::json threads = nlohmann::json::array();
      for (const ThreadAccess& a : ph.threads)
        threads.push_back({{"thread", a.thread},
                           {"row", a.row},
                           {"col", a.col},
                           {"elements", a.elements},
                           {"byte_before", a.byte_before},
                           {"byte_after", a.byte_after},
                           {"banks_before", a.banks_before},
                           {"banks_after", a.banks_after}});
      phases.push_back({{"threads", threads},
                        {"wavefronts_before", ph.wavefronts_before},
                        {"wavefronts_after", ph.wavefronts_after}});
    }
    requests.push_back({{"what", r.what},
                        {"phases", phases},
                        {"wavefronts_before", r.wavefronts_before},
                        {"wavefronts_after", r.wavefronts_after}});
  }
  j["requests"] = requests;
  j["summary"] = {{"requests", map.requests.size()},
                  {"ideal_wavefronts", map.ideal_wavefronts()},
                  {"wavefronts_before", map.total_wavefronts_before()},
                  {"wavefronts_after", map.total_wavefronts_after()},
                  {"max_phase_wavefronts_before", map.max_phase_wavefronts_before()},
                  {"max_phase_wavefronts_after", map.max_phase_wavefronts_after()}};
  return j;
}

// ---- raster ------------------------------------------------------------------------------------

std::string raster_text(const RasterMap& map) {
  const RasterParams& p = map.params;
  std::string out = fmt::format("raster: {} x {} output tiles", p.tiles_m, p.tiles_n);
  if (p.problem && p.tile)
    out += fmt::format(" (problem {}x{}x{}, tile {}x{})", (*p.problem)[0], (*p.problem)[1],
                       (*p.problem)[2], (*p.tile)[0], (*p.tile)[1]);
  out += fmt::format(", log_tile L = {}\n", p.log_tile);
  const int64_t ctas = int64_t(map.grid.x) * map.grid.y;
  out += fmt::format(
      "grid (gridDim.x, gridDim.y) = ({} << L, ceil({} / 2^L)) = ({}, {}): {} CTAs, {} compute a "
      "tile, {} no-op\n",
      p.tiles_m, p.tiles_n, map.grid.x, map.grid.y, ctas, ctas - map.noop_ctas, map.noop_ctas);
  out += fmt::format(
      "block (x, y) computes tile (m, n) = (x >> L, (y << L) + (x & (2^L - 1))); linear block id "
      "= x + y * gridDim.x, the order blocks are launched in\n");
  if (map.grid.y > 65535)
    out += fmt::format("note: gridDim.y = {} exceeds CUDA's limit of 65535\n", map.grid.y);
  out += '\n';

  out += "tile (m,n) computed by each block; -- = no-op CTA (its tile lies outside the grid)\n";
  auto cta_cell = [](const RasterCta& c) {
    return c.valid ? fmt::format("{},{}", c.tile.m, c.tile.n) : std::string("--");
  };
  constexpr int kWide = 32;
  if (map.grid.x <= kWide) {
    std::vector<std::string> rows;
    std::vector<std::vector<std::string>> cells(size_t(map.grid.y));
    for (int by = 0; by < map.grid.y; ++by) {
      rows.push_back(std::to_string(by));
      for (int bx = 0; bx < map.grid.x; ++bx)
        cells[by].push_back(cta_cell(map.ctas[size_t(by) * map.grid.x + bx]));
    }
    out += grid_table("blockIdx.y\\x", numbered(map.grid.x), rows, cells);
  } else {
    // Too wide for one row per blockIdx.y: wrap each into lines of kWide blocks.
    for (int by = 0; by < map.grid.y; ++by) {
      std::vector<std::string> rows;
      std::vector<std::vector<std::string>> cells;
      for (int x0 = 0; x0 < map.grid.x; x0 += kWide) {
        rows.push_back(fmt::format("x {}+", x0));
        std::vector<std::string> line;
        for (int bx = x0; bx < std::min(map.grid.x, x0 + kWide); ++bx)
          line.push_back(cta_cell(map.ctas[size_t(by) * map.grid.x + bx]));
        line.resize(kWide);
        cells.push_back(std::move(line));
      }
      out += grid_table(fmt::format("y={}", by), numbered(kWide), rows, cells);
    }
  }

  out += "\nvisit order: linear id of the block computing each tile\n";
  {
    std::vector<std::vector<std::string>> cells(size_t(p.tiles_m));
    for (int m = 0; m < p.tiles_m; ++m)
      for (int n = 0; n < p.tiles_n; ++n) cells[m].push_back(std::to_string(map.visit_id_at(m, n)));
    out += grid_table("tile m\\n", numbered(p.tiles_n), numbered(p.tiles_m), cells);
  }
  if (map.noop_ctas > 0) {
    std::vector<int64_t> ids;
    for (const RasterCta& c : map.ctas)
      if (!c.valid) ids.push_back(c.id);
    out += fmt::format("\nno-op CTAs (linear ids): {}\n", fmt::join(ids, " "));
  }
  return out;
}

nlohmann::json raster_json(const RasterMap& map) {
  const RasterParams& p = map.params;
  nlohmann::json j;
  j["inspect"] = "raster";
  j["tiles"] = {p.tiles_m, p.tiles_n};
  j["log_tile"] = p.log_tile;
  if (p.problem) j["problem"] = *p.problem;
  if (p.tile) j["tile"] = *p.tile;
  j["grid"] = {map.grid.x, map.grid.y};
  nlohmann::json ctas = nlohmann::json::array();
  nlohmann::json noop = nlohmann::json::array();
  for (const RasterCta& c : map.ctas) {
    ctas.push_back({{"id", c.id},
                    {"block", {c.bx, c.by}},
                    {"tile", {c.tile.m, c.tile.n}},
                    {"valid", c.valid}});
    if (!c.valid) noop.push_back(c.id);
  }
  j["ctas"] = ctas;
  j["noop_ctas"] = noop;
  nlohmann::json visit = nlohmann::json::array();
  for (int m = 0; m < p.tiles_m; ++m) {
    std::vector<int64_t> row;
    for (int n = 0; n < p.tiles_n; ++n) row.push_back(map.visit_id_at(m, n));
    visit.push_back(row);
  }
  j["visit_id"] = visit;
  return j;
}

// ---- mma-peak ----------------------------------------------------------------------------------

namespace {

constexpr const char* kMmaInstruction = "mma.sync.aligned.m16n8k16.row.col";

template <class T>
std::string opt_text(const std::optional<T>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string("n/a");
}

template <class T>
nlohmann::json opt_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

std::string mma_peak_text(const MmaPeakReport& report) {
  std::string out = fmt::format(
      "{} from registers on {} (device {}, sm_{}, {} SMs)\n"
      "driver {}, CUDA runtime {}, {}; gemmbench {} ({})\n"
      "one CTA per SM; each warp loads {} A and {} B fragments once (uniform in [-1, 1]) and runs "
      "{} independent accumulators\n"
      "each row: {:.2f} s warm-up, then {:.2f} s of launches\n"
      "SM MHz = clock64 cycles / event time; FLOP/clk/SM = FLOP / (SMs * clock64 cycles)\n\n",
      kMmaInstruction, report.device_name, report.device_index, report.sm, report.num_sms,
      report.driver_version, report.cuda_runtime, report.date_utc, kVersion, kGitCommit, kMmaTileM,
      kMmaTileN, kMmaChains, report.warmup_seconds, report.seconds);
  const std::vector<std::string> cols = {"dtype",  "warps/SM",    "TFLOP/s",
                                         "SM MHz", "FLOP/clk/SM", "NVML min MHz",
                                         "max W",  "throttle",    "best"};
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> cells;
  for (const MmaPeakRow& r : report.rows) {
    labels.push_back(to_string(r.config.accum));
    const bool nvml = r.clock.sm_clock_mhz || r.clock.power_w;
    std::string throttle = nvml ? r.clock.throttle_reasons : "n/a";
    if (throttle.empty()) throttle = "none";
    cells.push_back({to_string(r.config.dtype), std::to_string(r.config.warps_per_sm),
                     fmt::format("{:.1f}", r.tflops), fmt::format("{:.0f}", r.clock_mhz),
                     fmt::format("{:.0f}", r.flop_per_clk_per_sm),
                     opt_text(r.clock.sm_clock_mhz, "{}"), opt_text(r.clock.power_w, "{:.0f}"),
                     throttle, r.best ? "*" : ""});
  }
  out += grid_table("accum", cols, labels, cells, false, "  ");
  out += '\n';
  for (const MmaPeakRow& r : report.rows)
    if (r.best)
      out += fmt::format(
          "best {} accumulate ({} inputs): {} warps/SM, {:.1f} TFLOP/s at {:.0f} MHz, "
          "{:.0f} FLOP/clk/SM\n",
          to_string(r.config.accum), to_string(r.config.dtype), r.config.warps_per_sm, r.tflops,
          r.clock_mhz, r.flop_per_clk_per_sm);
  return out;
}

nlohmann::json mma_peak_json(const MmaPeakReport& report) {
  nlohmann::json j;
  j["inspect"] = "mma-peak";
  j["instruction"] = kMmaInstruction;
  j["tool_version"] = kVersion;
  j["git_commit"] = kGitCommit;
  j["date_utc"] = report.date_utc;
  j["driver_version"] = report.driver_version;
  j["cuda_runtime"] = report.cuda_runtime;
  j["cuda_driver_api"] = report.cuda_driver_api;
  j["device"] = {{"index", report.device_index},
                 {"name", report.device_name},
                 {"sm", report.sm},
                 {"num_sms", report.num_sms}};
  j["seconds"] = report.seconds;
  j["warmup_seconds"] = report.warmup_seconds;
  j["ctas_per_sm"] = 1;
  j["accumulators_per_warp"] = kMmaChains;
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json best = nlohmann::json::object();
  for (const MmaPeakRow& r : report.rows) {
    const ClockStats& c = r.clock;
    nlohmann::json row = {{"accum", to_string(r.config.accum)},
                          {"dtype", to_string(r.config.dtype)},
                          {"warps_per_sm", r.config.warps_per_sm},
                          {"ctas", r.ctas},
                          {"iters_per_launch", r.iters_per_launch},
                          {"launches", r.launches},
                          {"flop", r.flop},
                          {"elapsed_ms", r.elapsed_ms},
                          {"mean_cta_cycles", r.mean_cta_cycles},
                          {"tflops", r.tflops},
                          {"clock_mhz", r.clock_mhz},
                          {"flop_per_clk_per_sm", r.flop_per_clk_per_sm},
                          {"best", r.best},
                          {"nvml",
                           {{"sm_min_mhz", opt_json(c.sm_clock_mhz)},
                            {"sm_max_mhz", opt_json(c.sm_clock_max_mhz)},
                            {"max_power_w", opt_json(c.power_w)},
                            {"max_temperature_c", opt_json(c.temperature_c)},
                            {"throttled", c.throttled},
                            {"throttle_reasons", c.throttle_reasons}}}};
    if (r.best) best[to_string(r.config.accum)] = row;
    rows.push_back(std::move(row));
  }
  j["rows"] = rows;
  j["best"] = best;
  return j;
}

}  // namespace gemmbench::inspect
