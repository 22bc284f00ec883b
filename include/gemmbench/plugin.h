/* gemmbench plugin interface: a shared library that gemmbench loads with --plugin PATH, whose
 * kernels then run with gemmbench's whole method (fp64 verification, the cuBLAS or cuBLASLt
 * baseline sampled alone at steady state, cold L2, regimes, speed of light, energy, compare).
 * docs/plugins.md says how to write one.
 *
 * C ABI, no C++ types: a plugin may be written in C, C++, CUDA or anything that exports a C
 * function. Versioning:
 *   - GEMMBENCH_PLUGIN_ABI_VERSION is the major version. It is in the entry point's name
 *     (gemmbench_plugin_v2) and in gemmbench_plugin.abi_version. A change that would break a
 *     built plugin (a field removed, moved or retyped, a callback's meaning changed) makes a new
 *     major version and a new entry point. gemmbench loads plugins of every version it lists in
 *     docs/plugins.md: version 2 (FP8) and version 1, whose plugins load unchanged (they see the
 *     version-1 prefix of each struct, and are only ever handed f32, f16 and bf16 problems).
 *   - Within a major version the structs only grow at their end. Each starts with struct_size
 *     (sizeof as the plugin was compiled): gemmbench reads a field only when struct_size covers
 *     it, and a field a plugin does not have reads as 0 / NULL. A field appended later starts at
 *     or past the sizeof the struct had before it, never in its tail padding (which an older
 *     build's struct_size covers, holding whatever its compiler left there): hence the `pad_*`
 *     fields below. New enum values may appear; a plugin that meets one it does not know
 *     declines the case in supports().
 * Strings and arrays the plugin returns from the entry point must stay valid until the process
 * exits (static storage is simplest): gemmbench copies what it lists and never unloads a plugin.
 * Threading: gemmbench calls the entry point once, and supports() and launch() from one host
 * thread, never concurrently. */
#ifndef GEMMBENCH_PLUGIN_H
#define GEMMBENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GEMMBENCH_PLUGIN_ABI_VERSION 2
/* The symbol gemmbench looks up; a plugin defines it with GEMMBENCH_PLUGIN_ENTRY (below). */
#define GEMMBENCH_PLUGIN_ENTRY_NAME "gemmbench_plugin_v2"

/* Element types, accumulate types and layouts: the values gemmbench's own kernels declare
 * (gemmbench list). 0 is never a valid value, so a zeroed field is caught. The FP8 types are
 * version 2's: e4m3 (largest finite 448) and e5m2 (57344). */
enum {
  GEMMBENCH_DTYPE_F32 = 1,
  GEMMBENCH_DTYPE_F16 = 2,
  GEMMBENCH_DTYPE_BF16 = 3,
  GEMMBENCH_DTYPE_E4M3 = 4,
  GEMMBENCH_DTYPE_E5M2 = 5
};
enum { GEMMBENCH_ACCUM_F32 = 1, GEMMBENCH_ACCUM_F16 = 2 };
/* BLAS column-major: C = alpha * op(A) * op(B) + beta * C, C is (M,N) with M contiguous, ldc = M.
 * First letter op(A), second op(B). A 'N': stored (M,K), M contiguous, lda = M; A 'T': stored
 * (K,M), K contiguous, lda = K. B 'N': stored (K,N), K contiguous, ldb = K; B 'T': stored (N,K),
 * N contiguous, ldb = N. TN: both operands K-contiguous. */
enum {
  GEMMBENCH_LAYOUT_NN = 1,
  GEMMBENCH_LAYOUT_NT = 2,
  GEMMBENCH_LAYOUT_TN = 3,
  GEMMBENCH_LAYOUT_TT = 4
};

/* How FP8 inputs are scaled (version 2; an f32, f16 or bf16 problem says NONE). The stored value
 * q and its f32 scale s give the number q * s. FP8 problems are TN (both operands K-contiguous),
 * and the scales are f32 arrays in the layout that gemmbench_launch_args.scale_layout names.
 *   TENSOR:   one scale for A, one for B.
 *   ROW:      one per row of op(A) (M of them), one per column of op(B) (N).
 *   BLOCK128: DeepSeek-V3's format: A (the activations) one per 1x128 slice along K, M x KB of
 *             them; B (the weights) one per 128x128 block, ceil(N/128) x KB; KB = ceil(K/128), and
 *             a partial last block has its own scale. */
