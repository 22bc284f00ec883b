// `gemmbench compare BASE.json NEW.json`: the subcommand's options and what it runs.
#pragma once

#include <functional>
#include <iosfwd>

namespace CLI {
class App;
}

namespace gemmbench::compare {

// Adds `compare` to `app`. Returns the function main() calls when `compare` was selected; it
// writes to `out` (the console table, or the format sent to "-") and returns the exit code:
// 0 nothing slower beyond the threshold, 1 a case slower or newly FAILED. Bad input (unreadable
// file, not a gemmbench report, unknown schema version, bad option) throws UsageError: main prints
// one line and exits 2.
std::function<int()> add_subcommand(CLI::App& app, std::ostream& out);

}  // namespace gemmbench::compare
