// Tensor: a reference-counted handle to a TensorImpl, with torch.Tensor's methods.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <type_traits>
#include <string>
#include <tuple>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/generator.h"
#include "ctorch/indexing.h"
#include "ctorch/layout.h"
#include "ctorch/scalar.h"
#include "ctorch/stream.h"
#include "ctorch/tensor_impl.h"
#include "ctorch/tensor_options.h"

namespace ctorch::inline api {

class TensorIndex;

/// A multi-dimensional array on a device. Copies share data (like a Python reference);
/// use clone() for a deep copy. Methods mirror torch.Tensor.
class Tensor {
 public:
  /// An undefined tensor (defined() is false).
  Tensor() = default;
  /// Wraps an impl.
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  ~Tensor() = default;
  /// Rebinds this handle to `other`'s tensor (no data is copied).
  Tensor& operator=(const Tensor& other) & = default;
  /// Rebinds this handle to `other`'s tensor (no data is copied).
  Tensor& operator=(Tensor&& other) & noexcept = default;
  /// Assigning to a temporary writes through it, as `t[0] = src` in Python and libtorch: copy_.
  Tensor& operator=(const Tensor& src) && { return copy_(src); }
  /// Same as the const& form.
  Tensor& operator=(Tensor&& src) && { return copy_(src); }
  /// `t[0] = 5`: fill_ on the temporary view.
  Tensor& operator=(const Scalar& value) && { return fill_(value); }

  // ---- metadata -------------------------------------------------------------------------
  /// False for a default-constructed Tensor.
  bool defined() const { return static_cast<bool>(impl_); }
  /// The impl (for library code).
  TensorImpl* impl() const { return impl_.get(); }
  /// The impl (libtorch's spelling; its address keys optimizer state).
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  /// Shared handle to the impl.
  const IntrusivePtr<TensorImpl>& impl_ptr() const { return impl_; }
  /// Sizes of every dimension.
  IntArrayRef sizes() const { return checked_impl("sizes")->sizes(); }
  /// Strides of every dimension, in elements.
  IntArrayRef strides() const { return checked_impl("strides")->strides(); }
  /// Size of `dim` (negative counts from the end).
  int64_t size(int64_t dim) const;
  /// Stride of `dim` (negative counts from the end).
  int64_t stride(int64_t dim) const;
  /// Number of dimensions.
  int64_t dim() const { return checked_impl("dim")->dim(); }
  /// Same as dim().
  int64_t ndimension() const { return checked_impl("ndimension")->dim(); }
  /// Number of elements.
  int64_t numel() const { return checked_impl("numel")->numel(); }
  /// Element type.
  ScalarType dtype() const { return checked_impl("dtype")->dtype(); }
  /// Same as dtype().
  ScalarType scalar_type() const { return checked_impl("scalar_type")->dtype(); }
  /// Device holding the data.
  Device device() const { return checked_impl("device")->device(); }
  /// Device index, -1 for cpu tensors (Tensor.get_device()).
  int64_t get_device() const { return device().is_cpu() ? -1 : device().index(); }
  /// Offset of element 0 in the storage, in elements.
  int64_t storage_offset() const { return checked_impl("storage_offset")->storage_offset(); }
  /// Bytes per element.
  int64_t element_size() const { return ctorch::element_size(dtype()); }
  /// numel() * element_size().
  int64_t nbytes() const { return numel() * element_size(); }
  /// True when elements are laid out row-major without gaps.
  bool is_contiguous() const { return checked_impl("is_contiguous")->is_contiguous(); }
  /// True for tensors on a cuda device (real or emulated).
  bool is_cuda() const { return device().is_cuda(); }
  /// True for cpu tensors.
  bool is_cpu() const { return device().is_cpu(); }
  /// True for floating dtypes (not complex ones, as in PyTorch).
  bool is_floating_point() const { return ctorch::is_floating_point(dtype()); }
  /// True for complex64 and complex128.
  bool is_complex() const { return ctorch::is_complex(dtype()); }
  /// The real parts of a complex tensor as a view (torch.real); a real tensor itself.
  Tensor real() const;
  /// The imaginary parts of a complex tensor as a view (torch.imag); real tensors raise.
  Tensor imag() const;
  /// The complex conjugate (torch.conj; materialized, never a lazy conjugate view); a real tensor itself.
  Tensor conj() const;
  /// True for cpu tensors in page-locked memory.
  bool is_pinned() const;
  /// dtype, device and requires_grad of this tensor.
  TensorOptions options() const { return TensorOptions().dtype(dtype()).device(device()); }
  /// Always kStrided: ctorch has strided tensors only.
  Layout layout() const { return kStrided; }
  /// True when gradients are tracked for this tensor.
  bool requires_grad() const { return impl_ && impl_->requires_grad(); }
  /// Sets requires_grad (only floating tensors may require grad). Returns *this.
  Tensor& requires_grad_(bool value = true);
  /// Same as requires_grad_(value).
  Tensor& set_requires_grad(bool value) { return requires_grad_(value); }

