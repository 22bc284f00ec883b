// SIGINT/SIGTERM as a request to stop: the runner finishes the sample in flight, reports the row
// with the samples it has, and the reporters close their files with the summary marked
// interrupted. The same signal again within kStopRepeatGraceNs of the first is the same request
// and is ignored: coreutils `timeout` signals the command and then its whole process group, so a
// command run under it receives the signal twice at once (with the handler reset after the first,
// the second killed the run and lost its summary and the row in flight). A signal after that ends
// the process at once (the default action), as a second Ctrl-C should.
#pragma once

#include <atomic>
#include <csignal>
#include <ctime>

namespace gemmbench {

// The signal that asked the run to stop, or 0.
inline std::atomic<int>& stop_signal() {
  static std::atomic<int> sig{0};
  return sig;
}
inline bool stop_requested() {
  return stop_signal().load(std::memory_order_relaxed) != 0;
}

inline constexpr long long kStopRepeatGraceNs = 1'000'000'000;  // 1 s

// When the first signal came (CLOCK_MONOTONIC, ns).
inline std::atomic<long long>& stop_signal_time_ns() {
  static std::atomic<long long> t{0};
  return t;
}

// Async-signal-safe: lock-free atomics, clock_gettime, signal and raise only.
inline void on_stop_signal(int sig) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const long long now = (long long)ts.tv_sec * 1'000'000'000 + ts.tv_nsec;
  int none = 0;
  if (stop_signal().compare_exchange_strong(none, sig)) {
    stop_signal_time_ns().store(now);
    return;
  }
  if (now - stop_signal_time_ns().load() < kStopRepeatGraceNs) return;  // the same request
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

inline void install_stop_handlers() {
  static_assert(
      std::atomic<int>::is_always_lock_free && std::atomic<long long>::is_always_lock_free,
      "the handler's atomics must be lock-free to be async-signal-safe");
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// "SIGINT", "SIGTERM", "" for 0, else "signal N".
inline const char* signal_name(int sig) {
  switch (sig) {
    case 0:
      return "";
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "signal";
  }
}

// The shell's convention: 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
inline int exit_code_for_signal(int sig) {
  return 128 + sig;
}

}  // namespace gemmbench