enum {
  GEMMBENCH_SCALE_NONE = 1,
  GEMMBENCH_SCALE_TENSOR = 2,
  GEMMBENCH_SCALE_ROW = 3,
  GEMMBENCH_SCALE_BLOCK128 = 4
};
/* The scales' layout in memory. ROW_MAJOR, the one gemmbench hands over today: ROW scale_a[m],
 * scale_b[n]; BLOCK128 scale_a[m * KB + kb], scale_b[(n / 128) * KB + kb]. A kernel that wants
 * another (DeepGEMM's A scales K-block by K-block, say) builds it in prepare(), outside timing. */
enum { GEMMBENCH_SCALE_LAYOUT_ROW_MAJOR = 1 };

/* Grouped (Mixture-of-Experts) problems (docs/grouped.md): G GEMMs that share N and K, group g
 * multiplying its M_g rows of activations by its own weights. The layout of the activations and
 * outputs; each value is also its bit in gemmbench_kernel.group_layouts (later values: the next
 * powers of two).
 *   CONTIGUOUS: the groups' rows stacked, [stored_rows, K]; each group's first row a multiple of
 *               group_align, the rows up to the next group's first are padding (DeepGEMM's
 *               m-grouped contiguous layout, torch._grouped_mm's offsets).
 *   MASKED:     [G, group_max_m, K]; group g's first M_g rows valid, the rest padding (DeepGEMM's
 *               masked layout, decode under CUDA graphs). */
enum { GEMMBENCH_GROUP_LAYOUT_CONTIGUOUS = 1, GEMMBENCH_GROUP_LAYOUT_MASKED = 2 };

/* Return values of supports() and launch(). Any non-zero launch() return is an error. */
#define GEMMBENCH_PLUGIN_OK 0
#define GEMMBENCH_PLUGIN_DECLINE 1

/* One GEMM case. Version 1: A, B and C share the element type `dtype`. Version 2 adds the FP8
 * fields at the end: A is `dtype`, B `dtype_b`, C `out_dtype` (the three equal for f32, f16 and
 * bf16 problems), how the inputs were scaled, and C's order; then the grouped fields.
 *
 * A grouped problem (groups > 0; only a kernel that declares its group_layout ever sees one) is
 * TN, and its m is sum(M_g), the rows computed, counted in the FLOP (2 * m * n * k) and verified;
 * padding rows are in stored_rows only. n and k are the N and K every group shares. Its memory
 * (gemmbench_launch_args: a, b, c, first_row[g] = the group's first stored row):
 *   A: [stored_rows, K] row-major (K contiguous, lda = K): group g's rows are
 *      a[(first_row[g] + i) * K + kk], i < M_g.
 *   B: the weights [G, N, K] row-major (K contiguous, ldb = K): group g's are b[(g * N + j) * K
 *      + kk], i.e. one [G*N, K] matrix.
 *   C: [stored_rows, N] row-major (N contiguous, ldc = N; c_row_major reads 1 whatever the
 *      kernel declared): C_g = alpha * A_g * B_g^T + beta * C_g, group g's rows from first_row[g].
 *      Only the M_g valid rows of each group are verified; padding rows of C may be written.
 *   FP8 scales (f32, scale_layout ROW_MAJOR), KB = ceil(K/128):
 *     scale_a, the activations, one dense A's layout over all stored rows (padding rows have
 *       theirs): TENSOR one scale for every group; ROW scale_a[row]; BLOCK128 scale_a[row * KB
 *       + kb], row the stored row.
 *     scale_b, the weights, one dense B's layout per group, G of them stacked: TENSOR scale_b[g];
 *       ROW scale_b[g * N + j]; BLOCK128 scale_b[(g * ceil(N/128) + j / 128) * KB + kb] (each
 *       group's last 128-row block its own, never shared with the next group's rows).
 * A kernel that declares c_row_major still runs with beta = 0 only, grouped or not. */