  // ---- autograd (ctorch/autograd.h; defined in autograd/tensor_autograd.cpp) ------------------
  /// The gradient accumulated by backward (undefined until one reaches this tensor).
  const Tensor& grad() const;
  /// The gradient slot, writable: `t.mutable_grad() = Tensor()` clears it (Python's `t.grad = None`).
  Tensor& mutable_grad() const;
  /// The node that produced this tensor; null for leaves.
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  /// True for tensors not produced by a recorded op (every tensor that does not require grad, too).
  bool is_leaf() const;
  /// Which output of grad_fn this tensor is.
  int64_t output_nr() const;
  /// Makes backward keep this non-leaf tensor's gradient in grad().
  void retain_grad() const;
  /// True when retain_grad() was called (or for leaves that require grad).
  bool retains_grad() const;
  /// Computes the gradient of this tensor with respect to the graph leaves (torch.Tensor.backward).
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false, std::optional<std::vector<Tensor>> inputs = std::nullopt) const;
  /// Registers a hook on this tensor's gradient: `Tensor(Tensor)` may replace it, `void(Tensor)`
  /// only looks. Returns the key for remove_hook.
  template <class F>
  unsigned register_hook(F&& hook) const {
    if constexpr (std::is_void_v<std::invoke_result_t<F&, const Tensor&>>) {
      return add_grad_hook([h = std::forward<F>(hook)](const Tensor& g) {
        h(g);
        return Tensor();
      });
    } else {
      return add_grad_hook(std::function<Tensor(const Tensor&)>(std::forward<F>(hook)));
    }
  }
  /// Removes the hook registered under `key`.
  void remove_hook(unsigned key) const;
  /// Makes this tensor use `data`'s storage, dtype and shape, keeping its identity, requires_grad
  /// and history (Tensor.data = ... / libtorch's set_data): how modules move parameters.
  void set_data(const Tensor& data) const { impl_->set_data_from(*data.impl()); }
  /// Detaches this tensor from the graph in place: it becomes a leaf that does not require grad.
  Tensor& detach_();
  /// True when this tensor was made as a view while recording history (its base requires grad), or
  /// is a view that an indexed write of a value requiring grad went through (Tensor._is_view).
  bool is_view() const;
  /// The base of a view for which is_view() holds (Tensor._base); throws for other tensors.
  const Tensor& _base() const;
  /// True when both handles refer to the same impl.
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  /// Number of handles sharing the impl.
  size_t use_count() const { return impl_.use_count(); }
  /// In-place modification counter shared by views (Tensor._version).
  uint32_t _version() const { return impl_->storage()->version(); }

  // ---- data access ----------------------------------------------------------------------
  /// Address of element 0. For cuda tensors this is a device address.
  void* data_ptr() const { return checked_impl("data_ptr")->data(); }
  /// Typed address of element 0; checks that T matches dtype().
  template <class T>
  T* data_ptr() const;
  /// The single value of a one-element tensor (copies from the device if needed).
  Scalar item() const;
  /// The single value converted to T.
  template <class T>
  T item() const {
    return item().to<T>();
  }
  /// All elements, row-major, converted to T (copies from the device if needed).
  template <class T>
  std::vector<T> to_vector() const;

