#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <cub/block/block_reduce.cuh>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "verify/device_verify.hpp"

namespace gemmbench {

namespace {

__device__ __forceinline__ double to_double(double x) {
  return x;
}
__device__ __forceinline__ double to_double(float x) {
  return x;
}
__device__ __forceinline__ double to_double(__half x) {
  return __half2float(x);
}
__device__ __forceinline__ double to_double(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
// An FP8 byte in either format (the format a run-time value): both convert exactly to f16.
__device__ __forceinline__ double fp8_to_double(uint8_t x, __nv_fp8_interpretation_t format) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(x, format)));
}

template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

__host__ __device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T, DataDist D>
__global__ void fill_kernel(T* p, int64_t count, uint64_t key) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const uint64_t bits = splitmix64(key + uint64_t(i)) >> 40;  // 24 random bits: u = bits/2^24
    if constexpr (D == DataDist::uniform) {
      const float u = float(bits) * (1.0f / 16777216.0f);  // exact: 24 bits fit a float
      p[i] = from_float<T>(2.0f * u - 1.0f);
    } else {
      // floor(7u) in integers: a float u*7 could round up across a bin edge
      const int v = int((bits * 7) >> 24) - 3;
      p[i] = from_float<T>(float(v));
    }
  }
}

template <class Bits>
__global__ void fill_bits_kernel(Bits* p, int64_t count, Bits value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    p[i] = value;
}

int grid_for(int64_t count) {
  return int(std::clamp<int64_t>((count + 255) / 256, 1, 8192));
}

// dst (M,N) column-major from src (M,N) row-major; i walks dst, so the stores coalesce. Used
// once per verified run, outside timing: plain indexing is fast enough.
template <class Bits>
__global__ void transpose_to_column_major_kernel(const Bits* src, Bits* dst, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m * n;
       i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = src[(i % m) * n + i / m];
}

// fp64 reference: 64x64 output tile per block, 256 threads computing 4x4 elements each, 16-deep
// k slices staged in shared memory. Deliberately simple: it is the oracle, not a contestant.
constexpr int kRefTile = 64;
constexpr int kRefBK = 16;

struct MaxOpF {
  __device__ float operator()(float a, float b) const { return a > b ? a : b; }
};

// Element (row, k) of an operand as the reference reads it: op(A) row m, op(B) row n.
template <class T>
struct PlainLoad {
  const T* p;
  int64_t s_row, s_k;
  __device__ double operator()(int64_t row, int64_t k) const {
    return to_double(p[row * s_row + k * s_k]);
  }
};
// An FP8 operand stored as rows of K (TN), dequantized in fp64: q * scale exactly, each operand
// decoded in its own format (A and B may differ).
struct Fp8Load {
  const uint8_t* p;
  int64_t ld;
  const float* scales;
  ScaleIndex idx;
  __nv_fp8_interpretation_t format;  // __NV_E4M3 or __NV_E5M2
  __device__ double operator()(int64_t row, int64_t k) const {
    return fp8_to_double(p[row * ld + k], format) * double(scales[idx(row, k)]);
  }
};

