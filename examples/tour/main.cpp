// The tour: the seeds' walkthrough of torch + torch.cuda, on the best available device.
// Usage: tour                (cuda when a real CUDA device is available, else cpu)
//        tour --emulate N    (N emulated CUDA devices)
#include <ctorch/ctorch.h>

#include <cstdlib>
#include <cstring>
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

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--emulate") == 0 && i + 1 < argc) {
      cuda::emulate(std::atoi(argv[++i]));
    } else {
      std::cerr << "usage: " << argv[0] << " [--emulate N]\n";
      return 2;
    }
  }
  section("devices");
  std::cout << "ctorch " << version() << " (torch " << CTORCH_TORCH_API_VERSION << " API)\n";  // torch.__version__
  std::cout << "emulated: " << (cuda::is_emulated() ? "True" : "False") << "\n";
  std::cout << "cuda is_available: " << (cuda::is_available() ? "True" : "False") << "\n";
  std::cout << "default device: " << tensor({4, 5, 6}).device() << "\n";
  std::cout << "available cpu devices: " << std::thread::hardware_concurrency() << "\n";
  std::cout << "available gpu devices: " << cuda::device_count() << "\n";
  if (cuda::is_available()) {
    std::cout << "gpu device name: " << cuda::get_device_name(Device("cuda:0")) << "\n";
    std::cout << "current device: " << cuda::current_device() << "\n";
    std::cout << cuda::get_device_properties(0) << "\n";
  }
  Device cpu0("cpu:0");
  std::cout << "cpu device: " << device_type_name(cpu0.type()) << ":" << cpu0.index() << "\n";
  Device gpu0(0);  // torch.device(0): cuda:0
  std::cout << "gpu device: " << device_type_name(gpu0.type()) << ":" << gpu0.index() << "\n";
  Device gpu("cuda:0");
  std::cout << "gpu device: " << device_type_name(gpu.type()) << ":" << gpu.index() << "\n";
  std::cout << gpu.repr() << " " << cpu0.repr() << "\n";  // the devices' reprs, as Python prints them
  std::cout << "cuda == cuda:0? " << (Device("cuda") == Device("cuda:0") ? "True" : "False") << "\n";

  const Device device = try_gpu();
  std::cout << "best device: " << device.repr() << "\n";

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

  manual_seed(0);  // seeds the cpu generator and every cuda device's generator, as torch.manual_seed
  // The same numbers as torch.rand on that device: mt19937 on cpu, Philox4x32-10 on cuda.
  std::cout << rand({3, 4}, TensorOptions().device(device)) << "\n";
  std::cout << zeros({2, 5}, TensorOptions().device(device)) << "\n";

  section("device-agnostic arithmetic");
  Tensor x = ones({2, 3}, TensorOptions().device(device));
  Tensor y = arange(6.0, TensorOptions().device(device)).reshape({2, 3});
  std::cout << "x + y =\n" << x + y << "\n";
  std::cout << "(x * y).sum() = " << (x * y).sum() << "\n";
  std::cout << "y @ y.T =\n" << y.matmul(y.t()) << "\n";
  std::cout << "softmax(y, 1) =\n" << y.softmax(1) << "\n";

  section("a network on the best device");
  {
    manual_seed(0);
    auto net = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
        std::make_shared<nn::Linear>(3, 1)});  // net = nn.Sequential(nn.Linear(3, 1))
    net->to(device);                             // net = net.to(device=try_gpu())
    Tensor X = ones({2, 3}, TensorOptions().device(device));
    std::cout << (*net)(X) << "\n";              // net(X): grad_fn=<AddmmBackward0>
    std::cout << net->at<nn::Linear>(0).weight.device().repr() << "\n";  // net[0].weight.data.device
    std::cout << *net << "\n";
  }

  if (cuda::device_count() >= 2) {
    section("two devices: cross-device copies, ops stay on their device");
    Tensor a = ones({2}, TensorOptions().device("cuda:0"));
    Tensor b;
    {
      cuda::device block(1);  // with torch.cuda.device(1):
      b = ones({2}, TensorOptions().device("cuda"));
      std::cout << "allocated on " << b.device() << " inside the device block\n";
    }
    Tensor c = a + b.to(a.device());
    std::cout << "a + b.to(a.device) = " << c << "\n";
    try {
      (void)(a + b);
    } catch (const Error& e) {
      std::cout << "a + b across devices: " << e.what() << "\n";
    }
  }

  if (cuda::is_available()) {
    section("DataParallel on every visible device");
    manual_seed(0);
    auto net = std::make_shared<nn::Linear>(3, 1);
    net->to(Device("cuda:0"));
    auto model = std::make_shared<nn::DataParallel>(net);  // nn.DataParallel(net): all visible devices
    optim::SGD opt(model->parameters(), optim::SGDOptions(0.1));
    const Tensor X = randn({8, 3}, TensorOptions().device("cuda:0"));
    const Tensor loss = (*model)(X).pow(2).mean();  // the batch is split over the devices
    loss.backward();                                // gradients return to cuda:0's parameters
    opt.step();
    std::cout << "device_ids " << model->device_ids.size() << ", loss " << loss.item<double>() << ", weight.grad on "
              << net->weight.grad().device() << "\n";
  }

  if (cuda::is_available()) {
    section("pinned memory and non_blocking copies");
    Tensor host = arange(8.0).pin_memory();
    std::cout << "is_pinned: " << (host.is_pinned() ? "True" : "False") << "\n";
    Tensor on_gpu = host.to(Device("cuda"), /*non_blocking=*/true);
    Tensor back = (on_gpu * 2).to(Device("cpu"), /*non_blocking=*/true);
    cuda::synchronize();  // the copies were asynchronous: wait before reading on the host
    std::cout << back << "\n";
  }

  if (cuda::is_available()) {
    section("GPU memory: the caching allocator");
    const int64_t before = cuda::memory_allocated();
    {
      Tensor big = empty({1000, 1000}, TensorOptions().device("cuda"));
      std::cout << "allocated while a 1000x1000 float tensor lives: " << cuda::memory_allocated() - before
                << " bytes\n";
    }
    std::cout << "after it is freed: allocated " << cuda::memory_allocated() - before << ", reserved "
              << cuda::memory_reserved() << " (kept in the cache)\n";
    cuda::empty_cache();
    std::cout << "after empty_cache(): reserved " << cuda::memory_reserved() << "\n";
  }

  if (cuda::is_available()) {
    section("streams and events");
    // The seeds' example: sum() on a side stream may start before normal_() on the default
    // stream has finished, unless the side stream waits for the default stream first.
    const cuda::Stream s(0);  // torch.cuda.Stream(): a stream from the device's pool
    std::cout << s << " (priority range " << cuda::Stream::priority_range().first << ", "
              << cuda::Stream::priority_range().second << ")\n";
    cuda::trace::start();
    const cuda::Event start(/*enable_timing=*/true), end(/*enable_timing=*/true);
    start.record();
    Tensor A = empty({100, 100}, TensorOptions().device("cuda:0")).normal_(0.0, 1.0);
    Tensor B;
    s.wait_stream(cuda::current_stream());  // without this line, sum() races normal_()
    {
      cuda::nvtx::range r("sum on a side stream");
      auto block = cuda::stream(s);  // with torch.cuda.stream(s):
      B = A.sum();
    }
    cuda::current_stream().wait_stream(s);  // B is used on the default stream below
    end.record();
    end.synchronize();
    std::cout << "sum = " << B.item<double>() << ", matches the default stream's sum: "
              << (B.item<double>() == A.sum().item<double>() ? "True" : "False") << "\n";
    std::cout << "normal_ + sum took " << start.elapsed_time(end) << " ms (events with timing)\n";
    cuda::synchronize();
    cuda::trace::stop();
    cuda::trace::save("tour_trace.json");
    std::cout << "trace written to tour_trace.json (open it in https://ui.perfetto.dev)\n";

    section("the stream sanitizer (CTORCH_CUDA_SANITIZER=1)");
    // The same example without s.wait_stream(): the sanitizer reports the race before sum() is
    // queued, whatever the timing, with both kernels and streams (full report on stderr).
    cuda::enable_cuda_sanitizer();
    Tensor C = empty({100, 100}, TensorOptions().device("cuda:0")).normal_(0.0, 1.0);
    try {
      auto block = cuda::stream(s);
      Tensor D = C.sum();
      std::cout << "unexpected: no race reported\n";
    } catch (const cuda::CUDASanitizerErrors& e) {
      const auto& race = e.errors().front();
      std::cout << "unsynchronized: " << e.what() << ": " << race.current_op << " on " << cuda::Stream(race.current_stream)
                << " may run before " << race.previous_op << " on " << cuda::Stream(race.previous_stream)
                << " has written the tensor\n";
    }
    s.wait_stream(cuda::current_stream());
    {
      auto block = cuda::stream(s);
      Tensor D = C.sum();
      C.record_stream(s);  // C is freed below while s may still read it
    }
    std::cout << "synchronized (s.wait_stream(current_stream())): no race reported\n";
    C = Tensor();
    cuda::synchronize();
    cuda::disable_cuda_sanitizer();
  }

  section("a device that does not exist");
  try {
    Tensor t = zeros({1}, TensorOptions().device(Device(DeviceType::CUDA, 7)));
    std::cout << "unexpected: created " << t.device() << "\n";
  } catch (const Error& e) {
    std::cout << "error: " << e.what() << "\n";
  }
  return 0;
}
