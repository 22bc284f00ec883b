#include "cli/cli.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <tuple>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "config/config.hpp"
#include "core/errors.hpp"
#include "plan/grouped.hpp"
#include "plan/presets.hpp"
#include "plan/ranges.hpp"
#include "plan/shard.hpp"
#include "version.hpp"

#ifndef GEMMBENCH_SOURCE_DIR
#define GEMMBENCH_SOURCE_DIR ""
#endif

namespace gemmbench {

namespace {

const char* kFooter = R"(
Layouts (BLAS column-major; C = alpha*op(A)*op(B) + beta*C, C is (M,N) with M contiguous):
  first letter op(A), second op(B). TN: A stored (M,K) with K contiguous, B stored (N,K) with
  K contiguous (both operands K-major: PyTorch's x @ W.T). NN: A (M,K) M-contiguous, B (K,N)
  K-contiguous. Without --layout each kernel runs in its own native layout (see `gemmbench list`).

Dimensions: 4096 | 512,1024,2048 | 256:4096:256 (stop included) | 256:8192:x2 (geometric).
  --m/--n/--k form a cross product; a missing one defaults to 4096.

LLM shapes: --preset llama3-8b --tokens 1,16,128,4096 runs every linear layer of the model as a
  TN GEMM with M = tokens (`gemmbench presets` lists the models, layers and their sources).
  --dry-run prints the planned cases and their total FLOP without touching a GPU.

Grouped GEMM (Mixture-of-Experts layers; docs/grouped.md): G groups share N and K (TN, weights
  [G, N, K] K-contiguous), group g has M_g rows; FLOP = 2*sum(M_g)*N*K. Give the M_g:
    --groups 8 --group-m 512,0,37,... --n 4096 --k 7168     each group's rows
    --groups 8 --m 64,512 --n 4096 --k 7168                 G equal groups, one case per M
    --tokens 4096 --topk 8 --experts 256 --routing zipf:1.2 --n 4096 --k 7168   drawn by routing
    --preset deepseek-v3 --tokens 16,4096 --routing balanced   the model's expert layers grouped
  Routing (seeded by --routing-seed, the same M_g on every platform): balanced (T*k/E each),
  zipf:S (expert popularity ~ 1/rank^S), random (uniform); each token picks k distinct experts.
  --group-layout contiguous (rows stacked; --group-align 128 pads each group, padding neither
  counted nor compared) or masked ([G, max_m, K], --group-max-m). cuBLAS runs f16/bf16 cases two
  ways, rows cublas (a cublasGemmEx per group) and cublas_grouped (the grouped API); a kernel row
  divides by the faster and names it. FP8 (--dtype e4m3 --scale block128, tensor, row): the
  cublas row is cuBLASLt, a cublasLtMatmul per group (cuBLAS has no grouped FP8 GEMM), no
  cublas_grouped row. Kernel rows, both layouts, H100/H200: hgemm_grouped_sm90 (f16/bf16), its
  TMA-store variant _tma, and hgemm, which picks one; fp8gemm_grouped_sm90 (e4m3 x e4m3,
  block128, bf16 C), its TMA-store variants _tma and _n192_tma, and fp8gemm, which picks one
  (a dispatcher's row names its kernel and rule); other kernels are skipped with the reason.

Speed of light: every row carries its roofline bound, min(compute ceiling of its instruction
  class at the maximum SM clock, FLOP/byte x memory bandwidth), and the share reached (% SOL).

Measurement: CUDA events per sample, cold L2 (flushed before every sample) unless --cache hot;
  each case is first run to steady state, then each kernel and its baseline (--baseline: the
  matching cuBLAS call by default, or cuBLASLt tuned over its heuristic's top 8 algorithms, or
  both, or none) are sampled alone in alternating blocks; the figure quoted is the median, and a
  kernel's ratio divides by its case's cublas row median. TFLOP/s = 2*M*N*K / median.

Examples:
  gemmbench                                         run configs/default.json
  gemmbench --kernel hgemm_tn --m 5120 --n 4096 --k 4096
  gemmbench --kernel 'sgemm_*' --m 1024:4096:x2 --n 1024:4096:x2 --k 4096 --csv out.csv
  gemmbench --config configs/square_sweep.json --json sweep.json
  gemmbench --preset llama3-8b,llama3-70b --tokens 1,16,64,128 --kernel hgemm_tn --dry-run
  gemmbench --kernel hgemm --preset llama3-8b --tokens 1,16,4096    best kernel per shape
  gemmbench --preset deepseek-v3 --tokens 4096 --dtype e4m3 --scale block128   FP8 as released
  gemmbench --kernel fp8gemm --m 4096 --n 4096 --k 4096 --dtype e4m3 --dtype-b e5m2   mixed FP8
  gemmbench --plugin build/libmy_gemm.so --kernel my_hgemm --dtype f16   your own kernel
  gemmbench --config configs/llm_prefill.json --shard 1/4 --json 'part_{rank}.json'
  gemmbench merge part_*.json --json all.json
  gemmbench --config configs/llm_prefill.json --devices all --json all.json   a worker per GPU
  gemmbench --config configs/llm_prefill.json --devices all --mode replicate --markdown fleet.md
  gemmbench list
  gemmbench presets

Exit codes: 0 all rows ok or skipped, 1 a row FAILED verification, 2 bad input, 3 no usable GPU,
  4 a CUDA error ended the run (finished rows are in the reports), 5 (--devices) a worker was
  killed or left no report (its missing rows are listed), 130/143 stopped by SIGINT/SIGTERM after
  the sample in flight (finished rows are in the reports, marked interrupted). With --mode
  replicate, 1 also when a GPU is an outlier.)";

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    std::string item = s.substr(pos, comma - pos);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    pos = comma + 1;
  }
  return out;
}

template <class T, class ParseFn>
std::vector<T> parse_enum_list(const std::string& text, const char* flag, ParseFn parse,
                               const char* accepted) {
  std::vector<T> out;
  const auto items = split_list(text);
  if (items.empty())
    throw UsageError(std::string(flag) + ": empty value (accepted: " + accepted + ")");
  for (const auto& item : items) {
    const auto v = parse(item);
    if (!v) throw UsageError(std::string(flag) + ": '" + item + "' is not one of " + accepted);
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
  }
  return out;
}

// The flags kept as they were typed until the parse is over, then checked and turned into
// CliOptions (enums, parsed lists); CLI11 writes into them while it parses.
struct TypedFlags {
  std::string cache;
  std::optional<std::string> data;  // optional, not empty-means-unset: --data '' is an error
  std::optional<std::string> regime, baseline, mode, devices;
  bool no_verify = false, keep_samples = false;
  std::vector<std::string> plugins_before, plugins_after;  // --plugin before and after `list`
};

const char* kPluginHelp =
    "Load a plugin library (a shared library built against gemmbench/plugin.h) whose kernels "
    "then run like gemmbench's own; PATH[,PATH], repeatable (docs/plugins.md)";

// Grouped GEMM: the groups' rows, or a routing that draws them, and their storage.
void add_grouped_options(CLI::App& app, CliOptions& o) {
  app.add_option("--groups", o.groups,
                 "Grouped GEMM: G groups sharing --n and --k (TN), each with its own M: --group-m "
                 "or --m (equal groups); docs/grouped.md");
  app.add_option("--group-m", o.group_m,
                 "Grouped: each group's rows M_g, comma-separated, G of them (0: an empty group)");
  app.add_option("--routing", o.routing,
                 "Grouped: draw the M_g by routing --tokens T to k of E experts: balanced (T*k/E "
                 "each, the remainder to the first experts), zipf:S (each token draws k distinct "
                 "experts, expert g weighted 1/(g+1)^S), random (k distinct, uniform). With a MoE "
                 "--preset its expert layers are grouped with the model's E and k");
  app.add_option("--topk", o.topk, "Grouped, --routing: experts per token k (1 <= k <= E)");
  app.add_option("--experts", o.experts, "Grouped, --routing: experts E (the groups)");
  app.add_option("--routing-seed", o.routing_seed,
                 "Grouped: seed of zipf and random routing (default 1; not --seed, so that "
                 "another data seed keeps the problem)");
  app.add_option("--group-layout", o.group_layout,
                 "Grouped: contiguous (default; the groups' rows stacked, [sum M_g, K]) or masked "
                 "([G, max_m, K], group g's first M_g rows valid)");
  app.add_option("--group-align", o.group_align,
                 "Grouped, contiguous: pad each group's rows to a multiple of N (DeepGEMM on sm90: "
                 "128); padding rows are neither counted in FLOP nor compared (default 1)");
  app.add_option("--group-max-m", o.group_max_m,
                 "Grouped, masked: rows per group in storage, >= every M_g (default: the largest)");
}

// A comma list of integers as typed (negatives kept, for the caller to name), or UsageError.
std::vector<int64_t> parse_int_list(const std::string& text, const char* flag,
                                    const char* accepted) {
  std::vector<int64_t> out;
  const auto items = split_list(text);
  if (items.empty())
    throw UsageError(std::string(flag) + ": empty value (accepted: " + accepted + ")");
  for (const std::string& item : items) {
    int64_t v = 0;
    const auto res = std::from_chars(item.data(), item.data() + item.size(), v);
    if (res.ec != std::errc() || res.ptr != item.data() + item.size())
      throw UsageError(std::string(flag) + ": '" + item +
                       "' is not an integer (accepted: " + accepted + ")");
    out.push_back(v);
  }
  return out;
}

// What to run: kernels, shapes, presets, types, scalars, a config.
void add_problem_options(CLI::App& app, CliOptions& o) {
  app.add_option("--kernel,--kernels", o.kernels,
                 "Kernels: names, globs ('sgemm_*'), 'all' or 'cublas', comma-separated. "
                 "'hgemm' and 'sgemm' run, per case, the registered kernel a rule table picks "
                 "(rows say which). cuBLAS rows come with every kernel as its baseline. "
                 "Default: all");
  app.add_option("--m", o.m, "Rows of C and op(A): N, list or range (default 4096)");
  app.add_option("--n", o.n, "Columns of C and op(B) (default 4096)");
  app.add_option("--k", o.k, "Inner dimension (default 4096)");
  app.add_option("--preset", o.presets,
                 "LLM layer shapes by model, comma-separated (see `gemmbench presets`): N and K "
                 "from the model's config.json, M from --tokens, layout TN unless --layout");
  app.add_option("--tokens", o.tokens,
                 "Tokens per GEMM for --preset (the M of every layer), or the tokens T a "
                 "--routing sends to experts: N, list or range");
  app.add_option("--layers", o.layers,
                 "With --preset: only these layers, names or globs, comma-separated (moe_* for "
                 "the grouped expert layers of an MoE model with --routing; `gemmbench presets` "
                 "lists them). Default: every layer");
  add_grouped_options(app, o);
  app.add_flag("--dry-run", o.dry_run,
               "Print the planned cases (one line each), their count and total FLOP, and exit 0 "
               "without touching a GPU; every argument and config check still runs");
  app.add_option("--layout", o.layouts,
                 "nn, nt, tn, tt (comma list). Default: each kernel's native");
  app.add_option("--dtype", o.dtypes,
                 "f32, f16, bf16, e4m3, e5m2 (comma list). Default: each kernel's native. e4m3, "
                 "e5m2: FP8 A (and B unless --dtype-b), TN, quantized from f32 data with the "
                 "scales of --scale (docs/fp8.md)");
  app.add_option("--dtype-b", o.dtypes_b,
                 "FP8: B's type, e4m3 or e5m2 (comma list; default: A's). e4m3 x e5m2 and e5m2 "
                 "x e4m3 run; e5m2 x e5m2 does not (cuBLASLt has none: no baseline)");
  app.add_option("--accum", o.accums,
                 "Accumulate type f32 or f16 (f16 inputs only). Default: native");
  app.add_option("--scale", o.scales,
                 "FP8 scaling, comma list: tensor (one f32 scale per operand, default), row (per "
                 "row of A and column of B), block128 (DeepSeek-V3: 1x128 on A, 128x128 on B)");
  app.add_option("--out", o.out, "FP8: C's type, bf16 (default), f16 or f32");
  app.add_flag("--fast-accum", o.fast_accum,
               "FP8: keep the tensor cores' own accumulator over all of K (faster, less "
               "accurate; not with block128)");
  app.add_option("--alpha", o.alpha, "alpha (default 1)");
  app.add_option("--beta", o.beta, "beta (default 0; C then starts from seeded values)");
  app.add_option("--config", o.config, "JSON sweep config (schema in README.md)");
  app.add_option("--run", o.runs,
                 "Only these runs of the config, by name, comma-separated (default: every run)");
}

// Where results go and which GPUs run them: reports, seed, device, shards, --devices.
void add_output_and_gpu_options(CLI::App& app, CliOptions& o, TypedFlags& f) {
  app.add_option("--csv", o.csv, "Write one CSV row per case, as each finishes");
  app.add_option("--json", o.json,
                 "Write a JSON report (metadata + rows), rewritten after each row");
  app.add_option("--seed", o.seed, "Seed of the input data, see --data (default 20261122)");
  app.add_option("--device", o.device,
                 "CUDA device index (default 0; with --shard auto, the launcher's local rank)");
  app.add_option("--shard", o.shard,
                 "Run one part of the plan: I/N (0 <= I < N), or auto (rank and size from Slurm, "
                 "Open MPI or PMI). Whole problems are dealt out by estimated cost; rows keep "
                 "their plan-wide index, and `gemmbench merge` joins the parts' --json reports. "
                 "--csv/--json paths may hold {rank} and {host} (docs/multi-gpu.md)");
  app.add_option("--devices", f.devices,
                 "Run on several GPUs of this node: all, or device indices (0,1,3); one worker "
                 "process per GPU, the plan dealt out as --shard deals it, one merged report. "
                 "A repeated index (0,0) runs two workers on one GPU, for testing only");
  app.add_option("--mode", f.mode,
                 "With --devices or --shard: shard (default; the plan split over the GPUs) or "
                 "replicate (every GPU runs the whole plan: a fleet check, with a summary per "
                 "case and exit code 1 when a GPU is an outlier)");
  app.add_option("--outlier-threshold", o.outlier_threshold_pct,
                 "--mode replicate: a GPU more than this many percent slower than the case's "
                 "median over the GPUs is an outlier (default 5)");
  app.add_option("--markdown", o.markdown,
                 "--mode replicate: write the fleet summary as Markdown to FILE");
  app.add_flag("--worker", o.worker, "Internal: a worker of --devices")->group("");
}

// How samples are taken, and plugins.
void add_measure_options(CLI::App& app, CliOptions& o, TypedFlags& f) {
  app.add_option("--warmup", o.measure.warmup,
                 "Untimed launches per provider before sampling (default 3)");
  app.add_option("--min-samples", o.measure.min_samples, "Minimum samples per row (default 10)");
  app.add_option("--min-time", o.measure.min_time_s,
                 "Minimum GPU seconds sampled per row (default 0.5)");
  app.add_option("--max-time", o.measure.max_time_s,
                 "Wall seconds per row after which sampling stops (default 10)");
  app.add_option("--block-time", o.measure.block_time_s,
                 "Sustained: GPU seconds of one provider's samples per block; the providers of a "
                 "case take turns in blocks, A B B A (default 0.25; at least 1 where the board "
                 "is at its power cap; docs/method.md)");
  app.add_option("--settle-time", o.measure.settle_time_s,
                 "Sustained: least untimed seconds at the start of each block before its samples "
                 "(default 0: until the provider's times settle, 0.15-1.5 s)");
  app.add_option("--cache", f.cache, "cold (flush L2 before every sample; default) or hot");
  app.add_option("--data", f.data,
                 "Input values: uniform (default; seeded uniform [-1,1)) or int3 (seeded integers "
                 "in [-3,3], cutlass_profiler's default for f16: low-entropy data draws less "
                 "power and runs faster on a power-capped GPU; for comparing with numbers "
                 "measured that way, not for headline figures)");
  app.add_option("--regime", f.regime,
                 "sustained (default: each case first runs to steady state, then every provider "
                 "is sampled alone in alternating blocks at that state) or burst (windows of "
                 "interleaved samples from a cool board, kept while the clock holds; a row that "
                 "keeps fewer samples than --min-samples says 'not_held'; docs/regimes.md)");
  app.add_option("--baseline", f.baseline,
                 "What kernel rows are compared against: cublas (default; cublasGemmEx, default "
                 "algorithm), cublaslt (cublasLtMatmul with the fastest of its heuristic's top 8 "
                 "algorithms, tuned per problem before sampling; adds a cublaslt row per group), "
                 "both (every kernel row carries both ratios) or none (each kernel row sampled "
                 "alone, no ratio: its time with only the cache preparation between samples, as "
                 "the cublas row's; docs/method.md)");
  app.add_flag("--no-verify", f.no_verify,
               "Skip the fp64 reference check (rows say 'not verified')");
  app.add_flag("--keep-samples", f.keep_samples,
               "Write every sample time of each row to the --json report (\"samples_ms\", 4 "
               "significant digits), for the rank test of `gemmbench compare`; and, on each "
               "sustained group's first row, the preconditioning's window medians "
               "(regime.precondition_windows)");
  app.add_flag("--quiet,-q", o.quiet, "No table and no progress line; reports and errors only");
  app.add_option("--plugin", f.plugins_before, kPluginHelp)
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("PATH");
}

struct Subcommands {
  CLI::App* list;
  CLI::App* presets;
};

Subcommands add_subcommands(CLI::App& app, CliOptions& o, TypedFlags& f) {
  CLI::App* list = app.add_subcommand("list", "List the registered kernels");
  list->add_flag("--json", o.list_json, "Every kernel, as JSON");
  list->add_flag("--all", o.list_all, "Every kernel, not one line per rung of the ladder");
  list->add_flag(
      "--rules", o.list_rules,
      "The rule tables of the shape-aware kernels hgemm, sgemm and fp8gemm, one line per rule "
      "(docs/dispatch.md)");
  list->add_option("--plugin", f.plugins_after, kPluginHelp)
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("PATH");
  CLI::App* presets =
      app.add_subcommand("presets", "List the LLM shape presets (--preset) and their sources");
  return {list, presets};
}

// Parses; true where the command line asked for help or the version (out then says what to
// print). Throws UsageError on bad syntax.
bool parse_or_help(CLI::App& app, const std::vector<std::string>& args, CliOutcome& out) {
  std::vector<std::string> reversed(args.rbegin(), args.rend() - (args.empty() ? 0 : 1));
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out.kind = CliOutcome::Kind::exit;
    out.text = app.help();
    return true;
  } catch (const CLI::CallForAllHelp&) {
    out.kind = CliOutcome::Kind::exit;
    out.text = app.help("", CLI::AppFormatMode::All);
    return true;
  } catch (const CLI::CallForVersion& e) {
    out.kind = CliOutcome::Kind::exit;
    out.text = std::string(e.what()) + "\n";
    return true;
  } catch (const CLI::ParseError& e) {
    throw UsageError(std::string(e.what()) + " (see gemmbench --help)");
  }
  return false;
}

