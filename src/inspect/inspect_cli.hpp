// The host half of `gemmbench inspect`: options, parsing, validation and printing. The GPU runs
// of `inspect ldmatrix` and `inspect mma-peak` are passed in (inspect_entry.cu binds the
// *_on_device functions), so this file stays in gemmbench_host and host tests can drive the whole
// command with stand-ins.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string_view>
#include <vector>

#include "inspect/ldmatrix_model.hpp"
#include "inspect/mma_peak.hpp"

namespace CLI {
class App;
}

namespace gemmbench::inspect {

// The spec and the CUDA device index (--device).
using LdmatrixRunner = std::function<LdmatrixRegs(const LdmatrixSpec&, int)>;
// Returns the measured fields of each requested row; the command derives the rest.
using MmaPeakRunner = std::function<MmaPeakReport(const MmaPeakRequest&)>;

struct DeviceRunners {
  LdmatrixRunner ldmatrix;
  MmaPeakRunner mma_peak;
};

// See inspect.hpp's add_subcommand; output goes to `out` (which must outlive the call of the
// returned function).
std::function<int()> add_inspect_subcommand(CLI::App& app, DeviceRunners run_on_device,
                                            std::ostream& out);

// "64x64" -> {64, 64}: exactly `count` integers joined by `sep`, each in 1..INT32_MAX. Throws
// UsageError naming `option`, the text and the accepted `form` (e.g. "ROWSxCOLS").
std::vector<int64_t> parse_extents(std::string_view text, char sep, int count,
                                   std::string_view option, std::string_view form);

}  // namespace gemmbench::inspect
