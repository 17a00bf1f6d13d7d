// Data-parallel training with DistributedDataParallel: run it alone (one process, the full batch)
// or under ctorchrun (each rank a DistributedSampler share of the same batches); both print the
// same losses. Device-agnostic: with --emulate N (or real GPUs) rank r trains on cuda:LOCAL_RANK.
// Usage: ctorchrun --standalone --nproc-per-node 2 ddp [--steps N] [--emulate N] [--timeout S]
//                                                      [--fail-rank R --fail-step K]
#include <ctorch/ctorch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

using namespace ctorch;
namespace dist = ctorch::distributed;

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

// y = sin(0.3 x . w*) + noise: 256 samples of 8 features.
data::TensorDataset make_dataset() {
  Generator g;
  g.manual_seed(1234);
  Tensor x = randn({256, 8}, {}, g);
  Tensor w = randn({8, 1}, {}, g);
  Tensor y = (x.matmul(w) * 0.3).sin() + randn({256, 1}, {}, g) * 0.05;
  return data::TensorDataset(x, y);
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 30, fail_rank = -1, fail_step = -1, emulate = 0;
  double timeout_s = 30;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::cerr << "ddp: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--steps") steps = std::atoi(next());
    else if (a == "--fail-rank") fail_rank = std::atoi(next());
    else if (a == "--fail-step") fail_step = std::atoi(next());
    else if (a == "--emulate") emulate = std::atoi(next());
    else if (a == "--timeout") timeout_s = std::atof(next());
    else {
      std::cerr << "ddp: unknown argument " << a << "\n";
      return 2;
    }
  }
  if (emulate > 0) cuda::emulate(emulate);
  const bool distributed = std::getenv("RANK") != nullptr;
  if (distributed) {
    dist::init_process_group("gloo", "env://", -1, -1,
                             std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
  }
  const int rank = distributed ? dist::get_rank() : 0;
  const int world = distributed ? dist::get_world_size() : 1;
  const int local_rank = env_int("LOCAL_RANK", 0);
  const Device device = cuda::is_available() ? Device(DeviceType::CUDA, local_rank % cuda::device_count())
                                             : Device(DeviceType::CPU);
  if (device.is_cuda()) cuda::set_device(device.index());

  manual_seed(static_cast<uint64_t>(rank));  // ranks start different: DDP broadcasts rank 0's weights
  auto net = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Linear>(8, 32), std::make_shared<nn::Tanh>(), std::make_shared<nn::Linear>(32, 1)});
  net->to(device);
  std::shared_ptr<nn::UnaryModule> model = net;
  if (distributed) model = std::make_shared<nn::parallel::DistributedDataParallel>(net);
  optim::SGD opt(model->parameters(), optim::SGDOptions(0.05).momentum(0.9));

  const int64_t global_batch = 32;
  data::TensorDataset dataset = make_dataset();
  auto sampler = std::make_shared<data::DistributedSampler>(dataset, world, rank, /*shuffle=*/true, /*seed=*/7);
  data::DataLoader loader(dataset, data::DataLoaderOptions(global_batch / world).sampler(sampler));
  if (rank == 0) std::printf("world_size %d device %s\n", world, device.str().c_str());

  int step = 0;
  double loss_value = 0;
  for (int64_t epoch = 0; step < steps; ++epoch) {
    sampler->set_epoch(epoch);
    for (data::Example& batch : loader) {
      if (step >= steps) break;
      opt.zero_grad();
      Tensor loss = nn::functional::mse_loss((*model)(batch.data.to(device)), batch.target.to(device));
      if (rank == fail_rank && step == fail_step) {
        std::fprintf(stderr, "rank %d exits in the middle of step %d\n", rank, step);
        std::fflush(stderr);
        std::_Exit(3);
      }
      loss.backward();
      opt.step();
      Tensor mean = loss.detach().cpu().clone();
      if (distributed) dist::all_reduce(mean, dist::ReduceOp::AVG);
      loss_value = mean.item<double>();
      if (rank == 0 && step % 10 == 0) std::printf("step %d loss %.6f\n", step, loss_value);
      ++step;
    }
  }
  double checksum = 0;
  for (const Tensor& p : net->parameters()) checksum += p.detach().cpu().to(kDouble).abs().sum().item<double>();
  std::printf("rank %d final loss %.6f weights %.6f\n", rank, loss_value, checksum);
  if (distributed) dist::destroy_process_group();
  return 0;
}
