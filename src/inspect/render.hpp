// Text tables (default) and JSON (--json) for the `inspect` views. Renderers take the plain
// structs the analyses produce and never compute what they print.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "inspect/ldmatrix_model.hpp"
#include "inspect/mma_peak.hpp"
#include "inspect/raster_map.hpp"
#include "inspect/swizzle_map.hpp"

namespace gemmbench::inspect {

// Where the ldmatrix registers came from.
enum class LdmatrixSource { gpu, model };

// `matches_model` is shown for a GPU run (the hardware against the host model).
std::string ldmatrix_text(const LdmatrixSpec& spec, const LdmatrixRegs& regs, LdmatrixSource source,
                          bool matches_model);
nlohmann::json ldmatrix_json(const LdmatrixSpec& spec, const LdmatrixRegs& regs,
                             LdmatrixSource source, bool matches_model);

std::string swizzle_text(const SwizzleMap& map);
nlohmann::json swizzle_json(const SwizzleMap& map);

std::string raster_text(const RasterMap& map);
nlohmann::json raster_json(const RasterMap& map);

// Expects derive_mma_peak to have run.
std::string mma_peak_text(const MmaPeakReport& report);
nlohmann::json mma_peak_json(const MmaPeakReport& report);

}  // namespace gemmbench::inspect