typedef struct gemmbench_problem {
  uint32_t struct_size;
  int32_t layout; /* GEMMBENCH_LAYOUT_* */
  int32_t dtype;  /* GEMMBENCH_DTYPE_*: A's (and, in version 1, B's and C's) */
  int32_t accum;  /* GEMMBENCH_ACCUM_* */
  int64_t m, n, k;
  int64_t lda, ldb, ldc; /* in elements; packed today (see the layout comment above) */
  double alpha, beta;
  /* ---- version 2 ---- */
  int32_t dtype_b;     /* B's GEMMBENCH_DTYPE_* (an FP8 problem may pair e4m3 with e5m2) */
  int32_t out_dtype;   /* C's GEMMBENCH_DTYPE_*: bf16 by default for FP8 inputs, f16 or f32 */
  int32_t scale;       /* GEMMBENCH_SCALE_* */
  int32_t fast_accum;  /* FP8: 1 = the tensor cores' own accumulator kept over all of K (the row
                          records it; a kernel that always promotes declines it) */
  int32_t c_row_major; /* 1 when the kernel declared c_row_major (C (M,N) N-contiguous, ldc = N),
                          and for every grouped problem */
  /* ---- version 2, grouped problems ---- */
  int32_t pad_grouped;  /* the tail padding of the struct before these fields: never read */
  int64_t groups;       /* G; 0: a dense problem (and every field below 0) */
  int64_t stored_rows;  /* rows of A and C in memory: contiguous, the groups' padded rows summed
                           (>= m); masked, G * group_max_m */
  int64_t group_max_m;  /* masked: rows per group in memory, >= every M_g; 0 for contiguous */
  int64_t group_align;  /* contiguous: each group's first row is a multiple of it (1: no padding);
                           0 for masked */
  int32_t group_layout; /* GEMMBENCH_GROUP_LAYOUT_*; 0 for a dense problem */
} gemmbench_problem;

/* What supports() may ask of the device the case would run on. */
typedef struct gemmbench_device {
  uint32_t struct_size;
  int32_t sm; /* 10 * major + minor: 90 for an H100 */
  int32_t num_sms;
  uint64_t smem_per_block_optin; /* bytes of shared memory a block may opt in to */
  uint64_t l2_bytes;
} gemmbench_device;

/* One launch. The pointers are device memory that gemmbench allocated and filled; the current
 * device is already set. launch() enqueues its work on `stream` and returns: no synchronisation,
 * no allocation (use `workspace`), no change of the current device. Every launch of one problem
 * gets the same pointers, and the inputs do not change between them. */
typedef struct gemmbench_launch_args {
  uint32_t struct_size;
  const gemmbench_problem* problem;
  const void* a; /* op(A) source, problem->lda */
  const void* b; /* op(B) source, problem->ldb */
  void* c;       /* (M,N) column-major, problem->ldc; holds beta's C on entry */
  float alpha, beta;
  void* stream;    /* a cudaStream_t (= CUstream) */
  void* workspace; /* device memory of workspace_bytes(problem) bytes, or NULL when 0; what
                      prepare() wrote there is still there at the problem's launches */
  size_t workspace_bytes;
  /* ---- version 2 ---- */
  const float* scale_a; /* FP8: A's scales (problem->scale, scale_layout); NULL otherwise */
  const float* scale_b; /* FP8: B's scales */
  int32_t scale_layout; /* GEMMBENCH_SCALE_LAYOUT_* of scale_a and scale_b */
  /* ---- version 2, grouped problems (NULL for a dense one) ---- */
  const int64_t* group_first_row; /* device, G entries: each group's first stored row of A and C
                                     (contiguous: the padded rows before it; masked: g * max_m) */
  const int32_t* group_m;         /* device, G entries: M_g */
  const int64_t* host_group_m;    /* host, G entries: M_g, valid for the problem's launches: for
                                     what prepare() builds, e.g. a per-row group index */
} gemmbench_launch_args;

/* GEMMBENCH_PLUGIN_OK when the kernel can run the case; else GEMMBENCH_PLUGIN_DECLINE with a
 * human reason written to `reason` (NUL-terminated, at most reason_size bytes with the NUL):
 * "K must be a multiple of 8: rows are copied in 16-byte pieces". gemmbench has already checked
 * dtype, accumulate type, layout and min_sm against the kernel's lists. Host only: no CUDA call is
 * needed (the device facts are in `device`), and it is also called where no GPU is present. */
typedef int (*gemmbench_supports_fn)(const gemmbench_problem* problem,
                                     const gemmbench_device* device, char* reason,
                                     size_t reason_size, void* user);
/* GEMMBENCH_PLUGIN_OK once the work is enqueued; else any non-zero value, with a message written
 * to `error` as for supports(). The row is then recorded as an error with that message and the
 * run goes on. Launch errors are caught by the plugin's own CUDA runtime, not gemmbench's: check
 * cudaGetLastError() after your launch and return its message. */
typedef int (*gemmbench_launch_fn)(const gemmbench_launch_args* args, char* error,
                                   size_t error_size, void* user);
