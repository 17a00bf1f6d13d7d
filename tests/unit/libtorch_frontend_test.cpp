// libtorch's C++ frontend through <ctorch/torch.h>: a module struct with register_module, holders,
// an optimizer built from a learning rate, and the free loss functions, as libtorch programs use them.
#include <gtest/gtest.h>

#include <ctorch/torch.h>

#include <filesystem>
#include <sstream>
#include <tuple>

namespace {

// The PyTorch C++ frontend tutorial's network, unchanged.
struct Net : torch::nn::Module {
  Net() {
    fc1 = register_module("fc1", torch::nn::Linear(784, 64));
    fc2 = register_module("fc2", torch::nn::Linear(64, 32));
    fc3 = register_module("fc3", torch::nn::Linear(32, 10));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1->forward(x.reshape({x.size(0), 784})));
    x = torch::dropout(x, /*p=*/0.5, /*train=*/is_training());
    x = torch::relu(fc2->forward(x));
    x = torch::log_softmax(fc3->forward(x), /*dim=*/1);
    return x;
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};

TEST(LibtorchFrontend, NamedParametersIsAnOrderedDict) {
  // As libtorch's test/cpp/api/modules.cpp and ordered_dict.cpp use it.
  auto net = std::make_shared<Net>();
  torch::OrderedDict<std::string, torch::Tensor> params = net->named_parameters();
  ASSERT_EQ(params.size(), 6u);
  EXPECT_EQ(params.keys().front(), "fc1.weight");
  EXPECT_TRUE(params["fc2.bias"].is_same(net->fc2->bias));
  EXPECT_TRUE(params.contains("fc3.weight"));
  EXPECT_EQ(params.find("fc4.weight"), nullptr);
  EXPECT_EQ(params.values().size(), 6u);
  EXPECT_EQ(params[1].key(), "fc1.bias");
  EXPECT_EQ(params.back().value().sizes(), torch::IntArrayRef({10}));
  for (const auto& item : net->named_buffers()) ADD_FAILURE() << "no buffers expected: " << item.key();
  int n = 0;
  for (auto& [name, p] : params) n += static_cast<int>(p.numel()) > 0 && !name.empty();  // std::pair-style
  EXPECT_EQ(n, 6);
  try {
    (void)params["nope"];
    ADD_FAILURE() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_STREQ(e.what_without_backtrace(), "Key 'nope' is not defined");
  }
  try {
    params.insert("fc1.weight", torch::ones({1}));
    ADD_FAILURE() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_STREQ(e.what_without_backtrace(), "Key 'fc1.weight' already defined");
  }
  torch::OrderedDict<std::string, int> empty;
  try {
    (void)empty.front();
    ADD_FAILURE() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_STREQ(e.what_without_backtrace(), "Called front() on an empty OrderedDict");
  }
}

TEST(LibtorchFrontend, TutorialNetTrainsOnAFixedBatch) {
  torch::manual_seed(1);
  auto net = std::make_shared<Net>();
  EXPECT_EQ(net->parameters().size(), 6u);
  EXPECT_EQ(net->named_parameters()[0].first, "fc1.weight");
  torch::optim::SGD optimizer(net->parameters(), /*lr=*/0.1);
  const torch::Tensor images = torch::rand({32, 1, 28, 28});
  const torch::Tensor labels = torch::randint(0, 10, {32});
  net->eval();  // no dropout: the loss on one batch must fall
  float first = 0, last = 0;
  for (int step = 0; step < 30; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::nll_loss(net->forward(images), labels);
    loss.backward();
    optimizer.step();
    (step == 0 ? first : last) = loss.item<float>();
  }
  EXPECT_LT(last, first - 0.25f) << first << " -> " << last;  // random labels: memorizing is slow
}

TEST(LibtorchFrontend, HoldersSequentialAndLosses) {
  torch::nn::Linear empty{nullptr};
  EXPECT_TRUE(empty.is_empty());
  EXPECT_THROW(empty->forward(torch::ones({1, 1})), c10::Error);
  torch::nn::Linear with_options(torch::nn::LinearOptions(3, 2).bias(false));
  EXPECT_FALSE(with_options->bias.defined());
  EXPECT_EQ(with_options->options.out_features(), 2);
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::ReLU(), torch::nn::Linear(4, 1));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ(seq->forward(torch::ones({2, 3})).sizes(), (std::vector<int64_t>{2, 1}));
  torch::nn::CrossEntropyLoss ce;
  auto logits = torch::randn({4, 3}, torch::requires_grad());
  ce(logits, torch::tensor({0, 2, 1, 0})).backward();
  EXPECT_EQ(logits.grad().sizes(), (std::vector<int64_t>{4, 3}));
  torch::optim::Adam adam(seq->parameters(), torch::optim::AdamOptions(1e-3).betas({0.8, 0.9}));
  EXPECT_DOUBLE_EQ(std::get<0>(static_cast<torch::optim::AdamOptions&>(adam.param_groups()[0].options()).betas()), 0.8);
  torch::NoGradGuard no_grad;
  EXPECT_FALSE(seq->forward(torch::ones({1, 3})).requires_grad());
}

}  // namespace

