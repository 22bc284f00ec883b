// What the Hopper kernel's two roles share (sm90/kernel.cuh): the ring of STAGES operand stages
// with its full / empty mbarriers, the accumulator fragment's type, and which tile of a work item
// is this CTA's own. The producer (common/sm90/producer.cuh) fills the ring, the consumers'
// mainloop (sm90/mainloop.cuh) drains it; both walk the same stages in the same order.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common/ptx.cuh"
#include "common/raster.hpp"
#include "common/sm90/schedule.hpp"

namespace gemmbench {
namespace {

// A consumer warpgroup's accumulators: the wgmma D fragment of its (64 GEMM-N, BM GEMM-M) tile.
// f32: 4 floats per 8 columns of wgmma N; f16: 2 registers of 2 halves.
template <bool F16_ACCUM, int BM>
struct Sm90Acc {
  using Reg = std::conditional_t<F16_ACCUM, uint32_t, float>;
  static constexpr int REGS = F16_ACCUM ? BM / 4 : BM / 2;
};

// The ring as one role walks it: the barriers (the kernel's static shared memory) and this role's
// position, stage `stage` on lap parity `phase`.
//   full[s]:  TMA -> consumers: stage s landed (the local producer's arrive.expect_tx)
//   empty[s]: consumers (of the whole cluster) -> producer: stage s is free again
// The position is the role's own pair of locals in the kernel, held by reference: the kernel's
// code generation then matches the single-body kernel this was split from (copies in a struct
// came out with other SASS).
template <int STAGES>
struct Sm90Ring {
  uint64_t* full_bar;   // (STAGES) mbarriers in shared memory
  uint64_t* empty_bar;  // (STAGES) mbarriers in shared memory
  int& stage;
  uint32_t& phase;  // parity of the ring's current lap

  __device__ __forceinline__ uint32_t full(int s) const { return ptx::smem_u32(&full_bar[s]); }
  __device__ __forceinline__ uint32_t empty(int s) const { return ptx::smem_u32(&empty_bar[s]); }
  __device__ __forceinline__ void advance() const {
    if (++stage == STAGES) stage = 0, phase ^= 1;
  }
};

// This CTA's own tile (units of BM, BN) of a work item's cluster tile: the rank-th of the
// cluster's tiles along N, or along M with CLUSTER_M.
template <int CLUSTER, bool CLUSTER_M>
__device__ __forceinline__ TileCoord sm90_cta_tile(const Sm90Work& w, uint32_t cta_rank) {
  return CLUSTER_M ? TileCoord{w.tile.m * CLUSTER + int(cta_rank), w.tile.n}
                   : TileCoord{w.tile.m, w.tile.n * CLUSTER + int(cta_rank)};
}

}  // namespace
}  // namespace gemmbench
