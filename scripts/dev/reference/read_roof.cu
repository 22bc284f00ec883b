// Reference measurement (not part of gemmbench's build): how close to the measured memory roof
// can ANY single launch come when all it does is read B bytes from HBM, cold L2? The roof
// gemmbench divides by (`mem_bw_gbs`, "measured") is a 2 GiB device-to-device copy: it hides
// the fixed cost of a launch (CTAs starting, the first bytes' DRAM latency, the last CTA's
// tail), which a 10-20 us decode GEMM pays in full. This times three reads of each size with
// nothing else in them, so the gap between a GEMM and the roof can be split into what a pure
// read also loses and what the GEMM adds:
//   empty  a launch of SMs CTAs that exit at once (the event pair's floor)
//   ldg    every thread streams 16-byte loads, 8 in flight, SMs x 4 CTAs of 512 threads, grid-
//          stride (a plain-load read with 64 KB in flight per SM)
//   bulk   the decode kernels' shape of read: C CTAs (64, 96, SMs), each one thread streaming its
//          contiguous share through a ring of 8 or 12 stages of 16 KB (cp.async.bulk, mbarrier
//          complete_tx), no consumer: the TMA ring with the math taken out
//   tile   the decode kernels' own access pattern: the matrix cut into 64- or 128-row tiles, a
//          stage one or two 128-byte-wide TMA boxes of one tile (adjacent k-blocks: 256 bytes of
//          each row; or two k-blocks half a row apart), the (tile, stage) units split in
//          contiguous ranges over C CTAs (one or two per tile, or SMs) as their stream-K walk
//          does, 64 KB in flight per CTA: hgemm_decode_sm90_n64's and rung 12's weight stream
//          with the math and the token tile taken out
// Each sample runs gemmbench's own cold-L2 preparation first (src/runner/l2_flush.hpp), outside
// the event pair; the variants are interleaved sample by sample; medians. The roof is measured
// here as gemmbench measures it (src/runner/runner.cpp: 2 x bytes / time of a 2 GiB copy).
//
//   nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -I core/include -I src -I kernels \
//     scripts/dev/reference/read_roof.cu core/cuda_check.cpp core/device_caps.cpp
//     core/registry.cpp src/runner/l2_flush.cu \ core/types.cpp src/stats/stats.cpp
//     kernels/common/sm90/tma_desc.cpp -lcublas -o read_roof
//   ./read_roof [reps] [NxK ...]    (f16 weight matrices; default: the 16 of
//   configs/llm_decode.json)
// One JSON line per size after a header line naming the device and versions.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "common/ptx.cuh"
#include "common/sm90.cuh"
#include "core/cuda_check.hpp"
#include "common/sm90/tma_desc.hpp"
#include "runner/l2_flush.hpp"
#include "stats/stats.hpp"

