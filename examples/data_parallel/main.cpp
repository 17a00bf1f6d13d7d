// The MLP of examples/mlp trained with nn::DataParallel on 1, 2 and 4 devices: the same seed gives
// the same loss curve on every device count (within float rounding), and each device's peak memory
// shows the batch split over them. Runs on real GPUs when present, else on emulated devices.
// Usage: data_parallel [--emulate N] [--steps S] [--batch B]
#include <ctorch/ctorch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

using namespace ctorch;

namespace {

std::shared_ptr<nn::Sequential> make_mlp() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(784, 256), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(256, 256), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 10)});
}

// Trains a seed-0 MLP for `steps` SGD steps over `devices` devices; returns the losses.
std::vector<double> train(int devices, int steps, int64_t batch) {
  manual_seed(0);
  auto net = make_mlp();
  net->to(Device("cuda:0"));
  std::vector<cuda::DeviceArg> ids;
  for (int i = 0; i < devices; ++i) ids.emplace_back(i);
  auto model = std::make_shared<nn::DataParallel>(net, ids);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  data::DataLoader loader(data::datasets::SyntheticMNIST(static_cast<size_t>(steps * batch)),
                          data::DataLoaderOptions(batch).shuffle(true).seed(0).pin_memory(true));
  for (int d = 0; d < devices; ++d) cuda::reset_peak_memory_stats(d);
  std::vector<double> losses;
  const auto start = std::chrono::steady_clock::now();
  for (data::Example& b : loader) {
    opt.zero_grad();
    const Tensor out = (*model)(b.data.to(Device("cuda:0"), /*non_blocking=*/true));
    const Tensor loss = nn::functional::cross_entropy(out, b.target.to(out.device(), /*non_blocking=*/true));
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d device(s): %.2f ms/step; loss", devices, ms / static_cast<double>(losses.size()));
  for (size_t s = 0; s < losses.size(); s += 10) std::printf(" %.5f", losses[s]);
  std::printf(" ... %.5f\n", losses.back());
  for (int d = 0; d < devices; ++d) {
    std::printf("  cuda:%d peak allocated %lld KiB\n", d,
                static_cast<long long>(cuda::max_memory_allocated(d) / 1024));
  }
  return losses;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 30;
  int64_t batch = 256;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--emulate") == 0 && i + 1 < argc) {
      cuda::emulate(std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--batch") == 0 && i + 1 < argc) {
      batch = std::atol(argv[++i]);
    } else {
      std::cerr << "usage: " << argv[0] << " [--emulate N] [--steps S] [--batch B]\n";
      return 2;
    }
  }
  if (!cuda::is_available()) cuda::emulate(4);  // no GPU: four emulated ones
  std::printf("DataParallel over %s devices (%d visible)\n", cuda::is_emulated() ? "emulated" : "cuda",
              cuda::device_count());
  std::vector<double> reference;
  double worst = 0;
  for (int n : {1, 2, 4}) {
    if (n > cuda::device_count()) break;
    const std::vector<double> losses = train(n, steps, batch);
    if (reference.empty()) reference = losses;
    for (size_t s = 0; s < losses.size(); ++s) worst = std::max(worst, std::abs(losses[s] - reference[s]));
  }
  std::printf("largest loss difference from 1 device: %.2e\n", worst);
  return worst < 1e-4 ? 0 : 1;
}