/* Bytes of device workspace launch() needs for `problem` (optional; NULL = none). */
typedef size_t (*gemmbench_workspace_fn)(const gemmbench_problem* problem, void* user);
/* Version 2, optional: called once per problem, after its inputs are made and before its first
 * launch (the verified run or a warm-up), outside every timed sample, with the arguments of the
 * launches that follow. What a peer library does once per problem, not per call, belongs here:
 * building TMA descriptors, choosing a configuration, laying the scales out as the kernel reads
 * them (into `workspace`, which keeps its contents for the problem's launches). It may enqueue
 * work on the stream and keep host state in `user`, keyed by the arguments; no synchronisation.
 * Returns GEMMBENCH_PLUGIN_OK, or non-zero with a message as launch() does (the row is then an
 * error and never launched). */
typedef int (*gemmbench_prepare_fn)(const gemmbench_launch_args* args, char* error,
                                    size_t error_size, void* user);

/* One kernel: the same facts gemmbench's own kernels register (docs/development.md). */
typedef struct gemmbench_kernel {
  uint32_t struct_size;
  const char* name;      /* what the user types: lower-case letters, digits and '_'; unique among
                            gemmbench's kernels and every plugin's */
  const char* family;    /* the ladder it belongs to in `gemmbench list` ("myproj") */
  int32_t rung;          /* its place on that ladder, >= 1 */
  const char* summary;   /* one line for `gemmbench list` (optional) */
  const int32_t* dtypes; /* GEMMBENCH_DTYPE_*; the first is native (used when none is asked) */
  int32_t num_dtypes;
  const int32_t* accums; /* GEMMBENCH_ACCUM_*; the first is native */
  int32_t num_accums;
  const int32_t* layouts; /* GEMMBENCH_LAYOUT_*; the first is native */
  int32_t num_layouts;
  int32_t min_sm;                         /* 10 * major + minor; the case is skipped below it */
  gemmbench_supports_fn supports;         /* optional */
  gemmbench_launch_fn launch;             /* required */
  gemmbench_workspace_fn workspace_bytes; /* optional */
  void* user;                             /* handed back to every callback of this kernel */
  /* ---- version 2 ---- */
  gemmbench_prepare_fn prepare; /* optional (see its typedef) */
  int32_t c_row_major; /* 1: the kernel writes C (M,N) row-major, N contiguous, ldc = N (the order
                          an LLM layer's output has; DeepGEMM writes it). gemmbench verifies it
                          in that order, and runs such a kernel with beta = 0 only. 0: column-
                          major, M contiguous, as in version 1 */
  /* ---- version 2, grouped problems ---- */
  int32_t pad_grouped;    /* the tail padding of the struct before these fields: never read */
  uint32_t group_layouts; /* the GEMMBENCH_GROUP_LAYOUT_* bits of the grouped problems the kernel
                             takes; 0: dense problems only. A kernel with bits gets grouped
                             problems of those layouts and no dense one (a kernel that takes both
                             is two entries). supports(), workspace_bytes(), prepare() and launch()
                             then see the grouped fields */
} gemmbench_kernel;

/* What the entry point returns. struct_size and abi_version stay its first two fields in every
 * version, so that any gemmbench can tell which ABI a plugin was built for. */
typedef struct gemmbench_plugin {
  uint32_t struct_size;
  uint32_t abi_version; /* GEMMBENCH_PLUGIN_ABI_VERSION as the plugin was compiled */
  const char* name;     /* the plugin's own name, for reports (optional) */
  const gemmbench_kernel* const* kernels; /* num_kernels pointers */
  int32_t num_kernels;
} gemmbench_plugin;

typedef const gemmbench_plugin* (*gemmbench_plugin_entry_fn)(void);

#if defined(_WIN32)
#define GEMMBENCH_PLUGIN_EXPORT __declspec(dllexport)
#else
#define GEMMBENCH_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* The entry point, defined once per plugin:
 *   GEMMBENCH_PLUGIN_ENTRY { static const gemmbench_plugin p = {...}; return &p; }
 * Called once, after the library is loaded and before any CUDA call of gemmbench's. */
#ifdef __cplusplus
#define GEMMBENCH_PLUGIN_ENTRY \
  extern "C" GEMMBENCH_PLUGIN_EXPORT const gemmbench_plugin* gemmbench_plugin_v2(void)
#else
#define GEMMBENCH_PLUGIN_ENTRY \
  GEMMBENCH_PLUGIN_EXPORT const gemmbench_plugin* gemmbench_plugin_v2(void)
#endif

#ifdef __cplusplus
}
#endif

#endif /* GEMMBENCH_PLUGIN_H */