template <class LA, class LB, class TC>
__global__ void __launch_bounds__(256)
    reference_kernel(int M, int N, int K, int m_tile_offset, LA load_a, LB load_b, const TC* C0,
                     double alpha, double beta, double* R) {
  __shared__ double As[kRefBK][kRefTile + 1];  // (BK, TILE) slice of op(A), m fastest
  __shared__ double Bs[kRefBK][kRefTile + 1];  // (BK, TILE) slice of op(B), n fastest
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int m0 = (blockIdx.y + m_tile_offset) * kRefTile, n0 = blockIdx.x * kRefTile;
  double acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kRefBK) {
    for (int i = threadIdx.x; i < kRefBK * kRefTile; i += blockDim.x) {
      const int kk = i / kRefTile, j = i % kRefTile;
      const int k = k0 + kk, m = m0 + j, n = n0 + j;
      As[kk][j] = (m < M && k < K) ? load_a(m, k) : 0.0;
      Bs[kk][j] = (n < N && k < K) ? load_b(n, k) : 0.0;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kRefBK; ++kk) {
      double a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[kk][tx + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[kk][ty + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int m = m0 + tx + 16 * i, n = n0 + ty + 16 * j;
      if (m >= M || n >= N) continue;
      const int64_t idx = m + int64_t(n) * M;
      R[idx] = alpha * acc[i][j] + (beta != 0.0 ? beta * to_double(C0[idx]) : 0.0);
    }
}

// The amax of each group of `idx` over x (rows x K, K-contiguous): one block per group.
__global__ void __launch_bounds__(256)
    amax_kernel(const float* x, int64_t rows, int64_t K, ScaleIndex idx, float* amax) {
  using Reduce = cub::BlockReduce<float, 256>;
  __shared__ typename Reduce::TempStorage tmp;
  const int64_t g = blockIdx.x, rb = g / idx.nkb, kb = g % idx.nkb;
  const int64_t r0 = rb * idx.rblk, r1 = min(rows, r0 + idx.rblk);
  const int64_t k0 = kb * idx.kbs, k1 = min(K, k0 + idx.kbs);
  const int64_t width = k1 - k0, count = (r1 - r0) * width;
  float m = 0.f;
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x)
    m = fmaxf(m, fabsf(x[(r0 + i / width) * K + k0 + i % width]));
  const float block_max = Reduce(tmp).Reduce(m, MaxOpF{});
  if (threadIdx.x == 0) amax[g] = block_max;
}

__global__ void scales_from_amax_kernel(float* s, int64_t count, float format_max) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    s[i] = s[i] > 0.f ? s[i] / format_max : 1.f;
}

// Q: __nv_fp8_e4m3 or __nv_fp8_e5m2, whose constructor from float rounds to nearest (even) and
// saturates to the format's largest finite value.
template <class Q>
__global__ void quantize_kernel(const float* x, int64_t rows, int64_t K, ScaleIndex idx,
                                const float* scales, Q* q) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < rows * K;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = i / K, k = i % K;
    q[i] = Q(x[i] / scales[idx(row, k)]);
  }
}

__nv_fp8_interpretation_t fp8_format(DType t) {
  if (!is_fp8(t))
    throw std::logic_error(std::string("device_verify: ") + to_string(t) + " is not an FP8 type");
  return t == DType::e5m2 ? __NV_E5M2 : __NV_E4M3;
}

// FP8 inputs' spread: x(row, k) *= 2^(e1 + e2), e1 drawn per (row, 128-block of K) and e2 per
// (128-row block, 128-block of K), each in -1..1, from the tensor's key. Uniform values give
// every row and block an amax near 1, hence nearly equal scales, and a kernel that reads the
// wrong row's or block's scale would still verify; e2 keeps the 128x128 blocks apart too (their
// amax is the largest of 128 rows' factors, which e1 alone would make the same for all). Real
// activations and weights differ by more than 16x between rows and blocks.
// x's rows are the tensor's rows row0, row0 + 1, ...
__global__ void fp8_spread_kernel(float* x, int64_t rows, int64_t K, uint64_t key, int64_t row0) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < rows * K;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = row0 + i / K, kb = (i % K) / kScaleBlock;
    const int e1 = int(splitmix64(key ^ (uint64_t(row) << 24) ^ uint64_t(kb)) % 3) - 1;
    const int e2 =
        int(splitmix64(~key ^ (uint64_t(row / kScaleBlock) << 24) ^ uint64_t(kb)) % 3) - 1;
    x[i] = ldexpf(x[i], e1 + e2);  // exact: a power of two
  }
}

struct Partial {
  double max_abs, max_rel, sum_sq_diff, sum_sq_ref, sum_sq_c;
  long long nonfinite;
};

struct MaxOp {
  __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};

constexpr int kReduceBlocks = 1024;

