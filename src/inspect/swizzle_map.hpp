// `inspect swizzle`: where each element of a row-major shared-memory tile lands under
// Swizzle<B,M,S> (kernels/common/swizzle.hpp, the function the kernels call), which bank it sits
// in, and how many shared-memory wavefronts one warp-wide access needs before and after.
//
// Bank model: 32 banks of 4 bytes; byte address a is in bank (a / 4) % 32. The hardware splits a
// warp-wide request into phases (below); a phase takes as many wavefronts as the largest number
// of DISTINCT 4-byte words that its threads touch in one bank (threads reading the same word
// share it), at least 1. A request is conflict-free when it takes one wavefront per phase.
//
// Access patterns (a "request" is one warp-wide instruction):
//   ldmatrix  one ldmatrix.x4: 4 phases, phase p = 8x8 b16 matrix p, threads 8p..8p+7 each
//             reading one 16-byte row of it. Footprint 16x16 when ROWS and COLS are multiples of
//             16 (matrices at (r,c), (r+8,c), (r,c+8), (r+8,c+8): the mma.m16n8k16 A fragment),
//             else 8x32 (four matrices side by side along the row). The tile is covered by
//             footprints in row-major order.
//   cp.async  32 threads each writing 16 bytes (one cp.async.cg 16): a 512-byte request over 32
//             consecutive 16-byte chunks of the tile in row-major order (thread t of request k
//             takes chunk 32k+t), serviced in 4 phases of 8 threads.
//   row       32 threads each reading one 4-byte word: request k takes the words 32k..32k+31 of
//             the tile in row-major order, one phase.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace gemmbench::inspect {

enum class SwizzleAccess { ldmatrix, cp_async, row };

const char* to_string(SwizzleAccess a);  // "ldmatrix", "cp.async", "row"

struct SwizzleParams {
  int bits_b = 3, base_m = 3, shift_s = 3;  // Swizzle<B,M,S>
  int rows = 0, cols = 0;                   // tile, elements, row-major
  DType dtype = DType::f16;
  SwizzleAccess access = SwizzleAccess::ldmatrix;
};

// One thread's part of a phase: the logical element it starts at and the banks it touches.
struct ThreadAccess {
  int thread = 0;
  int row = 0, col = 0;                        // logical (row, col) of the first element
  int elements = 0;                            // consecutive logical elements along the row
  int64_t byte_before = 0, byte_after = 0;     // smem byte offset of the first element
  std::vector<int> banks_before, banks_after;  // banks of the 4-byte words touched, ascending
};

struct SwizzlePhase {
  std::vector<ThreadAccess> threads;
  int wavefronts_before = 0, wavefronts_after = 0;
};

struct SwizzleRequest {
  std::string what;  // the elements it touches, e.g. "rows 0-15, cols 0-15"
  std::vector<SwizzlePhase> phases;
  int wavefronts_before = 0, wavefronts_after = 0;  // sums over the phases
};

struct SwizzleMap {
  SwizzleParams params;
  int elem_bytes = 0;
  std::string access_description;  // how a request maps threads to elements
  // (rows, cols) row-major: swizzled element offset of logical element (r, c); unswizzled it is
  // r*cols + c.
  std::vector<int> physical;
  std::vector<SwizzleRequest> requests;

  int physical_at(int r, int c) const { return physical[size_t(r) * params.cols + c]; }
  int bank_before(int r, int c) const;
  int bank_after(int r, int c) const;
  int64_t ideal_wavefronts() const;  // one per phase, summed over requests
  int64_t total_wavefronts_before() const;
  int64_t total_wavefronts_after() const;
  int max_phase_wavefronts_before() const;  // "N-way" conflict
  int max_phase_wavefronts_after() const;
};

// Largest tile inspected: the largest shared memory one block can have (228 KiB, sm_90).
inline constexpr int64_t kMaxSwizzleTileBytes = 228 * 1024;

// Validates the parameters (UsageError, one line naming the bad value and what is accepted)
// and computes the map and every request of the access pattern.
SwizzleMap make_swizzle_map(const SwizzleParams& p);

// Wavefronts one phase needs given the byte addresses of the 4-byte words its threads touch.
int phase_wavefronts(const std::vector<int64_t>& word_bytes);

}  // namespace gemmbench::inspect
