// Parsing of dimension lists: "4096", "512,1024,2048", "256:8192:256" (arithmetic, stop
// included when hit), "256:8192:x2" (geometric), and comma lists mixing these.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace gemmbench {

inline constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;  // kernels index with 32-bit ints
inline constexpr size_t kMaxValuesPerList = 100000;

// Throws UsageError naming `what` (e.g. "--m", "runs[0].shapes[1].k") and the bad text.
std::vector<int64_t> parse_dim_list(std::string_view text, std::string_view what);

}  // namespace gemmbench
