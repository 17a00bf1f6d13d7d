// Interprocess device memory (cuda::ipc_handle / open_ipc_tensor / ipc_collect, the runtime's
// MemoryIpc) within one process and across two: the parent shares a tensor, a child spawned from
// /proc/self/exe (CudaIpcMemoryChild.Run, which skips unless CTORCH_TEST_IPC_MEM_MODE is set)
// opens it, checks what the parent wrote and writes back; the parent then sees the child's writes.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ctorch/cuda_ipc.h"
#include "ctorch/torch.h"
#include "device/device_test.h"
#include "test_util.h"

extern char** environ;

namespace ctorch::testing {
namespace {

constexpr const char* kModeEnv = "CTORCH_TEST_IPC_MEM_MODE";
constexpr const char* kHandleEnv = "CTORCH_TEST_IPC_MEM_HANDLE";

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

std::string encode(const cuda::IpcMemHandle& h) {
  return to_hex(h.handle) + ":" + std::to_string(h.offset) + ":" + std::to_string(h.device);
}

cuda::IpcMemHandle decode(const std::string& s) {
  cuda::IpcMemHandle h;
  const size_t a = s.find(':'), b = s.find(':', a + 1);
  h.handle = from_hex(s.substr(0, a));
  h.offset = std::stoll(s.substr(a + 1, b - a - 1));
  h.device = std::stoi(s.substr(b + 1));
  return h;
}

// Runs the child in `mode` with the handle; its exit code (output in *output), -1 when killed.
int run_child(const std::string& mode, const std::string& handle, std::string* output) {
  std::vector<std::string> strings;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    if (s.rfind("CTORCH_TEST_IPC_MEM_", 0) == 0 || s.rfind("CTORCH_EMULATED_CUDA=", 0) == 0) continue;
    strings.push_back(s);
  }
  strings.push_back(std::string(kModeEnv) + "=" + mode);
  strings.push_back(std::string(kHandleEnv) + "=" + handle);
  strings.push_back("CTORCH_EMULATED_CUDA=2");
  std::vector<char*> envp;
  for (auto& s : strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  char path[] = "/tmp/ctorch-ipc-mem-test-XXXXXX";
  const int out = mkstemp(path);
  if (out < 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, out, 2);
  std::string exe = "/proc/self/exe", filter = "--gtest_filter=CudaIpcMemoryChild.Run";
  char* argv[] = {exe.data(), filter.data(), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out);
  int status = 0;
  if (rc == 0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  *output = ss.str();
  unlink(path);
  if (rc != 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class CudaIpcMemoryTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    if (GetParam() == Backend::Cpu) GTEST_SKIP() << "cuda only";
  }
  bool emulated() const { return GetParam() == Backend::Emulated; }
};

TEST_P(CudaIpcMemoryTest, HandleNamesTheAllocationAndTheOffset) {
  Tensor t = arange(100, TensorOptions().dtype(kFloat).device("cuda:1"));
  const cuda::IpcMemHandle h = cuda::ipc_handle(t);
  EXPECT_EQ(h.handle.size(), 64u);
  EXPECT_EQ(h.device, 1);
  EXPECT_GE(h.offset, 0);
  const cuda::IpcMemHandle view = cuda::ipc_handle(t.slice(0, 5));
  EXPECT_EQ(view.handle, h.handle) << "a view shares its base's allocation";
  EXPECT_EQ(view.offset, h.offset + 5 * 4);
  EXPECT_EQ(cuda::ipc_handle(t).handle, h.handle) << "stable";
  Tensor other = empty({3 << 20}, TensorOptions().device("cuda:1"));  // a large segment of its own
  EXPECT_NE(cuda::ipc_handle(other).handle, h.handle);
}

TEST_P(CudaIpcMemoryTest, ErrorsChangeNothing) {
  EXPECT_EQ(error_of<ValueError>([] { cuda::ipc_handle(ones({2})); }),
            "ipc_handle: expected a cuda tensor, but got a tensor on cpu");
  Tensor t = ones({4}, TensorOptions().device("cuda:0"));
  const cuda::IpcMemHandle h = cuda::ipc_handle(t);
  if (emulated()) {
    EXPECT_NE(error_of([&] { cuda::open_ipc_tensor(h, {4}, {1}, kFloat); }).find("invalid device context"),
              std::string::npos)
        << "a process cannot open its own handles (as CUDA)";
  }
  cuda::IpcMemHandle bad = h;
  bad.handle = std::string(64, '\0');
  EXPECT_NE(error_of([&] { cuda::open_ipc_tensor(bad, {4}, {1}, kFloat); }), "no error");
  bad.handle = "short";
  EXPECT_EQ(error_of<ValueError>([&] { cuda::open_ipc_tensor(bad, {4}, {1}, kFloat); }),
            "open_ipc_tensor: expected a 64-byte handle, but got 5 bytes");
  EXPECT_EQ(error_of<ValueError>([&] { cuda::open_ipc_tensor(h, {4}, {1, 1}, kFloat); }),
            "open_ipc_tensor: sizes and strides must have the same length");
  EXPECT_TRUE(t.equal(ones({4}, TensorOptions().device("cuda:0"))));
  cuda::ipc_collect();  // nothing to collect
}

TEST_P(CudaIpcMemoryTest, AnotherProcessReadsAndWrites) {
  if (!emulated()) GTEST_SKIP() << "the child uses emulated devices";
  Tensor t = arange(1000, TensorOptions().dtype(kFloat).device("cuda:1"));
  Tensor view = t.slice(0, 10);  // elements 10..999, at an offset in the allocation
  cuda::synchronize(1);
  std::string output;
  ASSERT_EQ(run_child("read_write", encode(cuda::ipc_handle(view)), &output), 0) << output;
  EXPECT_NE(output.find("[  PASSED  ] 1 test"), std::string::npos) << output;
  Tensor expected = arange(1000, TensorOptions().dtype(kFloat));
  expected.slice(0, 10).mul_(2).add_(1);
  EXPECT_TRUE(t.cpu().equal(expected)) << "the child's writes (x * 2 + 1 past element 10) are seen here";
}

TEST_P(CudaIpcMemoryTest, AnotherDeviceIsRefused) {
  if (!emulated()) GTEST_SKIP() << "the child uses emulated devices";
  Tensor t = zeros({16}, TensorOptions().device("cuda:1"));
  std::string output;
  EXPECT_EQ(run_child("wrong_device", encode(cuda::ipc_handle(t)), &output), 0) << output;
  EXPECT_NE(output.find("[  PASSED  ] 1 test"), std::string::npos) << output;
  EXPECT_TRUE(t.cpu().equal(zeros({16})));
}

CTORCH_INSTANTIATE_CUDA_TESTS(CudaIpcMemoryTest);

// The other process.
TEST(CudaIpcMemoryChild, Run) {
  const char* mode_env = std::getenv(kModeEnv);
  if (!mode_env) GTEST_SKIP() << "runs in a child of CudaIpcMemoryTest";
  const std::string mode = mode_env;
  const cuda::IpcMemHandle h = decode(std::getenv(kHandleEnv));
  if (mode == "read_write") {
    {
      Tensor x = cuda::open_ipc_tensor(h, {990}, {1}, kFloat);
      EXPECT_EQ(x.device(), Device("cuda:1")) << "the exporter's device index by default";
      EXPECT_TRUE(x.cpu().equal(arange(10, 1000, TensorOptions().dtype(kFloat)))) << "the parent's data";
      x.mul_(2).add_(1);  // kernels on the opened memory
      Tensor again = cuda::open_ipc_tensor(h, {990}, {1}, kFloat);
      EXPECT_EQ(again.data_ptr(), x.data_ptr()) << "opened once per process, counted";
      cuda::synchronize(1);
    }
    cuda::ipc_collect();  // both tensors are gone: unmapped
  } else if (mode == "wrong_device") {
    const std::string e = error_of([&] { cuda::open_ipc_tensor(h, {16}, {1}, kFloat, 0); });
    EXPECT_NE(e.find("another device"), std::string::npos) << e;
  } else {
    FAIL() << "unknown mode " << mode;
  }
}

}  // namespace
}  // namespace ctorch::testing