// --cache, --data, --regime, --baseline, --no-verify, --keep-samples into o.measure.
void apply_measure_flags(const TypedFlags& f, CliOptions& o) {
  if (!f.cache.empty()) {
    o.measure.cache = parse_cache_mode(f.cache);
    if (!o.measure.cache) throw UsageError("--cache: '" + f.cache + "' is not one of cold, hot");
  }
  if (f.data) {
    o.measure.data = parse_data_dist(*f.data);
    if (!o.measure.data) throw UsageError("--data: '" + *f.data + "' is not one of uniform, int3");
  }
  if (f.regime) {
    o.measure.regime = parse_regime(*f.regime);
    if (!o.measure.regime)
      throw UsageError("--regime: '" + *f.regime + "' is not one of sustained, burst");
  }
  if (f.baseline) {
    o.measure.baseline = parse_baseline(*f.baseline);
    if (!o.measure.baseline)
      throw UsageError("--baseline: '" + *f.baseline + "' is not one of " + kBaselineNames);
  }
  if (f.no_verify) o.measure.verify = false;
  if (f.keep_samples) o.measure.keep_samples = true;
}

// Both --plugin lists, before and after `list`, in the order typed; none of them empty.
void apply_plugin_flags(const TypedFlags& f, const CLI::App& app, const CLI::App& list,
                        CliOptions& o) {
  o.plugins = f.plugins_before;
  o.plugins.insert(o.plugins.end(), f.plugins_after.begin(), f.plugins_after.end());
  if ((app.count("--plugin") || list.count("--plugin")) &&
      (o.plugins.empty() ||
       std::any_of(o.plugins.begin(), o.plugins.end(), [](const auto& p) { return p.empty(); })))
    throw UsageError(
        "--plugin: empty value (accepted: paths of plugin libraries, comma-separated)");
}

