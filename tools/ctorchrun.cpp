// ctorchrun: a torchrun-like launcher. Starts --nproc-per-node copies of a program with the
// environment torch.distributed's env:// rendezvous reads (MASTER_ADDR, MASTER_PORT, RANK,
// LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK), prefixes every line they print with
// "[rank<N>]:" (torchrun --tee style), and when one rank fails, terminates the others and exits 1
// naming the failed rank and its exit code or signal.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

struct Options {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  bool standalone = false;
  std::vector<std::string> command;
};

[[noreturn]] void usage(const std::string& error) {
  std::cerr << "ctorchrun: error: " << error << "\n"
            << "usage: ctorchrun --nproc-per-node N [--nnodes 1] [--node-rank 0] [--master-addr 127.0.0.1]\n"
            << "                 [--master-port 29500] [--standalone] program [args...]\n";
  std::exit(2);
}

int to_int(const std::string& flag, const std::string& value) {
  try {
    size_t pos = 0;
    const int v = std::stoi(value, &pos);
    if (pos == value.size()) return v;
  } catch (const std::exception&) {
  }
  usage("argument " + flag + ": invalid int value: '" + value + "'");
}

Options parse(int argc, char** argv) {
  Options o;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) break;
    std::string value;
    bool has_value = false;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    for (char& c : arg) {
      if (c == '_') c = '-';
    }
    if (arg == "--standalone") {
      o.standalone = true;
      continue;
    }
    if (arg == "--help") usage("help requested");
    if (!has_value) {
      if (i + 1 >= argc) usage("argument " + arg + ": expected one argument");
      value = argv[++i];
    }
    if (arg == "--nproc-per-node") {
      o.nproc_per_node = to_int(arg, value);
    } else if (arg == "--nnodes") {
      o.nnodes = to_int(arg, value);
    } else if (arg == "--node-rank") {
      o.node_rank = to_int(arg, value);
    } else if (arg == "--master-addr") {
      o.master_addr = value;
    } else if (arg == "--master-port") {
      o.master_port = to_int(arg, value);
    } else {
      usage("unrecognized argument: " + arg);
    }
  }
  for (; i < argc; ++i) o.command.push_back(argv[i]);
  if (o.command.empty()) usage("the following arguments are required: training_script");
  if (o.nproc_per_node < 1) usage("--nproc-per-node must be >= 1, got " + std::to_string(o.nproc_per_node));
  if (o.nnodes < 1) usage("--nnodes must be >= 1, got " + std::to_string(o.nnodes));
  if (o.node_rank < 0 || o.node_rank >= o.nnodes) {
    usage("--node-rank must be in [0, " + std::to_string(o.nnodes - 1) + "], got " + std::to_string(o.node_rank));
  }
  if (o.master_port < 0 || o.master_port > 65535) usage("--master-port must be in [0, 65535]");
  if (o.standalone && o.nnodes != 1) usage("--standalone needs --nnodes 1");
  return o;
}

// A free TCP port on this host (the kernel's choice for port 0).
int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::cerr << "ctorchrun: cannot find a free port: " << std::strerror(errno) << "\n";
    std::exit(1);
  }
  ::close(s);
  return ntohs(addr.sin_port);
}

struct Rank {
  int rank = 0;
  int local_rank = 0;
  pid_t pid = -1;
  int out = -1;  // read ends of the child's stdout and stderr
  int err = -1;
  std::string out_buf, err_buf;
  std::optional<int> status;  // waitpid status once exited
};

void forward_lines(std::string& buf, const std::string& prefix, FILE* to, bool flush_all) {
  size_t start = 0;
  for (;;) {
    const size_t nl = buf.find('\n', start);
    if (nl == std::string::npos) break;
    std::fprintf(to, "%s%.*s\n", prefix.c_str(), static_cast<int>(nl - start), buf.data() + start);
    start = nl + 1;
  }
  buf.erase(0, start);
  if (flush_all && !buf.empty()) {
    std::fprintf(to, "%s%s\n", prefix.c_str(), buf.c_str());
    buf.clear();
  }
  std::fflush(to);
}

