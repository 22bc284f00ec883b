// GB_HD marks index math host tests and device kernels share (docs/contributing.md#kernels).
#pragma once
#if defined(__CUDACC__)
#define GB_HD __host__ __device__ __forceinline__
#else
#define GB_HD inline
#endif