// --device, --shard, --devices, --mode, --outlier-threshold, and the scalars' finiteness: each
// checked now, so that a typo exits 2 before anything else.
void check_device_and_fleet_flags(const TypedFlags& f, bool device_typed, CliOptions& o) {
  o.device_given = device_typed;
  if (o.shard) parse_shard_arg(*o.shard);  // syntax now: a typo exits 2 before anything else
  if (f.devices) o.devices = parse_devices_arg(*f.devices);
  if (f.mode) {
    o.mode = parse_fleet_mode(*f.mode);
    if (!o.mode) throw UsageError("--mode: '" + *f.mode + "' is not one of shard, replicate");
  }
  if (o.outlier_threshold_pct &&
      (!std::isfinite(*o.outlier_threshold_pct) || *o.outlier_threshold_pct <= 0))
    throw UsageError(fmt::format("--outlier-threshold: must be a positive percentage (got {})",
                                 *o.outlier_threshold_pct));
  if (o.devices && o.shard)
    throw UsageError(
        "--devices starts one worker per GPU and gives each its --shard: drop --shard (or "
        "--devices, under a launcher)");
  if (o.devices && device_typed) throw UsageError("--devices lists the GPUs to use: drop --device");
  if (o.device < 0)
    throw UsageError("--device: must be >= 0 (got " + std::to_string(o.device) + ")");
  if (o.alpha && !std::isfinite(*o.alpha)) throw UsageError("--alpha must be finite");
  if (o.beta && !std::isfinite(*o.beta)) throw UsageError("--beta must be finite");
}

