// The host half of `gemmbench inspect`: options, parsing, validation and printing. The GPU run of
// `inspect ldmatrix` is passed in (inspect_entry.cu binds run_ldmatrix_on_device), so this file
// stays in gemmbench_host and host tests can drive the whole command with a stand-in.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string_view>
#include <vector>

#include "inspect/ldmatrix_model.hpp"

namespace CLI {
class App;
}

namespace gemmbench::inspect {

using LdmatrixRunner = std::function<LdmatrixRegs(const LdmatrixSpec&)>;

// See inspect.hpp's add_subcommand; output goes to `out` (which must outlive the call of the
// returned function).
std::function<int()> add_inspect_subcommand(CLI::App& app, LdmatrixRunner run_on_device,
                                            std::ostream& out);

// "64x64" -> {64, 64}: exactly `count` integers joined by `sep`, each in 1..INT32_MAX. Throws
// UsageError naming `option`, the text and the accepted `form` (e.g. "ROWSxCOLS").
std::vector<int64_t> parse_extents(std::string_view text, char sep, int count,
                                   std::string_view option, std::string_view form);

}  // namespace gemmbench::inspect
