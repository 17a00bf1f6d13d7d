// torch.backends.cudnn.is_available() and version(): the runtime serving the cuda devices reports its
// library through the optional impl::DnnLibrary interface (the real CUDA backend: cuDNN, used for
// conv2d, Note [cuDNN convolution]). Emulated devices, a CPU-only build and a machine without a GPU
// have none: not available.
#include "ctorch/backends.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::backends::cudnn {

std::optional<int64_t> version() {
  impl::DeviceRuntime* r = impl::runtime_for(DeviceType::CUDA);
  impl::DnnLibrary* dnn = r != nullptr && r->device_count() > 0 ? impl::dnn_library(*r) : nullptr;
  const int64_t v = dnn != nullptr ? dnn->dnn_library_version() : -1;
  return v < 0 ? std::nullopt : std::optional<int64_t>(v);
}

bool is_available() { return version().has_value(); }

}  // namespace ctorch::api::backends::cudnn
