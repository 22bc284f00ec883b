#!/usr/bin/env python3
"""Reference measurement (not part of gemmbench's build): DeepGEMM v1's dense FP8 GEMM with block
scales (deep_gemm.gemm_fp8_fp8_bf16_nt: e4m3 A and B, A scaled per 1x128 slice along K, B per
128x128 block, bf16 D) beside torch._scaled_mm (cuBLASLt) on the same shapes, per-tensor and, where
this torch accepts them, with the same block scales. Issue 38's reference peers.

Inputs and layouts, as gemmbench makes FP8 operands (docs/fp8.md, src/verify/device_verify.cu
quantize_fp8): A (M,K) and B (N,K) f32 uniform [-1, 1) from a seeded torch generator, both
K-contiguous (TN); each group's scale is amax/448 (1 for a group of zeros), q = RN(x / s),
saturating.
DeepGEMM wants (its tests/test_core.py at 677143b, lines 9-38, and the docstring of
deep_gemm/jit_kernels/gemm.py, lines 149-187): lhs = (A q (M,K) row-major, A scales (M, K/128) in
the column-major layout with M padded to 4 floats that get_col_major_tma_aligned_tensor makes),
rhs = (B q (N,K) row-major, B scales (N/128, K/128) row-major), out (M,N) bf16 row-major.

Timing: kernels only. Device durations come from the CUDA profiler (torch.profiler / CUPTI), so
no host work of a wrapper (DeepGEMM's ctypes launch, its TMA descriptors, torch's dispatch) is
counted: a sample is the span from the first to the last kernel of one call. Before every
sample the L2 is made cold outside the timed kernels: a write over --flush-mb MiB, then a
read-only pass over another --flush-mb MiB (gemmbench's L2Flush, src/runner/l2_flush.cu, with
256 MiB in place of 2x L2). Each provider is measured alone in blocks: --warmup-s of its own
sampling loop (flush, call, flush, call, ...) untimed, then --samples timed samples; the blocks
go forward then backward over the providers (A B C C B A), so that a linear drift weighs each
alike (gemmbench's sustained regime, docs/regimes.md, in spirit). The figure is the median of
all of a provider's samples. DeepGEMM's kernels are compiled first, all shapes at once.

Verification, before timing, on an output poisoned with NaN: the normwise error and DeepGEMM's
calc_diff against an fp64 product of the dequantized inputs (each provider against its own
inputs), held to gemmbench's FP8 bound 2*2^-8 + 2^-14*sqrt(min(K,128)) + 2^-24*sqrt(K); and the
quantization error (normwise and calc_diff) against the fp64 product of the unquantized f32
inputs, held to nothing.

Setup on the GPU host, from the repository root (scripts/dev/reference/README.md, "DeepGEMM"):
  mkdir -p /tmp/deepgemm && tar -xzf build-ab/deepgemm.tar.gz -C /tmp/deepgemm
  export PYTHONPATH=/tmp/deepgemm DG_CACHE_DIR=/tmp/deepgemm-jit PYTHONUNBUFFERED=1
  export DG_NVCC_COMPILER=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  python3 scripts/dev/reference/deepgemm_bench.py --out $OUT/deepgemm.jsonl

One JSON line per shape on stdout and in --out (written as each shape ends); progress on stderr.
"""
import argparse
import concurrent.futures
import ctypes
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time

import torch

