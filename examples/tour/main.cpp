// The tour: the seeds' walkthrough of torch + torch.cuda, on the best available device.
// Usage: tour            (cuda when a CUDA device is available, else cpu)
#include <ctorch/ctorch.h>

#include <iostream>
#include <thread>

using namespace ctorch;

namespace {

void section(const char* title) { std::cout << "\n== " << title << "\n"; }

// d2l's try_gpu(i): cuda:i when it exists, else cpu.
Device try_gpu(int i = 0) {
  if (cuda::device_count() >= i + 1) return Device(DeviceType::CUDA, static_cast<DeviceIndex>(i));
  return Device(DeviceType::CPU);
}

}  // namespace

int main() {
  section("devices");
  std::cout << "cuda is_available: " << (cuda::is_available() ? "True" : "False") << "\n";
  std::cout << "default device: " << tensor({4, 5, 6}).device() << "\n";
  std::cout << "available cpu devices: " << std::thread::hardware_concurrency() << "\n";
  std::cout << "available gpu devices: " << cuda::device_count() << "\n";
  Device cpu0("cpu:0");
  std::cout << "cpu device: " << device_type_name(cpu0.type()) << ":" << cpu0.index() << "\n";
  Device gpu("cuda:0");
  std::cout << "gpu device: " << device_type_name(gpu.type()) << ":" << gpu.index() << "\n";
  std::cout << "cuda == cuda:0? " << (Device("cuda") == Device("cuda:0") ? "True" : "False") << "\n";

  const Device device = try_gpu();
  std::cout << "best device: " << device << "\n";

  section("tensors on the best device");
  Tensor cpu_tensor = tensor({{1., 4., 7.}, {3., 6., 9.}, {2., 5., 8.}});
  std::cout << cpu_tensor.device() << "\n";
  Tensor moved = cpu_tensor.to(device);
  std::cout << moved.device() << "\n";
  std::cout << "to() on the same device returns the same tensor: "
            << (cpu_tensor.to(cpu_tensor.device()).is_same(cpu_tensor) ? "True" : "False") << "\n";
  Tensor back = zeros({3, 3});
  back.copy_(moved);
  std::cout << back << "\n";

  manual_seed(0);
  std::cout << rand({3, 4}, TensorOptions().device(device)) << "\n";
  std::cout << zeros({2, 5}, TensorOptions().device(device)) << "\n";

  section("device-agnostic arithmetic");
  Tensor x = ones({2, 3}, TensorOptions().device(device));
  Tensor y = arange(6.0, TensorOptions().device(device)).reshape({2, 3});
  std::cout << "x + y =\n" << x + y << "\n";
  std::cout << "(x * y).sum() = " << (x * y).sum() << "\n";
  std::cout << "y @ y.T =\n" << y.matmul(y.t()) << "\n";
  std::cout << "softmax(y, 1) =\n" << y.softmax(1) << "\n";

  section("a device that does not exist");
  try {
    Tensor t = zeros({1}, TensorOptions().device(Device(DeviceType::CUDA, 7)));
    std::cout << "unexpected: created " << t.device() << "\n";
  } catch (const Error& e) {
    std::cout << "error: " << e.what() << "\n";
  }
  return 0;
}
