// The rule tables as a reader sees them, so that a rule change shows as a diff:
//  - tests/data/dispatch_golden.txt: the kernel `hgemm` picks for every preset layer at 1, 16, 64,
//    128 and 4096 tokens, f16 and bf16 (f32 accumulation), on an H100 (sm_90) and an A100-like
//    sm_80 part;
//  - docs/dispatch.md's rule table: what `gemmbench list --rules` prints.
// After a deliberate change, regenerate both and read the diff before committing it:
//    GEMMBENCH_UPDATE_GOLDEN=1 build/tests/test_dispatch_golden
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "core/registry.hpp"
#include "core/rule_table.hpp"
#include "dispatch/rules.hpp"
#include "plan/presets.hpp"

using namespace gemmbench;

namespace {

const std::string kGolden = std::string(GEMMBENCH_SOURCE_DIR) + "/tests/data/dispatch_golden.txt";
const std::string kDispatchDoc = std::string(GEMMBENCH_SOURCE_DIR) + "/docs/dispatch.md";
const std::string kDocBegin = "<!-- rules table: the output of `gemmbench list --rules` -->\n";
const std::string kDocEnd = "<!-- end of rules table -->\n";

struct Part {
  const char* name;
  DeviceCaps caps;
};
// The H100 SXM as the rules' host test has it; an A100 80GB SXM (108 SMs, 164 KiB of shared memory
// per block, 40 MiB L2, 2039 GB/s datasheet).
const Part kParts[] = {{"sm90", DeviceCaps{90, 132, 227 * 1024, 50u << 20, 3352.32}},
                       {"sm80", DeviceCaps{80, 108, 164 * 1024, 40u << 20, 2039.0}}};

bool updating() {
  const char* v = std::getenv("GEMMBENCH_UPDATE_GOLDEN");
  return v && *v && std::string(v) != "0";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

template <class V, class X>
bool has(const V& v, const X& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The candidate that runs, given an sm_90a build and shapes every candidate's alignment accepts
// (every preset layer is a multiple of 8): the first whose declared dtype, accumulate type, layout
// and minimum SM admit the case. Host-independent: supports(), which asks the driver about the
// Hopper images, is not called.
const RuleCandidate* declared_pick(const std::vector<RuleCandidate>& c, const GemmProblem& p,
                                   const DeviceCaps& caps) {
  for (const RuleCandidate& rc : c) {
    const KernelInfo* k = KernelRegistry::instance().find(rc.kernel);
    if (k && has(k->dtypes, p.dtype) && has(k->accums, p.accum) && has(k->layouts, p.layout) &&
        caps.sm >= k->min_sm)
      return &rc;
  }
  return nullptr;
}

std::string golden_text() {
  std::string out =
      "# The kernel `hgemm` runs for every preset layer (TN, f32 accumulation), from the rule\n"
      "# tables (kernels/dispatch/rules.cpp): the first candidate whose declared dtype, layout\n"
      "# and minimum SM admit the case. sm90: H100 SXM caps; sm80: A100 80GB SXM caps.\n"
      "# Written by tests/host/test_dispatch_golden.cpp; regenerate after a rule change with\n"
      "#   GEMMBENCH_UPDATE_GOLDEN=1 build/tests/test_dispatch_golden\n";
  out += fmt::format("# {:<5} {:<5} {:<12} {:<20} {:<16} {:<28} {}\n", "part", "dtype", "model",
                     "layer", "MxNxK", "kernel", "rule");
  for (const Part& part : kParts)
    for (DType d : {DType::f16, DType::bf16})
      for (const ModelPreset& model : model_presets())
        for (int64_t tokens : {1, 16, 64, 128, 4096})
          for (const PresetLayer& layer : model.layers) {
            const GemmProblem p{tokens, layer.n, layer.k, Layout::tn, d, Accum::f32, 1.0, 0.0};
            const std::vector<RuleCandidate> candidates = hgemm_candidates(p, part.caps);
            const RuleCandidate* c = declared_pick(candidates, p, part.caps);
            out += fmt::format("  {:<5} {:<5} {:<12} {:<20} {:<16} {:<28} {}\n", part.name,
                               to_string(d), model.name, layer.layer, p.shape_string(),
                               c ? c->kernel : "(none)", c ? c->rule : "-");
          }
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

// One failure per differing line (the first 30), as a diff reads.
void expect_same_text(const std::string& expected, const std::string& actual,
                      const std::string& what) {
  if (expected == actual) return;
  const auto e = lines(expected), a = lines(actual);
  int shown = 0;
  for (size_t i = 0; i < std::max(e.size(), a.size()) && shown < 30; ++i) {
    const std::string el = i < e.size() ? e[i] : "(none)", al = i < a.size() ? a[i] : "(none)";
    if (el == al) continue;
    ADD_FAILURE() << what << ", line " << i + 1 << ":\n  committed: " << el
                  << "\n  now:       " << al;
    ++shown;
  }
  ADD_FAILURE() << what << " differs (" << e.size() << " lines committed, " << a.size()
                << " now); if the change is meant, regenerate: GEMMBENCH_UPDATE_GOLDEN=1 "
                   "build/tests/test_dispatch_golden";
}

}  // namespace

TEST(DispatchGolden, PresetLayersPickTheCommittedKernels) {
  const std::string now = golden_text();
  if (updating()) {
    write_file(kGolden, now);
    GTEST_SKIP() << "wrote " << kGolden;
  }
  expect_same_text(read_file(kGolden), now, kGolden);
}

TEST(DispatchGolden, TheGoldenCoversEveryLayerOnBothParts) {
  size_t layers = 0;
  for (const ModelPreset& m : model_presets()) layers += m.layers.size();
  const auto all = lines(golden_text());
  const size_t rows = std::count_if(all.begin(), all.end(),
                                    [](const std::string& l) { return !l.starts_with("#"); });
  EXPECT_EQ(rows, layers * 5 * 2 * 2);  // 5 token counts, 2 dtypes, 2 parts
  // The A100 runs no sm_90a kernel; the H100 runs one at every layer.
  for (const std::string& l : all) {
    if (l.starts_with("#")) continue;
    std::istringstream fields(l);
    std::string part, dtype, model, layer, shape, kernel;
    fields >> part >> dtype >> model >> layer >> shape >> kernel;
    if (part == "sm80") EXPECT_EQ(kernel.find("_sm90"), std::string::npos) << l;
    if (part == "sm90" && shape.starts_with("4096x"))
      EXPECT_TRUE(kernel.starts_with("hgemm_tn_sm90")) << l;
  }
}

TEST(DispatchGolden, DocsDispatchHoldsTheRulesTable) {
  const std::string doc = read_file(kDispatchDoc);
  const size_t begin = doc.find(kDocBegin);
  const size_t end = doc.find(kDocEnd);
  ASSERT_NE(begin, std::string::npos) << kDispatchDoc << " has no line " << kDocBegin;
  ASSERT_NE(end, std::string::npos) << kDispatchDoc << " has no line " << kDocEnd;
  ASSERT_LT(begin, end);
  const size_t from = begin + kDocBegin.size();
  const std::string now = format_rule_list(RuleTables::instance(), false);
  if (updating()) {
    write_file(kDispatchDoc, doc.substr(0, from) + now + doc.substr(end));
    GTEST_SKIP() << "wrote the rules table of " << kDispatchDoc;
  }
  expect_same_text(doc.substr(from, end - from), now, kDispatchDoc + "'s rules table");
}

TEST(DispatchGolden, RuleRowsAreWellFormed) {
  const auto tables = RuleTables::instance().all();
  ASSERT_EQ(tables.size(), 3u);
  for (const RuleTable* t : tables) {
    ASSERT_NE(KernelRegistry::instance().find(t->dispatcher), nullptr) << t->dispatcher;
    std::set<std::string> names;  // per scope: a name says which row chose, within its table
    for (const RuleRow& r : t->rows()) {
      SCOPED_TRACE(t->dispatcher + " " + r.name);
      EXPECT_TRUE(names.insert(r.scope + "/" + r.name).second) << "duplicate rule name";
      for (const std::string* f : {&r.name, &r.kernel, &r.when, &r.why, &r.report}) {
        EXPECT_FALSE(f->empty());
        EXPECT_EQ(f->find('|'), std::string::npos) << "'|' would split the Markdown table";
      }
      // Every kernel a row names is registered, in every layout its table covers.
      for (const char* l : {"nn", "nt", "tn", "tt"}) {
        if (r.scope != "any" && r.scope.find(l) == std::string::npos) continue;
        std::string k = r.kernel;
        if (const size_t at = k.find("{layout}"); at != std::string::npos) k.replace(at, 8, l);
        EXPECT_NE(KernelRegistry::instance().find(k), nullptr) << k;
      }
      // A measured rule names its old letter and reports that are in the tree; a fallback none.
      if (r.name.starts_with("fallback-")) {
        EXPECT_EQ(r.report, "-");
        continue;
      }
      EXPECT_NE(r.why.find("rule"), std::string::npos) << r.why;
      std::istringstream reports(r.report);
      for (std::string path; std::getline(reports, path, ',');) {
        path.erase(0, path.find_first_not_of(' '));
        EXPECT_TRUE(std::filesystem::is_regular_file(std::string(GEMMBENCH_SOURCE_DIR) +
                                                     "/bench_results/" + path))
            << "bench_results/" << path << " is not in the tree";
      }
    }
  }
}