namespace {

// A libtorch-style map dataset: two separable blobs.
struct Blobs : torch::data::datasets::Dataset<Blobs> {
  torch::data::Example<> get(size_t index) override {
    const float label = static_cast<float>(index % 2);
    const torch::Tensor point = torch::full({2}, label * 2 - 1) + torch::rand({2}) * 0.5;
    return {point, torch::tensor({static_cast<int64_t>(index % 2)}).squeeze()};
  }
  torch::optional<size_t> size() const override { return 128; }
};

TEST(LibtorchFrontend, ADataLoaderLoopTrainsAModule) {
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Linear(2, 8), torch::nn::ReLU(), torch::nn::Linear(8, 2));
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.5).momentum(0.5));
  auto loader = torch::data::make_data_loader(Blobs().map(torch::data::transforms::Stack<>()), /*batch_size=*/16);
  double last_epoch_loss = 0;
  for (int epoch = 0; epoch < 5; ++epoch) {
    double sum = 0;
    size_t batches = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(net->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      sum += loss.item<double>();
      ++batches;
    }
    EXPECT_EQ(batches, 8u);
    last_epoch_loss = sum / static_cast<double>(batches);
  }
  EXPECT_LT(last_epoch_loss, 0.1);  // the blobs are separable
}

// torch::nn::Functional in a Sequential, with and without bound arguments (dcgan's layers).
TEST(LibtorchFrontend, FunctionalModules) {
  torch::nn::Sequential seq(torch::nn::Linear(2, 2), torch::nn::Functional(torch::leaky_relu, 0.2),
                            torch::nn::Functional(torch::tanh));
  const torch::Tensor x = torch::tensor({{-1.0f, 2.0f}});
  auto* lin = dynamic_cast<torch::nn::LinearImpl*>(seq->children().at(0).get());
  ASSERT_NE(lin, nullptr);
  const torch::Tensor h = lin->forward(x);
  const torch::Tensor want = torch::tanh(torch::where(h > 0, h, h * 0.2));
  EXPECT_TRUE(torch::allclose(seq->forward(x), want));
  EXPECT_EQ(torch::leaky_relu(torch::tensor({-2.0f, 3.0f})).sum().item<float>(), 2.98f);
  EXPECT_TRUE(seq->parameters().size() == 2);  // Functional has none
}

// The checkpoint calls of PyTorch's C++ examples (dcgan): torch::save / torch::load of a module
// (shared pointer and holder), its optimizer and a tensor; the run resumes where it stopped.
TEST(LibtorchFrontend, AveragePoolingHoldersAndFreeFunctions) {
  const torch::Tensor x = torch::arange(2 * 6 * 6, torch::kFloat).view({2, 1, 6, 6});
  torch::nn::AvgPool2d pool(torch::nn::AvgPool2dOptions({3, 2}).stride(2).padding(1).ceil_mode(true)
                                .count_include_pad(false).divisor_override(3));
  EXPECT_TRUE(pool(x).equal(torch::avg_pool2d(x, {3, 2}, {2}, {1}, true, false, 3)));
  EXPECT_EQ(*pool->options.stride(), (std::array<int64_t, 2>{2, 2}));
  EXPECT_EQ(pool->repr(), "AvgPool2d(kernel_size=(3, 2), stride=2, padding=1)");
  EXPECT_TRUE(torch::nn::AvgPool2d(2)(x).equal(torch::nn::functional::avg_pool2d(x, {2, 2})));
  torch::nn::AdaptiveAvgPool2d adaptive(torch::nn::AdaptiveAvgPool2dOptions({4, 3}));
  EXPECT_TRUE(adaptive(x).equal(torch::adaptive_avg_pool2d(x, {4, 3})));
  EXPECT_EQ(torch::nn::AdaptiveAvgPool2d(1)(x).sizes(), torch::IntArrayRef({2, 1, 1, 1}));
  EXPECT_EQ(adaptive->repr(), "AdaptiveAvgPool2d(output_size=(4, 3))");
}