// Which command the line names: `list`, `presets`, an extension's subcommand, else a run.
void set_outcome_kind(const CLI::App& app, const Subcommands& subs, CliOutcome& out) {
  if (subs.list->parsed()) {
    out.kind = CliOutcome::Kind::list;
  } else if (subs.presets->parsed()) {
    out.kind = CliOutcome::Kind::presets;
  } else {
    for (CLI::App* sub : app.get_subcommands())
      if (sub != subs.list && sub != subs.presets) {
        out.kind = CliOutcome::Kind::extension;
        out.extension = sub->get_name();
      }
  }
}

// A grouped option was typed (--tokens and --preset alone are not: they plan dense layers).
bool grouped_flags(const CliOptions& o) {
  return o.groups || o.group_m || o.topk || o.experts || o.routing || o.routing_seed ||
         o.group_layout || o.group_align || o.group_max_m;
}

// The grouped flags as plan/grouped.hpp takes them; the dimension lists parsed here.
GroupRequest grouped_request(const CliOptions& o) {
  GroupRequest r;
  r.groups = o.groups;
  if (o.group_m)
    r.group_m = parse_int_list(*o.group_m, "--group-m", "rows per group, integers >= 0");
  if (o.m) r.m = parse_dim_list(*o.m, "--m");
  if (o.n) r.n = parse_dim_list(*o.n, "--n");
  if (o.k) r.k = parse_dim_list(*o.k, "--k");
  if (o.tokens) r.tokens = parse_dim_list(*o.tokens, "--tokens");
  r.topk = o.topk;
  r.experts = o.experts;
  r.routing = o.routing;
  r.routing_seed = o.routing_seed;
  r.group_layout = o.group_layout;
  r.group_align = o.group_align;
  r.group_max_m = o.group_max_m;
  if (o.presets) r.presets = split_list(*o.presets);
  return r;
}

}  // namespace

