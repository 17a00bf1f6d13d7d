// torch.cuda.Event interprocess handles: ipc_handle / from_ipc_handle within one process and
// across two. The cross-process tests spawn /proc/self/exe running CudaEventIpcChild.Run (which
// skips unless CTORCH_TEST_IPC_MODE is set) and talk to it over two pipes; every wait is bounded.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "ctorch/cuda_event.h"
#include "ctorch/torch.h"
#include "device/device_test.h"
#include "device/stream_test_util.h"
#include "test_util.h"

extern char** environ;

namespace ctorch::testing {
namespace {

constexpr const char* kModeEnv = "CTORCH_TEST_IPC_MODE";
constexpr const char* kHandleEnv = "CTORCH_TEST_IPC_EVENT";
constexpr int kChildReadFd = 100;   // parent -> child
constexpr int kChildWriteFd = 101;  // child -> parent
constexpr auto kTimeout = std::chrono::seconds(30);

std::string to_hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// One byte from `fd`, or 0 on timeout or end of file.
char read_byte(int fd, std::chrono::milliseconds timeout = kTimeout) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(timeout.count())) != 1) return 0;
  char c = 0;
  return read(fd, &c, 1) == 1 ? c : 0;
}

// A '\n'-terminated line from `fd` (without the '\n'); empty on timeout or end of file.
std::string read_line(int fd) {
  std::string line;
  for (char c; (c = read_byte(fd)) != 0 && c != '\n';) line += c;
  return line;
}

void write_text(int fd, const std::string& text) {
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

// Runs `f` on a detached thread; true when it returned within `timeout` (rethrows its error).
bool finishes_within(std::function<void()> f, std::chrono::milliseconds timeout = kTimeout) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> result = done->get_future();
  std::thread([f = std::move(f), done] {
    try {
      f();
      done->set_value();
    } catch (...) {
      done->set_exception(std::current_exception());
    }
  }).detach();
  if (result.wait_for(timeout) != std::future_status::ready) return false;
  result.get();
  return true;
}

using ::ctorch::testing::error_of;

/// A child process running CudaEventIpcChild.Run in `mode`.
struct Child {
  pid_t pid = -1;
  int to_child = -1;
  int from_child = -1;

  Child(const std::string& mode, const std::string& handle_hex) {
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, down[0], kChildReadFd);
    posix_spawn_file_actions_adddup2(&actions, up[1], kChildWriteFd);
    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e) {
      if (std::strncmp(*e, "CTORCH_TEST_IPC_", 16) != 0) env_strings.emplace_back(*e);
    }
    env_strings.push_back(std::string(kModeEnv) + "=" + mode);
    env_strings.push_back(std::string(kHandleEnv) + "=" + handle_hex);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string exe = "/proc/self/exe", filter = "--gtest_filter=CudaEventIpcChild.Run";
    char* argv[] = {exe.data(), filter.data(), nullptr};
    const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(down[0]);
    close(up[1]);
    to_child = down[1];
    from_child = up[0];
    if (rc != 0) pid = -1;
  }
  ~Child() {
    if (pid > 0) finish(std::chrono::milliseconds(0));
    close(to_child);
    close(from_child);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  /// Waits for the child's exit within `timeout` (then kills it); its exit code, -1 when killed.
  int finish(std::chrono::milliseconds timeout = kTimeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        pid = -1;
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

class CudaEventIpcTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    if (GetParam() == Backend::Cpu) GTEST_SKIP() << "cuda only";
    cuda::set_device(0);
  }
  bool emulated() const { return GetParam() == Backend::Emulated; }
};

TEST_P(CudaEventIpcTest, HandleRoundTrip) {
  cuda::set_device(1);
  const cuda::Event e(false, false, true);
  const cuda::IpcEventHandle h = e.ipc_handle();
  ASSERT_EQ(h.size(), 64u);
  EXPECT_TRUE(e.is_created()) << "ipc_handle() creates the event";
  EXPECT_EQ(e.device(), Device("cuda:1")) << "on the current device";
  EXPECT_EQ(e.ipc_handle(), h) << "the handle is stable";
  EXPECT_TRUE(e.query());
  const cuda::Event opened = cuda::Event::from_ipc_handle(Device("cuda:1"), h);
  EXPECT_TRUE(opened.is_created());
  EXPECT_EQ(opened.device(), Device("cuda:1"));
  EXPECT_NE(opened.cuda_event(), e.cuda_event()) << "a separate handle of the same event";
  EXPECT_FALSE(opened.enable_timing());
  EXPECT_TRUE(opened.query()) << "never recorded";
  opened.synchronize();
  opened.wait(cuda::Stream(0));  // nothing recorded: no-op
  EXPECT_EQ(opened.ipc_handle(), h);
  const cuda::Event current = cuda::Event::from_ipc_handle(Device("cuda"), h);
  EXPECT_EQ(current.device(), Device("cuda:1")) << "no index: the current device";
}

