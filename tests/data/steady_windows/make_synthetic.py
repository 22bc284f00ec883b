#!/usr/bin/env python3
"""Writes the synthetic window traces of this folder (README.md has the format).

Each trace models what SteadyDetector::add receives during a group's preconditioning: windows of
about 0.1 s of wall time (run_loop stops at the first batch past 0.1 s, so each window is 0.1 s
plus up to a batch of ~10 ms), and for each the median event time, taken as the time at the
window's midpoint times (1 + noise). The times are

    base * (1 + transient(t) + drift(t) + swing(t))

where the swing is a triangle wave: a power controller that steps the clock down while the board
is over its cap and up while under it, at a bounded rate, moves the clock (and the event times)
up and down in ramps. None of these were measured: they are shaped after issue 52 (an FP8 group
at the 700 W cap whose 0.1 s windows were still 4.4% apart after 8 s) and stand in until a
recorded trace is added beside them. The swing is made steep enough (1.6% or more per 0.1 s
window) that three windows never agree, as they never did in the issue: a smooth 1 s sine of
+/-3% would not reproduce that (three windows around each of its peaks agree within 0.6%), so the
swing on the board was steeper or faster than such a sine; a recording will say which.
Seeded, so a rerun writes the same files: python3 make_synthetic.py
"""
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
BASE_MS = 0.85  # an 8192^3 FP8 GEMM at the cap takes about this
LENGTH_S = 8.3  # past kPreconditionRule's 8 s bound


def cap_transient(t, depth=0.10, tau=0.3):
    # A board that had run something lighter: faster first, times rising to the cap level.
    return -depth * math.exp(-t / tau)


def trace(name, note, level, seed, noise, expect):
    rng = random.Random(seed)
    windows, t = [], 0.0
    while t < LENGTH_S:
        t1 = t + 0.1 + rng.uniform(0.0, 0.01)
        mid = (t + t1) / 2
        ms = BASE_MS * level(mid) * (1 + rng.gauss(0.0, noise))
        windows.append([round(t1, 4), round(ms, 6)])
        t = t1
    doc = {
        "note": note,
        "source": "synthetic",
        "rule": "precondition",
        "windows": windows,
        "expect": expect,
    }
    # One window a line, so that a diff of a trace reads.
    lines = ["{"]
    for key in ("note", "source", "rule", "expect"):
        lines.append(f"  {json.dumps(key)}: {json.dumps(doc[key])},")
    lines.append('  "windows": [')
    lines += [f"    {json.dumps(w)}," for w in windows]
    lines[-1] = lines[-1].rstrip(",")
    lines += ["  ]", "}"]
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        f.write("\n".join(lines) + "\n")


def swing(amp, period, phase=0.4):
    # Triangle wave of amplitude amp: ramps of 4 * amp per period.
    return lambda t: amp * (2 / math.pi) * math.asin(math.sin(2 * math.pi * t / period + phase))


def main():
    common = "Synthetic (tests/data/steady_windows/make_synthetic.py), not measured. "
    for name, amp, period, seed, by in [
        ("synthetic_cap_swing_1s", 0.04, 1.0, 1, 5.0),
        ("synthetic_cap_swing_0p7s", 0.04, 0.7, 2, 5.0),
        ("synthetic_cap_swing_1p5s", 0.06, 1.5, 3, 7.5),
    ]:
        s = swing(amp, period)
        trace(name,
              common + f"A board at its power cap: after a 0.3 s rise from 10% faster, a flat mean "
              f"with a +/-{amp:.0%} triangle swing of period {period} s, 0.15% noise per window. Steady "
              "by the long spans well before the 8 s bound; the 0.1 s windows never agree.",
              lambda t, s=s: 1 + cap_transient(t) + s(t), seed, 0.0015,
              {"end": "agreed", "test": "spans", "by_s": by})
    trace("synthetic_quiet_flat",
          common + "A quiet board (memory-bound shape, below the cap): flat, 0.1% noise. Steady "
          "by the short windows at the minimum time, as before the span test.",
          lambda t: 1.0, 4, 0.001, {"end": "agreed", "test": "windows", "by_s": 1.15})
    s = swing(0.04, 0.8)
    trace("synthetic_exp_settle_swing",
          common + "A board still settling: times 5% below their final level, closing "
          "exponentially with tau 1 s (5%/s at first), under a +/-4% triangle swing of period "
          "0.8 s and 0.15% noise. Not steady while the drift is above 0.25%/s (before 3.0 s).",
          lambda t: 1 - 0.05 * math.exp(-t) + s(t), 5, 0.0015,
          {"end": "agreed", "not_before_s": 3.0, "by_s": 7.0})
    s = swing(0.04, 0.8)
    trace("synthetic_linear_climb_swing",
          common + "A board whose times climb 1%/s for the whole trace, under a +/-4% triangle "
          "swing of period 0.8 s and 0.15% noise: never steady, the 8 s bound ends it.",
          lambda t: 1 + 0.01 * t + s(t), 6, 0.0015, {"end": "bound"})
    s = swing(0.04, 1.0)
    trace("synthetic_cap_swing_drifting_mean",
          common + "A board at its cap whose mean still climbs 0.4%/s until 5 s, then holds, "
          "under a +/-4% triangle swing of period 1 s and 0.15% noise. Three 1 s span means climbing "
          "0.4% each are within 1% of each other: only the trend bound keeps it going until "
          "the climb has stopped.",
          lambda t: 1 + 0.004 * min(t, 5.0) + s(t), 7, 0.0015,
          {"end": "agreed", "test": "spans", "not_before_s": 5.0, "by_s": 8.0})


if __name__ == "__main__":
    main()
