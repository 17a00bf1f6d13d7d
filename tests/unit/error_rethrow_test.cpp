// Errors rethrown from other threads keep their ctorch type (Note [Rethrow with the original type],
// src/core/error_rethrow.h): every error class of the public headers, through the shared helper, and
// through the DataLoader's workers.
#include <gtest/gtest.h>

#include <functional>
#include <typeinfo>

#include "core/error_rethrow.h"
#include "ctorch/ctorch.h"
#include "ctorch/cuda_sanitizer.h"
#include "ctorch/data.h"
#include "ctorch/distributed_store.h"
#include "ctorch/safetensors.h"

using namespace ctorch;

namespace {

std::string wrap(const char* type, const char* what) { return std::string("Caught ") + type + ": " + what; }

// Rethrows a thrown E through the helper; expects the same dynamic type, PyTorch's name and the new text.
template <class E>
void expect_kept(const E& original, const char* python_name) {
  const std::exception_ptr p = std::make_exception_ptr(original);
  try {
    ::ctorch::detail::rethrow_with_message(p, wrap);
  } catch (const std::exception& e) {
    EXPECT_EQ(typeid(e), typeid(E)) << python_name << " came back as " << typeid(e).name();
    EXPECT_EQ(std::string(e.what()), std::string("Caught ") + python_name + ": " + original.what());
    return;
  }
  ADD_FAILURE() << python_name << ": nothing thrown";
}

TEST(ErrorRethrow, EveryErrorTypeKeepsItsTypeAndPythonName) {
  expect_kept(Error("e"), "RuntimeError");
  expect_kept(ValueError("v"), "ValueError");
  expect_kept(IndexError("i"), "IndexError");
  expect_kept(TypeError("t"), "TypeError");
  expect_kept(NotImplementedError("n"), "NotImplementedError");
  expect_kept(OutOfMemoryError("o"), "OutOfMemoryError");
  expect_kept(DeviceError("d"), "RuntimeError");      // PyTorch's CUDA errors are RuntimeErrors
  expect_kept(JitCompileError("j"), "RuntimeError");  // so are jiterator compile errors
  expect_kept(distributed::DistError("x"), "DistError");
  expect_kept(distributed::DistBackendError("rank 1 hung"), "DistBackendError");
  expect_kept(distributed::DistStoreError("s"), "DistStoreError");
  expect_kept(distributed::DistNetworkError("n"), "DistNetworkError");
  expect_kept(safetensors::SafetensorError("bad header"), "SafetensorError");
  expect_kept(cuda::SynchronizationError("sync"), "SynchronizationError");
}

TEST(ErrorRethrow, ARaceReportKeepsItsFields) {
  const Stream s1(Device(DeviceType::CUDA, 0), 1), s2(Device(DeviceType::CUDA, 0), 2);
  const cuda::UnsynchronizedAccessError original("race", 0x1000, s1, "add", s2, "mul", true);
  try {
    ::ctorch::detail::rethrow_with_message(std::make_exception_ptr(original), wrap);
    ADD_FAILURE() << "nothing thrown";
  } catch (const cuda::UnsynchronizedAccessError& e) {
    EXPECT_STREQ(e.what(), "Caught UnsynchronizedAccessError: race");
    EXPECT_EQ(e.data_ptr, 0x1000u);
    EXPECT_EQ(e.current_stream, s1);
    EXPECT_EQ(e.previous_op, "mul");
    EXPECT_TRUE(e.previous_in_freed_block);
  }
}

TEST(ErrorRethrow, OtherExceptionsBecomeRuntimeErrors) {
  EXPECT_THROW(::ctorch::detail::rethrow_with_message(std::make_exception_ptr(std::out_of_range("r")), wrap), Error);
  try {
    ::ctorch::detail::rethrow_with_message(std::make_exception_ptr(42), wrap);
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Caught RuntimeError: unknown exception");
  }
}

// A dataset whose sample 3 throws the error made by `make`.
class Throwing : public data::Dataset {
 public:
  explicit Throwing(std::function<void()> fail) : fail_(std::move(fail)) {}
  data::Example get(size_t index) override {
    if (index == 3) fail_();
    return {full({1}, static_cast<double>(index)), full({}, static_cast<int64_t>(index), TensorOptions(kLong))};
  }
  std::optional<size_t> size() const override { return 8; }

 private:
  std::function<void()> fail_;
};

template <class E>
void expect_worker_error_kept(const char* python_name) {
  data::DataLoader loader(std::make_shared<Throwing>([] { throw E("sample 3 failed"); }),
                          data::DataLoaderOptions(2).num_workers(2));
  bool caught = false;
  try {
    for (auto it = loader.begin(); !(it == loader.end()); ++it) {
    }
  } catch (const E& e) {
    caught = true;
    EXPECT_EQ(typeid(e), typeid(E));
    EXPECT_NE(std::string(e.what()).find(std::string("Caught ") + python_name + " in DataLoader worker thread 1."),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("sample 3 failed"), std::string::npos);
  }
  EXPECT_TRUE(caught) << python_name;
}

TEST(ErrorRethrow, DataLoaderWorkersKeepEveryType) {
  expect_worker_error_kept<distributed::DistBackendError>("DistBackendError");
  expect_worker_error_kept<safetensors::SafetensorError>("SafetensorError");
  expect_worker_error_kept<JitCompileError>("RuntimeError");
  expect_worker_error_kept<ValueError>("ValueError");
}

}  // namespace