TEST_P(CudaEventIpcTest, WaitingOnTheOpenedEventWaitsForTheOriginalsWork) {
  if (!emulated()) GTEST_SKIP() << "needs the emulated gate";
  const cuda::Stream producer(0), consumer(0), other_device(1);
  const cuda::Event e(false, false, true);
  const cuda::Event opened = cuda::Event::from_ipc_handle(Device("cuda:0"), e.ipc_handle());
  Gate gate;
  gate.block(producer);
  e.record(producer);
  EXPECT_FALSE(opened.query()) << "the recorded work is held by the gate";
  EXPECT_FALSE(e.query());
  opened.wait(consumer);
  opened.wait(other_device);  // any device may wait
  EXPECT_FALSE(consumer.query()) << "the consumer waits for the original's record";
  EXPECT_FALSE(other_device.query());
  gate.open();
  ASSERT_TRUE(finishes_within([opened] { opened.synchronize(); }));
  EXPECT_TRUE(opened.query());
  EXPECT_TRUE(e.query());
  ASSERT_TRUE(finishes_within([consumer, other_device] {
    consumer.synchronize();
    other_device.synchronize();
  }));
}

TEST_P(CudaEventIpcTest, RecordingTheOpenedEventIsSeenByTheOriginal) {
  if (!emulated()) GTEST_SKIP() << "needs the emulated gate";
  const cuda::Stream s(0), waiter(0);
  const cuda::Event e(false, false, true);
  const cuda::Event opened = cuda::Event::from_ipc_handle(Device("cuda:0"), e.ipc_handle());
  Gate gate;
  gate.block(s);
  opened.record(s);
  EXPECT_FALSE(e.query());
  e.wait(waiter);
  EXPECT_FALSE(waiter.query());
  EXPECT_THROW(opened.record(cuda::Stream(1)), Error) << "Event device 0 does not match recording stream's device 1.";
  gate.open();
  ASSERT_TRUE(finishes_within([e, waiter] {
    e.synchronize();
    waiter.synchronize();
  }));
  EXPECT_TRUE(e.query());
  EXPECT_TRUE(opened.query());
}

TEST_P(CudaEventIpcTest, FlagErrors) {
  EXPECT_EQ(error_of<ValueError>([] { cuda::Event(true, false, true); }),
            "Event: interprocess=true requires enable_timing=false (CUDA refuses cudaEventInterprocess without "
            "cudaEventDisableTiming), but got enable_timing=true");
  const cuda::Event plain;
  EXPECT_EQ(error_of<ValueError>([&] { (void)plain.ipc_handle(); }),
            "Event.ipc_handle() needs an event created with interprocess=true (cudaEventInterprocess), but this "
            "event has interprocess=false");
  EXPECT_FALSE(plain.is_created()) << "a failed ipc_handle() creates nothing";
}

