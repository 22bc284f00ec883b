// The stop handlers (core/include/core/interrupt.hpp), each case in a forked child so that the
// signals and the handlers' state stay out of the test process.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <ctime>

#include "core/interrupt.hpp"

namespace gemmbench {
namespace {

// Runs body in a child process and returns its wait status.
template <class F>
int in_child(F body) {
  const pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

void sleep_ns(long long ns) {
  timespec t{time_t(ns / 1'000'000'000), long(ns % 1'000'000'000)};
  while (nanosleep(&t, &t) != 0) {
  }
}

TEST(StopSignals, TheSameSignalTwiceAtOnceIsOneRequest) {
  // coreutils `timeout` sends SIGTERM to the command and then to its process group.
  const int status = in_child([] {
    install_stop_handlers();
    raise(SIGTERM);
    raise(SIGTERM);
    _exit(stop_signal().load() == SIGTERM ? 0 : 1);
  });
  ASSERT_TRUE(WIFEXITED(status)) << "the second SIGTERM ended the process";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the first SIGTERM was not recorded";
}

TEST(StopSignals, ASignalAfterTheGraceEndsTheProcess) {
  const int status = in_child([] {
    install_stop_handlers();
    raise(SIGINT);
    sleep_ns(kStopRepeatGraceNs + 200'000'000);
    raise(SIGINT);
    _exit(0);  // not reached
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "a later second SIGINT should end the process at once";
  EXPECT_EQ(WTERMSIG(status), SIGINT);
}

TEST(StopSignals, TheFirstSignalIsTheOneReported) {
  const int status = in_child([] {
    install_stop_handlers();
    raise(SIGINT);
    raise(SIGTERM);  // within the grace: ignored, SIGINT stays the reason
    _exit(stop_signal().load() == SIGINT ? 0 : 1);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace gemmbench
