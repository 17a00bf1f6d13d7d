// Collectives of the Gloo process group with 2 and 4 ranks as threads, over a FileStore and a
// TCPStore, on cpu and on emulated cuda devices (rank i on cuda:i); results against a cpu reference.
#include <gtest/gtest.h>

#include <tuple>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "distributed/dist_test_util.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

namespace dist = ctorch::distributed;

using Param = std::tuple<StoreKind, int, bool>;  // store, world size, emulated cuda

class Collectives : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    if (cuda_()) use_emulated_devices(4);
  }
  StoreKind store_kind() const { return std::get<0>(GetParam()); }
  int world() const { return std::get<1>(GetParam()); }
  bool cuda_() const { return std::get<2>(GetParam()); }
  Device device_of(int rank) const { return cuda_() ? Device(DeviceType::CUDA, rank) : Device(DeviceType::CPU); }
};

// Rank r's input: a fixed function of r (cpu), so every thread and the reference agree.
Tensor input_of(int rank, ScalarType dtype = kFloat) {
  Tensor base = arange(12, TensorOptions().dtype(kDouble)).view({3, 4});
  Tensor t = (base * (rank + 1) + rank * 0.25 - 3.0).sin() * 4;
  return dtype == kFloat ? t.to(kFloat) : t.round().to(dtype);
}

Tensor reference(int world, dist::ReduceOp op, ScalarType dtype = kFloat) {
  Tensor acc = input_of(0, dtype).clone();
  for (int r = 1; r < world; ++r) {
    Tensor x = input_of(r, dtype);
    switch (op) {
      case dist::ReduceOp::SUM:
      case dist::ReduceOp::AVG: acc = acc + x; break;
      case dist::ReduceOp::PRODUCT: acc = acc * x; break;
      case dist::ReduceOp::MIN: acc = minimum(acc, x); break;
      case dist::ReduceOp::MAX: acc = maximum(acc, x); break;
    }
  }
  if (op == dist::ReduceOp::AVG) acc = acc / world;
  return acc;
}

TEST_P(Collectives, MatchTheCpuReference) {
  const int n = world();
  RankStores stores(store_kind(), n);
  const std::string name = unique_group("collectives");
  run_ranks(n, [&](int rank) {
    const Device dev = device_of(rank);
    if (dev.is_cuda()) cuda::set_device(rank);
    auto pg = dist::new_gloo_group(stores.open(rank), rank, n, std::chrono::seconds(20), name);
    EXPECT_EQ(pg->rank(), rank);
    EXPECT_EQ(pg->size(), n);
    EXPECT_EQ(pg->backend_name(), "gloo");

    for (dist::ReduceOp op : {dist::ReduceOp::SUM, dist::ReduceOp::PRODUCT, dist::ReduceOp::MIN, dist::ReduceOp::MAX,
                              dist::ReduceOp::AVG}) {
      Tensor t = input_of(rank).to(dev);
      pg->all_reduce(t, op)->wait();
      EXPECT_EQ(t.device(), dev);
      EXPECT_TRUE(t.cpu().allclose(reference(n, op), 1e-5, 1e-5)) << dist::reduce_op_name(op) << " rank " << rank;
    }
    Tensor ti = input_of(rank, kLong).to(dev);
    pg->all_reduce(ti, dist::ReduceOp::SUM)->wait();
    EXPECT_TRUE(ti.cpu().equal(reference(n, dist::ReduceOp::SUM, kLong)));

    // Asynchronous: a Work that completes.
    Tensor a = input_of(rank).to(dev);
    auto work = pg->all_reduce(a, dist::ReduceOp::SUM);
    EXPECT_TRUE(work->wait());
    EXPECT_TRUE(work->is_completed());
    EXPECT_TRUE(work->is_success());
    EXPECT_EQ(work->exception(), nullptr);
    EXPECT_TRUE(a.cpu().allclose(reference(n, dist::ReduceOp::SUM), 1e-5, 1e-5));

    // Broadcast from the last rank.
    Tensor b = input_of(rank).to(dev);
    pg->broadcast(b, n - 1)->wait();
    EXPECT_TRUE(b.cpu().equal(input_of(n - 1)));

    // All-gather: slot i holds rank i's tensor.
    std::vector<Tensor> gathered;
    for (int i = 0; i < n; ++i) gathered.push_back(zeros({3, 4}, TensorOptions().device(dev)));
    pg->all_gather(gathered, input_of(rank).to(dev))->wait();
    for (int i = 0; i < n; ++i) EXPECT_TRUE(gathered[static_cast<size_t>(i)].cpu().equal(input_of(i))) << i;

    // Reduce-scatter: rank r gets the sum over ranks of their inputs[r].
    std::vector<Tensor> inputs;
    for (int i = 0; i < n; ++i) inputs.push_back((input_of(rank) + i).to(dev));
    Tensor out = zeros({3, 4}, TensorOptions().device(dev));
    pg->reduce_scatter(out, inputs, dist::ReduceOp::SUM)->wait();
    EXPECT_TRUE(out.cpu().allclose(reference(n, dist::ReduceOp::SUM) + n * rank, 1e-5, 1e-5));

    pg->barrier()->wait();
  });
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(std::get<0>(info.param) == StoreKind::File ? "file" : "tcp") + "_" +
         std::to_string(std::get<1>(info.param)) + "ranks_" + (std::get<2>(info.param) ? "emulated" : "cpu");
}

