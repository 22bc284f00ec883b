// GB_HD marks index math that host tests and device kernels share (STYLE.md: one implementation).
#pragma once
#if defined(__CUDACC__)
#define GB_HD __host__ __device__ __forceinline__
#else
#define GB_HD inline
#endif
