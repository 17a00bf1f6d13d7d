// DLPack exchange (Tensor.__dlpack__, __dlpack_device__, torch.from_dlpack) through Debian's
// dlpack.h (0.6, the version PyTorch 1.13 speaks): cpu tensors move to and from NumPy and
// PyTorch without a copy.
#include <dlpack/dlpack.h>

#include "bindings.h"

namespace ctorch::inline api::python {
namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

// The DLManagedTensor ctorch exports: it owns a Tensor (keeping the storage alive) and the
// shape and strides the DLTensor points at.
struct Exported {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

DLDataType dl_type(ScalarType t) {
  DLDataType d{};
  d.lanes = 1;
  d.bits = static_cast<uint8_t>(element_size(t) * 8);
  switch (t) {
    case kUInt8: d.code = kDLUInt; break;
    case kInt8: case kInt16: case kInt32: case kInt64: d.code = kDLInt; break;
    case kFloat16: case kFloat32: case kFloat64: d.code = kDLFloat; break;
    case kBFloat16: d.code = kDLBfloat; break;
    case kComplexFloat: case kComplexDouble: d.code = kDLComplex; break;
    case kBool: throw TypeError("Bool type is not supported by dlpack");
  }
  return d;
}

ScalarType scalar_type(DLDataType d) {
  if (d.lanes != 1) throw TypeError("ctorch: DLPack tensors with lanes != 1 are not supported");
  switch (d.code) {
    case kDLUInt:
      if (d.bits == 8) return kUInt8;
      break;
    case kDLInt:
      if (d.bits == 8) return kInt8;
      if (d.bits == 16) return kInt16;
      if (d.bits == 32) return kInt32;
      if (d.bits == 64) return kInt64;
      break;
    case kDLFloat:
      if (d.bits == 16) return kFloat16;
      if (d.bits == 32) return kFloat32;
      if (d.bits == 64) return kFloat64;
      break;
    case kDLBfloat:
      if (d.bits == 16) return kBFloat16;
      break;
    case kDLComplex:
      if (d.bits == 64) return kComplexFloat;
      if (d.bits == 128) return kComplexDouble;
      break;
    default: break;
  }
  throw TypeError("ctorch: unsupported DLPack data type (code " + std::to_string(d.code) + ", " +
                  std::to_string(d.bits) + " bits)");
}

py::capsule to_dlpack(const Tensor& t) {
  if (!t.is_cpu())
    throw NotImplementedError("ctorch: DLPack export is implemented for cpu tensors only (got a tensor on " +
                              t.device().str() + ")");
  auto* e = new Exported{t.detach(), {}, {}, {}};
  e->shape.assign(t.sizes().begin(), t.sizes().end());
  e->strides.assign(t.strides().begin(), t.strides().end());
  DLTensor& d = e->managed.dl_tensor;
  d.data = t.data_ptr();
  d.device = DLDevice{kDLCPU, 0};
  d.ndim = static_cast<int32_t>(t.dim());
  d.dtype = dl_type(t.dtype());
  d.shape = e->shape.data();
  d.strides = e->strides.data();
  d.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = [](DLManagedTensor* m) { delete static_cast<Exported*>(m->manager_ctx); };
  return py::capsule(&e->managed, kCapsuleName, [](PyObject* capsule) {
    // Still named "dltensor": nobody consumed it, so it is ours to free.
    if (PyCapsule_IsValid(capsule, kCapsuleName)) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
      m->deleter(m);
    }
  });
}

Tensor from_dlpack(py::handle obj) {
  py::object capsule = py::reinterpret_borrow<py::object>(obj);
  if (py::hasattr(obj, "__dlpack__")) capsule = obj.attr("__dlpack__")();
  if (!PyCapsule_IsValid(capsule.ptr(), kCapsuleName))
    throw py::type_error("from_dlpack: expected an object with __dlpack__ or an unconsumed DLPack capsule");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
  const DLTensor& d = m->dl_tensor;
  if (d.device.device_type != kDLCPU && d.device.device_type != kDLCUDAHost)
    throw NotImplementedError("ctorch: from_dlpack supports cpu memory only (DLPack device type " +
                              std::to_string(d.device.device_type) + ")");
  ScalarType type = scalar_type(d.dtype);
  std::vector<int64_t> sizes(d.shape, d.shape + d.ndim);
  std::vector<int64_t> strides(d.ndim);
  if (d.strides != nullptr) {
    strides.assign(d.strides, d.strides + d.ndim);
  } else {
    int64_t s = 1;
    for (int i = d.ndim - 1; i >= 0; --i) {
      strides[i] = s;
      s *= sizes[i];
    }
  }
  void* data = static_cast<char*>(d.data) + d.byte_offset;
  Tensor t = from_blob(data, sizes, strides, TensorOptions().dtype(type), [m](void*) {
    if (m->deleter != nullptr) m->deleter(m);
  });
  PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
  return t;
}

}  // namespace

void bind_dlpack(py::module_& m, py::class_<Tensor>& cls) {
  cls.def("__dlpack__", [](const Tensor& t, py::object stream) { return to_dlpack(t); },
          py::arg("stream") = py::none())
      .def("__dlpack_device__", [](const Tensor& t) {
        if (t.is_cpu()) return py::make_tuple(static_cast<int>(kDLCPU), 0);
        return py::make_tuple(static_cast<int>(kDLCUDA), static_cast<int>(t.get_device()));
      });
  m.def("from_dlpack", &from_dlpack);
  m.def("to_dlpack", &to_dlpack);
}

}  // namespace ctorch::api::python