INSTANTIATE_TEST_SUITE_P(, Collectives,
                         ::testing::Combine(::testing::Values(StoreKind::File, StoreKind::Tcp), ::testing::Values(2, 4),
                                            ::testing::Values(false, true)),
                         param_name);

TEST(CollectivesCuda, StagingFollowsTheTensorsCurrentStream) {
  use_emulated_devices(2);
  RankStores stores(StoreKind::Tcp, 2);
  const std::string name = unique_group("stream");
  run_ranks(2, [&](int rank) {
    cuda::set_device(rank);
    auto pg = dist::new_gloo_group(stores.open(rank), rank, 2, std::chrono::seconds(20), name);
    cuda::Stream side(Device(DeviceType::CUDA, rank));
    auto block = cuda::stream(side);
    // Written on the side stream right before the call: the staging copy must see it.
    Tensor t = full({1000}, static_cast<double>(rank + 1), TensorOptions().device(Device(DeviceType::CUDA, rank)));
    t.mul_(2);
    auto work = pg->all_reduce(t);
    work->wait();
    side.synchronize();
    EXPECT_TRUE(t.cpu().equal(full({1000}, 6.0)));  // 2*1 + 2*2
  });
}

TEST(CollectivesArguments, AreCheckedWithTypedErrors) {
  // Note [Collective checks]: one function, one text and type, through the group or the free functions.
  RankStores stores(StoreKind::File, 2);
  const std::string name = unique_group("args");
  run_ranks(2, [&](int rank) {
    auto pg = dist::new_gloo_group(stores.open(rank), rank, 2, std::chrono::seconds(20), name);
    for (bool free_function : {false, true}) {
      SCOPED_TRACE(free_function ? "free functions" : "ProcessGroup methods");
      auto broadcast = [&](Tensor t, int src) {
        if (free_function) {
          dist::broadcast(t, src, pg);
        } else {
          pg->broadcast(t, src);
        }
      };
      auto all_gather = [&](std::vector<Tensor> list, Tensor t) {
        if (free_function) {
          dist::all_gather(list, t, pg);
        } else {
          pg->all_gather(list, t);
        }
      };
      auto reduce_scatter = [&](Tensor out, std::vector<Tensor> list) {
        if (free_function) {
          dist::reduce_scatter(out, list, dist::ReduceOp::SUM, pg);
        } else {
          pg->reduce_scatter(out, list);
        }
      };
      auto all_reduce = [&](Tensor t) {
        if (free_function) {
          dist::all_reduce(t, dist::ReduceOp::SUM, pg);
        } else {
          pg->all_reduce(t);
        }
      };
      EXPECT_EQ(error_of<ValueError>([&] { broadcast(zeros({2}), 2); }),
                "[broadcast] invalid root rank: 2 (expected a rank in [0, 1])");
      EXPECT_EQ(error_of<ValueError>([&] { broadcast(zeros({2}), -1); }),
                "[broadcast] invalid root rank: -1 (expected a rank in [0, 1])");
      EXPECT_EQ(error_of<ValueError>([&] { all_gather({}, zeros({2})); }),
                "[all_gather] requires non-empty tensor list");
      EXPECT_EQ(error_of<ValueError>([&] { all_gather({zeros({2})}, zeros({2})); }),
                "[all_gather] requires one tensor per rank: expected 2, got 1");
      EXPECT_EQ(error_of<ValueError>([&] { all_gather({zeros({2}), zeros({3})}, zeros({2})); }),
                "[all_gather] invalid tensor size at index 1 (expected [2], got [3])");
      EXPECT_EQ(error_of<TypeError>(
                    [&] { reduce_scatter(zeros({2}), {zeros({2}, TensorOptions().dtype(kLong)), zeros({2})}); }),
                "[reduce_scatter] invalid tensor type at index 0 (expected torch.float32, got torch.int64)");
      EXPECT_EQ(error_of<ValueError>([&] { reduce_scatter(zeros({2}), {zeros({2}), zeros({3})}); }),
                "[reduce_scatter] invalid tensor size at index 1 (expected [2], got [3])");
      EXPECT_NE(error_of<ValueError>([&] { all_reduce(zeros({3, 2}).t()); })
                    .find("[all_reduce] Tensors must be contiguous"),
                std::string::npos);
      EXPECT_EQ(error_of<ValueError>([&] { all_reduce(Tensor()); }),
                "[all_reduce] expected a defined tensor, got an undefined one");
      // Gloo's own: the dtypes it supports.
      EXPECT_NE(error_of<TypeError>([&] { all_reduce(zeros({3}, TensorOptions().dtype(kBool))); })
                    .find("Invalid scalar type"),
                std::string::npos);
    }
    // The group still works after refused calls (nothing was queued).
    Tensor t = ones({4});
    pg->all_reduce(t)->wait();
    EXPECT_TRUE(t.equal(full({4}, 2.0)));
  });
}

}  // namespace
}  // namespace ctorch::testing
