// An MLP classifier trained on SyntheticMNIST with a DataLoader (worker threads, pinned batches,
// non_blocking copies), a safetensors checkpoint reloaded into a fresh model, and the device's
// memory summary. Device-agnostic: cuda when available (or emulated with --emulate N), else cpu.
// Usage: mlp [--emulate N] [--cpu] [--epochs E] [--train N]
#include <ctorch/ctorch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

using namespace ctorch;

namespace {

std::shared_ptr<nn::Sequential> make_mlp() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(784, 256), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(256, 256), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 10)});
}

// Fraction of `loader`'s samples the model classifies correctly.
double accuracy(nn::Sequential& model, data::DataLoader& loader, Device device) {
  NoGradGuard no_grad;
  model.eval();
  int64_t correct = 0, total = 0;
  for (data::Example& batch : loader) {
    const Tensor x = batch.data.to(device, /*non_blocking=*/true);
    const Tensor y = batch.target.to(device, /*non_blocking=*/true);
    correct += model(x).argmax(1).eq(y).sum().item<int64_t>();
    total += y.numel();
  }
  model.train();
  return static_cast<double>(correct) / static_cast<double>(total);
}

}  // namespace

int main(int argc, char** argv) {
  bool force_cpu = false;
  int epochs = 2;
  size_t train_size = 6000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--emulate") == 0 && i + 1 < argc) {
      cuda::emulate(std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--cpu") == 0) {
      force_cpu = true;
    } else if (std::strcmp(argv[i], "--epochs") == 0 && i + 1 < argc) {
      epochs = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--train") == 0 && i + 1 < argc) {
      train_size = static_cast<size_t>(std::atol(argv[++i]));
    } else {
      std::cerr << "usage: " << argv[0] << " [--emulate N] [--cpu] [--epochs E] [--train N]\n";
      return 2;
    }
  }
  const Device device = !force_cpu && cuda::is_available() ? Device("cuda:0") : Device("cpu");
  manual_seed(0);
  auto options = data::DataLoaderOptions(64).shuffle(true).num_workers(2).pin_memory(true).seed(0);
  data::DataLoader train(data::datasets::SyntheticMNIST(train_size, /*seed=*/1), options);
  data::DataLoader test(data::datasets::SyntheticMNIST(1000, /*seed=*/2),
                        data::DataLoaderOptions(256).num_workers(2).pin_memory(true));

  auto model = make_mlp();
  model->to(device);
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.05).momentum(0.9));
  optim::StepLR schedule(optimizer, /*step_size=*/1, /*gamma=*/0.5);
  std::cout << *model << "\ntraining on " << device << ", " << train.size() << " batches per epoch\n";
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    double loss_sum = 0;
    for (data::Example& batch : train) {
      // Pinned batches: these copies return at once and overlap with the previous step's kernels.
      const Tensor x = batch.data.to(device, /*non_blocking=*/true);
      const Tensor y = batch.target.to(device, /*non_blocking=*/true);
      optimizer.zero_grad(/*set_to_none=*/true);
      const Tensor loss = nn::functional::cross_entropy((*model)(x), y);
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>();
    }
    schedule.step();
    std::printf("epoch %d loss %.4f test accuracy %.3f lr %.4f\n", epoch, loss_sum / static_cast<double>(train.size()),
                accuracy(*model, test, device), schedule.get_last_lr()[0]);
  }

  // A checkpoint in the safetensors format, loaded into a fresh model on the cpu.
  const std::string path = (std::filesystem::temp_directory_path() / "ctorch_mlp.safetensors").string();
  nn::save(*model, path);
  auto restored = make_mlp();
  nn::load(*restored, path);
  std::printf("checkpoint %s: restored model on cpu, test accuracy %.3f\n", path.c_str(),
              accuracy(*restored, test, Device("cpu")));
  std::filesystem::remove(path);
  if (device.is_cuda()) std::cout << cuda::memory_summary(device) << "\n";
}