FP8_MAX = 448.0
SCALE_BLOCK = 128
DEFAULT_M = "64,128,4096"
# DeepSeek-V3's dense layers as (N, K), the shapes of DeepGEMM's README and tests/test_core.py.
DEFAULT_NK = "2112x7168,24576x1536,32768x512,7168x16384,4096x7168,7168x2048"
PROVIDERS = ("deepgemm", "scaled_mm_block", "scaled_mm_tensor")
LEAD = 3  # untimed (flush, call) periods before a block's samples


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--m", default=DEFAULT_M, help="comma list of M (default %(default)s)")
    ap.add_argument("--nk", default=DEFAULT_NK, help="comma list of NxK (default: DeepSeek-V3's)")
    ap.add_argument("--shapes", help="comma list of MxNxK, in place of --m x --nk")
    ap.add_argument("--samples", type=int, default=30, help="timed samples per block (>= 30)")
    ap.add_argument("--blocks", type=int, default=2, help="blocks per provider, forward then back")
    ap.add_argument("--warmup-s", type=float, default=1.0, help="untimed loop before each block")
    ap.add_argument("--flush-mb", type=int, default=256)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--providers", default=",".join(PROVIDERS))
    ap.add_argument("--out", help="also write the JSON lines to this file")
    a = ap.parse_args()

    def fail(msg):
        print(f"deepgemm_bench: {msg}", file=sys.stderr)
        sys.exit(2)

    try:
        if a.shapes:
            a.shapes = [tuple(int(v) for v in s.lower().split("x")) for s in a.shapes.split(",")]
        else:
            nks = [tuple(int(v) for v in s.lower().split("x")) for s in a.nk.split(",")]
            a.shapes = [(m, n, k) for m in (int(v) for v in a.m.split(",")) for n, k in nks]
    except ValueError:
        fail("shapes are MxNxK (--shapes), M (--m) and NxK (--nk), e.g. --shapes 128x2112x7168")
    if any(len(s) != 3 or min(s) <= 0 for s in a.shapes):
        fail(f"bad shape in {a.shapes}: three positive sizes each")
    a.providers = [p for p in a.providers.split(",") if p]
    if not a.providers or any(p not in PROVIDERS for p in a.providers):
        fail(f"--providers {','.join(a.providers)}: accepted are {','.join(PROVIDERS)}")
    if a.samples < 1 or a.blocks < 1 or a.warmup_s < 0 or a.flush_mb < 1:
        fail("--samples, --blocks and --flush-mb must be >= 1, --warmup-s >= 0")
    return a


# ---------------------------------------------------------------- environment


def cublaslt_version():
    # torch has loaded its cuBLASLt already; dlopen of the same soname returns that library.
    for name in ("libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"):
        try:
            lib = ctypes.CDLL(name)
            lib.cublasLtGetVersion.restype = ctypes.c_size_t
            return int(lib.cublasLtGetVersion())
        except (OSError, AttributeError):
            continue
    return None


def environment(deep_gemm):
    p = torch.cuda.get_device_properties(0)
    env = {
        "device": p.name,
        "sms": p.multi_processor_count,
        "l2_bytes": getattr(p, "L2_cache_size", None),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cublaslt": cublaslt_version(),
        "python": platform.python_version(),
    }
    try:
        q = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,power.limit",
             "--format=csv,noheader", "-i", "0"], capture_output=True, text=True, timeout=20)
        env["nvidia_smi"] = q.stdout.strip() or q.stderr.strip()
    except (OSError, subprocess.SubprocessError) as e:
        env["nvidia_smi"] = f"unavailable: {e}"
    if deep_gemm is not None:
        env["deepgemm_path"] = os.path.dirname(deep_gemm.__file__)
        try:
            env["deepgemm_nvcc"] = list(deep_gemm.jit.get_nvcc_compiler())
        except Exception as e:  # the JIT reports its own failure later, per shape
            env["deepgemm_nvcc"] = f"unavailable: {e}"
        try:
            with open(os.path.join(env["deepgemm_path"], "PACKED_FROM")) as f:
                env["deepgemm_packed_from"] = [line.rstrip() for line in f]
        except OSError:
            env["deepgemm_packed_from"] = None
    return env


