#include "fleet/workers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "core/interrupt.hpp"

namespace gemmbench::fleet {

namespace {

constexpr const char* kProgressPrefix = "gemmbench-progress ";

using Clock = std::chrono::steady_clock;

struct Stream {
  int fd = -1;
  std::string pending;  // a line not yet ended
};

struct Live {
  pid_t pid = -1;
  Stream out, err;
  bool exited = false;
  WorkerExit exit;
  Clock::time_point start;
};

[[noreturn]] void child_exec(const std::vector<std::string>& argv, int out_fd, int err_fd,
                             pid_t parent) {
  // Only async-signal-safe calls from here to execv: the parent may have other threads.
  setpgid(0, 0);  // a terminal's Ctrl-C reaches the parent only, which forwards it once
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);  // a shell's `cmd &` leaves SIGINT ignored: undo that
  sigaction(SIGTERM, &sa, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  const char* msg = "gemmbench: cannot start worker ";
  [[maybe_unused]] ssize_t w = write(STDERR_FILENO, msg, strlen(msg));
  w = write(STDERR_FILENO, args[0], strlen(args[0]));
  w = write(STDERR_FILENO, ": ", 2);
  const char* why = strerror(errno);
  w = write(STDERR_FILENO, why, strlen(why));
  w = write(STDERR_FILENO, "\n", 1);
  _exit(127);
}

void dispatch(size_t worker, const std::string& line, WorkerObserver& obs) {
  if (const auto p = parse_progress_line(line))
    obs.on_progress(worker, *p);
  else
    obs.on_line(worker, line);
}

// Reads what is there; false at end of file (the stream is then closed).
bool drain(Stream& s, size_t worker, WorkerObserver& obs) {
  char buf[4096];
  for (;;) {
    const ssize_t n = read(s.fd, buf, sizeof(buf));
    if (n > 0) {
      s.pending.append(buf, size_t(n));
      for (size_t nl; (nl = s.pending.find('\n')) != std::string::npos;) {
        dispatch(worker, s.pending.substr(0, nl), obs);
        s.pending.erase(0, nl + 1);
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    // End of file (or an error, which ends the stream all the same).
    if (!s.pending.empty()) dispatch(worker, s.pending, obs);
    s.pending.clear();
    close(s.fd);
    s.fd = -1;
    return false;
  }
}

}  // namespace

std::string progress_line(size_t row, size_t total, const std::string& what) {
  return fmt::format("{}{} {} {}", kProgressPrefix, row, total, what);
}

std::optional<WorkerProgress> parse_progress_line(const std::string& line) {
  const std::string prefix = kProgressPrefix;
  if (line.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  WorkerProgress p;
  size_t used = 0;
  const std::string rest = line.substr(prefix.size());
  try {
    p.row = std::stoul(rest, &used);
    const std::string after = rest.substr(used);
    size_t used2 = 0;
    p.total = std::stoul(after, &used2);
    p.what = after.substr(used2);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!p.what.empty() && p.what[0] == ' ') p.what.erase(0, 1);
  return p;
}

std::vector<WorkerExit> run_workers(const std::vector<WorkerSpec>& specs, WorkerObserver& obs) {
  std::vector<Live> live(specs.size());
  const pid_t self = getpid();
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].argv.empty()) throw std::invalid_argument("run_workers: a worker without argv");
    int out[2], err[2];
    // O_CLOEXEC: a worker must not hold the other workers' pipes, or their ends never come.
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe: ") + strerror(errno));
    live[i].start = Clock::now();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + strerror(errno));
    if (pid == 0) child_exec(specs[i].argv, out[1], err[1], self);
    close(out[1]);
    close(err[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    live[i].pid = pid;
    live[i].out.fd = out[0];
    live[i].err.fd = err[0];
  }

  bool forwarded = false;
  for (;;) {
    if (!forwarded && stop_requested()) {
      forwarded = true;
      const int sig = stop_signal().load();
      for (Live& w : live)
        if (!w.exited) kill(w.pid, sig);
      obs.on_stop(sig);
    }
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, Stream*>> owners;
    for (size_t i = 0; i < live.size(); ++i)
      for (Stream* s : {&live[i].out, &live[i].err})
        if (s->fd >= 0) {
          fds.push_back(pollfd{s->fd, POLLIN, 0});
          owners.emplace_back(i, s);
        }
    if (!fds.empty()) {
      const int ready = poll(fds.data(), fds.size(), 100);
      if (ready < 0 && errno != EINTR)
        throw std::runtime_error(std::string("poll: ") + strerror(errno));
      for (size_t k = 0; ready > 0 && k < fds.size(); ++k)
        if (fds[k].revents) drain(*owners[k].second, owners[k].first, obs);
    }
    bool all_done = true;
    for (size_t i = 0; i < live.size(); ++i) {
      Live& w = live[i];
      if (!w.exited) {
        int status = 0;
        const pid_t r = waitpid(w.pid, &status, WNOHANG);
        if (r == w.pid) {
          w.exited = true;
          w.exit.wall_s = std::chrono::duration<double>(Clock::now() - w.start).count();
          if (WIFEXITED(status)) w.exit.exit_code = WEXITSTATUS(status);
          if (WIFSIGNALED(status)) w.exit.signal = WTERMSIG(status);
          // It has ended: what it wrote is in the pipes; read it all before saying so.
          // (drain returns true at EAGAIN: nothing more comes from an ended process unless a
          // child of its own holds the pipe, which a worker does not have.)
          for (Stream* s : {&w.out, &w.err})
            if (s->fd >= 0 && drain(*s, i, obs)) {
              if (!s->pending.empty()) dispatch(i, s->pending, obs);
              s->pending.clear();
              close(s->fd);
              s->fd = -1;
            }
          obs.on_exit(i, w.exit);
        } else if (r < 0 && errno != EINTR) {
          throw std::runtime_error(std::string("waitpid: ") + strerror(errno));
        }
      }
      all_done = all_done && w.exited;
    }
    if (all_done) break;
    if (fds.empty()) usleep(20000);  // pipes closed, the process not yet reaped
  }
  std::vector<WorkerExit> out;
  for (const Live& w : live) out.push_back(w.exit);
  return out;
}

}  // namespace gemmbench::fleet