CliOutcome parse_command_line(const std::vector<std::string>& args,
                              const std::function<void(CLI::App&)>& extend) {
  CliOutcome out;
  out.argv = args;
  CliOptions& o = out.options;
  CLI::App app{"gemmbench: honest GEMM kernel benchmarks against cuBLAS, with verification",
               "gemmbench"};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("gemmbench ") + kVersion + " (" + kGitCommit + ")");

  TypedFlags f;
  add_problem_options(app, o);
  add_output_and_gpu_options(app, o, f);
  add_measure_options(app, o, f);
  const Subcommands subs = add_subcommands(app, o, f);
  if (extend) extend(app);
  if (parse_or_help(app, args, out)) return out;
  apply_measure_flags(f, o);
  apply_plugin_flags(f, app, *subs.list, o);
  check_device_and_fleet_flags(f, app.count("--device") > 0, o);
  set_outcome_kind(app, subs, out);
  return out;
}

RunRequest resolve_request(const CliOptions& o) {
  RunRequest req;
  const bool work_flags = o.kernels || o.m || o.n || o.k || o.presets || o.tokens || o.layers ||
                          o.layouts || o.dtypes || o.dtypes_b || o.accums || o.alpha || o.beta ||
                          o.scales || o.out || o.fast_accum || grouped_flags(o);
  if (o.runs && o.config.empty())
    throw UsageError("--run selects runs of a --config; give the config too");
  if (!o.config.empty() && work_flags)
    throw UsageError(
        "--config cannot be combined with --kernel, --m/--n/--k, --preset/--tokens/--layers, "
        "--layout, "
        "--dtype, --dtype-b, --accum, --scale, --out, --fast-accum, --alpha, --beta or the "
        "grouped options (--groups, --routing, ...): put those in the config's runs");
  if (o.presets && (o.m || o.n || o.k))
    throw UsageError("--preset takes N and K from the model and M from --tokens: drop --m/--n/--k");
  if (o.presets && !o.tokens)
    throw UsageError("--preset needs --tokens (the M of every layer, e.g. --tokens 1,16,128,4096)");
  if (!o.presets && o.tokens && !o.routing)
    throw UsageError("--tokens applies to --preset or --routing (use --m for plain shapes)");
  if (!o.config.empty() || !work_flags) {
    const std::string path = o.config.empty() ? find_default_config("") : o.config;
    SweepConfig cfg = load_config_file(path);
    req.runs = std::move(cfg.runs);
    if (o.runs) {
      const std::vector<std::string> wanted = split_list(*o.runs);
      if (wanted.empty()) throw UsageError("--run: empty value (accepted: the config's run names)");
      std::string names;
      for (const RunSpec& r : req.runs) names += (names.empty() ? "" : ", ") + r.name;
      for (const std::string& w : wanted)
        if (std::none_of(req.runs.begin(), req.runs.end(),
                         [&](const RunSpec& r) { return r.name == w; }))
          throw UsageError("--run: '" + w + "' is not a run of " + path + " (its runs: " + names +
                           ")");
      std::erase_if(req.runs, [&](const RunSpec& r) {
        return std::find(wanted.begin(), wanted.end(), r.name) == wanted.end();
      });
    }
    req.seed = o.seed.value_or(cfg.seed.value_or(kDefaultSeed));
    req.config_file = path;
    req.devices = cfg.devices;
    req.mode = cfg.mode;
    req.outlier_threshold_pct = cfg.outlier_threshold_pct;
    req.plugins = cli_plugin_sources(o);
    req.plugins.insert(req.plugins.end(), cfg.plugins.begin(), cfg.plugins.end());
    return req;
  }
  RunSpec run;
  run.name = "cli";
  run.kernels = split_list(o.kernels.value_or("all"));
  if (run.kernels.empty())
    throw UsageError("--kernel: empty value (accepted: kernel names, globs, all, cublas)");
  if (grouped_flags(o)) {
    run.shapes = grouped_shapes(grouped_request(o), cli_key_name());
    run.layouts = {Layout::tn};  // weights [G, N, K] K-contiguous (core/grouping.hpp)
  } else if (o.presets) {
    run.shapes = preset_shapes(split_list(*o.presets),
                               parse_dim_list(o.tokens.value_or(""), "--tokens"), "--preset: ");
    run.layouts = {Layout::tn};  // PyTorch's x @ W.T (plan/presets.hpp)
  } else if (o.layers) {
    throw UsageError("--layers selects layers of a --preset; give the preset too");
  } else {
    run.shapes = cross_shapes(parse_dim_list(o.m.value_or("4096"), "--m"),
                              parse_dim_list(o.n.value_or("4096"), "--n"),
                              parse_dim_list(o.k.value_or("4096"), "--k"));
  }
  if (o.layers) keep_preset_layers(run.shapes, split_list(*o.layers), "--layers: ");
  if (o.layouts)
    run.layouts = parse_enum_list<Layout>(*o.layouts, "--layout", parse_layout, "nn, nt, tn, tt");
  if (o.dtypes)
    run.dtypes = parse_enum_list<DType>(*o.dtypes, "--dtype", parse_dtype, dtype_names());
  if (o.dtypes_b)
    run.dtypes_b =
        parse_enum_list<DType>(*o.dtypes_b, "--dtype-b", parse_fp8_dtype, fp8_dtype_names());
  if (o.accums) run.accums = parse_enum_list<Accum>(*o.accums, "--accum", parse_accum, "f32, f16");
  if (o.scales)
    run.scales =
        parse_enum_list<ScaleMode>(*o.scales, "--scale", parse_scale_mode, "tensor, row, block128");
  if (o.out) {
    const std::optional<DType> out = parse_dtype(*o.out);
    if (!out) throw UsageError("--out: '" + *o.out + "' is not a type; bf16, f16 or f32");
    run.out = *out;
  }
  run.fast_accum = o.fast_accum;
  run.alpha = o.alpha.value_or(1.0);
  run.beta = o.beta.value_or(0.0);
  req.runs.push_back(std::move(run));
  req.seed = o.seed.value_or(kDefaultSeed);
  req.plugins = cli_plugin_sources(o);
  return req;
}

