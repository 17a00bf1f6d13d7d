// The seed's LinearRegression (one nn.Linear(1, 1)) trained with SGD on y = 2x + 1 plus noise,
// device-agnostic: cuda when one is available (or emulated with --emulate N), else cpu.
// Usage: linear_regression [--emulate N] [--cpu] [--epochs E]
#include <ctorch/ctorch.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

using namespace ctorch;

namespace {

// class LinearRegression(torch.nn.Module): self.linear = torch.nn.Linear(1, 1)
class LinearRegression : public nn::UnaryModule {
 public:
  LinearRegression() : nn::UnaryModule("LinearRegression") {
    linear = register_module("linear", std::make_shared<nn::Linear>(1, 1));
  }
  Tensor forward(const Tensor& x) override { return linear->forward(x); }
  std::shared_ptr<nn::Linear> linear;
};

}  // namespace

int main(int argc, char** argv) {
  bool force_cpu = false;
  int epochs = 200;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--emulate") == 0 && i + 1 < argc) {
      cuda::emulate(std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--cpu") == 0) {
      force_cpu = true;
    } else if (std::strcmp(argv[i], "--epochs") == 0 && i + 1 < argc) {
      epochs = std::atoi(argv[++i]);
    } else {
      std::cerr << "usage: " << argv[0] << " [--emulate N] [--cpu] [--epochs E]\n";
      return 2;
    }
  }
  const Device device = !force_cpu && cuda::is_available() ? Device("cuda") : Device("cpu");
  manual_seed(0);
  // The data lives on the cpu and moves once, as a DataLoader-free full batch.
  const Tensor x = linspace(-1, 1, 100).unsqueeze(1);
  const Tensor y = x * 2 + 1 + randn({100, 1}) * 0.1;
  const Tensor xd = x.to(device), yd = y.to(device);

  auto regression = std::make_shared<LinearRegression>();
  regression->to(device);  // regression = LinearRegression().to(device=device)
  for (const Tensor& param : regression->parameters()) std::cout << param << "\n";

  optim::SGD optimizer(regression->parameters(), optim::SGDOptions(0.1));
  nn::MSELoss criterion;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    optimizer.zero_grad();
    const Tensor loss = criterion((*regression)(xd), yd);
    loss.backward();
    optimizer.step();
    if (epoch % (epochs / 10 > 0 ? epochs / 10 : 1) == 0) {
      std::cout << "epoch " << epoch << " loss " << loss.item<double>() << "\n";
    }
  }
  std::cout << "weight " << regression->linear->weight.item<double>() << " bias "
            << regression->linear->bias.item<double>() << " (data: y = 2x + 1) on " << xd.device() << "\n";
}
