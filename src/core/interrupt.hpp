// SIGINT/SIGTERM as a request to stop: the runner finishes the sample in flight, reports the row
// with the samples it has, and the reporters close their files with the summary marked
// interrupted. A second signal is not caught (SA_RESETHAND): it ends the process at once.
#pragma once

#include <atomic>
#include <csignal>

namespace gemmbench {

// The signal that asked the run to stop, or 0.
inline std::atomic<int>& stop_signal() {
  static std::atomic<int> sig{0};
  return sig;
}
inline bool stop_requested() {
  return stop_signal().load(std::memory_order_relaxed) != 0;
}

inline void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = [](int sig) { stop_signal().store(sig, std::memory_order_relaxed); };
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
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