TEST_P(CudaEventIpcTest, HandleErrors) {
  const cuda::Event e(false, false, true);
  const std::string h = e.ipc_handle();
  EXPECT_EQ(error_of<Error>([&] { (void)cuda::Event::from_ipc_handle(Device("cuda:0"), h.substr(0, 3)); }),
            "cudaIpcEventHandle_t expects byte-like object of size 64, but got 3");
  EXPECT_EQ(error_of<Error>([&] { (void)cuda::Event::from_ipc_handle(Device("cuda:0"), h + "x"); }),
            "cudaIpcEventHandle_t expects byte-like object of size 64, but got 65");
  EXPECT_EQ(error_of<Error>([&] { (void)cuda::Event::from_ipc_handle(Device("cpu"), h); }),
            "Event can only be created on CUDA devices, but got device type cpu");
  EXPECT_NE(error_of<DeviceError>([&] { (void)cuda::Event::from_ipc_handle(Device("cuda:7"), h); })
                .find("invalid device ordinal"),
            std::string::npos);
  if (emulated()) {
    std::string err = error_of<ValueError>([&] { (void)cuda::Event::from_ipc_handle(Device("cuda:0"), std::string(64, 'x')); });
    EXPECT_NE(err.find("invalid interprocess event handle: expected a handle of ctorch's emulated CUDA runtime "
                       "(magic 0x45495443), but got magic 0x78787878"),
              std::string::npos)
        << err;
    err = error_of<ValueError>([&] { (void)cuda::Event::from_ipc_handle(Device("cuda:1"), h); });
    EXPECT_NE(err.find("(cuda:0 of the process that created it), but cuda:1 is GPU-"), std::string::npos) << err;
    EXPECT_NE(err.find("open it on the device it was created on"), std::string::npos) << err;
    std::string stale = h;
    stale[8] ^= 1;  // the nonce
    err = error_of<Error>([&] { (void)cuda::Event::from_ipc_handle(Device("cuda:0"), stale); });
    EXPECT_NE(err.find("the handle is stale"), std::string::npos) << err;
    std::string bad_name = h;
    std::memcpy(&bad_name[16], "/etc/passwd", 12);
    err = error_of<ValueError>([&] { (void)cuda::Event::from_ipc_handle(Device("cuda:0"), bad_name); });
    EXPECT_NE(err.find("malformed"), std::string::npos) << err;
  }
  EXPECT_TRUE(e.query()) << "failed opens change nothing";
  const cuda::Event opened = cuda::Event::from_ipc_handle(Device("cuda:0"), h);
  EXPECT_TRUE(opened.query());
}

