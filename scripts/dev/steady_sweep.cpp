// How much drift each steady-state test of kPreconditionRule lets through under a power-cap
// swing, on synthetic windows (docs/regimes.md quotes its table). Host-only; build by hand:
//   g++ -std=c++20 -O2 -Isrc -DFMT_HEADER_ONLY scripts/dev/steady_sweep.cpp src/stats/regime.cpp \
//       -o /tmp/steady_sweep && /tmp/steady_sweep
// Windows of 0.1-0.11 s; times 1 - 10% e^(-t/0.3 s) (a board reaching its cap) + d t (a steady
// climb) + a triangle swing of amplitude A and period P + 0.15% Gaussian noise; 16 phases (and
// noise seeds) per case. For each (A, P): the latest a flat board (d = 0) was found steady over
// the phases, and the largest climb d (steps of 0.05%/s up to 3%/s) that some phase let through,
// by the span test alone (window test off) and by the window test alone (span test off).
#include <cmath>
#include <cstdio>
#include <random>

#include "stats/regime.hpp"

using namespace gemmbench;

namespace {

// Seconds until the detector agreed, or -1.
double agreed_at(const SteadyRule& rule, double climb, double amp, double period, int phase) {
  std::mt19937 rng(phase);
  std::normal_distribution<double> noise(0, 0.0015);
  SteadyDetector d(rule);
  double t = 0;
  while (t < 8.5) {
    const double t1 = t + 0.1 + 0.01 * double(rng() % 100) / 100.0, mid = (t + t1) / 2;
    const double swing =
        amp * 2 / M_PI * std::asin(std::sin(2 * M_PI * mid / period + 0.39 * phase));
    d.add(1 - 0.1 * std::exp(-mid / 0.3) + climb * mid + swing + noise(rng), t1);
    t = t1;
    if (const auto end = d.done()) return *end == SteadyEnd::agreed ? t : -1;
  }
  return -1;
}

// The largest climb some phase let through under `rule`.
double largest_climb(const SteadyRule& rule, double amp, double period) {
  double largest = 0;
  for (double climb = 0.0005; climb <= 0.03 + 1e-9; climb += 0.0005)
    for (int phase = 0; phase < 16; ++phase)
      if (agreed_at(rule, climb, amp, period, phase) >= 0) {
        largest = climb;
        break;
      }
  return largest;
}

}  // namespace

int main() {
  SteadyRule spans_only = kPreconditionRule, windows_only = kPreconditionRule;
  spans_only.windows = 1000;  // more windows than a loop has: the window test never holds
  windows_only.span_s = 0;
  std::printf("swing   period  flat steady by (both tests)  largest climb let through (%%/s)\n");
  std::printf("                                             spans alone  windows alone\n");
  for (double amp : {0.02, 0.04, 0.06})
    for (double period : {0.5, 0.7, 1.0, 1.3, 1.6, 2.0}) {
      double latest = 0;
      int never = 0;
      for (int phase = 0; phase < 16; ++phase) {
        const double at = agreed_at(kPreconditionRule, 0, amp, period, phase);
        if (at < 0) ++never;
        latest = std::max(latest, at);
      }
      std::printf("+/-%.0f%%  %.1f s   %5.2f s (never: %2d of 16)     %5.2f        %5.2f\n",
                  100 * amp, period, latest, never, 100 * largest_climb(spans_only, amp, period),
                  100 * largest_climb(windows_only, amp, period));
    }
}
