// TensorImpl: sizes, strides, offset and dtype over a Storage. Users hold it through Tensor.
#pragma once

#include <atomic>
#include <memory>

#include "ctorch/array_ref.h"
#include "ctorch/dtype.h"
#include "ctorch/storage.h"

namespace ctorch::autograd {
struct AutogradMeta;  // reverse-mode autograd state; defined by the autograd layer
class Node;          // a backward function (ctorch/autograd_node.h)
}  // namespace ctorch::autograd

namespace ctorch::inline api {

/// Metadata of one tensor view. Views share the Storage (and its version counter).
class TensorImpl : public RefCounted {
 public:
  /// A view of `storage` with the given geometry.
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
             int64_t storage_offset);
  /// A contiguous tensor of `sizes` over `storage`, offset 0.
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes);
  ~TensorImpl() override;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  bool is_contiguous() const { return is_contiguous_; }
  const Storage& storage() const { return storage_; }
  /// Address of element 0 of this view.
  void* data() const {
    // Integer arithmetic that wraps: an empty view may carry an offset whose byte value does not
    // fit (PyTorch allows such views); its data is never read.
    const uint64_t bytes = static_cast<uint64_t>(storage_offset_) * static_cast<uint64_t>(element_size(dtype_));
    return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(storage_->data()) + bytes);
  }

  /// Takes `other`'s storage, dtype and geometry, keeping this impl and its autograd state
  /// (Tensor::set_data, how Module::to moves parameters in place).
  void set_data_from(const TensorImpl& other);
  /// Replaces geometry (used by in-place view ops such as squeeze_ / t_).
  void set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);

  bool requires_grad() const { return requires_grad_; }
  void set_requires_grad(bool v) { requires_grad_ = v; }
  /// Autograd state; null until the autograd layer attaches one (Note [Autograd meta is attached once]).
  autograd::AutogradMeta* autograd_meta() const { return autograd_meta_ptr_.load(std::memory_order_acquire); }
  /// Attaches `meta` unless state is attached already; returns the attached state (the first one wins).
  autograd::AutogradMeta* attach_autograd_meta(std::shared_ptr<autograd::AutogradMeta> meta);

 private:
  void refresh();

  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool is_contiguous_ = true;
  bool requires_grad_ = false;
  // Note [Autograd meta is attached once]
  // Threads that first use a shared leaf at once (concurrent backward passes, DataParallel replicas)
  // may both attach autograd state. The pointer is set once, by a compare-exchange from null, and never
  // changes afterwards, so readers need only an acquire load (a plain load on x86). The owner below is
  // written by the winning thread alone, after it won, and read only by the destructor.
  std::atomic<autograd::AutogradMeta*> autograd_meta_ptr_{nullptr};
  std::shared_ptr<autograd::AutogradMeta> autograd_meta_;
};

/// Row-major (C-contiguous) strides for `sizes`.
DimVector contiguous_strides(IntArrayRef sizes);

}  // namespace ctorch::api
