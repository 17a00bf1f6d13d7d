#include "ops/launch.h"

#include "ops/elementwise.h"
#include "runtime/current.h"

namespace ctorch::inline api::ops {

Stream stream_for(Device device) {
  if (device.is_cpu()) return Stream::default_stream(Device(DeviceType::CPU, 0));
  return impl::current_stream(device);
}

void observe_view(const char* name, const Tensor& self, const Tensor& view) {
  if (!observed()) return;
  const OpCall info{OpFamily::View, name, Stream::default_stream(Device(DeviceType::CPU, 0)),
                    {{self, "self"}, {view, nullptr, false, true}}};
  ObservedCall call(info);
  call.launched();
}

}  // namespace ctorch::api::ops