template <class T>
__global__ void __launch_bounds__(256)
    compare_kernel(const T* C, const double* R, int64_t count, double floor, Partial* out) {
  using Reduce = cub::BlockReduce<double, 256>;
  using ReduceLL = cub::BlockReduce<long long, 256>;
  __shared__ typename Reduce::TempStorage tmp;
  __shared__ typename ReduceLL::TempStorage tmp_ll;
  double max_abs = 0, max_rel = 0, ssd = 0, ssr = 0, ssc = 0;
  long long nonfinite = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const double c = to_double(C[i]), r = R[i];
    ssr += r * r;
    if (!isfinite(c)) {
      ++nonfinite;
      continue;
    }
    const double d = fabs(c - r);
    max_abs = fmax(max_abs, d);
    max_rel = fmax(max_rel, d / fmax(fabs(r), floor));
    ssd += d * d;
    ssc += c * c;
  }
  Partial p;
  p.max_abs = Reduce(tmp).Reduce(max_abs, MaxOp{});
  __syncthreads();
  p.max_rel = Reduce(tmp).Reduce(max_rel, MaxOp{});
  __syncthreads();
  p.sum_sq_diff = Reduce(tmp).Sum(ssd);
  __syncthreads();
  p.sum_sq_ref = Reduce(tmp).Sum(ssr);
  __syncthreads();
  p.sum_sq_c = Reduce(tmp).Sum(ssc);
  p.nonfinite = ReduceLL(tmp_ll).Sum(nonfinite);
  if (threadIdx.x == 0) out[blockIdx.x] = p;
}

template <class T>
void dispatch_fill(void* p, int64_t count, uint64_t key, DataDist d, cudaStream_t s) {
  switch (d) {
    case DataDist::uniform:
      fill_kernel<T, DataDist::uniform>
          <<<grid_for(count), 256, 0, s>>>(static_cast<T*>(p), count, key);
      break;
    case DataDist::int3:
      fill_kernel<T, DataDist::int3>
          <<<grid_for(count), 256, 0, s>>>(static_cast<T*>(p), count, key);
      break;
  }
  CUDA_CHECK_LAST_LAUNCH();
}

template <class LA, class LB, class TC>
void launch_reference(const GemmProblem& p, LA load_a, LB load_b, const void* c0, double* ref,
                      cudaStream_t s) {
  const int tiles_m = int((p.m + kRefTile - 1) / kRefTile);
  const int tiles_n = int((p.n + kRefTile - 1) / kRefTile);
  for (int off = 0; off < tiles_m; off += 65535) {  // gridDim.y is limited to 65535
    const dim3 grid(tiles_n, std::min(65535, tiles_m - off));
    reference_kernel<<<grid, 256, 0, s>>>(int(p.m), int(p.n), int(p.k), off, load_a, load_b,
                                          static_cast<const TC*>(c0), p.alpha, p.beta, ref);
    CUDA_CHECK_LAST_LAUNCH();
  }
}

template <class T>
void dispatch_reference(const GemmProblem& p, const void* a, const void* b, const void* c0,
                        double* ref, cudaStream_t s) {
  // Element (m, k) of op(A) and (k, n) of op(B) in the layout's storage
  // (core/include/core/types.hpp).
  const int64_t lda = p.lda(), ldb = p.ldb();
  const int64_t a_sm = a_is_k_major(p.layout) ? lda : 1, a_sk = a_is_k_major(p.layout) ? 1 : lda;
  const int64_t b_sk = b_is_k_major(p.layout) ? 1 : ldb, b_sn = b_is_k_major(p.layout) ? ldb : 1;
  launch_reference<PlainLoad<T>, PlainLoad<T>, T>(
      p, PlainLoad<T>{static_cast<const T*>(a), a_sm, a_sk},
      PlainLoad<T>{static_cast<const T*>(b), b_sn, b_sk}, c0, ref, s);
}

template <class T>
void dispatch_compare(const void* c, const double* ref, int64_t count, double floor, Partial* out,
                      int blocks, cudaStream_t s) {
  compare_kernel<T><<<blocks, 256, 0, s>>>(static_cast<const T*>(c), ref, count, floor, out);
  CUDA_CHECK_LAST_LAUNCH();
}

template <class Fn>
void by_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::f32:
      fn(float{});
      break;
    case DType::f16:
      fn(__half{});
      break;
    case DType::bf16:
      fn(__nv_bfloat16{});
      break;
    case DType::e4m3:  // never a C type; FP8 inputs are made by quantize_fp8, not filled
    case DType::e5m2:
      throw std::logic_error(std::string("device_verify: ") + to_string(t) +
                             " is an input type only");
  }
}

