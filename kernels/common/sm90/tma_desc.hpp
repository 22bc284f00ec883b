// TMA descriptors (CUtensorMap) of the Hopper kernel, built on the host once per launch.
#pragma once

#include <cuda.h>

#include "common/hd.hpp"
#include "core/types.hpp"

namespace gemmbench {

// A K-major operand stored (rows, K), K contiguous, as a 2D tensor map: dimension 0 = K,
// dimension 1 = rows; box (128 bytes of K: 64 f16/bf16 or 128 FP8 elements, box_rows) lands
// as box_rows rows of 128 bytes, 128B-swizzled; out-of-bounds elements read as zero. K * element
// bytes % 16 == 0 (16-byte row stride).
CUtensorMap make_kmajor_map(const void* base, DType dtype, int rows, int k, int box_rows);

// K-major A's tail map (common/sm90/producer.cuh, Sm90Producer::tmap_a_tail): `map_a`'s matrix
// with a box of M % slice_rows rows, for the slice M ends inside; `map_a` itself where M fills
// its slices or A is not K-major (the producer then never loads a tail box).
CUtensorMap a_tail_map(const CUtensorMap& map_a, bool a_k_major, const void* base, DType dtype,
                       int m, int k, int slice_rows);

// An MN-major operand stored (K, mn), mn contiguous (A of NN/NT, B of NT/TT): dimension 0 = mn,
// dimension 1 = K; box (64, box_k) lands as box_k K rows of 128 bytes (64 mn elements),
// 128B-swizzled; out-of-bounds elements read as zero. mn % 8 == 0 (16-byte K-row stride).
CUtensorMap make_mnmajor_map(const void* base, DType dtype, int mn, int k, int box_k);

// C (M,N) column-major as a 2D tensor map for TMA stores: dimension 0 = M (contiguous),
// dimension 1 = N; box (box, box) read from a 128B-swizzled staging box. Needs M % 8 == 0
// (16-byte column stride) and a 16-byte aligned base.
CUtensorMap make_c_store_map(void* base, DType dtype, int m, int n, int box);

// Row-major f32 (rows, cols), cols contiguous (block128's scale_a, [M, K/128]), as a 2D tensor
// map: dimension 0 = cols, dimension 1 = rows; box (box_cols, box_rows) lands unswizzled,
// box_cols floats a row; out-of-bounds elements read as zero. Needs cols % 4 == 0 and
// box_cols % 4 == 0 (16-byte row strides and box rows) and a 16-byte aligned base.
CUtensorMap make_rowmajor_f32_map(const float* base, int rows, int cols, int box_cols,
                                  int box_rows);

// The first column of the box of such a map that holds column `col` (col is then column
// col - rowmajor_f32_box_col(col) of the box). A box starts on a multiple of 4 columns: TMA faults
// (cudaErrorIllegalInstruction at the UTMALDG) on a box whose first element along dimension 0 is
// not 16-byte aligned in global memory, which cuTensorMapEncodeTiled cannot check. The CUDA C++
// Programming Guide's table of TMA alignments has "global memory address: must be 16 byte
// aligned"; Triton reads it as the box's start and checks it ("the innermost coordinate must be
// 16-byte aligned", its Gluon TMA tutorial; the fault in triton-lang/triton#7385 and
// tile-ai/tilelang#2527), as _m64ts's first run met it (docs/fp8.md); not found spelled out in the
// PTX ISA. tests/gpu/test_tma_scale_box_gpu.cu checks the rule and this placement.
GB_HD int rowmajor_f32_box_col(int col) {
  return col & ~3;  // rounds down (toward -inf), without a division's sign fix-up
}

}  // namespace gemmbench
