// Single-source elementwise math: every backend instantiates these functors (CTORCH_HD).
// Functors receive opmath values (float for half/bfloat16) and return the value to store.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ctorch/macros.h"

namespace ctorch::inline api::kernels {

/// Unary elementwise ops.
enum class UnaryOp : int8_t {
  Neg, Abs, Exp, Log, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid, Relu, Floor, Ceil, Round, Sign,
  LogicalNot, Clamp, Identity, Erf, Log1p,
};
/// Binary elementwise ops. Compare and logical ops produce bool.
enum class BinaryOp : int8_t {
  Add, Sub, Mul, Div, DivTrunc, DivFloor, Remainder, Pow, Maximum, Minimum,
  Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor,
};

/// PyTorch's name of a unary op ("neg", ...).
constexpr const char* name_of(UnaryOp op) {
  constexpr const char* kNames[] = {"neg",  "abs",   "exp",   "log",  "sqrt",        "rsqrt", "sin",
                                    "cos",  "tanh",  "sigmoid", "relu", "floor",     "ceil",  "round",
                                    "sign", "logical_not", "clamp", "identity", "erf", "log1p"};
  return kNames[static_cast<int>(op)];
}
/// PyTorch's name of a binary op ("add", ...).
constexpr const char* name_of(BinaryOp op) {
  constexpr const char* kNames[] = {"add", "sub", "mul", "div", "div_trunc", "div_floor", "remainder",
                                    "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
                                    "logical_and", "logical_or", "logical_xor"};
  return kNames[static_cast<int>(op)];
}

/// True for ops whose output dtype is bool.
CTORCH_HD constexpr bool produces_bool(BinaryOp op) { return op >= BinaryOp::Eq; }

template <class T>
CTORCH_HD constexpr bool is_float_v() {
  return std::is_floating_point_v<T>;
}

/// True for int32 and int64, whose C++ arithmetic may overflow (smaller types promote to int).
template <class T>
inline constexpr bool wraps_v = std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= 4;

/// a + b, a - b, a * b and -a with two's complement wrap-around for int32/int64 (PyTorch's
/// kernels wrap; signed overflow is undefined behaviour in C++).
template <class T>
CTORCH_HD T wrap_add(T a, T b) {
  if constexpr (wraps_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return static_cast<T>(a + b);
  }
}
template <class T>
CTORCH_HD T wrap_sub(T a, T b) {
  if constexpr (wraps_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return static_cast<T>(a - b);
  }
}
template <class T>
CTORCH_HD T wrap_mul(T a, T b) {
  if constexpr (wraps_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return static_cast<T>(a * b);
  }
}
template <class T>
CTORCH_HD T wrap_neg(T a) {
  if constexpr (wraps_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(U(0) - static_cast<U>(a));
  } else {
    return static_cast<T>(-a);
  }
}

/// One unary op on one value; `a` and `b` carry op parameters (clamp bounds).
template <UnaryOp Op>
struct Unary {
  template <class T>
  CTORCH_HD T operator()(T x, T a = T(), T b = T()) const {
    if constexpr (Op == UnaryOp::Neg) {
      return wrap_neg(x);
    } else if constexpr (Op == UnaryOp::Abs) {
      if constexpr (std::is_unsigned_v<T>) return x;
      else if constexpr (is_float_v<T>()) return std::abs(x);  // abs(-0.0) is +0.0
      else return x < T(0) ? wrap_neg(x) : x;
    } else if constexpr (Op == UnaryOp::Exp) {
      return std::exp(x);
    } else if constexpr (Op == UnaryOp::Log) {
      return std::log(x);
    } else if constexpr (Op == UnaryOp::Sqrt) {
      return std::sqrt(x);
    } else if constexpr (Op == UnaryOp::Rsqrt) {
      return T(1) / std::sqrt(x);
    } else if constexpr (Op == UnaryOp::Sin) {
      return std::sin(x);
    } else if constexpr (Op == UnaryOp::Cos) {
      return std::cos(x);
    } else if constexpr (Op == UnaryOp::Tanh) {
      return std::tanh(x);
    } else if constexpr (Op == UnaryOp::Sigmoid) {
      return T(1) / (T(1) + std::exp(-x));
    } else if constexpr (Op == UnaryOp::Erf) {
      return std::erf(x);
    } else if constexpr (Op == UnaryOp::Log1p) {
      return std::log1p(x);
    } else if constexpr (Op == UnaryOp::Relu) {
      return x < T(0) ? T(0) : x;  // std::max(x, 0): NaN and -0.0 pass through
    } else if constexpr (Op == UnaryOp::Floor) {
      if constexpr (is_float_v<T>()) return std::floor(x); else return x;
    } else if constexpr (Op == UnaryOp::Ceil) {
      if constexpr (is_float_v<T>()) return std::ceil(x); else return x;
    } else if constexpr (Op == UnaryOp::Round) {
      if constexpr (is_float_v<T>()) return std::nearbyint(x); else return x;
    } else if constexpr (Op == UnaryOp::Sign) {
      if constexpr (std::is_same_v<T, bool>) return x;
      else return static_cast<T>((T(0) < x) - (x < T(0)));
    } else if constexpr (Op == UnaryOp::LogicalNot) {
      return static_cast<T>(!x);
    } else if constexpr (Op == UnaryOp::Clamp) {
      // NaN propagates (as torch.clamp): comparisons with NaN are false.
      T y = x < a ? a : x;
      return y > b ? b : y;
    } else {
      return x;
    }
  }
};

/// One binary op on two values; `alpha` scales the second operand of Add/Sub.
template <BinaryOp Op>
struct Binary {
  template <class T>
  CTORCH_HD auto operator()(T x, T y, T alpha = T(1)) const {
    if constexpr (Op == BinaryOp::Add) {
      return wrap_add(x, wrap_mul(alpha, y));
    } else if constexpr (Op == BinaryOp::Sub) {
      return wrap_sub(x, wrap_mul(alpha, y));
    } else if constexpr (Op == BinaryOp::Mul) {
      return wrap_mul(x, y);
    } else if constexpr (Op == BinaryOp::Div) {
      return static_cast<T>(x / y);
    } else if constexpr (Op == BinaryOp::DivTrunc) {
      if constexpr (is_float_v<T>()) {
        return std::trunc(x / y);
      } else {
        if constexpr (std::is_signed_v<T>) {
          if (y == T(-1)) return wrap_neg(x);  // lowest / -1 wraps instead of trapping
        }
        return static_cast<T>(x / y);
      }
    } else if constexpr (Op == BinaryOp::DivFloor) {
      if constexpr (is_float_v<T>()) {
        return div_floor_float(x, y);
      } else {
        if constexpr (std::is_signed_v<T>) {
          if (y == T(-1)) return wrap_neg(x);
        }
        T q = static_cast<T>(x / y);
        if constexpr (std::is_signed_v<T>) {
          if ((x % y != 0) && ((x < 0) != (y < 0))) q = static_cast<T>(q - 1);
        }
        return q;
      }
    } else if constexpr (Op == BinaryOp::Remainder) {
      if constexpr (is_float_v<T>()) {
        T r = std::fmod(x, y);
        if (r != T(0) && ((r < T(0)) != (y < T(0)))) r += y;
        return r;
      } else {
        if constexpr (std::is_signed_v<T>) {
          if (y == T(-1)) return T(0);  // lowest % -1 would trap
        }
        T r = static_cast<T>(x % y);
        if constexpr (std::is_signed_v<T>) {
          if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
        }
        return r;
      }
    } else if constexpr (Op == BinaryOp::Pow) {
      if constexpr (is_float_v<T>()) {
        return std::pow(x, y);
      } else {
        return int_pow(x, y);
      }
    } else if constexpr (Op == BinaryOp::Maximum) {
      if constexpr (is_float_v<T>()) {
        if (x != x) return x;
        if (y != y) return y;
      }
      return x > y ? x : y;
    } else if constexpr (Op == BinaryOp::Minimum) {
      if constexpr (is_float_v<T>()) {
        if (x != x) return x;
        if (y != y) return y;
      }
      return x < y ? x : y;
    } else if constexpr (Op == BinaryOp::Eq) {
      return x == y;
    } else if constexpr (Op == BinaryOp::Ne) {
      return x != y;
    } else if constexpr (Op == BinaryOp::Lt) {
      return x < y;
    } else if constexpr (Op == BinaryOp::Le) {
      return x <= y;
    } else if constexpr (Op == BinaryOp::Gt) {
      return x > y;
    } else if constexpr (Op == BinaryOp::Ge) {
      return x >= y;
    } else if constexpr (Op == BinaryOp::LogicalAnd) {
      return static_cast<bool>(x) && static_cast<bool>(y);
    } else if constexpr (Op == BinaryOp::LogicalOr) {
      return static_cast<bool>(x) || static_cast<bool>(y);
    } else {
      return static_cast<bool>(x) != static_cast<bool>(y);
    }
  }

 private:
  // PyTorch's div_floor for floating types (aten/src/ATen/native/BinaryOps.h).
  template <class T>
  CTORCH_HD static T div_floor_float(T a, T b) {
    if (b == T(0)) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    T floordiv;
    if (div != T(0)) {
      floordiv = std::floor(div);
      if (div - floordiv > T(0.5)) floordiv += T(1);
    } else {
      floordiv = std::copysign(T(0), a / b);
    }
    return floordiv;
  }
  // Integer power by squaring; negative exponents follow PyTorch (1 for base 1, ±1 for -1, else 0).
  template <class T>
  CTORCH_HD static T int_pow(T base, T exp) {
    if constexpr (std::is_same_v<T, bool>) {
      return exp ? base : true;
    } else {
      if constexpr (std::is_signed_v<T>) {
        if (exp < 0) {
          if (base == 1) return 1;
          if (base == -1) return (exp % 2 == 0) ? 1 : -1;
          return 0;
        }
      }
      T result = 1;
      while (exp) {
        if (exp & 1) result = wrap_mul(result, base);
        exp = static_cast<T>(exp / 2);
        base = wrap_mul(base, base);
      }
      return result;
    }
  }
};

}  // namespace ctorch::api::kernels
