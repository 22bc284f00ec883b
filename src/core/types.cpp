#include "core/types.hpp"

#include <string>

namespace gemmbench {

const char* to_string(DType d) {
  switch (d) {
    case DType::f32:
      return "f32";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
  }
  return "?";
}

const char* to_string(Accum a) {
  return a == Accum::f32 ? "f32" : "f16";
}

const char* to_string(Layout l) {
  switch (l) {
    case Layout::nn:
      return "nn";
    case Layout::nt:
      return "nt";
    case Layout::tn:
      return "tn";
    case Layout::tt:
      return "tt";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  for (DType d : kAllDTypes)
    if (s == to_string(d)) return d;
  return std::nullopt;
}

std::optional<Accum> parse_accum(std::string_view s) {
  for (Accum a : kAllAccums)
    if (s == to_string(a)) return a;
  return std::nullopt;
}

std::optional<Layout> parse_layout(std::string_view s) {
  for (Layout l : kAllLayouts)
    if (s == to_string(l)) return l;
  return std::nullopt;
}

int dtype_bytes(DType d) {
  return d == DType::f32 ? 4 : 2;
}

bool accum_valid_for(DType d, Accum a) {
  // f16 accumulation exists only for f16 inputs (mma.sync/wgmma f16.f16.f16, CUBLAS_COMPUTE_16F).
  return a == Accum::f32 || d == DType::f16;
}

Accum default_accum(DType) {
  return Accum::f32;
}

std::string GemmProblem::shape_string() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

}  // namespace gemmbench