TEST_P(CudaEventIpcTest, DestroyedEventCannotBeOpened) {
  if (!emulated()) GTEST_SKIP() << "emulated shared-memory names";
  std::string h;
  std::optional<cuda::Event> opened;
  {
    const cuda::Event e(false, false, true);
    h = e.ipc_handle();
    opened = cuda::Event::from_ipc_handle(Device("cuda:0"), h);
  }  // the creator destroys (unlinks) the event
  const std::string err = error_of<Error>([&] { (void)cuda::Event::from_ipc_handle(Device("cuda:0"), h); });
  EXPECT_NE(err.find("CUDA error: invalid resource handle (emulated: the interprocess event \"/ctorch-ev-"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("it no longer exists; the process that created it destroyed it or exited"), std::string::npos)
      << err;
  const cuda::Stream s(0);
  opened->record(s);  // an opener keeps its mapping
  ASSERT_TRUE(finishes_within([&] { opened->synchronize(); }));
  EXPECT_TRUE(opened->query());
}

TEST_P(CudaEventIpcTest, LibtorchSpellings) {
  struct FakeIpcHandle {  // the layout of cudaIpcEventHandle_t
    char reserved[64];
  };
  at::cuda::CUDAEvent e(/*cudaEventDisableTiming | cudaEventInterprocess=*/0x2u | 0x4u);
  FakeIpcHandle h{};
  e.ipc_handle(&h);
  EXPECT_TRUE(e.isCreated());
  EXPECT_EQ(e.ipc_handle(), std::string(h.reserved, 64));
  at::cuda::CUDAEvent opened(e.device_index(), &h);
  EXPECT_TRUE(opened.isCreated());
  EXPECT_EQ(opened.device_index(), e.device_index());
  EXPECT_TRUE(opened.query());
}

TEST_P(CudaEventIpcTest, ChildProcessWaitsForTheParentsRecord) {
  if (!emulated()) GTEST_SKIP() << "needs the emulated gate";
  const cuda::Stream s(0);
  const cuda::Event e(false, false, true);
  Gate gate;
  gate.block(s);
  e.record(s);
  Child child("wait", to_hex(e.ipc_handle()));
  ASSERT_GT(child.pid, 0) << "posix_spawn failed";
  EXPECT_EQ(read_byte(child.from_child), 'Q') << "the child saw query()==false and queued its wait";
  EXPECT_FALSE(e.query());
  gate.open();
  EXPECT_EQ(read_byte(child.from_child), 'D') << "the child's synchronize() returned after the gate opened";
  EXPECT_EQ(child.finish(), 0);
}

TEST_P(CudaEventIpcTest, ParentWaitsForTheChildsRecord) {
  if (!emulated()) GTEST_SKIP() << "emulated interprocess events";
  Child child("record", "");
  ASSERT_GT(child.pid, 0) << "posix_spawn failed";
  const std::string hex = read_line(child.from_child);
  ASSERT_EQ(hex.size(), 128u) << "the child sends its handle";
  const std::string h = from_hex(hex);
  const cuda::Event opened = cuda::Event::from_ipc_handle(Device("cuda:0"), h);
  EXPECT_FALSE(opened.query()) << "the child's record is gated";
  const cuda::Stream waiter(0);
  opened.wait(waiter);
  EXPECT_FALSE(waiter.query());
  write_text(child.to_child, "R");  // the child opens its gate
  ASSERT_TRUE(finishes_within([opened, waiter] {
    opened.synchronize();
    waiter.synchronize();
  }));
  EXPECT_TRUE(opened.query());
  write_text(child.to_child, "X");  // the child destroys its event and exits
  EXPECT_EQ(child.finish(), 0);
  const std::string err = error_of<Error>([&] { (void)cuda::Event::from_ipc_handle(Device("cuda:0"), h); });
  EXPECT_NE(err.find("no longer exists"), std::string::npos) << err;
  EXPECT_TRUE(opened.query()) << "the parent's mapping outlives the child";
}

TEST_P(CudaEventIpcTest, RecorderExitingBeforeItsWorkIsAnError) {
  if (!emulated()) GTEST_SKIP() << "emulated interprocess events";
  Child child("abandon", "");
  ASSERT_GT(child.pid, 0) << "posix_spawn failed";
  const std::string hex = read_line(child.from_child);
  ASSERT_EQ(hex.size(), 128u) << "the child sends its handle";
  const cuda::Event opened = cuda::Event::from_ipc_handle(Device("cuda:0"), from_hex(hex));
  EXPECT_FALSE(opened.query());
  const pid_t pid = child.pid;
  write_text(child.to_child, "X");  // the child _exit()s with its record still gated
  EXPECT_EQ(child.finish(), 0) << "reaped: a zombie would still count as alive";
  std::string err = "no error";
  EXPECT_TRUE(finishes_within([&] { err = error_of<Error>([&] { opened.synchronize(); }); }));
  EXPECT_NE(err.find("CUDA error: launch failure (emulated: process " + std::to_string(pid) +
                     ", which recorded the interprocess event"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("exited before the recorded work ran"), std::string::npos) << err;
  // The child could not unlink its shared object; remove it for it.
  const std::string prefix = "ctorch-ev-" + std::to_string(pid) + "-";
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator("/dev/shm", ec)) {
    if (f.path().filename().string().rfind(prefix, 0) == 0) std::filesystem::remove(f.path(), ec);
  }
}

// The child side of the cross-process tests (skipped when run directly).
TEST(CudaEventIpcChild, Run) {
  const char* mode_env = std::getenv(kModeEnv);
  if (!mode_env) GTEST_SKIP() << "runs only as the child process of CudaEventIpcTest";
  const std::string mode = mode_env;
  use_emulated_devices(2);
  cuda::set_device(0);
  if (mode == "wait") {
    const cuda::Event opened = cuda::Event::from_ipc_handle(Device("cuda:0"), from_hex(std::getenv(kHandleEnv)));
    EXPECT_FALSE(opened.query()) << "the parent's record is gated";
    const cuda::Stream side(0);
    opened.wait(side);
    EXPECT_FALSE(side.query()) << "the side stream waits for the parent's work";
    write_text(kChildWriteFd, "Q");
    ASSERT_TRUE(finishes_within([opened, side] {
      opened.synchronize();
      side.synchronize();
    }));
    EXPECT_TRUE(opened.query());
    write_text(kChildWriteFd, "D");
  } else if (mode == "record" || mode == "abandon") {
    const cuda::Stream s(0);
    const cuda::Event e(false, false, true);
    Gate gate;
    gate.block(s);
    e.record(s);
    write_text(kChildWriteFd, to_hex(e.ipc_handle()) + "\n");
    if (mode == "abandon") {
      ASSERT_EQ(read_byte(kChildReadFd), 'X');
      std::_Exit(0);  // no destructors: the gate stays closed, the record never runs
    }
    ASSERT_EQ(read_byte(kChildReadFd), 'R');
    gate.open();
    ASSERT_EQ(read_byte(kChildReadFd), 'X');
  } else {
    FAIL() << "unknown " << kModeEnv << "=" << mode;
  }
}

CTORCH_INSTANTIATE_CUDA_TESTS(CudaEventIpcTest);

}  // namespace
}  // namespace ctorch::testing
