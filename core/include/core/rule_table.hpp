// The rule tables of the shape-aware kernels (hgemm, sgemm), as data the driver can print: each
// dispatcher registers its rows beside its KernelInfo (kernels/dispatch/dispatch.cpp), and
// `gemmbench list --rules` prints them without including anything of kernels/.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gemmbench {

// One row of a dispatcher's rule table. Rows are tried in order; every row whose condition holds
// puts its kernel forward (once: the first row naming a kernel keeps it), and the first candidate
// the device can run is the one that runs.
struct RuleRow {
  std::string scope;   // the layouts the table applies to ("tn", "nn,nt,tt", "any")
  std::string name;    // stable, what report rows record as chosen_rule ("decode-equal-split")
  std::string kernel;  // the kernel it puts forward; "{layout}" stands for the case's layout
  std::string when;    // the condition, in words
  std::string why;     // what the measurement showed, with the rule's old letter (C-S)
  std::string report;  // the committed report(s) it rests on, under bench_results/ ("-": none)
};

struct RuleTable {
  std::string dispatcher;  // the registered kernel that reads it: "hgemm", "sgemm"
  std::function<std::vector<RuleRow>()> rows;
};

class RuleTables {
 public:
  static RuleTables& instance();
  // Called from static initialisers, as KernelRegistry::add.
  bool add(RuleTable table);
  // Sorted as the registry sorts families: "sgemm" before "hgemm".
  std::vector<const RuleTable*> all() const;

 private:
  std::vector<RuleTable> tables_;
};

}  // namespace gemmbench

// GEMMBENCH_REGISTER_RULES(RuleTable{...}); at namespace scope, beside the dispatcher's kernel.
#define GEMMBENCH_REGISTER_RULES(...)                                                     \
  static const bool GEMMBENCH_RULES_CONCAT(gemmbench_rules_, __LINE__) [[maybe_unused]] = \
      ::gemmbench::RuleTables::instance().add(__VA_ARGS__)
#define GEMMBENCH_RULES_CONCAT_INNER(a, b) a##b
#define GEMMBENCH_RULES_CONCAT(a, b) GEMMBENCH_RULES_CONCAT_INNER(a, b)