  // ---- conversion and copy ----------------------------------------------------------------
  /// Returns *this when dtype already matches and copy is false; else a converted copy.
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  /// Moves to `device` (same rules: *this when nothing changes).
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  /// to(Device(type)): kCUDA is the current cuda device.
  Tensor to(DeviceType type, bool non_blocking = false, bool copy = false) const {
    return to(Device(type), non_blocking, copy);
  }
  /// to(Device(text)), as t.to("cuda:1").
  Tensor to(const char* device, bool non_blocking = false, bool copy = false) const {
    return to(Device(device), non_blocking, copy);
  }
  /// Moves to `device` and converts to `dtype`.
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  /// Applies the set fields of `options`.
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false) const;
  /// Matches `other`'s device and dtype.
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  /// to(kCPU).
  Tensor cpu() const;
  /// Moves to a cuda device (default: the current one); *this when already there.
  Tensor cuda(std::optional<Device> device = std::nullopt, bool non_blocking = false) const;
  /// cuda(cuda:index).
  Tensor cuda(int index, bool non_blocking = false) const;
  /// A copy in page-locked host memory (*this when already pinned); cpu tensors only.
  Tensor pin_memory() const;
  /// Marks the memory as in use by `stream`, so the caching allocator reuses it only after the
  /// work queued there at free time has finished (cuda tensors only).
  void record_stream(Stream stream) const;
  /// Copies `src` into this tensor (broadcasting, converting dtype, across devices).
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  /// A new tensor with the same values (same dtype, device and strides where dense).
  Tensor clone() const;
  /// *this when contiguous, else a contiguous copy.
  Tensor contiguous() const;
  /// A tensor sharing storage but not autograd history.
  Tensor detach() const;
  /// The same storage without autograd history (Tensor.data; libtorch's data()), as detach().
  Tensor data() const { return detach(); }
  /// Fills every element with `value`.
  Tensor& fill_(const Scalar& value);
  /// Fills with the value of a 0-dim tensor.
  Tensor& fill_(const Tensor& value);
  /// Fills with zeros.
  Tensor& zero_();
  /// Gives the tensor `size` with contiguous strides, growing the storage (which its views share, as in
  /// PyTorch) when it is too small; kept elements keep their bytes, new ones are uninitialized.
  Tensor& resize_(IntArrayRef size);

  // ---- factories that keep this tensor's dtype and device ---------------------------------
  /// Uninitialized tensor of `size`, this dtype and device unless overridden.
  Tensor new_empty(IntArrayRef size, TensorOptions options = {}) const;
  /// Zeros, this dtype and device unless overridden.
  Tensor new_zeros(IntArrayRef size, TensorOptions options = {}) const;
  /// Ones, this dtype and device unless overridden.
  Tensor new_ones(IntArrayRef size, TensorOptions options = {}) const;
  /// Filled with `value`, this dtype and device unless overridden.
  Tensor new_full(IntArrayRef size, const Scalar& value, TensorOptions options = {}) const;
  /// A copy of `data` on this device with this dtype unless overridden.
  Tensor new_tensor(const Tensor& data, TensorOptions options = {}) const;

  // ---- views and shape ---------------------------------------------------------------------
  /// A view with new sizes (one may be -1); fails when strides do not allow it.
  Tensor view(IntArrayRef size) const;
  /// A view if possible, else a copy.
  Tensor reshape(IntArrayRef shape) const;
  /// view(other.sizes()).
  Tensor view_as(const Tensor& other) const;
  /// reshape(other.sizes()).
  Tensor reshape_as(const Tensor& other) const;
  /// Reorders dimensions.
  Tensor permute(IntArrayRef dims) const;
  /// Swaps two dimensions.
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  /// Transpose of a tensor with at most 2 dims.
  Tensor t() const;
  /// Removes all size-1 dims.
  Tensor squeeze() const;
  /// Removes `dim` if its size is 1.
  Tensor squeeze(int64_t dim) const;
  /// Inserts a size-1 dim at `dim`.
  Tensor unsqueeze(int64_t dim) const;
  /// Broadcasts to `size` without copying (-1 keeps a size).
  Tensor expand(IntArrayRef size) const;
  /// expand(other.sizes()).
  Tensor expand_as(const Tensor& other) const;
  /// Flattens dims start_dim..end_dim into one.
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  /// The tensor tiled `repeats[i]` times along dim i (leading repeats add dims; Tensor.repeat).
  Tensor repeat(IntArrayRef repeats) const;
  /// Elements start..start+length of `dim`.
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  /// Elements start:end:step of `dim` (Python slicing rules, end clamps).
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  /// Removes `dim` by taking element `index`.
  Tensor select(int64_t dim, int64_t index) const;
  /// select(0, index).
  Tensor operator[](int64_t index) const { return select(0, index); }
  /// Integer, boolean, slice, None and Ellipsis indexing (Tensor.__getitem__).
  Tensor index(ArrayRef<TensorIndex> indices) const;
  /// Same as index(ArrayRef) for a braced list.
  Tensor index(std::initializer_list<TensorIndex> indices) const { return index(ArrayRef<TensorIndex>(indices)); }
  /// Assigns `value` to the indexed region (Tensor.__setitem__).
  Tensor& index_put_(ArrayRef<TensorIndex> indices, const Tensor& value);
  /// Same as index_put_(ArrayRef, Tensor) for a braced list.
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) {
    return index_put_(ArrayRef<TensorIndex>(indices), value);
  }
  /// Assigns a scalar to the indexed region.
  Tensor& index_put_(ArrayRef<TensorIndex> indices, const Scalar& value);
  /// Same as index_put_(ArrayRef, Scalar) for a braced list.
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) {
    return index_put_(ArrayRef<TensorIndex>(indices), value);
  }
  /// Writes `values` at the positions given by one optional index tensor per leading dim (int64, or
  /// bool/uint8 masks), adding instead when `accumulate` (Tensor.index_put_ / aten::index_put_).
  Tensor& index_put_(const std::vector<std::optional<Tensor>>& indices, const Tensor& values, bool accumulate = false);

  // ---- gather and scatter --------------------------------------------------------------------
  /// The entries of `index` (1-d or 0-d, int64 or int32) along `dim` (torch.index_select).
  Tensor index_select(int64_t dim, const Tensor& index) const;
  /// out[i][j] = self[index[i][j]][j] for dim 0, and so on (torch.gather; int64 index).
  Tensor gather(int64_t dim, const Tensor& index) const;
  /// self[index[i][j]][j] = src[i][j] for dim 0, and so on (Tensor.scatter_; int64 index).
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src);
  /// Out-of-place scatter_.
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  /// self[index[i][j]][j] += src[i][j] for dim 0, and so on; deterministic order (Tensor.scatter_add_).
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src);
  /// Out-of-place scatter_add_.
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  /// Adds alpha * source's slices along `dim` into self's slices at `index` (Tensor.index_add_).
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
  /// Out-of-place index_add_.
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  /// The elements where the broadcast bool mask is true, as a 1-d tensor (torch.masked_select).
  Tensor masked_select(const Tensor& mask) const;
  /// Sets the elements where the bool mask (broadcast to self) is true to `value`.
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value);
  /// masked_fill_ with the value of a 0-dim tensor.
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value);
  /// Out-of-place masked_fill_ (broadcasting self and mask).
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  /// Out-of-place masked_fill_ with a 0-dim tensor value.
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  /// Indices of the nonzero elements, one row each: int64 of shape [n, dim()] (synchronizes with the device).
  Tensor nonzero() const;

  /// A view of the same elements with the same geometry (torch.alias; AliasBackward0).
  Tensor alias() const;
  /// A view with explicit sizes, strides and offset.
  Tensor as_strided(IntArrayRef size, IntArrayRef stride,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  /// Splits into `chunks` nearly equal pieces along `dim`.
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  /// Pieces of `split_size` along `dim` (the last may be smaller).
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  /// Pieces of the given sizes along `dim`.
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  /// Removes `dim`, returning every slice.
  std::vector<Tensor> unbind(int64_t dim = 0) const;

  // ---- elementwise --------------------------------------------------------------------------
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1);
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1);
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(const Scalar& other);
  /// rounding_mode: none (true division), "trunc" or "floor".
  Tensor div(const Tensor& other, std::optional<std::string> rounding_mode = std::nullopt) const;
  Tensor div(const Scalar& other, std::optional<std::string> rounding_mode = std::nullopt) const;
  Tensor& div_(const Tensor& other, std::optional<std::string> rounding_mode = std::nullopt);
  Tensor& div_(const Scalar& other, std::optional<std::string> rounding_mode = std::nullopt);
  /// Python-style modulus (sign of the divisor).
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(const Scalar& other) const;
  Tensor& remainder_(const Tensor& other);
  Tensor& remainder_(const Scalar& other);
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor& pow_(const Tensor& exponent);
  Tensor& pow_(const Scalar& exponent);
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor eq(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(const Scalar& other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_xor(const Tensor& other) const;
  Tensor logical_not() const;
  /// Elements clamped to [min, max]; either bound may be absent (not both).
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  Tensor neg() const;
  Tensor& neg_();
  Tensor abs() const;
  Tensor& abs_();
  Tensor exp() const;
  Tensor& exp_();
  Tensor log() const;
  Tensor& log_();
  Tensor sqrt() const;
  Tensor& sqrt_();
  Tensor rsqrt() const;
  Tensor& rsqrt_();
  Tensor sin() const;
  Tensor& sin_();
  Tensor cos() const;
  Tensor& cos_();
  Tensor tanh() const;
  Tensor& tanh_();
  Tensor sigmoid() const;
  Tensor& sigmoid_();
  /// The error function (torch.erf).
  Tensor erf() const;
  /// In-place erf.
  Tensor& erf_();
  /// log(1 + x), accurate for small x (torch.log1p).
  Tensor log1p() const;
  /// In-place log1p.
  Tensor& log1p_();
  Tensor relu() const;
  Tensor& relu_();
  Tensor floor() const;
  Tensor& floor_();
  Tensor ceil() const;
  Tensor& ceil_();
  /// Rounds half to even, as torch.round.
  Tensor round() const;
  Tensor& round_();
  Tensor sign() const;
  Tensor& sign_();

  // ---- reductions ---------------------------------------------------------------------------
  /// Sum of all elements (ints and bool accumulate as int64).
  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  /// Sum over `dim`.
  Tensor sum(IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  /// Largest element.
  Tensor max() const;
  /// Largest values along `dim` and their indices.
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  /// Index of the largest element (of the flattened tensor when dim is absent).
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  /// p-norm of all elements (p = 2: Frobenius).
  Tensor norm(const Scalar& p = 2) const;
  Tensor norm(const Scalar& p, IntArrayRef dim, bool keepdim = false) const;
  /// Variance; `correction` 1 is Bessel's correction (unbiased).
  Tensor var(OptionalIntArrayRef dim = std::nullopt, int64_t correction = 1, bool keepdim = false) const;
  Tensor std(OptionalIntArrayRef dim = std::nullopt, int64_t correction = 1, bool keepdim = false) const;
  Tensor softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<ScalarType> dtype = std::nullopt) const;

  // ---- linear algebra -----------------------------------------------------------------------
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& mat2) const;
  Tensor bmm(const Tensor& mat2) const;
  /// beta * self + alpha * (mat1 @ mat2).
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1, const Scalar& alpha = 1) const;

  // ---- comparison of whole tensors ------------------------------------------------------------
  /// True when sizes and all elements are equal.
  bool equal(const Tensor& other) const;
  /// |self - other| <= atol + rtol * |other| everywhere.
  bool allclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false) const;

  // ---- random, in place -----------------------------------------------------------------------
  Tensor& uniform_(double from = 0, double to = 1, std::optional<Generator> generator = std::nullopt);
  Tensor& normal_(double mean = 0, double std = 1, std::optional<Generator> generator = std::nullopt);
  /// Draws integers in [from, to) (to absent: the dtype's range).
  Tensor& random_(int64_t from, std::optional<int64_t> to, std::optional<Generator> generator = std::nullopt);
  /// Draws integers in [0, to) (Tensor.random_(to)).
  Tensor& random_(int64_t to) { return random_(0, to); }
  /// 1 with probability p.
  Tensor& bernoulli_(double p = 0.5, std::optional<Generator> generator = std::nullopt);

  // ---- printing -------------------------------------------------------------------------------
  /// PyTorch's repr: "tensor([1., 2.])".
  std::string repr() const;
  /// libtorch's `std::cout << tensor` format (values then "[ CPUFloatType{2} ]").
  std::string cpp_repr() const;
  /// "torch.FloatTensor" / "torch.cuda.FloatTensor" (Tensor.type()).
  std::string type_string() const;

  // ---- operators ------------------------------------------------------------------------------
  Tensor operator-() const { return neg(); }
  Tensor& operator+=(const Tensor& o) { return add_(o); }
  Tensor& operator+=(const Scalar& o) { return add_(o); }
  Tensor& operator-=(const Tensor& o) { return sub_(o); }
  Tensor& operator-=(const Scalar& o) { return sub_(o); }
  Tensor& operator*=(const Tensor& o) { return mul_(o); }
  Tensor& operator*=(const Scalar& o) { return mul_(o); }
  Tensor& operator/=(const Tensor& o) { return div_(o); }
  Tensor& operator/=(const Scalar& o) { return div_(o); }

  // ---- libtorch's in-place methods are const (a Tensor is a handle): `t.grad().zero_()` ----------
  Tensor& zero_() const { return mut().zero_(); }
  Tensor& fill_(const Scalar& v) const { return mut().fill_(v); }
  Tensor& copy_(const Tensor& src, bool non_blocking = false) const { return mut().copy_(src, non_blocking); }
  Tensor& add_(const Tensor& o, const Scalar& alpha = 1) const { return mut().add_(o, alpha); }
  Tensor& add_(const Scalar& o, const Scalar& alpha = 1) const { return mut().add_(o, alpha); }
  Tensor& sub_(const Tensor& o, const Scalar& alpha = 1) const { return mut().sub_(o, alpha); }
  Tensor& sub_(const Scalar& o, const Scalar& alpha = 1) const { return mut().sub_(o, alpha); }
  Tensor& mul_(const Tensor& o) const { return mut().mul_(o); }
  Tensor& mul_(const Scalar& o) const { return mut().mul_(o); }
  Tensor& div_(const Tensor& o) const { return mut().div_(o); }
  Tensor& div_(const Scalar& o) const { return mut().div_(o); }
  Tensor& neg_() const { return mut().neg_(); }
  Tensor& requires_grad_(bool value = true) const { return mut().requires_grad_(value); }
  Tensor& detach_() const { return mut().detach_(); }
  Tensor& uniform_(double from = 0, double to = 1) const { return mut().uniform_(from, to); }
  Tensor& normal_(double mean = 0, double std = 1) const { return mut().normal_(mean, std); }
  Tensor& set_requires_grad(bool value) const { return mut().requires_grad_(value); }
  /// This tensor's data without its history (libtorch's Variable::tensor_data; here detach()).
  Tensor tensor_data() const { return detach(); }
  /// Same as the std::optional form, for a braced list of inputs (`backward(g, false, false, {x})`).
  void backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                std::initializer_list<Tensor> inputs) const {
    backward(gradient, retain_graph, create_graph, std::optional<std::vector<Tensor>>(std::vector<Tensor>(inputs)));
  }

 private:
  Tensor& mut() const { return const_cast<Tensor&>(*this); }
  unsigned add_grad_hook(std::function<Tensor(const Tensor&)> hook) const;
  /// impl_, or an Error "<method>() called on an undefined Tensor" (libtorch's text) when undefined.
  TensorImpl* checked_impl(const char* method) const {
    if (!impl_) [[unlikely]] throw_undefined(method);
    return impl_.get();
  }
  [[noreturn]] static void throw_undefined(const char* method);

  IntrusivePtr<TensorImpl> impl_;
};

