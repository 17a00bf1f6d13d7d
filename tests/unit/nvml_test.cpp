// The NVML path of the telemetry (torch.cuda.utilization & co. on real devices), run in child
// processes (NVML is loaded once per process) against tests/nvml/fake_nvml.cpp, a missing
// library, and a "driver not loaded" NVML. The children have no emulated devices, so the NVML
// path is the one taken; each runs NvmlChild.Run, which skips unless CTORCH_TEST_NVML_MODE is set.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ctorch/cuda_memory.h"
#include "ctorch/cuda_telemetry.h"
#include "ctorch/error.h"
#include "test_util.h"

extern char** environ;

namespace ctorch::testing {
namespace {

constexpr const char* kModeEnv = "CTORCH_TEST_NVML_MODE";

// Runs NvmlChild.Run with `env` added (and the emulation, NVML and visibility variables removed
// unless given); its exit code, with its output in *output.
int run_child(const std::vector<std::string>& env, std::string* output) {
  std::vector<std::string> strings;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    if (s.rfind("CTORCH_EMULATED_CUDA=", 0) == 0 || s.rfind("CTORCH_NVML_LIBRARY=", 0) == 0 ||
        s.rfind("CUDA_VISIBLE_DEVICES=", 0) == 0 || s.rfind("CTORCH_TEST_NVML_", 0) == 0 ||
        s.rfind("CTORCH_FAKE_NVML_", 0) == 0) {
      continue;
    }
    strings.push_back(s);
  }
  for (const auto& s : env) strings.push_back(s);
  std::vector<char*> envp;
  for (auto& s : strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  char path[] = "/tmp/ctorch-nvml-test-XXXXXX";
  const int out = mkstemp(path);
  if (out < 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, out, 2);
  std::string exe = "/proc/self/exe", filter = "--gtest_filter=NvmlChild.Run";
  char* argv[] = {exe.data(), filter.data(), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out);
  int status = 0;
  if (rc == 0) waitpid(pid, &status, 0);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  *output = ss.str();
  unlink(path);
  if (rc != 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void expect_child_passes(const std::string& mode, std::vector<std::string> env) {
  env.push_back(std::string(kModeEnv) + "=" + mode);
  std::string output;
  const int code = run_child(env, &output);
  EXPECT_EQ(code, 0) << output;
  EXPECT_NE(output.find("[  PASSED  ] 1 test"), std::string::npos) << "the child ran its checks:\n" << output;
}

TEST(Nvml, ReadsEveryMetricThroughTheLibrary) {
  expect_child_passes("fake", {std::string("CTORCH_NVML_LIBRARY=") + CTORCH_TEST_FAKE_NVML_SO});
}

TEST(Nvml, MapsTorchIndicesThroughCudaVisibleDevices) {
  expect_child_passes("visible", {std::string("CTORCH_NVML_LIBRARY=") + CTORCH_TEST_FAKE_NVML_SO,
                                  "CUDA_VISIBLE_DEVICES=2,0"});
  expect_child_passes("uuid", {std::string("CTORCH_NVML_LIBRARY=") + CTORCH_TEST_FAKE_NVML_SO,
                               "CUDA_VISIBLE_DEVICES=GPU-3333"});
}

TEST(Nvml, MissingLibraryIsADeviceError) {
  expect_child_passes("absent", {"CTORCH_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"});
}

TEST(Nvml, DriverNotLoaded) {
  expect_child_passes("nodriver", {std::string("CTORCH_NVML_LIBRARY=") + CTORCH_TEST_FAKE_NVML_SO,
                                   "CTORCH_FAKE_NVML_NO_DRIVER=1"});
}

// The checks, in the child.
TEST(NvmlChild, Run) {
  const char* mode_env = std::getenv(kModeEnv);
  if (!mode_env) GTEST_SKIP() << "runs in a child of the Nvml tests";
  const std::string mode = mode_env;
  if (mode == "fake") {
    EXPECT_EQ(cuda::utilization(0), 10);
    EXPECT_EQ(cuda::memory_usage(1), 21);
    EXPECT_EQ(cuda::temperature(2), 42);
    EXPECT_EQ(cuda::power_draw(1), 101000);
    EXPECT_EQ(cuda::clock_rate(2), 1502);
    EXPECT_EQ(cuda::list_gpu_processes(0), "GPU:0\nprocess        111 uses        1.000 MB GPU memory\n"
                                           "process        222 uses        3.000 MB GPU memory");
    EXPECT_EQ(cuda::list_gpu_processes(1), "GPU:1\nno processes are running");
    EXPECT_EQ(cuda::gpu_processes(2).size(), 10u) << "more processes than the first buffer holds";
    EXPECT_EQ(cuda::driver_version(), "999.99");
    EXPECT_EQ(cuda::cuda_driver_version(), "12.2");
    EXPECT_NE(error_of([] { cuda::utilization(3); }), "no error") << "NVML has 3 devices";
    EXPECT_EQ(error_of([] { cuda::utilization(-1); }), "device -1 is not visible (CUDA_VISIBLE_DEVICES=[0, 1, 2])");
  } else if (mode == "visible") {
    EXPECT_EQ(cuda::utilization(0), 12) << "torch cuda:0 is NVML device 2";
    EXPECT_EQ(cuda::utilization(1), 10);
    EXPECT_EQ(cuda::list_gpu_processes(0).substr(0, 6), "GPU:2\n") << "PyTorch prints the NVML index";
    EXPECT_EQ(error_of([] { cuda::utilization(2); }), "device 2 is not visible (CUDA_VISIBLE_DEVICES=[2, 0])");
  } else if (mode == "uuid") {
    EXPECT_EQ(cuda::temperature(0), 42) << "GPU-3333 is NVML device 2";
  } else if (mode == "absent") {
    const std::string e = error_of<DeviceError>([] { cuda::utilization(0); });
    EXPECT_EQ(e.rfind("NVML (/nonexistent/libnvidia-ml.so.1) does not seem to be installed or it can't be loaded: ",
                      0),
              0u)
        << e;
    EXPECT_EQ(error_of<DeviceError>([] { cuda::clock_rate(); }), e) << "the same error on every call";
    EXPECT_EQ(cuda::list_gpu_processes(0), "NVML (/nonexistent/libnvidia-ml.so.1) not found, please install the "
                                           "NVIDIA driver's NVML library")
        << "never raises, as PyTorch";
  } else if (mode == "nodriver") {
    EXPECT_EQ(error_of<DeviceError>([] { cuda::temperature(0); }), "cuda driver can't be loaded, is cuda enabled?");
    EXPECT_EQ(cuda::list_gpu_processes(0), "cuda driver can't be loaded, is cuda enabled?");
  } else {
    FAIL() << "unknown mode " << mode;
  }
}

}  // namespace
}  // namespace ctorch::testing
