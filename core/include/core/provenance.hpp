// What a report records about when and with what it was measured: shared by the benchmark
// reports (main.cpp, runner.cpp) and `inspect mma-peak`.
#pragma once

#include <ctime>
#include <string>

namespace gemmbench {

// Now, as ISO 8601 UTC ("2026-11-22T12:00:00Z").
inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A CUDA version number as cudaRuntimeGetVersion / cudaDriverGetVersion give it (13000) ->
// "13.0".
inline std::string cuda_version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace gemmbench