namespace gemmbench {
namespace {

constexpr int kLdgUnroll = 8;
constexpr int kLdgThreads = 512;
constexpr int kLdgCtasPerSm = 4;
constexpr uint32_t kChunk = 16384;  // bytes per ring stage
constexpr int kMaxStages = 12;

__global__ void empty_kernel() {}

// Grid-stride 16-byte loads, kLdgUnroll independent ones in flight per thread. The XOR keeps the
// loads alive; the store never happens for the data used here (filled with one byte value).
__global__ void __launch_bounds__(kLdgThreads)
    ldg_read(const uint4* __restrict__ p, size_t n, uint32_t* sink) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  uint32_t acc = 0;
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (; i + (kLdgUnroll - 1) * stride < n; i += kLdgUnroll * stride) {
    uint4 v[kLdgUnroll];
#pragma unroll
    for (int j = 0; j < kLdgUnroll; ++j) v[j] = __ldcs(p + i + j * stride);
#pragma unroll
    for (int j = 0; j < kLdgUnroll; ++j) acc ^= v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
  }
  for (; i < n; i += stride) {
    const uint4 v = __ldcs(p + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

// One thread per CTA streams bytes [begin, end) of its share through a ring of `stages` chunks:
// a stage is reissued as soon as its previous chunk has landed (complete_tx), as the GEMM's
// producer would if its consumers took no time.
__global__ void bulk_read(const uint8_t* __restrict__ p, size_t bytes, int stages) {
#if GEMMBENCH_SM90A  // the wrappers exist in the sm_90a pass only (common/sm90.cuh)
  __shared__ alignas(8) uint64_t full[kMaxStages];
  extern __shared__ __align__(128) uint8_t ring[];
  if (threadIdx.x != 0) return;
  const size_t share = (bytes / gridDim.x + 15) & ~size_t(15);
  const size_t begin = blockIdx.x * share < bytes ? blockIdx.x * share : bytes;
  const size_t end = begin + share < bytes ? begin + share : bytes;
  for (int s = 0; s < stages; ++s) sm90::mbarrier_init(ptx::smem_u32(&full[s]), 1);
  sm90::fence_barrier_init();
  const size_t chunks = (end - begin + kChunk - 1) / kChunk;
  for (size_t c = 0; c < chunks; ++c) {
    const int s = int(c % stages);
    const uint32_t bar = ptx::smem_u32(&full[s]);
    if (c >= size_t(stages)) sm90::mbarrier_wait_parity(bar, uint32_t((c / stages - 1) & 1));
    const size_t off = begin + c * kChunk;
    const uint32_t size = uint32_t(end - off < kChunk ? end - off : kChunk);
    sm90::mbarrier_arrive_expect_tx(bar, size);
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];\n" ::"r"(ptx::smem_u32(ring + s * kChunk)),
        "l"(p + off), "r"(size), "r"(bar)
        : "memory");
  }
  // Drain: the last `stages` chunks.
  for (size_t c = chunks > size_t(stages) ? chunks - stages : 0; c < chunks; ++c)
    sm90::mbarrier_wait_parity(ptx::smem_u32(&full[c % stages]), uint32_t((c / stages) & 1));
#endif
}

// The weight stream of the decode kernels: the matrix cut into tiles of ROWS rows; unit u = tile *
// per_tile + j, a stage of BOXES boxes (64 K columns x ROWS rows each) of one tile: k-blocks
// BOXES*j .. BOXES*j + BOXES-1 (adjacent in K), or with FAR j and j + per_tile (two k-blocks half
// the row apart: as many boxes per barrier phase, no longer contiguous per row). CTA p takes units
// [p*U/C, (p+1)*U/C); one thread issues them through a ring of `stages` stages, reissuing a stage
// as soon as its previous load has landed.
template <int ROWS, int BOXES, bool FAR>
__global__ void tile_read(const __grid_constant__ CUtensorMap map, int tiles, int k_blocks,
                          int stages) {
#if GEMMBENCH_SM90A
  static_assert(!FAR || BOXES == 2, "FAR pairs two k-blocks");
  __shared__ alignas(8) uint64_t full[2 * kMaxStages];
  extern __shared__ __align__(1024) uint8_t ring_raw[];
  if (threadIdx.x != 0) return;
  constexpr uint32_t kBox = 128 * ROWS, kStage = BOXES * kBox;
  const uint32_t ring = (ptx::smem_u32(ring_raw) + 1023u) & ~1023u;
  const long long per_tile = (k_blocks + BOXES - 1) / BOXES, units = per_tile * tiles;
  const long long u0 = blockIdx.x * units / gridDim.x, u1 = (blockIdx.x + 1) * units / gridDim.x;
  for (int s = 0; s < stages; ++s) sm90::mbarrier_init(ptx::smem_u32(&full[s]), 1);
  sm90::fence_barrier_init();
  sm90::tma_prefetch_descriptor(&map);
  for (long long u = u0; u < u1; ++u) {
    const long long c = u - u0;
    const int s = int(c % stages);
    const uint32_t bar = ptx::smem_u32(&full[s]);
    if (c >= stages) sm90::mbarrier_wait_parity(bar, uint32_t((c / stages - 1) & 1));
    const int tile = int(u / per_tile), j = int(u % per_tile);
    int kb[BOXES], boxes = 0;
    for (int b = 0; b < BOXES; ++b) {
      const int k = FAR ? j + b * int(per_tile) : BOXES * j + b;
      if (k < k_blocks) kb[boxes++] = k;
    }
    sm90::mbarrier_arrive_expect_tx(bar, boxes * kBox);
    for (int b = 0; b < boxes; ++b)
      sm90::tma_load_2d(ring + s * kStage + b * kBox, &map, bar, kb[b] * 64, tile * ROWS);
  }
  const long long n = u1 - u0;
  for (long long c = n > stages ? n - stages : 0; c < n; ++c)
    sm90::mbarrier_wait_parity(ptx::smem_u32(&full[c % stages]), uint32_t((c / stages) & 1));
#endif
}

// The SM clock while it runs: SM cycles (clock64) over nanoseconds (%globaltimer) across a spin of
// `ns` nanoseconds, in MHz. Read at the start and at the end: the variants that are limited by
// an issue rate, not by DRAM, move with it.
__global__ void sm_clock_mhz(unsigned long long ns, double* mhz) {
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  while (t1 - t0 < ns);
  const long long c1 = clock64();
  *mhz = double(c1 - c0) * 1e3 / double(t1 - t0);
}

// The runner's own median (src/stats/stats.cpp).
double median(const std::vector<double>& v) {
  return summarize(v).median_ms;
}

}  // namespace
}  // namespace gemmbench