TEST(LibtorchFrontend, SaveAndLoadModulesOptimizersAndTensors) {
  const auto dir = std::filesystem::temp_directory_path() / "ctorch_libtorch_save_test";
  std::filesystem::create_directories(dir);
  torch::manual_seed(0);
  auto net = std::make_shared<Net>();
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(2e-4).betas({0.5, 0.999}));
  const torch::Tensor x = torch::rand({4, 1, 28, 28});
  const torch::Tensor y = torch::tensor({1, 2, 3, 4});
  auto step = [&](Net& model, torch::optim::Optimizer& o) {
    model.eval();  // no dropout: both runs see the same function
    o.zero_grad();
    torch::Tensor loss = torch::nll_loss(model.forward(x), y);
    loss.backward();
    o.step();
    return loss.item<double>();
  };
  step(*net, opt);
  torch::save(net, (dir / "net.pt").string());
  torch::save(opt, (dir / "opt.pt").string());
  torch::save(x, (dir / "x.pt").string());
  const double next = step(*net, opt);

  torch::manual_seed(1);  // different initial weights, replaced by the checkpoint
  auto net2 = std::make_shared<Net>();
  torch::optim::Adam opt2(net2->parameters(), torch::optim::AdamOptions(1.0));
  torch::load(net2, (dir / "net.pt").string());
  torch::load(opt2, (dir / "opt.pt").string());
  torch::Tensor x2;
  torch::load(x2, (dir / "x.pt").string());
  EXPECT_TRUE(torch::equal(x2, x));
  EXPECT_EQ(step(*net2, opt2), next);

  torch::nn::Linear lin(3, 2);
  torch::save(lin, (dir / "lin.pt").string());
  torch::nn::Linear lin2(3, 2);
  torch::load(lin2, (dir / "lin.pt").string());
  EXPECT_TRUE(torch::equal(lin2->weight, lin->weight));
  std::filesystem::remove_all(dir);
}

}  // namespace

// The layers of PyTorch's DCGAN example through libtorch's spellings: ConvTranspose2d and
// BatchNorm2d holders with their options, LeakyReLU, Sigmoid, AdamOptions::betas as a tuple; a
// generator and a discriminator of the example's shapes take one adversarial step.
struct TinyGeneratorImpl : torch::nn::Module {
  TinyGeneratorImpl()
      : conv1(torch::nn::ConvTranspose2dOptions(8, 16, 4).bias(false)),
        batch_norm1(16),
        conv2(torch::nn::ConvTranspose2dOptions(16, 8, 3).stride(2).padding(1).bias(false)),
        batch_norm2(torch::nn::BatchNorm2dOptions(8).momentum(0.2)),
        conv3(torch::nn::ConvTranspose2dOptions(8, 1, 4).stride(2).padding(1).bias(false)) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
    register_module("batch_norm1", batch_norm1);
    register_module("batch_norm2", batch_norm2);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(batch_norm1(conv1(x)));
    x = torch::relu(batch_norm2(conv2(x)));
    return torch::tanh(conv3(x));
  }
  torch::nn::ConvTranspose2d conv1, conv2, conv3;
  torch::nn::BatchNorm2d batch_norm1, batch_norm2;
};
TORCH_MODULE(TinyGenerator);

