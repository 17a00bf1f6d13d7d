// ctorch's stand-in for PyTorch 1.13's test/cpp/api/support.h and test/cpp/common/support.h,
// written over ctorch's own API. It provides what tensor.cpp, tensor_options.cpp,
// tensor_indexing.cpp, tensor_cuda.cpp and tensor_options_cuda.cpp use:
//   SeedingFixture, WarningCapture, pointer_equal, assert_tensor_equal, assert_tensor_not_equal,
//   count_substr_occurrences, AutoDefaultDtypeMode, ASSERT_THROWS_WITH.
// SimpleContainer is PyTorch's (a Cloneable whose add() registers a holder). Left out (it needs a
// subsystem ctorch does not have): assert_tensor_creation_meta (autograd view metadata). Where PyTorch's helpers call functions
// ctorch lacks (isnan, isinf, index_put_ with a boolean mask, type_as, is_signed,
// what_without_backtrace), the same check is made from functions ctorch has; see each helper.
#pragma once

#include <gtest/gtest.h>

#include <ctorch/torch.h>

#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace torch {
namespace test {

// PyTorch's test/cpp/common/support.h. ctorch's errors carry no backtrace, so what() is the
// message PyTorch's what_without_backtrace() gives.
#define ASSERT_THROWS_WITH(statement, substring)                        \
  {                                                                     \
    std::string assert_throws_with_error_message;                       \
    try {                                                               \
      (void)statement;                                                  \
      FAIL() << "Expected statement `" #statement                       \
                "` to throw an exception, but it did not";              \
    } catch (const std::exception& e) {                                 \
      assert_throws_with_error_message = e.what();                      \
    }                                                                   \
    if (assert_throws_with_error_message.find(substring) ==             \
        std::string::npos) {                                            \
      FAIL() << "Error message \"" << assert_throws_with_error_message  \
             << "\" did not contain expected substring \"" << substring \
             << "\"";                                                   \
    }                                                                   \
  }

/// A module that registers the holders given to add() (PyTorch's SimpleContainer).
struct SimpleContainer : ::torch::nn::Cloneable<SimpleContainer> {
  void reset() override {}

  template <typename ModuleHolder>
  ModuleHolder add(ModuleHolder module_holder, std::string name = std::string()) {
    return Module::register_module(std::move(name), module_holder);
  }
};

/// Seeds the global generator with 0 before each test of a TEST_F.
struct SeedingFixture : public ::testing::Test {
  SeedingFixture() { ::ctorch::manual_seed(0); }
};

/// Collects the calling thread's warnings for its lifetime (ctorch::set_warning_handler).
class WarningCapture {
 public:
  WarningCapture()
      : prev_(::ctorch::set_warning_handler([this](const std::string& msg) { messages_.push_back(msg); })) {}
  ~WarningCapture() { ::ctorch::set_warning_handler(std::move(prev_)); }
  WarningCapture(const WarningCapture&) = delete;
  WarningCapture& operator=(const WarningCapture&) = delete;

  const std::vector<std::string>& messages() { return messages_; }

  /// The messages joined with "\n" (c10::Join).
  std::string str() {
    std::string out;
    for (size_t i = 0; i < messages_.size(); ++i) {
      if (i) out += "\n";
      out += messages_[i];
    }
    return out;
  }

