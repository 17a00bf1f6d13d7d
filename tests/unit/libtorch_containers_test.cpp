// libtorch's AnyModule / Sequential / ModuleList / ModuleDict spellings beyond PyTorch's own tests:
// FORWARD_HAS_DEFAULT_ARGS, argument type errors, replication of a Sequential, the pretty print.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "ctorch/torch.h"

namespace {

struct AddImpl : torch::nn::Module {
  explicit AddImpl(int64_t base) : base(base) {}
  int64_t forward(int64_t x, int64_t y = 10, int64_t z = 100) { return base + x + y + z; }
  int64_t base;

 protected:
  FORWARD_HAS_DEFAULT_ARGS({1, torch::nn::AnyValue(int64_t{10})}, {2, torch::nn::AnyValue(int64_t{100})})
};

struct Named : torch::nn::Module {
  void pretty_print(std::ostream& stream) const override { stream << "Named(x=1)"; }
  torch::Tensor forward(torch::Tensor x) { return x; }
};

template <class F>
std::string error_text(F f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(LibtorchContainers, ForwardDefaultArgumentsThroughAnyModule) {
  torch::nn::AnyModule any(AddImpl(1));
  EXPECT_EQ(any.forward<int64_t>(int64_t{2}), 113);
  EXPECT_EQ(any.forward<int64_t>(int64_t{2}, int64_t{3}), 106);
  EXPECT_EQ(any.forward<int64_t>(int64_t{2}, int64_t{3}, int64_t{4}), 10);
  EXPECT_NE(error_text([&] { any.forward<int64_t>(); })
                .find("forward() method expects at least 1 argument(s) and at most 3 argument(s), but received 0."),
            std::string::npos);
  EXPECT_NE(error_text([&] { any.forward<int64_t>(2.5); })
                .find("Expected argument #0 to be of type long, but received value of type double"),
            std::string::npos);
  EXPECT_NE(error_text([&] { any.forward<float>(int64_t{2}); })
                .find("Attempted to cast AnyValue to float, but its actual type is long"),
            std::string::npos);
  torch::nn::Sequential seq(AddImpl(0), AddImpl(1000));
  EXPECT_EQ(seq->forward<int64_t>(int64_t{1}), 1 + 110 + 1110);
}

TEST(LibtorchContainers, ClonedSequentialRunsItsOwnLayers) {
  torch::nn::Sequential seq(torch::nn::Linear(2, 2), torch::nn::Functional(torch::relu));
  auto clone = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(seq->clone());
  ASSERT_NE(clone, nullptr);
  torch::NoGradGuard no_grad;
  clone->ptr<torch::nn::LinearImpl>(0)->weight.fill_(1);
  clone->ptr<torch::nn::LinearImpl>(0)->bias.fill_(0);
  const torch::Tensor x = torch::tensor({{1.f, -3.f}});
  EXPECT_TRUE(torch::equal(clone->forward(x), torch::tensor({{0.f, 0.f}})));
  EXPECT_FALSE(torch::equal(seq[0]->as<torch::nn::Linear>()->weight, clone->at<torch::nn::LinearImpl>(0).weight));
}

TEST(LibtorchContainers, PrettyPrintNestsContainers) {
  torch::nn::ModuleList list(std::make_shared<Named>(), torch::nn::Sequential(Named{}));
  torch::OrderedDict<std::string, std::shared_ptr<torch::nn::Module>> entries = {{"list", list.ptr()}};
  torch::nn::ModuleDict dict(entries);
  EXPECT_EQ(c10::str(dict),
            "torch::nn::ModuleDict(\n"
            "  (list): torch::nn::ModuleList(\n"
            "    (0): Named(x=1)\n"
            "    (1): torch::nn::Sequential(\n"
            "      (0): Named(x=1)\n"
            "    )\n"
            "  )\n"
            ")");
  EXPECT_EQ(dict->at<torch::nn::ModuleListImpl>("list").size(), 2u);
}

}  // namespace