FleetChoice resolve_fleet(const CliOptions& o, const RunRequest& req) {
  FleetChoice f;
  if (o.devices)
    f.devices = o.devices;
  else if (!o.shard && !o.device_given)  // one process by the command line's word
    f.devices = req.devices;
  f.mode = o.mode.value_or(req.mode.value_or(FleetMode::shard));
  f.outlier_threshold_pct = o.outlier_threshold_pct.value_or(
      req.outlier_threshold_pct.value_or(kDefaultOutlierThresholdPct));
  if (o.worker && !o.shard) throw UsageError("--worker is internal to --devices: it needs --shard");
  if (f.mode == FleetMode::replicate && !f.devices && !o.shard)
    throw UsageError(
        "--mode replicate runs the whole plan on several GPUs: give --devices (this node) or "
        "--shard auto (under srun or mpirun)");
  if (!o.markdown.empty() && f.mode != FleetMode::replicate)
    throw UsageError("--markdown writes the fleet summary of --mode replicate");
  if (!o.markdown.empty() && !f.devices)
    throw UsageError(
        "--markdown needs every GPU's rows: with --shard, give it to `gemmbench merge` instead");
  return f;
}

std::vector<PluginSource> cli_plugin_sources(const CliOptions& o) {
  std::vector<PluginSource> out;
  for (const std::string& p : o.plugins) out.push_back({p, "--plugin"});
  return out;
}