def dated_environment(deep_gemm):
    """environment() with the run's UTC date: every line a peer script writes carries it."""
    env = environment(deep_gemm)
    env["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return env


def emit(row, out):
    """One JSON line on stdout and in `out` (a file or None), flushed as the case ends."""
    line = json.dumps(row)
    print(line, flush=True)
    if out:
        out.write(line + "\n")
        out.flush()


# ---------------------------------------------------------------- inputs


def quantize(x, rblk, kblk):
    """e4m3 q and f32 scales of x (R,K) in groups of rblk rows x kblk columns, as gemmbench's
    quantize_fp8: s = amax/448 (1 for a group of zeros), q = RN(x / s) saturated to +-448.
    Returns q (R,K) and s (ceil(R/rblk), ceil(K/kblk)), both row-major."""
    r, k = x.shape
    rb, kb = -(-r // rblk), -(-k // kblk)
    xp = torch.zeros((rb * rblk, kb * kblk), dtype=torch.float32, device=x.device)
    xp[:r, :k] = x
    amax = xp.abs_().view(rb, rblk, kb, kblk).amax(dim=(1, 3))
    del xp
    s = torch.where(amax > 0, amax / FP8_MAX, torch.ones_like(amax))
    q = (x / expand(s, rblk, kblk, r, k)).clamp_(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return q, s.contiguous()


def expand(s, rblk, kblk, r, k):
    return s.repeat_interleave(rblk, dim=0)[:r].repeat_interleave(kblk, dim=1)[:, :k]


def dequantized(q, s, rblk, kblk):
    r, k = q.shape
    return q.double() * expand(s.double(), rblk, kblk, r, k)


def col_major_tma_aligned(s):
    """(M, KB) scales with stride (1, M4), M4 = M rounded up to 4 floats (16 bytes): the layout
    DeepGEMM's TMA reads (get_col_major_tma_aligned_tensor, deep_gemm/jit_kernels/utils.py),
    made here so that the timed call does not transpose."""
    m, kb = s.shape
    m4 = -(-m // 4) * 4
    buf = torch.zeros((kb, m4), dtype=torch.float32, device=s.device)
    buf[:, :m] = s.t()
    return buf.t()[:m]


# ---------------------------------------------------------------- verification


def bf16_fp8_tolerance(k):
    # gemmbench's FP8 bound (src/verify/tolerance.hpp): bf16 output, the tensor cores' ~14-bit
    # FP8 accumulator over 128 of K between promotions, f32 accumulation over all of K.
    return 2 * 2.0**-8 + 2.0**-14 * math.sqrt(min(k, 128)) + 2.0**-24 * math.sqrt(k)


def compare(c, r):
    c = c.double()
    d = c - r
    ssd, ssr, ssc = (d * d).sum().item(), (r * r).sum().item(), (c * c).sum().item()
    nonfinite = int((~torch.isfinite(c)).sum().item())
    normwise = math.sqrt(ssd) / math.sqrt(ssr) if ssr > 0 else math.sqrt(ssd)
    return {
        "normwise": None if nonfinite else normwise,  # JSON has no NaN
        # DeepGEMM's calc_diff, 1 - 2<C,R>/(|C|^2+|R|^2), in its cancellation-free form.
        "calc_diff": ssd / (ssc + ssr) if ssc + ssr > 0 else 0.0,
        "max_abs": None if nonfinite else d.abs().max().item(),
        "nonfinite": nonfinite,
    }


# ---------------------------------------------------------------- timing


class L2Flush:
    """gemmbench's cold L2 (src/runner/l2_flush.cu): a write that evicts every line, then a
    read-only pass over a second buffer, so the timed kernel writes back nothing it did not write.
    The read is a row-wise max into 1/4096 of the bytes: block-local, no memset of its own."""

    def __init__(self, mb):
        self.w = torch.empty(mb << 20, dtype=torch.uint8, device="cuda")
        self.r = torch.full(((mb << 20) // 16384, 4096), 0x5A5A5A5A, dtype=torch.int32,
                            device="cuda")
        self.sink = torch.empty(self.r.shape[0], dtype=torch.int32, device="cuda")

    def __call__(self):
        self.w.fill_(1)
        torch.amax(self.r, dim=1, out=self.sink)


def device_events(prof):
    """(name, start_ns, end_ns) of every device-side activity the profiler recorded, by start."""
    try:
        from torch.autograd import DeviceType
    except ImportError:
        from torch._C._autograd import DeviceType
    try:  # the raw records, in ns
        out = [(e.name(), e.start_ns(), e.end_ns()) for e in prof.profiler.kineto_results.events()
               if e.device_type() == DeviceType.CUDA]
    except AttributeError:  # a torch without them: the parsed events, in us
        out = [(e.name, round(e.time_range.start * 1000), round(e.time_range.end * 1000))
               for e in prof.events() if e.device_type == DeviceType.CUDA]
    return sorted(out, key=lambda t: t[1])


def sequence_of(fn, calls=3):
    """The names of the device activities one call of fn makes, in order (the same each call)."""
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    names = [e[0] for e in device_events(prof)]
    per = len(names) // calls
    seq = tuple(names[:per])
    if not names or len(names) % calls or any(tuple(names[i * per:(i + 1) * per]) != seq
                                              for i in range(calls)):
        raise RuntimeError(f"{calls} calls made no repeating sequence of device activities: "
                           f"{names}")
    return seq


def steady_loop(fn, flush, seconds):
    """fn's own sampling loop for at least `seconds` of GPU time, one chunk always queued."""
    t0, prev = time.perf_counter(), None
    while True:
        for _ in range(8):
            flush()
            fn()
        ev = torch.cuda.Event()
        ev.record()
        if prev is not None:
            prev.synchronize()
        prev = ev
        if time.perf_counter() - t0 >= seconds:
            return


def time_block(fn, flush, flush_seq, call_seq, samples, warmup_s):
    """Sample times (ms) of fn, each the span of its kernels after a flush, from the profiler."""
    sched = torch.profiler.schedule(wait=0, warmup=1, active=1, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA],
                                schedule=sched) as prof:
        steady_loop(fn, flush, warmup_s)  # the profiler's warm-up step: traced, then discarded
        prof.step()
        # LEAD more first: the GPU may idle while the profiler switches to recording.
        for _ in range(LEAD + samples):
            flush()
            fn()
        torch.cuda.synchronize()
        prof.step()
    # The trace is (flush, call) x samples, each a known sequence; a name may be in both (a
    # memset), so the split goes by position. Activities of other names are not ours and ignored;
    # anything before the last `samples` periods is the lead or the discarded warm-up step.
    ours = set(flush_seq) | set(call_seq)
    ev = [e for e in device_events(prof) if e[0] in ours]
    period, f = len(flush_seq) + len(call_seq), len(flush_seq)
    if len(ev) < samples * period:
        raise RuntimeError(f"{len(ev)} activities in the profile, expected {samples} x {period}")
    ev = ev[len(ev) - samples * period:]
    times = []
    for i in range(samples):
        chunk = ev[i * period:(i + 1) * period]
        if tuple(e[0] for e in chunk) != tuple(flush_seq) + tuple(call_seq):
            raise RuntimeError(f"sample {i}: activities {[e[0] for e in chunk]} are not "
                               f"flush {list(flush_seq)} then call {list(call_seq)}")
        call = chunk[f:]
        times.append((max(e[2] for e in call) - min(e[1] for e in call)) * 1e-6)
    return times


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


# ---------------------------------------------------------------- providers


def zeros_fp8(shape):
    return torch.zeros(shape, dtype=torch.uint8, device="cuda").view(torch.float8_e4m3fn)


def jit_all(deep_gemm, shapes):
    """Compiles DeepGEMM's kernel for every shape at once (one nvcc each, in threads) through its
    own entry point on zero inputs, so that the per-shape work below finds them built."""
    def one(shape):
        m, n, k = shape
        t0 = time.perf_counter()
        sa = col_major_tma_aligned(torch.ones((m, -(-k // SCALE_BLOCK)), device="cuda"))
        sb = torch.ones((-(-n // SCALE_BLOCK), -(-k // SCALE_BLOCK)), device="cuda")
        out = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
        deep_gemm.gemm_fp8_fp8_bf16_nt((zeros_fp8((m, k)), sa), (zeros_fp8((n, k)), sb), out)
        torch.cuda.synchronize()
        return time.perf_counter() - t0

    results = {}
    workers = max(1, min(len(shapes), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(one, s): s for s in shapes}
        for f in concurrent.futures.as_completed(futures):
            try:
                results[futures[f]] = {"jit_s": round(f.result(), 2)}
            except Exception as e:
                results[futures[f]] = {"error": f"{type(e).__name__}: {e}"}
    return results


def deepgemm_config(deep_gemm, m, n, k):
    try:
        from deep_gemm.jit_kernels.gemm import get_best_configs
        sms, bm, bn, stages, (mc, mc_on_a), smem = get_best_configs(m, n, k, 1,
                                                                    deep_gemm.get_num_sms())
        return {"sms": sms, "block_m": bm, "block_n": bn, "stages": stages,
                "tma_multicast": mc, "multicast_on_a": mc_on_a, "smem": smem}
    except Exception as e:  # a reading for the report, not a precondition
        return f"unavailable: {e}"


def run_shape(a, deep_gemm, jit, flush, flush_seq, m, n, k):
    row = {"tool": "deepgemm_bench", "shape": f"{m}x{n}x{k}", "m": m, "n": n, "k": k,
           "layout": "tn: A (M,K) and B (N,K) K-contiguous, D (M,N) bf16 row-major"}
    prov, errors = {}, {}
    tol = bf16_fp8_tolerance(k)
    flops = 2.0 * m * n * k

    gen = torch.Generator(device="cuda").manual_seed(a.seed)
    x = torch.rand((m, k), generator=gen, device="cuda").mul_(2).sub_(1)
    w = torch.rand((n, k), generator=gen, device="cuda").mul_(2).sub_(1)
    ref_f32 = x.double() @ w.double().t()  # the unquantized product

    calls, skipped = {}, {}
    wanted = set(a.providers)
    if wanted & {"deepgemm", "scaled_mm_block"}:
        qa, sa = quantize(x, 1, SCALE_BLOCK)
        qb, sb = quantize(w, SCALE_BLOCK, SCALE_BLOCK)
        ref_block = dequantized(qa, sa, 1, SCALE_BLOCK) @ dequantized(qb, sb, SCALE_BLOCK,
                                                                       SCALE_BLOCK).t()
        if "deepgemm" in wanted:
            if deep_gemm is None:
                skipped["deepgemm"] = "deep_gemm not importable (PYTHONPATH?)"
            elif "error" in jit.get((m, n, k), {}):
                skipped["deepgemm"] = f"JIT: {jit[(m, n, k)]['error']}"
            elif n % 64 or k % 128:
                skipped["deepgemm"] = "DeepGEMM v1 needs N % 64 == 0 and K % 128 == 0"
            else:
                sa_dg = col_major_tma_aligned(sa)
                if deep_gemm.get_col_major_tma_aligned_tensor(sa_dg) is not sa_dg:
                    raise RuntimeError("DeepGEMM would transpose the A scales inside the call")
                out_dg = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
                calls["deepgemm"] = (
                    lambda: deep_gemm.gemm_fp8_fp8_bf16_nt((qa, sa_dg), (qb, sb), out_dg),
                    out_dg, ref_block)
                row["deepgemm_config"] = deepgemm_config(deep_gemm, m, n, k)
                row["deepgemm_jit_s"] = jit.get((m, n, k), {}).get("jit_s")
        if "scaled_mm_block" in wanted:
            # torch's 1x128 x 128x128 layouts (aten ScaledBlas.cpp, is_blockwise_1x128_scaling and
            # is_blockwise_128x128_scaling): scale_a (M, K/128) M-major, scale_b (K/128, N/128)
            # the transpose of B's row-major block scales; mat2 (K,N) column-major.
            sa_mm = sa.t().contiguous().t()
            qbt, sbt = qb.t(), sb.t()
            out_blk = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
            calls["scaled_mm_block"] = (
                lambda: torch._scaled_mm(qa, qbt, sa_mm, sbt, out_dtype=torch.bfloat16,
                                         out=out_blk), out_blk, ref_block)
    if "scaled_mm_tensor" in wanted:
        qat, sat = quantize(x, m, k)
        qbt_t, sbt_t = quantize(w, n, k)
        ref_tensor = (qat.double() @ qbt_t.double().t()).mul_(sat.double().item() *
                                                              sbt_t.double().item())
        sat0, sbt0, qbt_tt = sat.reshape(()), sbt_t.reshape(()), qbt_t.t()
        out_t = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
        calls["scaled_mm_tensor"] = (
            lambda: torch._scaled_mm(qat, qbt_tt, sat0, sbt0, out_dtype=torch.bfloat16,
                                     out=out_t), out_t, ref_tensor)
    del x, w

    # Verify every provider first (gemmbench: timing starts after), output poisoned with NaN.
    for name in [p for p in a.providers if p in calls]:
        fn, out, ref = calls[name]
        out.fill_(float("nan"))
        try:
            fn()
            torch.cuda.synchronize()
        except Exception as e:
            skipped[name] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            del calls[name]
            continue
        err = compare(out, ref)
        err["tolerance"] = tol
        err["pass"] = err["nonfinite"] == 0 and err["normwise"] <= tol
        q = compare(out, ref_f32)
        err["quant_normwise"], err["quant_calc_diff"] = q["normwise"], q["calc_diff"]
        errors[name] = err
        calls[name] = fn
    ref_f32 = ref_block = ref_tensor = None  # noqa: F841 (free before timing)
    torch.cuda.empty_cache()

    seqs = {}
    for name, fn in list(calls.items()):
        try:
            seqs[name] = sequence_of(fn)
        except Exception as e:
            skipped[name] = f"kernel sequence: {e}"
            del calls[name]

    order = [p for p in a.providers if p in calls]
    samples = {p: [] for p in order}
    block_medians = {p: [] for p in order}
    for b in range(a.blocks):
        for name in (order if b % 2 == 0 else order[::-1]):
            if name not in calls:
                continue
            try:
                t = time_block(calls[name], flush, flush_seq, seqs[name], a.samples,
                               a.warmup_s)
            except Exception as e:
                skipped[name] = f"timing: {type(e).__name__}: {e}"
                del calls[name]
                continue
            samples[name] += t
            block_medians[name].append(round(median(t), 6))

    for name in a.providers:
        p = {}
        if name in skipped:
            p["skipped"] = skipped[name]
        if samples.get(name) and name not in skipped:
            ms = median(samples[name])
            p.update({"median_ms": round(ms, 6), "tflops": round(flops / (ms * 1e-3) / 1e12, 2),
                      "min_ms": round(min(samples[name]), 6), "samples": len(samples[name]),
                      "block_medians_ms": block_medians[name],
                      "kernels": list(seqs[name]),
                      "samples_ms": [round(t, 6) for t in samples[name]]})
            row[f"{name}_ms"] = p["median_ms"]
            row[f"{name}_tflops"] = p["tflops"]
        else:
            row[f"{name}_ms"] = None
        prov[name] = p
    row["errors"] = errors
    row["providers"] = prov
    return row


def main():
    a = parse_args()
    if not torch.cuda.is_available():
        print("deepgemm_bench: no CUDA device", file=sys.stderr)
        return 1
    torch.cuda.init()
    try:
        import deep_gemm
    except ImportError as e:
        log(f"deepgemm_bench: deep_gemm not importable ({e}); set PYTHONPATH to the unpacked "
            "build-ab/deepgemm.tar.gz. Only torch._scaled_mm is measured.")
        deep_gemm = None

    env = dated_environment(deep_gemm)
    method = {
        "timing": "device kernel span per call from the CUDA profiler (CUPTI), median of all "
                  "samples; kernels only, no host work of the wrappers",
        "l2": f"cold: {a.flush_mb} MiB write, then a read-only pass over another {a.flush_mb} MiB, "
              "before each sample",
        "regime": f"blocks {a.blocks} per provider (forward then backward), each {a.warmup_s} s "
                  f"of its own flush+call loop untimed, then {a.samples} samples",
        "inputs": f"f32 uniform [-1,1) (torch.Generator('cuda'), seed {a.seed}); block: A per "
                  "1x128, B per 128x128; tensor: one scale each; s = amax/448, q = RN(x/s) sat.",
        "verification": "normwise vs fp64 of the dequantized inputs, gemmbench's FP8 bound; "
                        "quant_* vs fp64 of the unquantized f32 inputs",
    }
    log(f"deepgemm_bench: {env['device']}, torch {env['torch']}, CUDA {env['cuda']}, "
        f"{len(a.shapes)} shapes, providers {','.join(a.providers)}")

    jit = {}
    if deep_gemm is not None and "deepgemm" in a.providers:
        t0 = time.perf_counter()
        jit = jit_all(deep_gemm, a.shapes)
        bad = {s: r["error"] for s, r in jit.items() if "error" in r}
        log(f"deepgemm_bench: JIT of {len(a.shapes)} shapes in {time.perf_counter() - t0:.1f} s"
            + (f", failed: {bad}" if bad else ""))

    flush = L2Flush(a.flush_mb)
    flush_seq = sequence_of(flush)

    out = open(a.out, "w") if a.out else None
    status = 0
    for m, n, k in a.shapes:
        t0 = time.perf_counter()
        try:
            row = run_shape(a, deep_gemm, jit, flush, flush_seq, m, n, k)
        except Exception as e:
            row = {"tool": "deepgemm_bench", "shape": f"{m}x{n}x{k}", "m": m, "n": n, "k": k,
                   "error": f"{type(e).__name__}: {e}"}
            status = 1
        row["method"], row["env"] = method, env
        emit(row, out)
        errs = row.get("errors", {})
        log(f"  {m}x{n}x{k}: " + ", ".join(
            f"{p} {row.get(p + '_ms')} ms" + (" FAIL" if p in errs and not errs[p]["pass"] else "")
            for p in a.providers) + f" ({time.perf_counter() - t0:.1f} s)")
        torch.cuda.empty_cache()
        try:
            torch.cuda.synchronize()
        except Exception as e:  # a sticky error ends the context: what is written stays
            log(f"deepgemm_bench: CUDA context lost after {m}x{n}x{k}: {e}")
            status = 1
            break
    if out:
        out.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
