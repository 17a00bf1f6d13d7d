// nn::ModuleDict and nn::ModuleList against torch.nn's (orders and names from python3-torch 1.13.1),
// and the Module traversal API (named_modules, apply, as, replace/unregister_module).
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"

using namespace ctorch;

namespace {

std::vector<std::string> child_names(const nn::Module& m) {
  std::vector<std::string> out;
  for (const auto& item : m.named_children()) out.push_back(item.key());
  return out;
}

std::vector<std::string> child_classes(const nn::Module& m) {
  std::vector<std::string> out;
  for (const auto& item : m.named_children()) out.push_back(item.value()->name());
  return out;
}

TEST(NnContainers, ModuleDictUpdateReplacesInPlaceAndPopUnregisters) {
  // d = nn.ModuleDict({'a': ReLU(), 'b': Tanh()}); d.update({'a': Sigmoid(), 'c': Identity()})
  nn::ModuleDict dict({{"a", std::make_shared<nn::ReLU>()}, {"b", std::make_shared<nn::Tanh>()}});
  dict.update({{"a", std::make_shared<nn::Sigmoid>()}, {"c", std::make_shared<nn::Identity>()}});
  EXPECT_EQ(dict.keys(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(child_classes(dict), (std::vector<std::string>{"Sigmoid", "Tanh", "Identity"}));
  EXPECT_EQ(dict["a"]->name(), "Sigmoid");
  // d.pop('b')
  EXPECT_EQ(dict.pop("b")->name(), "Tanh");
  EXPECT_EQ(dict.keys(), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(child_names(dict), (std::vector<std::string>{"a", "c"}));
  EXPECT_FALSE(dict.contains("b"));
  try {
    dict["b"];
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Key 'b' is not defined"), std::string::npos);
  }
  dict.clear();
  EXPECT_TRUE(dict.empty());
  EXPECT_TRUE(dict.children().empty());
}

TEST(NnContainers, ModuleDictCloneIsDeepAndKeepsKeys) {
  nn::ModuleDict dict({{"fc", std::make_shared<nn::Linear>(2, 3)}, {"act", std::make_shared<nn::ReLU>()}});
  auto clone = std::dynamic_pointer_cast<nn::ModuleDict>(dict.clone());
  ASSERT_NE(clone, nullptr);
  EXPECT_EQ(clone->keys(), dict.keys());
  EXPECT_NE((*clone)["fc"].get(), dict["fc"].get());
  EXPECT_EQ((*clone)["fc"].get(), clone->named_children()[0].value().get());
  EXPECT_TRUE(allclose(clone->named_parameters()["fc.weight"], dict.named_parameters()["fc.weight"]));
}

TEST(NnContainers, ModuleListInsertRenamesAsPyTorch) {
  // l = nn.ModuleList([ReLU(), Tanh()]); l.insert(0, Sigmoid()); l.insert(2, Identity())
  nn::ModuleList list;
  list.push_back(std::make_shared<nn::ReLU>());
  list.push_back(std::make_shared<nn::Tanh>());
  list.insert(0, std::make_shared<nn::Sigmoid>());
  list.insert(2, std::make_shared<nn::Identity>());
  EXPECT_EQ(child_names(list), (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(child_classes(list), (std::vector<std::string>{"Sigmoid", "ReLU", "Identity", "Tanh"}));
  EXPECT_EQ(list.ptr(-1)->name(), "Tanh");
  list.extend({std::make_shared<nn::ReLU>()});
  EXPECT_EQ(list.size(), 5u);
  EXPECT_THROW(list.ptr(5), IndexError);
}

TEST(NnContainers, NamedModulesApplyAndCasts) {
  // s = nn.Sequential(Linear(2, 2), nn.Sequential(ReLU())): named_modules() and named_modules(prefix='net')
  auto inner = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{std::make_shared<nn::ReLU>()});
  auto net = std::make_shared<nn::Sequential>(
      std::initializer_list<std::shared_ptr<nn::UnaryModule>>{std::make_shared<nn::Linear>(2, 2), inner});
  EXPECT_EQ(net->named_modules().keys(), (std::vector<std::string>{"", "0", "1", "1.0"}));
  EXPECT_EQ(net->named_modules("net").keys(), (std::vector<std::string>{"net", "net.0", "net.1", "net.1.0"}));
  EXPECT_EQ(net->modules(/*include_self=*/false).size(), 3u);
  std::vector<std::string> visited;
  net->apply([&](const std::string& name, nn::Module&) { visited.push_back(name); });
  EXPECT_EQ(visited, (std::vector<std::string>{"", "0", "1", "1.0"}));
  EXPECT_NE(net->children()[0]->as<nn::Linear>(), nullptr);
  EXPECT_EQ(net->children()[0]->as<nn::ReLU>(), nullptr);
  net->replace_module("0", std::make_shared<nn::Tanh>());
  EXPECT_EQ(child_classes(*net), (std::vector<std::string>{"Tanh", "Sequential"}));
  net->unregister_module("1");
  EXPECT_EQ(child_names(*net), (std::vector<std::string>{"0"}));
  EXPECT_THROW(net->unregister_module("1"), Error);
  nn::Linear on_stack(1, 1);
  EXPECT_THROW(on_stack.modules(), Error);  // not owned by a shared_ptr
  EXPECT_EQ(on_stack.modules(/*include_self=*/false).size(), 0u);
}

struct Unnamed : nn::Module {};

TEST(NnContainers, UnnamedModulesTakeTheirClassName) {
  Unnamed m;
  EXPECT_EQ(m.name(), "(anonymous namespace)::Unnamed");
  std::ostringstream os;
  m.pretty_print(os);
  EXPECT_EQ(os.str(), "(anonymous namespace)::Unnamed");
}

}  // namespace