 private:
  std::vector<std::string> messages_;
  ::ctorch::WarningHandler prev_;
};

inline bool pointer_equal(const ::ctorch::Tensor& first, const ::ctorch::Tensor& second) {
  return first.data_ptr() == second.data_ptr();
}

namespace detail {
/// Tensor::is_signed(): every dtype but uint8 and bool.
inline bool is_signed(::ctorch::ScalarType t) {
  return t != ::ctorch::ScalarType::UInt8 && t != ::ctorch::ScalarType::Bool;
}
/// torch::isnan(t): NaN is the only value unequal to itself.
inline ::ctorch::Tensor isnan(const ::ctorch::Tensor& t) { return t.ne(t); }
/// torch::isinf(t).
inline ::ctorch::Tensor isinf(const ::ctorch::Tensor& t) {
  return t.abs().eq(std::numeric_limits<double>::infinity());
}
/// t.index_put_({mask}, 0), as a new tensor.
inline ::ctorch::Tensor zero_where(const ::ctorch::Tensor& mask, const ::ctorch::Tensor& t) {
  return ::ctorch::where(mask, 0, t);
}
}  // namespace detail

// Mirrors the `isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)` branch of
// TestCase.assertEqual (PyTorch's helper, step for step).
inline void assert_tensor_equal(::ctorch::Tensor a, ::ctorch::Tensor b, bool allow_inf = false) {
  using ::ctorch::ScalarType;
  ASSERT_TRUE(a.sizes() == b.sizes());
  if (a.numel() > 0) {
    if (a.device().is_cpu() && (a.scalar_type() == ScalarType::Float16 || a.scalar_type() == ScalarType::BFloat16)) {
      a = a.to(ScalarType::Float32);
    }
    if (a.device().is_cuda() && a.scalar_type() == ScalarType::BFloat16) {
      a = a.to(ScalarType::Float32);
    }
    b = b.to(a);

    if ((a.scalar_type() == ScalarType::Bool) != (b.scalar_type() == ScalarType::Bool)) {
      CTORCH_CHECK(false, "Was expecting both tensors to be bool type.");
    } else {
      if (a.scalar_type() == ScalarType::Bool && b.scalar_type() == ScalarType::Bool) {
        // bool has no subtraction: compare as int
        a = a.to(ScalarType::Int32);
        b = b.to(ScalarType::Int32);
      }

      auto diff = a - b;
      if (a.is_floating_point()) {
        // NaNs in the same places
        auto nan_mask = detail::isnan(a);
        ASSERT_TRUE(::ctorch::equal(nan_mask, detail::isnan(b)));
        diff = detail::zero_where(nan_mask, diff);
        if (allow_inf) {
          // PyTorch compares isinf(a).sign() with isinf(b).sign(): the inf positions
          auto inf_mask = detail::isinf(a);
          ASSERT_TRUE(::ctorch::equal(inf_mask, detail::isinf(b)));
          diff = detail::zero_where(inf_mask, diff);
        }
      }
      if (detail::is_signed(diff.scalar_type()) && diff.scalar_type() != ScalarType::Int8) {
        diff = diff.abs();
      }
      auto max_err = diff.max().item<double>();
      ASSERT_LE(max_err, 1e-5);
    }
  }
}

// Mirrors the `isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)` branch of
// TestCase.assertNotEqual.
inline void assert_tensor_not_equal(::ctorch::Tensor x, ::ctorch::Tensor y) {
  if (x.sizes() != y.sizes()) {
    return;
  }
  ASSERT_GT(x.numel(), 0);
  y = y.to(x.scalar_type());                                                        // type_as
  y = x.is_cuda() ? y.to(::ctorch::Device(::ctorch::DeviceType::CUDA, x.get_device())) : y.cpu();
  auto nan_mask = x != x;
  if (::ctorch::equal(nan_mask, y != y)) {
    auto diff = x - y;
    if (detail::is_signed(diff.scalar_type())) {
      diff = diff.abs();
    }
    diff = detail::zero_where(nan_mask, diff);
    auto max_err = diff.max().item<double>();
    ASSERT_GE(max_err, 1e-5);
  }
}

inline int count_substr_occurrences(const std::string& str, const std::string& substr) {
  int count = 0;
  size_t pos = str.find(substr);
  while (pos != std::string::npos) {
    count++;
    pos = str.find(substr, pos + substr.size());
  }
  return count;
}

/// Sets the default dtype for its lifetime (one guard at a time across threads).
struct AutoDefaultDtypeMode {
  static inline std::mutex default_dtype_mutex;

  AutoDefaultDtypeMode(::ctorch::ScalarType default_dtype)  // NOLINT: implicit, as PyTorch's
      : prev_default_dtype(::ctorch::get_default_dtype()) {
    default_dtype_mutex.lock();
    ::ctorch::set_default_dtype(default_dtype);
  }
  ~AutoDefaultDtypeMode() {
    default_dtype_mutex.unlock();
    ::ctorch::set_default_dtype(prev_default_dtype);
  }
  ::ctorch::ScalarType prev_default_dtype;
};

}  // namespace test
}  // namespace torch