inline Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return a.add(b); }
Tensor operator+(const Scalar& a, const Tensor& b);
inline Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return a.sub(b); }
Tensor operator-(const Scalar& a, const Tensor& b);
inline Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return a.mul(b); }
Tensor operator*(const Scalar& a, const Tensor& b);
inline Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return a.div(b); }
inline Tensor operator%(const Tensor& a, const Tensor& b) { return a.remainder(b); }
inline Tensor operator%(const Tensor& a, const Scalar& b) { return a.remainder(b); }
Tensor operator/(const Scalar& a, const Tensor& b);
inline Tensor operator==(const Tensor& a, const Tensor& b) { return a.eq(b); }
inline Tensor operator==(const Tensor& a, const Scalar& b) { return a.eq(b); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return a.ne(b); }
inline Tensor operator!=(const Tensor& a, const Scalar& b) { return a.ne(b); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return a.lt(b); }
inline Tensor operator<(const Tensor& a, const Scalar& b) { return a.lt(b); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return a.le(b); }
inline Tensor operator<=(const Tensor& a, const Scalar& b) { return a.le(b); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return a.gt(b); }
inline Tensor operator>(const Tensor& a, const Scalar& b) { return a.gt(b); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return a.ge(b); }
inline Tensor operator>=(const Tensor& a, const Scalar& b) { return a.ge(b); }
inline Tensor operator&&(const Tensor& a, const Tensor& b) { return a.logical_and(b); }
inline Tensor operator||(const Tensor& a, const Tensor& b) { return a.logical_or(b); }
inline Tensor operator!(const Tensor& a) { return a.logical_not(); }

/// Prints repr() (PyTorch's Python format), or cpp_repr() (libtorch's) in a program that includes
/// <ctorch/torch.h> (get_tensor_print_style()).
std::ostream& operator<<(std::ostream& os, const Tensor& t);

template <class T>
T* Tensor::data_ptr() const {
  CTORCH_CHECK_TYPE(dtype() == scalar_type_of<T>, "expected scalar type ",
                    scalar_type_cpp_name(scalar_type_of<T>), " but found ",
                    scalar_type_cpp_name(dtype()));
  return static_cast<T*>(impl_->data());
}

}  // namespace ctorch::api
