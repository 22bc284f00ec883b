// `gemmbench merge PART.json... [--json M.json] [--csv M.csv]`: the subcommand's options.
#pragma once

#include <functional>
#include <iosfwd>

namespace CLI {
class App;
}

namespace gemmbench::merge {

// Adds `merge` to `app`. Returns the function main() calls when `merge` was selected: it writes
// the summary to `out`, the merged report to --json/--csv, and returns 0 (every row once) or 1
// (rows missing or duplicated). Bad input throws UsageError: main prints one line, exits 2.
std::function<int()> add_subcommand(CLI::App& app, std::ostream& out);

}  // namespace gemmbench::merge
