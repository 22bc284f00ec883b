// Whether a pointer may be read and written in 16-byte pieces (the 128-bit paths' test).
#pragma once

#include <cstdint>

namespace gemmbench {

inline bool aligned16(const void* ptr) {
  return reinterpret_cast<uintptr_t>(ptr) % 16 == 0;
}

}  // namespace gemmbench