std::vector<Partial> reduce_on_device(DeviceBuffer& partials, DType t, const void* c,
                                      const double* ref, int64_t count, double floor,
                                      cudaStream_t s) {
  const int blocks = int(std::clamp<int64_t>((count + 255) / 256, 1, kReduceBlocks));
  by_dtype(t, [&](auto tag) {
    dispatch_compare<decltype(tag)>(c, ref, count, floor, partials.as<Partial>(), blocks, s);
  });
  std::vector<Partial> host(blocks);
  CUDA_CHECK(cudaMemcpyAsync(host.data(), partials.get(), blocks * sizeof(Partial),
                             cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  return host;
}

}  // namespace

void fill_inputs(void* p, DType t, int64_t count, uint64_t seed, uint64_t tensor_id, DataDist d,
                 cudaStream_t stream, int64_t first) {
  // Element i hashes key + i (fill_kernel): starting at `first` is a key `first` further on.
  const uint64_t key = splitmix64(seed ^ splitmix64(tensor_id + 1)) + uint64_t(first);
  by_dtype(t, [&](auto tag) { dispatch_fill<decltype(tag)>(p, count, key, d, stream); });
}

void fill_uniform(void* p, DType t, int64_t count, uint64_t seed, uint64_t tensor_id,
                  cudaStream_t stream) {
  fill_inputs(p, t, count, seed, tensor_id, DataDist::uniform, stream);
}

void fill_nan(void* p, DType t, int64_t count, cudaStream_t stream) {
  if (t == DType::f32) {
    fill_bits_kernel<uint32_t>
        <<<grid_for(count), 256, 0, stream>>>(static_cast<uint32_t*>(p), count, 0x7fc00000u);
  } else {
    const uint16_t nan = t == DType::f16 ? 0x7e00 : 0x7fc0;
    fill_bits_kernel<uint16_t>
        <<<grid_for(count), 256, 0, stream>>>(static_cast<uint16_t*>(p), count, nan);
  }
  CUDA_CHECK_LAST_LAUNCH();
}

void transpose_to_column_major(const void* src, void* dst, int elem_bytes, int64_t m, int64_t n,
                               cudaStream_t stream) {
  if (elem_bytes == 4)
    transpose_to_column_major_kernel<uint32_t><<<grid_for(m * n), 256, 0, stream>>>(
        static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), m, n);
  else if (elem_bytes == 2)
    transpose_to_column_major_kernel<uint16_t><<<grid_for(m * n), 256, 0, stream>>>(
        static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), m, n);
  else
    throw std::invalid_argument("transpose_to_column_major: elements of 2 or 4 bytes, not " +
                                std::to_string(elem_bytes));
  CUDA_CHECK_LAST_LAUNCH();
}

void reference_gemm(const GemmProblem& p, const void* a, const void* b, const void* c0, double* ref,
                    cudaStream_t stream) {
  by_dtype(p.dtype, [&](auto tag) { dispatch_reference<decltype(tag)>(p, a, b, c0, ref, stream); });
}

ScaleIndex scale_index_a(const GemmProblem& p) {
  const int64_t kb = (p.k + kScaleBlock - 1) / kScaleBlock;
  switch (p.scale) {
    case ScaleMode::row:
      return {1, p.k, 1};
    case ScaleMode::block128:
      return p.blocks_on_a ? ScaleIndex{kScaleBlock, kScaleBlock, kb}
                           : ScaleIndex{1, kScaleBlock, kb};
    default:  // tensor (and none: one scale of 1)
      return {p.m, p.k, 1};
  }
}

ScaleIndex scale_index_b(const GemmProblem& p) {
  const int64_t kb = (p.k + kScaleBlock - 1) / kScaleBlock;
  switch (p.scale) {
    case ScaleMode::row:
      return {1, p.k, 1};
    case ScaleMode::block128:
      return p.blocks_on_a ? ScaleIndex{1, kScaleBlock, kb}
                           : ScaleIndex{kScaleBlock, kScaleBlock, kb};
    default:
      return {p.n, p.k, 1};
  }
}

Fp8Operand fp8_operand_a(const GemmProblem& p) {
  return {p.m, scale_index_a(p), p.dtype};
}

Fp8Operand fp8_operand_b(const GemmProblem& p) {
  return {p.n, scale_index_b(p), p.b_type()};
}

