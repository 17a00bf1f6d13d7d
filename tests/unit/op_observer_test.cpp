// The op boundary (ops/op_observer.h, ops/launch.h): every op family reaches registered observers
// with its name, stream and operands; a refusing observer stops the launch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "ops/op_observer.h"

namespace ctorch::testing {
namespace {

struct Seen {
  ops::OpFamily family;
  std::string name;
  Stream stream;
  size_t operands;
  std::string site;
};

// Records every call; refuses calls named `refuse`.
class Recorder final : public ops::OpObserver {
 public:
  std::vector<Seen> seen;
  std::vector<bool> launched;
  std::string refuse;
  int syncs = 0;

  uint64_t before(const ops::OpCall& call) override {
    if (call.name == refuse) throw ValueError("refused " + refuse);
    seen.push_back({call.family, call.name, call.stream, call.operands.size(), call.site ? call.site : ""});
    return seen.size();
  }
  void after(const ops::OpCall&, uint64_t token, bool ok) noexcept override {
    if (launched.size() < token) launched.resize(token);
    launched[token - 1] = ok;
  }
  void on_sync(ops::SyncKind, const void*, Stream) noexcept override { ++syncs; }

  bool saw(ops::OpFamily family, const std::string& name) const {
    for (const Seen& s : seen) {
      if (s.family == family && s.name == name) return true;
    }
    return false;
  }
};

// Registers a recorder for the scope.
struct Observing {
  Recorder& r;
  explicit Observing(Recorder& recorder) : r(recorder) { ops::add_op_observer(&r); }
  ~Observing() { ops::remove_op_observer(&r); }
};

Recorder& recorder() {
  static Recorder* r = new Recorder;  // observers are never destroyed
  return *r;
}

TEST(OpObserver, OffWhenNobodyObserves) {
  const bool before = ops::observed();
  {
    Recorder& r = recorder();
    r.seen.clear();
    Observing on(r);
    EXPECT_TRUE(ops::observed());
  }
  EXPECT_EQ(ops::observed(), before);
  Tensor a = ones({3});
  Tensor b = a.add(a);
  EXPECT_TRUE(recorder().seen.empty());
}

TEST(OpObserver, EveryFamilyOnCpuPassesThrough) {
  Recorder& r = recorder();
  r.seen.clear();
  r.launched.clear();
  r.refuse.clear();
  {
    Observing on(r);
    Tensor a = full({2, 3}, 2.0);                    // fill_
    Tensor b = a.add(a).exp();                       // add, exp
    Tensor c = b.sum(1);                             // sum
    Tensor d = a.matmul(a.t());                      // t (view), mm
    Tensor e = a.to(kInt64);                         // copy_
    Tensor f = where(a.gt(1.0), a, b);               // gt, where
    Tensor g = b.softmax(0);                         // _softmax
    Tensor h = a.view({6});                          // view
    Tensor r = rand({4});                            // uniform_ (cpu sampling, on the host)
    Tensor i = a.index_select(1, tensor({0, 2}));   // index_select
    Tensor j = a.index({a.gt(1.0)});                 // nonzero (host), index
    Tensor k = zeros({3}).index_add_(0, tensor({1}), ones({1}));  // index_add_
  }
  EXPECT_TRUE(r.saw(ops::OpFamily::Index, "index_select"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Index, "nonzero"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Index, "index"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Index, "index_add_"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Fill, "fill_"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Binary, "add"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Unary, "exp"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Reduce, "sum"));
  EXPECT_TRUE(r.saw(ops::OpFamily::View, "transpose"));  // t() is transpose(0, 1)
  EXPECT_TRUE(r.saw(ops::OpFamily::Gemm, "mm"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Copy, "copy_"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Binary, "gt"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Where, "where"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Softmax, "_softmax"));
  EXPECT_TRUE(r.saw(ops::OpFamily::View, "view"));
  EXPECT_TRUE(r.saw(ops::OpFamily::Random, "uniform_"));
  for (const Seen& s : r.seen) EXPECT_TRUE(s.stream.device().is_cpu()) << s.name;
  for (bool ok : r.launched) EXPECT_TRUE(ok);
}

TEST(OpObserver, ARefusedCallLaunchesNothing) {
  Recorder& r = recorder();
  r.seen.clear();
  r.launched.clear();
  Tensor a = zeros({4});
  {
    Observing on(r);
    r.refuse = "fill_";
    EXPECT_THROW(a.fill_(7), ValueError);
    r.refuse.clear();
  }
  EXPECT_EQ(a.sum().item<double>(), 0.0);
  EXPECT_EQ(a._version(), 0);
}

TEST(OpObserver, DeviceFamiliesOnEmulatedCuda) {
  use_emulated_devices(2);
  Recorder& r = recorder();
  r.seen.clear();
  r.launched.clear();
  r.refuse.clear();
  r.syncs = 0;
  {
    Observing on(r);
    Tensor a = rand({8}, TensorOptions().device("cuda:0"));  // random, on cuda:0's current stream
    Tensor h = a.cpu();                                        // transfer, blocking
    Tensor b = a.to(Device("cuda:1"));                         // transfer between devices (events)
  }
  bool random = false, to_host = false, peer = false;
  for (const Seen& s : r.seen) {
    if (s.family == ops::OpFamily::Random) {
      random = true;
      EXPECT_EQ(s.stream.device(), Device("cuda:0"));
      EXPECT_EQ(s.operands, 1u);
    }
    if (s.family == ops::OpFamily::Transfer && s.site == "memcpy_and_sync") to_host = true;
    if (s.family == ops::OpFamily::Transfer && s.site.empty()) peer = true;
  }
  EXPECT_TRUE(random && to_host && peer);
  EXPECT_GE(r.syncs, 5);  // the host waited once; two event records and waits, the events destroyed
}

}  // namespace
}  // namespace ctorch::testing
