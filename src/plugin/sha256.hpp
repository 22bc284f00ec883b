// SHA-256 (FIPS 180-4) of a byte string or a file, as lower-case hex: reports record the hash of
// every plugin they ran, so that "what ran" names the exact library, not only its path. Small
// enough to carry here rather than add a dependency.
#pragma once

#include <string>
#include <string_view>

namespace gemmbench {

std::string sha256_hex(std::string_view bytes);
// Throws std::runtime_error when the file cannot be read.
std::string sha256_file_hex(const std::string& path);

}  // namespace gemmbench