void quantize_fp8(const float* x, int64_t rows, int64_t k, const ScaleIndex& idx, DType format,
                  void* q, float* scales, float* scratch, cudaStream_t stream) {
  const bool e5m2 = fp8_format(format) == __NV_E5M2;
  const int64_t groups = idx.groups(rows);
  if (idx.rblk >= rows && idx.kbs >= k) {
    // One scale for the whole tensor: the rows' amax first (one block each), then theirs.
    amax_kernel<<<int(rows), 256, 0, stream>>>(x, rows, k, ScaleIndex{1, k, 1}, scratch);
    CUDA_CHECK_LAST_LAUNCH();
    amax_kernel<<<1, 256, 0, stream>>>(scratch, 1, rows, ScaleIndex{1, rows, 1}, scales);
  } else {
    amax_kernel<<<int(groups), 256, 0, stream>>>(x, rows, k, idx, scales);
  }
  CUDA_CHECK_LAST_LAUNCH();
  scales_from_amax_kernel<<<grid_for(groups), 256, 0, stream>>>(scales, groups,
                                                                float(fp8_max(format)));
  CUDA_CHECK_LAST_LAUNCH();
  if (e5m2)
    quantize_kernel<<<grid_for(rows * k), 256, 0, stream>>>(x, rows, k, idx, scales,
                                                            static_cast<__nv_fp8_e5m2*>(q));
  else
    quantize_kernel<<<grid_for(rows * k), 256, 0, stream>>>(x, rows, k, idx, scales,
                                                            static_cast<__nv_fp8_e4m3*>(q));
  CUDA_CHECK_LAST_LAUNCH();
}

Fp8Inputs make_fp8_grouped_inputs(
    const GemmProblem& p, int64_t rows_a, int64_t experts, uint64_t seed, uint64_t tensor_a,
    uint64_t tensor_b, DataDist d, cudaStream_t stream,
    const std::function<void(int64_t, const float*, const float*)>& with_f32) {
  const auto spread_key = [seed](uint64_t tensor) {
    return splitmix64(seed * 0x100000001B3ull + tensor + 0x5bd1e995ull);
  };
  const Fp8Operand ob = fp8_operand_b(p);
  const int64_t per_expert = ob.idx.groups(ob.rows);  // one expert's scales
  Fp8Inputs in;
  in.a = DeviceBuffer(size_t(rows_a * p.k));
  in.b = DeviceBuffer(size_t(experts * p.n * p.k));
  in.scale_a = DeviceBuffer(size_t(scale_count_a(p.scale, rows_a, p.k)) * sizeof(float));
  in.scale_b = DeviceBuffer(size_t(experts * per_expert) * sizeof(float));
  DeviceBuffer a32(size_t(rows_a * p.k) * sizeof(float)), b32(size_t(p.n * p.k) * sizeof(float));
  DeviceBuffer scratch(size_t(std::max(rows_a, p.n)) * sizeof(float));
  fill_inputs(a32.get(), DType::f32, rows_a * p.k, seed, tensor_a, d, stream);
  fp8_spread_kernel<<<grid_for(rows_a * p.k), 256, 0, stream>>>(a32.as<float>(), rows_a, p.k,
                                                                spread_key(tensor_a), 0);
  CUDA_CHECK_LAST_LAUNCH();
  GemmProblem pa = p;  // A as a dense A of rows_a rows (tensor: one scale over all of them)
  pa.m = rows_a;
  const Fp8Operand oa = fp8_operand_a(pa);
  quantize_fp8(a32.as<float>(), oa.rows, p.k, oa.idx, oa.format, in.a.get(), in.scale_a.as<float>(),
               scratch.as<float>(), stream);
  // Expert by expert, in one buffer: the stream orders each fill after the previous expert's use.
  for (int64_t g = 0; g < experts; ++g) {
    fill_inputs(b32.get(), DType::f32, p.n * p.k, seed, tensor_b, d, stream, g * p.n * p.k);
    fp8_spread_kernel<<<grid_for(p.n * p.k), 256, 0, stream>>>(b32.as<float>(), p.n, p.k,
                                                               spread_key(tensor_b), g * p.n);
    CUDA_CHECK_LAST_LAUNCH();
    quantize_fp8(b32.as<float>(), ob.rows, p.k, ob.idx, ob.format,
                 static_cast<uint8_t*>(in.b.get()) + g * p.n * p.k,
                 in.scale_b.as<float>() + g * per_expert, scratch.as<float>(), stream);
    if (with_f32) with_f32(g, a32.as<float>(), b32.as<float>());
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));  // before the f32 values and the scratch are freed
  return in;
}

