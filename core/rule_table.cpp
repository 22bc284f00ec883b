#include "core/rule_table.hpp"

#include <algorithm>

namespace gemmbench {

RuleTables& RuleTables::instance() {
  static RuleTables tables;
  return tables;
}

bool RuleTables::add(RuleTable table) {
  tables_.push_back(std::move(table));
  return true;
}

std::vector<const RuleTable*> RuleTables::all() const {
  std::vector<const RuleTable*> out;
  for (const RuleTable& t : tables_) out.push_back(&t);
  std::sort(out.begin(), out.end(), [](const RuleTable* a, const RuleTable* b) {
    return a->dispatcher > b->dispatcher;  // "sgemm" before "hgemm", as `gemmbench list`
  });
  return out;
}

}  // namespace gemmbench
