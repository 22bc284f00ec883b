// The Hopper kernel's timeline probe hooks, compiled out unless a probe defines
// GEMMBENCH_SM90_TRACE (scripts/dev/sm90_trace.cu): one thread per CTA writes %globaltimer at a
// few points of the kernel into g_sm90_trace[cta][point], so the probe can see when CTAs start,
// when their first stage lands, when their mainloops end, and how long the stream-K fix-up and
// the epilogue take. Points: 0 entry, 1 first stage landed (consumer 0), 2 last mainloop done,
// 3 fix-up done, 4 consumer 0 leaves, 5 the SM id, 6 the first k-block's loads issued (producer;
// the in-cluster split: every CTA past its mainloop), 7 a partial published, 8 the producer past
// the prologue (barriers initialised, the CTA synchronised, its registers given back), 9 thread 0
// done with the barriers and descriptors (before the CTA's synchronisation), 10 the producer's
// first work item computed (before its first ring wait).
// _FIRST points stamp once per thread through a local flag (GB_SM90_TRACE_ONCE_FLAG declares
// it, GB_SM90_TRACE_ONCE_MEMBER as a member of the struct whose methods stamp), not by reading
// the buffer back: after the cold-L2 flush that read would go to DRAM and
// delay the stamp by a memory round trip.
#pragma once

#ifdef GEMMBENCH_SM90_TRACE
namespace gemmbench {
namespace {
constexpr int kSm90TracePoints = 11;
__device__ unsigned long long g_sm90_trace[1024][kSm90TracePoints];
__device__ __forceinline__ unsigned long long sm90_trace_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
}  // namespace
}  // namespace gemmbench
// The time at `point`, from the threads where `cond` holds (one per CTA); _FIRST keeps the
// first time only: GB_SM90_TRACE_ONCE_FLAG(point) declares its flag in an enclosing scope.
#define GB_SM90_TRACE(point, cond)                                \
  do {                                                            \
    if (cond) g_sm90_trace[blockIdx.x][point] = sm90_trace_now(); \
  } while (0)
#define GB_SM90_TRACE_ONCE_FLAG(point) bool gb_sm90_traced_##point = false
#define GB_SM90_TRACE_ONCE_MEMBER(point) bool gb_sm90_traced_##point = false
#define GB_SM90_TRACE_FIRST(point, cond)                  \
  do {                                                    \
    if ((cond) && !gb_sm90_traced_##point) {              \
      gb_sm90_traced_##point = true;                      \
      g_sm90_trace[blockIdx.x][point] = sm90_trace_now(); \
    }                                                     \
  } while (0)
#define GB_SM90_TRACE_SMID()                             \
  do {                                                   \
    if (threadIdx.x == 0) {                              \
      unsigned smid_;                                    \
      asm volatile("mov.u32 %0, %%smid;" : "=r"(smid_)); \
      g_sm90_trace[blockIdx.x][5] = smid_;               \
    }                                                    \
  } while (0)
#else
#define GB_SM90_TRACE(point, cond) (void)0
#define GB_SM90_TRACE_ONCE_FLAG(point) (void)0
#define GB_SM90_TRACE_ONCE_MEMBER(point) static_assert(true, "")
#define GB_SM90_TRACE_FIRST(point, cond) (void)0
#define GB_SM90_TRACE_SMID() (void)0
#endif
