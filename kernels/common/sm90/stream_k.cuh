// Stream-K partial tiles of the Hopper kernel: the global workspace the partial accumulators go
// through, and the publish (partial holder) and accumulate (finisher) steps. The schedule that
// decides who holds which k-blocks is common/sm90/schedule.hpp. Included by one translation unit
// only per kernel family: sm90/kernels.cu, and fp8gemm/sm90_persistent.cu (rung F3's _sk), each
// with its own workspace (the anonymous namespace), 20 MB of device memory each.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/sm90.cuh"

namespace gemmbench {
namespace {

// ---- Stream-K workspace ------------------------------------------------------------------
// One slot per (CTA, consumer warpgroup): the warpgroup's accumulators, 32-bit words, vector i of
// thread t at [i * 128 + t] (each warp writes 512 contiguous bytes per vector). A CTA publishes
// at most one partial per launch (its range's last item), so slots are never reused within a
// launch; a flag holds the epoch of the launch that last published the slot.
constexpr int kSkMaxCtas = 160;  // H100/H200: 132 SMs
// No stream-K variant has three consumers (the 192x192 tile walks plainly).
constexpr int kSkMaxConsumers = 2;
constexpr int kSkSlotVecs = 128 * 128 / 4;  // 128 threads x up to 128 words, as uint4
__device__ uint4 g_sk_partials[kSkMaxCtas * kSkMaxConsumers * kSkSlotVecs];  // 20 MB
__device__ uint32_t g_sk_flags[kSkMaxCtas * kSkMaxConsumers];

// Distinct per stream-K launch, never 0 (the flags' initial value).
inline uint32_t next_sk_epoch() {
  static std::atomic<uint32_t> epoch{0};
  uint32_t e = ++epoch;
  while (e == 0) e = ++epoch;
  return e;
}

#if GEMMBENCH_SM90A  // device code of the sm_90a kernel body only

// ---- Stream-K partials -------------------------------------------------------------------
template <class AccReg>
__device__ __forceinline__ uint32_t acc_bits(AccReg r) {
  if constexpr (std::is_same_v<AccReg, float>)
    return __float_as_uint(r);
  else
    return r;
}
// acc += partial word (f32, or two f16 halves added as f16 like the f16 accumulator itself).
template <class AccReg>
__device__ __forceinline__ void acc_add(AccReg& r, uint32_t p) {
  if constexpr (std::is_same_v<AccReg, float>) {
    r += __uint_as_float(p);
  } else {
    __half2 a, b;
    memcpy(&a, &r, 4);
    memcpy(&b, &p, 4);
    a = __hadd2(a, b);
    memcpy(&r, &a, 4);
  }
}

// The warpgroup stores its accumulators to workspace slot `slot` and raises the slot's flag.
template <class AccReg, int ACC_REGS>
__device__ __forceinline__ void sk_publish(const AccReg (&acc)[ACC_REGS], int slot, uint32_t epoch,
                                           int wg_thread, uint32_t bar_id) {
  static_assert(ACC_REGS % 4 == 0 && ACC_REGS / 4 * 128 <= kSkSlotVecs, "slot size");
  uint4* dst = g_sk_partials + size_t(slot) * kSkSlotVecs + wg_thread;  // (ACC_REGS/4, 128)
#pragma unroll
  for (int i = 0; i < ACC_REGS / 4; ++i)
    __stcg(dst + i * 128, make_uint4(acc_bits(acc[4 * i]), acc_bits(acc[4 * i + 1]),
                                     acc_bits(acc[4 * i + 2]), acc_bits(acc[4 * i + 3])));
  sm90::named_barrier_sync(bar_id, 128);  // every thread's stores before the release
  if (wg_thread == 0) sm90::st_release_gpu(&g_sk_flags[slot], epoch);
}

// The warpgroup waits for slot `slot`'s flag to hold `epoch`, then adds the slot to its
// accumulators (the same thread wrote the same fragment positions).
template <class AccReg, int ACC_REGS>
__device__ __forceinline__ void sk_accumulate(AccReg (&acc)[ACC_REGS], int slot, uint32_t epoch,
                                              int wg_thread, uint32_t bar_id) {
  if (wg_thread == 0)
    while (sm90::ld_acquire_gpu(&g_sk_flags[slot]) != epoch) {
    }
  sm90::named_barrier_sync(bar_id, 128);  // extends thread 0's acquire to the warpgroup
  const uint4* src = g_sk_partials + size_t(slot) * kSkSlotVecs + wg_thread;  // (ACC_REGS/4, 128)
#pragma unroll
  for (int i = 0; i < ACC_REGS / 4; ++i) {
    const uint4 v = __ldcg(src + i * 128);  // L2: written by another SM during this launch
    acc_add(acc[4 * i], v.x), acc_add(acc[4 * i + 1], v.y);
    acc_add(acc[4 * i + 2], v.z), acc_add(acc[4 * i + 3], v.w);
  }
}

// One warp's part of sk_accumulate, without the warpgroup: each lane waits for slot `slot`'s flag
// to hold `epoch` itself (its own acquire), then adds the words of the slot its own thread
// position wrote (wg_thread: the same fragment positions in every contributor's slot).
template <class AccReg, int ACC_REGS>
__device__ __forceinline__ void sk_accumulate_warp(AccReg (&acc)[ACC_REGS], int slot,
                                                   uint32_t epoch, int wg_thread) {
  while (sm90::ld_acquire_gpu(&g_sk_flags[slot]) != epoch) {
  }
  const uint4* src = g_sk_partials + size_t(slot) * kSkSlotVecs + wg_thread;  // (ACC_REGS/4, 128)
#pragma unroll
  for (int i = 0; i < ACC_REGS / 4; ++i) {
    const uint4 v = __ldcg(src + i * 128);  // L2: written by another SM during this launch
    acc_add(acc[4 * i], v.x), acc_add(acc[4 * i + 1], v.y);
    acc_add(acc[4 * i + 2], v.z), acc_add(acc[4 * i + 3], v.w);
  }
}

#endif  // GEMMBENCH_SM90A

}  // namespace
}  // namespace gemmbench