std::string find_default_config(const std::string& argv0) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates = {fs::path("configs") / "default.json"};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "configs" / "default.json");
  if (!argv0.empty())
    candidates.push_back(fs::path(argv0).parent_path().parent_path() / "configs" / "default.json");
  if (*GEMMBENCH_SOURCE_DIR)
    candidates.push_back(fs::path(GEMMBENCH_SOURCE_DIR) / "configs" / "default.json");
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c.string();
  throw UsageError(
      "no arguments given and configs/default.json not found (looked in ./configs, "
      "next to the executable and in the source tree); pass --config FILE or --kernel/--m/--n/--k");
}

std::string format_kernel_list(const KernelRegistry& reg, bool as_json, bool all) {
  auto join = [](const auto& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ",") + std::string(to_string(x));
    return s;
  };
  if (as_json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const KernelInfo* k : reg.all()) {
      nlohmann::json j{{"name", k->name},
                       {"family", k->family},
                       {"rung", k->rung},
                       {"summary", k->summary},
                       {"min_sm", k->min_sm}};
      for (const auto& d : k->dtypes) j["dtypes"].push_back(to_string(d));
      for (const auto& a : k->accums) j["accums"].push_back(to_string(a));
      for (const auto& l : k->layouts) j["layouts"].push_back(to_string(l));
      arr.push_back(j);
    }
    return arr.dump(2) + "\n";
  }
  if (!all) {
    // reg.all() is sorted by family, then rung: each rung is one run of it.
    const auto kernels = reg.all();
    std::string out = fmt::format("{:<7} {:>4}  {:<24} {:<12}  {}\n", "family", "rung", "kernel",
                                  "variants", "summary");
    for (size_t i = 0; i < kernels.size();) {
      size_t end = i;
      const KernelInfo* rep = kernels[i];
      while (end < kernels.size() && kernels[end]->family == kernels[i]->family &&
             kernels[end]->rung == kernels[i]->rung) {
        // The rung's face: a dense kernel (a grouped one, fp8gemm_grouped_sm90 at rung F3, runs
        // the rung's technique on another problem), the shortest name, then the TN kernel (the
        // seeds' layout), then A-Z.
        const KernelInfo* k = kernels[end++];
        const auto key = [](const KernelInfo* x) {
          const bool grouped_only = !x->group_layouts.empty() && !x->dense_too;
          return std::make_tuple(grouped_only, x->name.size(), x->layouts.front() != Layout::tn,
                                 x->name);
        };
        if (key(k) < key(rep)) rep = k;
      }
      const size_t variants = end - i - 1;
      out += fmt::format("{:<7} {:>4}  {:<24} {:<12}  {}\n", rep->family, rep->rung, rep->name,
                         variants ? fmt::format("+{} variant{}", variants, variants > 1 ? "s" : "")
                                  : std::string("-"),
                         rep->summary);
      i = end;
    }
    out += fmt::format("{:<7} {:>4}  {:<24} {:<12}  {}\n", "cublas", "-", "cublas", "-",
                       "the baseline: cublasGemmEx with the matching compute type");
    out += "\nOne line per rung of each ladder; `gemmbench list --all` shows every kernel.\n";
    return out;
  }
  std::string out = fmt::format("{:<30} {:<7} {:>4}  {:<9} {:<8} {:<12} {:>6}  {}\n", "kernel",
                                "family", "rung", "dtype", "accum", "layouts", "min SM", "summary");
  for (const KernelInfo* k : reg.all())
    out += fmt::format("{:<30} {:<7} {:>4}  {:<9} {:<8} {:<12} {:>6}  {}\n", k->name, k->family,
                       k->rung, join(k->dtypes), join(k->accums), join(k->layouts),
                       "sm_" + std::to_string(k->min_sm), k->summary);
  out += fmt::format("{:<30} {:<7} {:>4}  {:<9} {:<8} {:<12} {:>6}  {}\n", "cublas", "cublas", "-",
                     "f32,f16,bf16", "f32,f16", "nn,nt,tn,tt", "-",
                     "the baseline: cublasGemmEx with the matching compute type");
  out += fmt::format("{:<30} {:<7} {:>4}  {:<9} {:<8} {:<12} {:>6}  {}\n", "cublaslt", "cublaslt",
                     "-", "f32,f16,bf16", "f32,f16", "nn,nt,tn,tt", "-",
                     "--baseline cublaslt|both: cublasLtMatmul, tuned over its heuristic's top 8");
  out +=
      "\nThe first dtype, accum and layout listed is the kernel's native one, used when the "
      "command line or config does not name one.\n";
  return out;
}

std::string format_rule_list(const RuleTables& tables, bool as_json) {
  if (as_json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const RuleTable* t : tables.all())
      for (const RuleRow& r : t->rows())
        arr.push_back({{"dispatcher", t->dispatcher},
                       {"scope", r.scope},
                       {"name", r.name},
                       {"kernel", r.kernel},
                       {"when", r.when},
                       {"why", r.why},
                       {"report", r.report}});
    return arr.dump(2) + "\n";
  }
  // Each report path in backticks, so that the Markdown shows it as a path.
  const auto reports = [](const std::string& list) {
    if (list == "-") return list;
    std::string out;
    for (const std::string& r : split_list(list))
      out += (out.empty() ? "" : ", ") + ("`" + r + "`");
    return out;
  };
  std::string out = "| family | rule | kernel | when | why | report |\n|---|---|---|---|---|---|\n";
  for (const RuleTable* t : tables.all())
    for (const RuleRow& r : t->rows()) {
      const std::string family = r.scope == "any" ? t->dispatcher : t->dispatcher + " " + r.scope;
      out += fmt::format("| {} | {} | `{}` | {} | {} | {} |\n", family, r.name, r.kernel, r.when,
                         r.why, reports(r.report));
    }
  return out;
}

}  // namespace gemmbench