TEST(LibtorchFrontend, DcganLayersTrainOneStep) {
  torch::manual_seed(1);
  TinyGenerator generator;
  torch::nn::Sequential discriminator(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 8, 4).stride(2).padding(1).bias(false)),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 16, 4).stride(2).padding(1).bias(false)),
      torch::nn::BatchNorm2d(16), torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 1, 3).stride(1).padding(0).bias(false)), torch::nn::Sigmoid());
  EXPECT_EQ(generator->conv2->weight.sizes(), torch::IntArrayRef({16, 8, 3, 3}));
  EXPECT_EQ(generator->batch_norm2->options.momentum(), 0.2);
  EXPECT_EQ(generator->parameters().size(), 7u);  // 3 conv weights, 2 x (BatchNorm weight, bias)
  torch::optim::Adam g_opt(generator->parameters(), torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5)));
  torch::optim::Adam d_opt(discriminator->parameters(), torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5)));
  EXPECT_EQ(std::get<1>(torch::optim::AdamOptions().betas(std::make_tuple(0.5, 0.25)).betas()), 0.25);

  const torch::Tensor noise = torch::randn({4, 8, 1, 1});
  const torch::Tensor fake = generator->forward(noise);
  EXPECT_EQ(fake.sizes(), torch::IntArrayRef({4, 1, 14, 14}));  // 1 -> 4 -> 7 -> 14
  const torch::Tensor d_out = discriminator->forward(fake.detach()).reshape({4});
  torch::Tensor d_loss = torch::binary_cross_entropy(d_out, torch::zeros({4}));
  d_loss.backward();
  d_opt.step();
  const torch::Tensor before = generator->conv1->weight.detach().clone();
  generator->zero_grad();
  torch::Tensor g_loss = torch::binary_cross_entropy(discriminator->forward(fake).reshape({4}), torch::ones({4}));
  g_loss.backward();
  ASSERT_TRUE(generator->conv1->weight.grad().defined());
  g_opt.step();
  EXPECT_FALSE(torch::equal(generator->conv1->weight, before));
  // PyTorch's reprs of the layers (`stream << module` prints libtorch's format in a libtorch program).
  std::ostringstream os;
  os << generator->conv2->repr() << " " << discriminator->children().at(1)->repr();
  EXPECT_EQ(os.str(), "ConvTranspose2d(16, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False) "
                      "LeakyReLU(negative_slope=0.2)");
  EXPECT_EQ(generator->conv3->forward(torch::zeros({1, 8, 7, 7}), torch::IntArrayRef({15, 15})).sizes(),
            torch::IntArrayRef({1, 1, 15, 15}));
  torch::nn::LeakyReLU inplace(torch::nn::LeakyReLUOptions().negative_slope(0.5).inplace(true));
  torch::Tensor v = torch::tensor({-2.0f, 4.0f});
  inplace(v);
  EXPECT_TRUE(torch::equal(v, torch::tensor({-1.0f, 4.0f})));  // written in place (PyTorch's LeakyReLU test)
  // momentum nullopt: the running mean is the cumulative average of the batch means.
  torch::nn::BatchNorm2d cumulative(torch::nn::BatchNorm2dOptions(1).momentum(std::nullopt));
  cumulative(torch::full({2, 1, 2, 2}, 3.0f));
  cumulative(torch::full({2, 1, 2, 2}, 1.0f));
  EXPECT_TRUE(cumulative->running_mean.allclose(torch::full({1}, 2.0f)));
}

namespace {
/// An options struct written as libtorch's are: a reduction variant with a default, built from one enum.
struct ReductionOptions {
  using reduction_t = c10::variant<torch::enumtype::kNone, torch::enumtype::kMean, torch::enumtype::kSum>;
  TORCH_OPTIONS_CTOR_VARIANT_ARG3(ReductionOptions, reduction, kNone, kMean, kSum)
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
int64_t reduction_of(ReductionOptions options = {}) { return torch::enumtype::reduction_get_enum(options.reduction()); }

TEST(LibtorchFrontend, EnumOptionsConvertAsLibtorchs) {
  EXPECT_EQ(reduction_of(), at::Reduction::Mean);
  EXPECT_EQ(reduction_of(torch::kSum), torch::Reduction::Sum);
  ReductionOptions options;
  EXPECT_EQ(torch::enumtype::get_enum_name(options.reduction(torch::kNone).reduction()), "kNone");
  EXPECT_EQ(torch::enumtype::enum_name_native(options.reduction()), "none");
  c10::variant<torch::enumtype::kNearest, torch::enumtype::kNearestExact, torch::enumtype::kBatchMean> mode =
      torch::kNearestExact;
  EXPECT_EQ(torch::enumtype::enum_name_native(mode), "nearest-exact");
  mode = torch::kBatchMean;
  EXPECT_THROW(torch::enumtype::reduction_get_enum(mode), c10::Error);
  try {
    torch::enumtype::reduction_get_enum(mode);
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("kBatchMean is not a valid value for reduction"), std::string::npos);
  }
}
}  // namespace

namespace {
TEST(LibtorchFrontend, AtenBinaryCrossEntropySqueezesAndLinearPrintsAsLibtorch) {
  // ATen's binary_cross_entropy squeezes input and target (python3-torch 1.13.1:
  // torch.ops.aten.binary_cross_entropy(torch.full((3, 1), 0.3), torch.tensor([0., 1., 1.])) = 0.9215)
  const torch::Tensor input = torch::full({3, 1}, 0.3), target = torch::tensor({0.0f, 1.0f, 1.0f});
  EXPECT_NEAR(torch::binary_cross_entropy(input, target).item<float>(), 0.9215f, 1e-4);
  EXPECT_EQ(torch::binary_cross_entropy(input, target, {}, torch::Reduction::None).sizes(), input.sizes());
  std::ostringstream printed;
  printed << torch::nn::Linear(3, 4);
  EXPECT_EQ(printed.str(), "torch::nn::Linear(in_features=3, out_features=4, bias=true)");
}
}  // namespace
