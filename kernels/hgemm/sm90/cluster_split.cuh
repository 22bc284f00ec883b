// The in-cluster split's reduction (hgemm_decode_sm90): the CTAs of a cluster hold partial
// accumulators of the same tile over different k-ranges (common/sm90/schedule.hpp, "The in-cluster
// split"), and sum them through distributed shared memory. Every consumer warp sends its
// fragment to the CTA that owns its warp block (cs_owner), into that CTA's ring, free once every
// CTA of the cluster is past its mainloop; the owner adds the copies in rank order and stores the
// block. Two cluster barriers, no global workspace, no flags. Included by sm90/kernel.cuh only.
#pragma once

#include <cstdint>

#include "common/sm90.cuh"
#include "common/sm90/schedule.hpp"
#include "common/sm90/stream_k.cuh"
#include "common/sm90/trace.cuh"

namespace gemmbench {
namespace {

#if GEMMBENCH_SM90A  // device code of the sm_90a kernel body only

// Bytes of one warp block's partial: 32 lanes x ACC_REGS words; vector i of lane l at
// [i * 32 + l] (each warp writes 512 contiguous bytes per vector).
template <int ACC_REGS>
constexpr uint32_t cs_slot_bytes() {
  return 32u * ACC_REGS * 4u;
}

// The producer warpgroup's part: it holds no accumulators but must pass the same two barriers.
__device__ __forceinline__ void cs_producer_barriers() {
  sm90::cluster_sync();
  sm90::cluster_sync();
}

// Called by every consumer thread of every CTA of the cluster after its mainloop. `region`: this
// CTA's receive slots (cs_slots(parts, BLOCKS) x cs_slot_bytes, within the ring). Returns true
// where this warp owns its block: acc then holds the whole tile's sum for it, in the same order on
// every run (its own partial, then the others' in rank order). BLOCKS: the tile's warp blocks (4
// per consumer warpgroup).
template <int BLOCKS, class AccReg, int ACC_REGS>
__device__ __forceinline__ bool cs_reduce(AccReg (&acc)[ACC_REGS], uint32_t region, int wb,
                                          int lane, int rank, int parts) {
  static_assert(ACC_REGS % 4 == 0, "whole 16-byte vectors");
  constexpr uint32_t kSlot = cs_slot_bytes<ACC_REGS>();
  const int owner = cs_owner(wb, parts, BLOCKS);
  // Every CTA of the cluster is past its mainloop: no wgmma reads, no TMA writes into the rings.
  sm90::cluster_sync();
  GB_SM90_TRACE(6, threadIdx.x == 128);  // timeline probe: every CTA past its mainloop
  if (owner != rank) {
    const uint32_t dst = region + uint32_t(cs_slot(wb, rank, parts, BLOCKS)) * kSlot + lane * 16u;
#pragma unroll
    for (int i = 0; i < ACC_REGS / 4; ++i)
      sm90::st_shared_cluster_v4(dst + i * 512u, uint32_t(owner),
                                 make_uint4(acc_bits(acc[4 * i]), acc_bits(acc[4 * i + 1]),
                                            acc_bits(acc[4 * i + 2]), acc_bits(acc[4 * i + 3])));
  }
  // The copies have landed (release/acquire at cluster scope).
  sm90::cluster_sync();
  GB_SM90_TRACE(7, threadIdx.x == 128);  // timeline probe: the copies landed
  if (owner != rank) return false;
  for (int r = 0; r < parts; ++r) {
    if (r == rank) continue;
    const uint32_t src = region + uint32_t(cs_slot(wb, r, parts, BLOCKS)) * kSlot + lane * 16u;
#pragma unroll
    for (int i = 0; i < ACC_REGS / 4; ++i) {
      const uint4 v = sm90::ld_shared_v4(src + i * 512u);
      acc_add(acc[4 * i], v.x), acc_add(acc[4 * i + 1], v.y);
      acc_add(acc[4 * i + 2], v.z), acc_add(acc[4 * i + 3], v.w);
    }
  }
  return true;
}

#endif  // GEMMBENCH_SM90A

}  // namespace
}  // namespace gemmbench