Fp8Inputs make_fp8_inputs(const GemmProblem& p, uint64_t seed, uint64_t tensor_a, uint64_t tensor_b,
                          DataDist d, cudaStream_t stream,
                          const std::function<void(const float* a, const float* b)>& with_f32) {
  // A dense problem is a grouped one of one expert whose A has M rows: the same values, spread
  // and scales.
  std::function<void(int64_t, const float*, const float*)> each;
  if (with_f32) each = [&](int64_t, const float* a, const float* b) { with_f32(a, b); };
  return make_fp8_grouped_inputs(p, p.m, 1, seed, tensor_a, tensor_b, d, stream, each);
}

void reference_gemm_fp8(const GemmProblem& p, const void* a, const float* scale_a, const void* b,
                        const float* scale_b, const void* c0, double* ref, cudaStream_t stream) {
  const Fp8Operand oa = fp8_operand_a(p), ob = fp8_operand_b(p);
  const Fp8Load la{static_cast<const uint8_t*>(a), p.k, scale_a, oa.idx, fp8_format(oa.format)};
  const Fp8Load lb{static_cast<const uint8_t*>(b), p.k, scale_b, ob.idx, fp8_format(ob.format)};
  by_dtype(p.out_type(), [&](auto tag) {
    launch_reference<Fp8Load, Fp8Load, decltype(tag)>(p, la, lb, c0, ref, stream);
  });
}

void reference_gemm_f32_inputs(const GemmProblem& p, const float* a, const float* b, const void* c0,
                               double* ref, cudaStream_t stream) {
  const PlainLoad<float> la{a, p.k, 1}, lb{b, p.k, 1};  // TN: rows of K
  by_dtype(p.out_type(), [&](auto tag) {
    launch_reference<PlainLoad<float>, PlainLoad<float>, decltype(tag)>(p, la, lb, c0, ref, stream);
  });
}

ErrorMeter::ErrorMeter() : partials_(kReduceBlocks * sizeof(Partial)) {}

double ErrorMeter::reference_rms(const double* ref, int64_t count, cudaStream_t stream) {
  // Comparing ref with itself (as doubles) yields sum(ref^2) and nothing else.
  const int blocks = int(std::clamp<int64_t>((count + 255) / 256, 1, kReduceBlocks));
  compare_kernel<double><<<blocks, 256, 0, stream>>>(ref, ref, count, 1.0, partials_.as<Partial>());
  CUDA_CHECK_LAST_LAUNCH();
  std::vector<Partial> host(blocks);
  CUDA_CHECK(cudaMemcpyAsync(host.data(), partials_.get(), blocks * sizeof(Partial),
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  double ss = 0;
  for (const auto& p : host) ss += p.sum_sq_ref;
  return std::sqrt(ss / double(count));
}

ErrorStats ErrorMeter::measure(DType t, const void* c, const double* ref, int64_t count,
                               double ref_rms, cudaStream_t stream) {
  const double floor = std::max(kRelErrorFloor * ref_rms, 1e-300);
  const auto parts = reduce_on_device(partials_, t, c, ref, count, floor, stream);
  ErrorStats e;
  e.computed = true;
  double ssd = 0, ssr = 0, ssc = 0;
  for (const auto& p : parts) {
    e.max_abs = std::max(e.max_abs, p.max_abs);
    e.max_rel = std::max(e.max_rel, p.max_rel);
    ssd += p.sum_sq_diff;
    ssr += p.sum_sq_ref;
    ssc += p.sum_sq_c;
    e.nonfinite += p.nonfinite;
  }
  e.calc_diff = ssc + ssr > 0 ? ssd / (ssc + ssr) : 0.0;
  // With an all-zero reference (alpha = beta = 0) the error is absolute.
  e.normwise = ssr > 0 ? std::sqrt(ssd) / std::sqrt(ssr) : std::sqrt(ssd);
  if (e.nonfinite > 0) e.normwise = std::numeric_limits<double>::quiet_NaN();
  return e;
}

}  // namespace gemmbench
