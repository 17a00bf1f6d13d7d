// cuda::jiterator on every device: kernels from code strings checked against the same computation
// with ctorch ops; compile errors, parse errors, argument errors, the caches; NVRTC compiles (when
// the CUDA backend is built; they need no GPU). Few distinct kernels: each costs a compiler run the
// first time (the disk cache, in $TMPDIR unless CTORCH_JITERATOR_CACHE is set, keeps them).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "backends/cpu/jit.h"
#include "ctorch/cuda_jiterator.h"
#include "ctorch/cuda_memory.h"
#include "ctorch/cuda_sanitizer.h"
#include "ctorch/cuda_stream.h"
#include "device/device_test.h"
#ifdef CTORCH_HAS_CUDA_BACKEND
#include "backends/cuda/jit.h"
#endif

namespace ctorch::testing {
namespace {

namespace jit = cuda::jiterator;
namespace fs = std::filesystem;

const char* kAxpy = "template <typename T> T my_kernel(T x, T y, T alpha) { return -x + alpha * y; }";

// Kernels go to a per-user folder that outlives the run (unless the caller chose one).
void use_test_cache() {
  const fs::path dir = fs::temp_directory_path() / ("ctorch-jiterator-tests-" + std::to_string(getuid()));
  setenv("CTORCH_JITERATOR_CACHE", dir.c_str(), /*overwrite=*/0);
}

class JiteratorTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    use_test_cache();
  }
  Tensor rand_on(IntArrayRef shape) const { return rand(shape, on_device()); }
};

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_P(JiteratorTest, BinaryWithDefaultAndOverriddenAlpha) {
  const jit::JitFunction fn = jit::create_jit_fn(kAxpy, {{"alpha", 1.0}});
  EXPECT_EQ(fn.kernel_name(), "my_kernel");
  const Tensor a = rand_on({3, 4}), b = rand_on({3, 4});
  const Tensor out = fn({a, b});
  EXPECT_EQ(out.device(), device());
  EXPECT_EQ(out.dtype(), kFloat);
  EXPECT_TRUE(equal(out, b.sub(a)));
  const Tensor scaled = fn({a, b}, {{"alpha", 3.14}});
  EXPECT_TRUE(allclose(scaled, b.mul(3.14).sub(a)));
  // The override is per call: the default is back.
  EXPECT_TRUE(equal(fn({a, b}), out));
}

TEST_P(JiteratorTest, BroadcastsAndReadsNonContiguousInputs) {
  const jit::JitFunction fn = jit::create_jit_fn(kAxpy, {{"alpha", 2.0}});
  const Tensor col = rand_on({4, 1}), row = rand_on({3});
  const Tensor out = fn({col, row});
  EXPECT_EQ(out.sizes(), IntArrayRef({4, 3}));
  EXPECT_TRUE(allclose(out, row.mul(2.0).sub(col)));
  const Tensor t = rand_on({5, 4}).t();  // transposed: not contiguous
  const Tensor strided = rand_on({4, 10}).slice(1, 0, 10, 2);
  ASSERT_FALSE(t.is_contiguous());
  ASSERT_FALSE(strided.is_contiguous());
  EXPECT_TRUE(allclose(fn({t, strided}), strided.mul(2.0).sub(t)));
  // A 0-dim input and an empty one.
  const Tensor zero_dim = full({}, 5.0, on_device());
  EXPECT_TRUE(allclose(fn({zero_dim, row}), row.mul(2.0).sub(zero_dim)));
  EXPECT_EQ(fn({rand_on({0, 3}), row}).sizes(), IntArrayRef({0, 3}));
}

TEST_P(JiteratorTest, PromotesInputsToTheirCommonDtype) {
  const jit::JitFunction fn = jit::create_jit_fn(kAxpy, {{"alpha", 1.0}});
  const Tensor i = arange(6, on_device(kInt32)).reshape({2, 3});
  const Tensor f = rand_on({2, 3});
  const Tensor out = fn({i, f});
  EXPECT_EQ(out.dtype(), kFloat);
  EXPECT_TRUE(allclose(out, f.sub(i)));
  // float16 computes in float and rounds once, as PyTorch's opmath does.
  const Tensor h = f.to(kHalf), g = rand_on({2, 3}).to(kHalf);
  const Tensor half_out = fn({h, g}, {{"alpha", 3.0}});
  EXPECT_EQ(half_out.dtype(), kHalf);
  EXPECT_TRUE(equal(half_out, g.to(kFloat).mul(3.0).sub(h.to(kFloat)).to(kHalf)));
}

TEST_P(JiteratorTest, IntegerKernelWithIntegerArgument) {
  const jit::JitFunction fn = jit::create_jit_fn(kAxpy, {{"alpha", 1.0}});
  const Tensor a = arange(6, on_device(kInt64)), b = arange(6, on_device(kInt32)).mul(10);
  const Tensor out = fn({a, b}, {{"alpha", 7}});  // an int alpha: the kernel gets an int64_t
  EXPECT_EQ(out.dtype(), kInt64);
  EXPECT_TRUE(equal(out, b.to(kInt64).mul(7).sub(a)));
}

