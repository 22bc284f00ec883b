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
    case DType::e4m3:
      return "e4m3";
    case DType::e5m2:
      return "e5m2";
  }
  return "?";
}

const char* to_string(ScaleMode m) {
  switch (m) {
    case ScaleMode::none:
      return "none";
    case ScaleMode::tensor:
      return "tensor";
    case ScaleMode::row:
      return "row";
    case ScaleMode::block128:
      return "block128";
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
  for (DType d : kFp8DTypes)
    if (s == to_string(d)) return d;
  return std::nullopt;
}

std::optional<DType> parse_fp8_dtype(std::string_view s) {
  for (DType d : kFp8DTypes)
    if (s == to_string(d)) return d;
  return std::nullopt;
}

std::optional<ScaleMode> parse_scale_mode(std::string_view s) {
  for (ScaleMode m : kFp8ScaleModes)
    if (s == to_string(m)) return m;
  return std::nullopt;
}

const char* dtype_names() {
  return "f32, f16, bf16, e4m3, e5m2";
}

const char* fp8_dtype_names() {
  return "e4m3, e5m2";
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
  return d == DType::f32 ? 4 : is_fp8(d) ? 1 : 2;
}

double fp8_max(DType d) {
  return d == DType::e4m3 ? 448.0 : d == DType::e5m2 ? 57344.0 : 0.0;
}

std::string fp8_pair_unsupported(DType a, DType b) {
  if (a == DType::e5m2 && b == DType::e5m2)
    return "e5m2 x e5m2 is not run: cuBLASLt has no such FP8 GEMM on sm_90, so the row would have "
           "no baseline (e4m3 x e5m2 and e5m2 x e4m3 run)";
  return {};
}

DType default_out(DType d) {
  return is_fp8(d) ? DType::bf16 : d;
}

bool out_valid_for(DType d, DType out) {
  if (!is_fp8(d)) return out == d;
  return out == DType::bf16 || out == DType::f16 || out == DType::f32;
}

bool accum_valid_for(DType d, Accum a) {
  // f16 accumulation exists only for f16 inputs (mma.sync/wgmma f16.f16.f16, CUBLAS_COMPUTE_16F);
  // FP8 products are accumulated in f32 (wgmma .f32.<atype>.<btype>, CUBLAS_COMPUTE_32F).
  return a == Accum::f32 || d == DType::f16;
}

namespace {
// Scales of an operand of `rows` rows of K under m; block128 groups `block_rows` rows (A: 1, its
// 1x128 slices; B: 128, its 128x128 blocks).
int64_t scale_count(ScaleMode m, int64_t rows, int64_t k, int64_t block_rows) {
  const auto ceil_div = [](int64_t x, int64_t y) { return (x + y - 1) / y; };
  switch (m) {
    case ScaleMode::none:
      return 0;
    case ScaleMode::tensor:
      return 1;
    case ScaleMode::row:
      return rows;
    case ScaleMode::block128:
      return ceil_div(rows, block_rows) * ceil_div(k, kScaleBlock);
  }
  return 0;
}
}  // namespace

int64_t scale_count_a(ScaleMode m, int64_t rows_m, int64_t k) {
  return scale_count(m, rows_m, k, 1);
}

int64_t scale_count_b(ScaleMode m, int64_t cols_n, int64_t k) {
  return scale_count(m, cols_n, k, kScaleBlock);
}

int64_t scale_count_a(const GemmProblem& p) {
  return scale_count(p.scale, p.m, p.k, p.blocks_on_a ? kScaleBlock : 1);
}

int64_t scale_count_b(const GemmProblem& p) {
  return scale_count(p.scale, p.n, p.k, p.blocks_on_a ? 1 : kScaleBlock);
}

Accum default_accum(DType) {
  return Accum::f32;
}

std::string GemmProblem::shape_string() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::string GemmProblem::fp8_format() const {
  if (!is_fp8(dtype)) return {};
  std::string s = to_string(scale);
  if (fast_accum) s += " fast";
  if (out != DType::bf16) s += std::string(" ->") + to_string(out);
  return s;
}

std::string GemmProblem::input_types() const {
  const DType b = b_type();
  return b == dtype ? to_string(dtype) : std::string(to_string(dtype)) + "x" + to_string(b);
}

std::string GemmProblem::type_string() const {
  const std::string s = input_types() + "/" + to_string(accum);
  return is_fp8(dtype) ? s + " " + fp8_format() : s;
}

}  // namespace gemmbench