int main(int argc, char** argv) {
  using namespace gemmbench;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 40;
  std::vector<std::pair<long, long>> mats;
  for (int i = 2; i < argc; ++i) {
    long n = 0, k = 0;
    if (std::sscanf(argv[i], "%ldx%ld", &n, &k) != 2 || n <= 0 || k <= 0) {
      std::fprintf(stderr, "read_roof: '%s' is not NxK\n", argv[i]);
      return 2;
    }
    mats.push_back({n, k});
  }
  if (mats.empty())
    mats = {{2112, 7168},  {7168, 2048},  {32768, 512},  {4096, 4096},
            {6144, 4096},  {4096, 7168},  {24576, 1536}, {4096, 14336},
            {8192, 8192},  {10240, 8192}, {28672, 4096}, {7168, 16384},
            {7168, 18432}, {8192, 28672}, {36864, 7168}, {57344, 8192}};

  cudaDeviceProp prop{};
  int driver = 0, runtime = 0, l2 = 0;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const int sms = prop.multiProcessorCount;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));

  size_t max_bytes = 0;
  for (auto [n, k] : mats) max_bytes = std::max(max_bytes, size_t(n) * k * 2);
  uint8_t* buf = nullptr;
  uint32_t* sink = nullptr;
  CUDA_CHECK(cudaMalloc(&buf, max_bytes));
  CUDA_CHECK(cudaMalloc(&sink, 4));
  CUDA_CHECK(cudaMemset(buf, 0x3c, max_bytes));
  L2Flush flush{size_t(l2)};
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  const int ring_bytes = kMaxStages * int(kChunk);
  CUDA_CHECK(
      cudaFuncSetAttribute(bulk_read, cudaFuncAttributeMaxDynamicSharedMemorySize, ring_bytes));

  // The roof, as gemmbench measures it: 2 x bytes / time of a 2 GiB device-to-device copy.
  double roof_gbs = 0;
  {
    const size_t bytes = size_t(2) << 30;
    uint8_t *src = nullptr, *dst = nullptr;
    CUDA_CHECK(cudaMalloc(&src, bytes));
    CUDA_CHECK(cudaMalloc(&dst, bytes));
    CUDA_CHECK(cudaMemsetAsync(src, 0x3c, bytes, stream));
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
    std::vector<double> ms;
    for (int i = 0; i < 7; ++i) {
      CUDA_CHECK(cudaEventRecord(e0, stream));
      CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
      CUDA_CHECK(cudaEventRecord(e1, stream));
      CUDA_CHECK(cudaEventSynchronize(e1));
      float t = 0;
      CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
      ms.push_back(t);
    }
    roof_gbs = 2.0 * double(bytes) / (median(ms) * 1e-3) / 1e9;
    CUDA_CHECK(cudaFree(src));
    CUDA_CHECK(cudaFree(dst));
  }
  double* d_mhz = nullptr;
  CUDA_CHECK(cudaMalloc(&d_mhz, sizeof(double)));
  auto sm_mhz = [&] {
    double mhz = 0;
    sm_clock_mhz<<<1, 1, 0, stream>>>(20000000ull, d_mhz);  // 20 ms
    CUDA_CHECK(cudaMemcpyAsync(&mhz, d_mhz, sizeof mhz, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return mhz;
  };
  const double mhz_start = sm_mhz();
  const char* git = std::getenv("GEMMBENCH_GIT_COMMIT");  // as gemmbench's reports take it
  std::printf(
      "{\"git_commit\": \"%s\", \"device\": \"%s\", \"sms\": %d, \"cuda_driver\": %d, "
      "\"cuda_runtime\": %d, \"date_utc\": "
      "\"%s\", \"reps\": %d, \"roof_copy_gbs\": %.1f, \"sm_clock_mhz_start\": %.0f, "
      "\"l2_flush\": \"%s\"}\n",
      git ? git : "", prop.name, sms, driver, runtime, date, reps, roof_gbs, mhz_start,
      L2Flush::method());

  // A tile variant's kernel, by (rows, boxes, far).
  using TileKernel = void (*)(CUtensorMap, int, int, int);
  struct TileShape {
    int rows, boxes;
    bool far;
    TileKernel kernel;
  };
  const TileShape shapes[] = {{64, 1, false, tile_read<64, 1, false>},
                              {64, 2, false, tile_read<64, 2, false>},
                              {64, 2, true, tile_read<64, 2, true>},
                              {128, 1, false, tile_read<128, 1, false>}};
  for (const TileShape& t : shapes)
    CUDA_CHECK(cudaFuncSetAttribute(t.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    16 * 8192 + 1024));

  struct Variant {
    std::string name;
    int ctas;        // grid; tile: 0 = one CTA per tile, -2 = two per tile (at most SMs)
    int stages;      // bulk, tile: ring depth; 0: ldg; -1: empty
    int shape = -1;  // tile: index into shapes
  };
  std::vector<Variant> variants = {{"empty", sms, -1}, {"ldg", sms * kLdgCtasPerSm, 0}};
  for (int ctas : {64, sms}) variants.push_back({"bulk_c" + std::to_string(ctas) + "_s8", ctas, 8});
  // The tile variants keep 64 KB in flight per CTA (a 64-row box is 8 KB), on one CTA per tile
  // (at most SMs), two, or SMs; the one-per-tile grid also with 96 and 128 KB in flight.
  const struct {
    int shape, stages;
    const char* name;
    std::vector<int> grids;
  } tile_kinds[] = {{0, 8, "r64_bk64_s8", {0, -2, sms}},  {1, 4, "r64_bk128_s4", {0, -2, sms}},
                    {1, 6, "r64_bk128_s6", {0}},          {1, 8, "r64_bk128_s8", {0}},
                    {2, 4, "r64_bk64x2far_s4", {0, sms}}, {3, 4, "r128_bk64_s4", {0, sms}}};
  for (const auto& t : tile_kinds)
    for (int ctas : t.grids)
      variants.push_back({std::string("tile_") + t.name + "_c" +
                              (ctas == 0    ? "T"
                               : ctas == -2 ? "2T"
                                            : std::to_string(ctas)),
                          ctas, t.stages, t.shape});

  for (const auto& mk : mats) {
    const long n = mk.first, k = mk.second;
    const size_t bytes = size_t(n) * k * 2;
    const CUtensorMap map64 = make_kmajor_map(buf, DType::f16, int(n), int(k), 64);
    const CUtensorMap map128 = make_kmajor_map(buf, DType::f16, int(n), int(k), 128);
    const int k_blocks = int((k + 63) / 64);
    auto run = [&](const Variant& v) {
      if (v.shape >= 0) {
        const TileShape& t = shapes[v.shape];
        const int tiles = int((n + t.rows - 1) / t.rows);
        const int ctas = v.ctas == 0  ? std::min(tiles, sms)
                         : v.ctas < 0 ? std::min(2 * tiles, sms)
                                      : v.ctas;
        t.kernel<<<ctas, 32, v.stages * t.boxes * t.rows * 128 + 1024, stream>>>(
            t.rows == 64 ? map64 : map128, tiles, k_blocks, v.stages);
      } else if (v.stages < 0)
        empty_kernel<<<v.ctas, 32, 0, stream>>>();
      else if (v.stages == 0)
        ldg_read<<<v.ctas, kLdgThreads, 0, stream>>>(reinterpret_cast<const uint4*>(buf),
                                                     bytes / 16, sink);
      else
        bulk_read<<<v.ctas, 32, v.stages * kChunk, stream>>>(buf, bytes, v.stages);
    };
    for (const Variant& v : variants) run(v);  // warm-up
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaGetLastError());
    std::vector<std::vector<double>> us(variants.size());
    for (int r = 0; r < reps; ++r)
      for (size_t i = 0; i < variants.size(); ++i) {
        flush.run(stream);
        CUDA_CHECK(cudaEventRecord(e0, stream));
        run(variants[i]);
        CUDA_CHECK(cudaEventRecord(e1, stream));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        us[i].push_back(ms * 1000.0);
      }
    CUDA_CHECK(cudaGetLastError());
    const double roof_us = double(bytes) / (roof_gbs * 1e9) * 1e6;
    std::string fields;
    double best = 1e30;
    std::string best_name;
    for (size_t i = 0; i < variants.size(); ++i) {
      const double m = median(us[i]);
      fields += ", \"" + variants[i].name + "_us\": " + std::to_string(m);
      if (variants[i].stages >= 0 && m < best) best = m, best_name = variants[i].name;
    }
    std::printf(
        "{\"n\": %ld, \"k\": %ld, \"bytes\": %zu, \"roof_us\": %.3f%s, \"best\": \"%s\", "
        "\"best_us\": %.3f, \"best_pct_roof\": %.1f}\n",
        n, k, bytes, roof_us, fields.c_str(), best_name.c_str(), best, 100.0 * roof_us / best);
    std::fflush(stdout);
  }
  std::printf("{\"sm_clock_mhz_end\": %.0f}\n", sm_mhz());
  return 0;
}