// Reads what is available on fd; false at end of file.
bool drain(int& fd, std::string& buf) {
  char tmp[4096];
  const ssize_t n = ::read(fd, tmp, sizeof(tmp));
  if (n > 0) {
    buf.append(tmp, static_cast<size_t>(n));
    return true;
  }
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  ::close(fd);
  fd = -1;
  return false;
}

std::string describe(int status) {
  if (WIFEXITED(status)) return std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return std::to_string(-sig) + ", signal " + std::to_string(sig) + " (SIG" + (name ? name : "?") + ")";
  }
  return "status " + std::to_string(status);
}

volatile sig_atomic_t g_signal = 0;
int g_child_pipe[2] = {-1, -1};  // SIGCHLD wakes the poll loop at once (the first failure is seen first)
void on_signal(int sig) { g_signal = sig; }
void on_child(int) {
  const int saved = errno;
  const char c = 0;
  (void)!::write(g_child_pipe[1], &c, 1);
  errno = saved;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (o.standalone) {
    o.master_addr = "127.0.0.1";
    o.master_port = free_port();
  }
  const int world_size = o.nnodes * o.nproc_per_node;
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  if (::pipe2(g_child_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::perror("ctorchrun: pipe");
    return 1;
  }
  struct sigaction sc{};
  sc.sa_handler = on_child;
  sc.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  ::sigaction(SIGCHLD, &sc, nullptr);

  sigset_t wanted;  // a parent may have blocked them: ctorchrun needs SIGCHLD, SIGTERM and SIGINT
  sigemptyset(&wanted);
  sigaddset(&wanted, SIGCHLD);
  sigaddset(&wanted, SIGTERM);
  sigaddset(&wanted, SIGINT);
  ::sigprocmask(SIG_UNBLOCK, &wanted, nullptr);
  std::vector<Rank> ranks(static_cast<size_t>(o.nproc_per_node));
  for (int lr = 0; lr < o.nproc_per_node; ++lr) {
    Rank& r = ranks[static_cast<size_t>(lr)];
    r.local_rank = lr;
    r.rank = o.node_rank * o.nproc_per_node + lr;
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
      std::perror("ctorchrun: pipe");
      return 1;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      std::perror("ctorchrun: fork");
      return 1;
    }
    if (pid == 0) {
      ::setpgid(0, 0);  // its own process group: terminating a rank reaches its children too
      // Default signal handling, whatever ctorchrun's parent blocked or ignored (SIGPIPE is ignored here).
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGCHLD}) ::signal(sig, SIG_DFL);
      ::dup2(out[1], STDOUT_FILENO);
      ::dup2(err[1], STDERR_FILENO);
      ::setenv("MASTER_ADDR", o.master_addr.c_str(), 1);
      ::setenv("MASTER_PORT", std::to_string(o.master_port).c_str(), 1);
      ::setenv("RANK", std::to_string(r.rank).c_str(), 1);
      ::setenv("LOCAL_RANK", std::to_string(lr).c_str(), 1);
      ::setenv("WORLD_SIZE", std::to_string(world_size).c_str(), 1);
      ::setenv("LOCAL_WORLD_SIZE", std::to_string(o.nproc_per_node).c_str(), 1);
      ::setenv("GROUP_RANK", std::to_string(o.node_rank).c_str(), 1);
      ::setenv("ROLE_RANK", std::to_string(r.rank).c_str(), 1);
      ::setenv("ROLE_WORLD_SIZE", std::to_string(world_size).c_str(), 1);
      std::vector<char*> args;
      for (std::string& a : o.command) args.push_back(a.data());
      args.push_back(nullptr);
      ::execvp(args[0], args.data());
      std::fprintf(stderr, "ctorchrun: cannot execute %s: %s\n", args[0], std::strerror(errno));
      std::_Exit(127);
    }
    ::setpgid(pid, pid);
    ::close(out[1]);
    ::close(err[1]);
    r.pid = pid;
    r.out = out[0];
    r.err = err[0];
  }

  std::optional<size_t> failed;  // the first rank observed failing
  std::optional<std::chrono::steady_clock::time_point> kill_deadline;
  std::optional<std::chrono::steady_clock::time_point> all_exited_at;
  auto terminate_all = [&](int sig) {
    for (Rank& r : ranks) {
      if (!r.status) ::kill(-r.pid, sig);
    }
  };
  for (;;) {
    std::vector<pollfd> fds{{g_child_pipe[0], POLLIN, 0}};
    std::vector<std::pair<size_t, bool>> owner{{0, false}};  // (rank, is_stderr); [0] is the SIGCHLD pipe
    for (size_t i = 0; i < ranks.size(); ++i) {
      if (ranks[i].out >= 0) {
        fds.push_back({ranks[i].out, POLLIN, 0});
        owner.push_back({i, false});
      }
      if (ranks[i].err >= 0) {
        fds.push_back({ranks[i].err, POLLIN, 0});
        owner.push_back({i, true});
      }
    }
    ::poll(fds.data(), fds.size(), 50);
    if (fds[0].revents) {
      char tmp[64];
      while (::read(g_child_pipe[0], tmp, sizeof(tmp)) > 0) {
      }
    }
    for (size_t k = 1; k < fds.size(); ++k) {
      if (!fds[k].revents) continue;
      Rank& r = ranks[owner[k].first];
      const std::string prefix = "[rank" + std::to_string(r.rank) + "]:";
      if (owner[k].second) {
        const bool open = drain(r.err, r.err_buf);
        forward_lines(r.err_buf, prefix, stderr, !open);
      } else {
        const bool open = drain(r.out, r.out_buf);
        forward_lines(r.out_buf, prefix, stdout, !open);
      }
    }
    bool all_done = true;
    for (size_t i = 0; i < ranks.size(); ++i) {
      Rank& r = ranks[i];
      if (!r.status) {
        int status = 0;
        if (::waitpid(r.pid, &status, WNOHANG) == r.pid) {
          r.status = status;
          const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
          if (!ok && !failed) {
            failed = i;
            std::fprintf(stderr, "ctorchrun: ERROR: rank %d (local_rank: %d, pid: %d) failed (exitcode: %s); terminating the "
                         "other ranks\n", r.rank, r.local_rank, static_cast<int>(r.pid), describe(status).c_str());
            std::fflush(stderr);
            terminate_all(SIGTERM);
            kill_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
          }
        }
      }
      if (!r.status || r.out >= 0 || r.err >= 0) all_done = false;
    }
    if (g_signal && !kill_deadline) {
      std::fprintf(stderr, "ctorchrun: received signal %d; terminating the ranks\n", static_cast<int>(g_signal));
      terminate_all(SIGTERM);
      kill_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    }
    if (kill_deadline && std::chrono::steady_clock::now() > *kill_deadline) {
      terminate_all(SIGKILL);
      kill_deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
    }
    if (all_done) break;
    // Every rank exited but a process they started still holds a pipe open: stop reading after 1 s.
    bool all_exited = true;
    for (const Rank& r : ranks) all_exited = all_exited && r.status.has_value();
    if (all_exited && !all_exited_at) all_exited_at = std::chrono::steady_clock::now();
    if (all_exited_at && std::chrono::steady_clock::now() - *all_exited_at > std::chrono::seconds(1)) {
      for (Rank& r : ranks) {
        const std::string prefix = "[rank" + std::to_string(r.rank) + "]:";
        forward_lines(r.out_buf, prefix, stdout, true);
        forward_lines(r.err_buf, prefix, stderr, true);
      }
      break;
    }
  }
  if (failed) {
    const Rank& r = ranks[*failed];
    std::fprintf(stderr,
                 "ctorchrun: ChildFailedError: %s FAILED\nRoot Cause (first observed failure):\n  rank      : %d "
                 "(local_rank: %d)\n  exitcode  : %s (pid: %d)\n",
                 o.command[0].c_str(), r.rank, r.local_rank, describe(*r.status).c_str(), static_cast<int>(r.pid));
    return 1;
  }
  if (g_signal) return 128 + g_signal;
  return 0;
}