TEST_P(JiteratorTest, MultiOutputWithScalarKwargs) {
  const jit::JitFunction fn = jit::create_multi_output_jit_fn(
      "template <typename T> T helper(T x, T s) { return x * s; }\n"
      "template <typename T> void two_outputs(T x, T y, T scale, T shift, T& prod, T& sum) {\n"
      "  prod = helper(x, scale) * y;\n"
      "  sum = x + y + shift;\n"
      "}",
      2, {{"scale", 2.0}, {"shift", 0.5}});
  EXPECT_EQ(fn.kernel_name(), "two_outputs");
  EXPECT_EQ(fn.num_outputs(), 2);
  const Tensor a = rand_on({2, 3}), b = rand_on({3});
  const std::vector<Tensor> outs = fn.call({a, b}, {{"shift", -1.0}});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_TRUE(allclose(outs[0], a.mul(2.0).mul(b)));
  EXPECT_TRUE(allclose(outs[1], a.add(b).sub(1.0)));
  EXPECT_EQ(outs[1].sizes(), IntArrayRef({2, 3}));
  EXPECT_NE(error_of([&] { fn({a, b}); }).find("call() returns them all"), std::string::npos);
}

TEST_P(JiteratorTest, CompileErrorCarriesTheCompilersMessageAndLine) {
  const jit::JitFunction fn = jit::create_jit_fn(
      "template <typename T> T broken(T x) {\n"
      "  return x + undeclared_name;\n"
      "}");
  const Tensor a = rand_on({4});
  const int64_t before = is_cuda() ? cuda::memory_allocated(device()) : 0;
  try {
    fn({a});
    FAIL() << "expected JitCompileError";
  } catch (const JitCompileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("failed to compile kernel 'broken'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("jiterator:2:"), std::string::npos) << msg;  // line 2 of the code string
    EXPECT_NE(msg.find("undeclared_name"), std::string::npos) << msg;
  }
  if (is_cuda()) EXPECT_EQ(cuda::memory_allocated(device()), before);
}

TEST_P(JiteratorTest, ArgumentErrors) {
  const jit::JitFunction fn = jit::create_jit_fn(kAxpy, {{"alpha", 1.0}});
  const Tensor a = rand_on({2});
  EXPECT_THROW(fn({a, a}, {{"beta", 2.0}}), ValueError);
  EXPECT_EQ(error_of([&] { fn({a, a}, {{"beta", 2.0}}); }), "beta is not declared in function definition");
  const std::vector<Tensor> nine(9, a);
  EXPECT_EQ(error_of([&] { fn(nine); }), "jiterator only supports up to 8 tensor inputs.");
  EXPECT_THROW(fn({}), ValueError);
  EXPECT_THROW(jit::create_multi_output_jit_fn(kAxpy, 9), ValueError);
}

TEST_P(JiteratorTest, InputsOnDifferentDevicesAreRefused) {
  if (!is_cuda()) GTEST_SKIP() << "needs a cuda device";
  const jit::JitFunction fn = jit::create_jit_fn(kAxpy, {{"alpha", 1.0}});
  const Tensor a = rand_on({2});
  const Tensor on_cpu = rand({2});
  EXPECT_EQ(error_of([&] { fn({a, on_cpu}); }),
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
  // No cpu-scalar exception (TensorIterator's allow_cpu_scalars(false)).
  EXPECT_NE(error_of([&] { fn({a, full({}, 1.0)}); }).find("same device"), std::string::npos);
  if (cuda::device_count() > 1) {
    const Tensor other = rand({2}, TensorOptions().device(Device(DeviceType::CUDA, 1)));
    EXPECT_NE(error_of([&] { fn({a, other}); }).find("cuda:0 and cuda:1"), std::string::npos);
  }
}

TEST_P(JiteratorTest, RunsOnTheCurrentStreamSeenByTheSanitizer) {
  if (!is_cuda()) GTEST_SKIP() << "needs a cuda device";
  const jit::JitFunction fn = jit::create_jit_fn(kAxpy, {{"alpha", 1.0}});
  Tensor a = empty({1000}, on_device()).normal_(0.0, 1.0);
  cuda::synchronize();
  cuda::enable_cuda_sanitizer();
  const cuda::Stream side;
  bool raced = false;
  try {
    a.fill_(1.0);  // default stream
    cuda::StreamContext ctx(side);
    Tensor out = fn({a, a});  // side stream, no wait: a race on `a`
  } catch (const cuda::CUDASanitizerErrors& e) {
    raced = true;
    ASSERT_GE(e.errors().size(), 1u);
    EXPECT_EQ(e.errors()[0].current_op, "my_kernel");
  }
  cuda::synchronize();
  cuda::disable_cuda_sanitizer();
  EXPECT_TRUE(raced);
  // Ordered by a wait, the side stream computes the right values.
  side.wait_stream(cuda::current_stream());
  cuda::StreamContext ctx(side);
  const Tensor out = fn({a, a}, {{"alpha", 3.0}});
  side.synchronize();
  EXPECT_TRUE(equal(out.cpu(), full({1000}, 2.0)));
}

CTORCH_INSTANTIATE_DEVICE_TESTS(JiteratorTest);

TEST(Jiterator, MalformedCodeIsRefusedAtCreation) {
  EXPECT_EQ(error_of([] { jit::create_jit_fn("T f(T x) { return x; }"); }),
            "Couldn't parse code, please check correctness:\n T f(T x) { return x; }");
  EXPECT_THROW(jit::create_jit_fn("template <typename T> T f(T x)"), Error);
  EXPECT_THROW(jit::create_jit_fn("template <typename T> T f(T x) { return x; }", {{"a", 1.0}, {"a", 2.0}}),
               ValueError);
}

TEST(Jiterator, CachesKernelsInProcessAndOnDisk) {
  const fs::path dir = fs::temp_directory_path() / ("ctorch-jiterator-cache-test-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const char* saved = std::getenv("CTORCH_JITERATOR_CACHE");
  const std::string previous = saved ? saved : "";
  setenv("CTORCH_JITERATOR_CACHE", dir.c_str(), 1);
  // A code string no other run has compiled (its comment names this process).
  const std::string code = "template <typename T> T twice(T x) { return x + x; }  // " + std::to_string(getpid());
  const Tensor a = arange(4, TensorOptions().dtype(kFloat));
  const int64_t compiles = backends::cpu::host_jit_compile_count();
  EXPECT_TRUE(equal(jit::create_jit_fn(code)({a}), a.mul(2)));
  EXPECT_EQ(backends::cpu::host_jit_compile_count(), compiles + 1);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);  // the shared object only: sources, logs and temporaries are gone
  EXPECT_EQ(files[0].extension(), ".so");
  const auto written = fs::last_write_time(files[0]);
  // A second function with the same code: the process's table.
  EXPECT_TRUE(equal(jit::create_jit_fn(code)({a.add(1)}), a.add(1).mul(2)));
  EXPECT_EQ(backends::cpu::host_jit_compile_count(), compiles + 1);
  // A process that has not loaded it yet (forgotten here): the disk cache, no compiler run.
  backends::cpu::host_jit_forget_loaded();
  EXPECT_TRUE(equal(jit::create_jit_fn(code)({a}), a.mul(2)));
  EXPECT_EQ(backends::cpu::host_jit_compile_count(), compiles + 1);
  EXPECT_EQ(fs::last_write_time(files[0]), written);
  if (saved) {
    setenv("CTORCH_JITERATOR_CACHE", previous.c_str(), 1);
  } else {
    unsetenv("CTORCH_JITERATOR_CACHE");
  }
  fs::remove_all(dir);
}

#ifdef CTORCH_HAS_CUDA_BACKEND
// NVRTC runs without a GPU: the CUDA side's compile step is tested here, its launch only on a GPU.
ops::JitSpec nvrtc_spec(const std::string& code, const std::string& name) {
  ops::JitSpec spec;
  spec.code = code;
  spec.name = name;
  spec.ninputs = 2;
  spec.noutputs = 1;
  spec.dtype = kFloat;
  spec.extra = {kDouble};
  return spec;
}

TEST(JiteratorNvrtc, CompilesKernelsToPtx) {
  const std::string ptx = backends::cuda::nvrtc_compile(nvrtc_spec(kAxpy, "my_kernel"), 8, 0);
  EXPECT_NE(ptx.find(".entry ctorch_jit_kernel"), std::string::npos) << ptx.substr(0, 2000);
  EXPECT_NE(ptx.find(".target sm_80"), std::string::npos);
  ops::JitSpec multi = nvrtc_spec("template <typename T> void two(T x, T y, T s, T& a, T& b) { a = x * s; b = ::max(x, y); }",
                                  "two");
  multi.noutputs = 2;
  multi.return_by_ref = true;
  multi.dtype = kInt64;
  multi.extra = {kInt64};
  EXPECT_NE(backends::cuda::nvrtc_compile(multi, 7, 5).find(".entry ctorch_jit_kernel"), std::string::npos);
}

TEST(JiteratorNvrtc, CompileErrorCarriesNvrtcsLogAndLine) {
  try {
    backends::cuda::nvrtc_compile(
        nvrtc_spec("template <typename T> T broken(T x, T y, T a) {\n  return x + undeclared_name;\n}", "broken"), 8, 0);
    FAIL() << "expected JitCompileError";
  } catch (const JitCompileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("with NVRTC"), std::string::npos) << msg;
    EXPECT_NE(msg.find("jiterator(2)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undeclared_name"), std::string::npos) << msg;
  }
}
#endif

}  // namespace
}  // namespace ctorch::testing
