// Data loading and checkpoints on emulated devices: pinned batches and their asynchronous copies,
// safetensors saved from and loaded onto cuda:1.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "device/stream_test_util.h"

namespace ctorch {
namespace {

class DataOnEmulatedDevices : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() > 0 && !cuda::is_emulated()) GTEST_SKIP() << "a real CUDA runtime is in use";
    testing::use_emulated_devices(2);
  }
};

data::TensorDataset ramp(int64_t n) {
  Tensor x = arange(n * 6, TensorOptions().dtype(kFloat)).reshape({n, 2, 3});
  return data::TensorDataset(x, arange(n, TensorOptions().dtype(kLong)));
}

TEST_F(DataOnEmulatedDevices, PinnedBatchesArePinned) {
  for (int64_t workers : {0, 2}) {
    data::DataLoader loader(ramp(10), data::DataLoaderOptions(4).pin_memory(true).num_workers(workers));
    int batches = 0;
    for (data::Example& batch : loader) {
      EXPECT_TRUE(batch.data.is_pinned()) << workers;
      EXPECT_TRUE(batch.target.is_pinned()) << workers;
      ++batches;
    }
    EXPECT_EQ(batches, 3);
    data::DataLoader plain(ramp(10), data::DataLoaderOptions(4).num_workers(workers));
    EXPECT_FALSE(plain.begin()->data.is_pinned());
  }
}

TEST_F(DataOnEmulatedDevices, CopiesOfPinnedBatchesDoNotWaitForTheDevice) {
  data::DataLoader loader(ramp(8), data::DataLoaderOptions(8).pin_memory(true).num_workers(1));
  data::Example batch = *loader.begin();
  const Device dev(DeviceType::CUDA, 0);
  const Stream stream = cuda::current_stream(0).unwrap();
  testing::Gate gate;
  gate.block(stream);
  // Opens the gate after a while, so that a copy that waited for the stream would still return.
  std::atomic<bool> opened{false};
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    opened = true;
    gate.open();
  });
  Tensor on_device = batch.data.to(dev, /*non_blocking=*/true);
  const bool returned_before_gate = !opened.load();
  opener.join();
  EXPECT_TRUE(returned_before_gate) << "non_blocking copy of a pinned batch waited for the device";
  cuda::synchronize();
  EXPECT_TRUE(on_device.cpu().equal(batch.data));
}

TEST_F(DataOnEmulatedDevices, SafetensorsLoadOntoCuda1AndSaveFromCuda) {
  std::map<std::string, Tensor> host = {{"w", randn({3, 4})}, {"step", full({}, 7, TensorOptions().dtype(kLong))}};
  const std::string bytes = safetensors::save(host);
  const auto loaded = safetensors::load(bytes, Device("cuda:1"));
  for (const auto& [name, t] : loaded) {
    EXPECT_EQ(t.device(), Device("cuda:1")) << name;
    EXPECT_TRUE(t.cpu().equal(host.at(name))) << name;
  }
  // cuda tensors (and a transposed view) are copied to the host to be saved.
  std::map<std::string, Tensor> on_device = {{"w", host.at("w").to("cuda:0")}, {"step", loaded.at("step")}};
  EXPECT_EQ(safetensors::save(on_device), bytes);
  EXPECT_EQ(safetensors::save({{"wt", on_device.at("w").t()}}), safetensors::save({{"wt", host.at("w").t().contiguous()}}));
  EXPECT_THROW(safetensors::load(bytes, Device("cuda:5")), Error);
}

TEST_F(DataOnEmulatedDevices, CorruptFilesAllocateNothing) {
  // The first tensor is valid; the second's shape disagrees with its bytes, so a loader that
  // built tensors while reading the header would have put the first one on cuda:1 already.
  const std::string header =
      R"({"a":{"dtype":"F32","shape":[256],"data_offsets":[0,1024]},"b":{"dtype":"F32","shape":[3],"data_offsets":[1024,1032]}})";
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  bytes += header + std::string(1032, '\0');
  cuda::synchronize(1);
  const int64_t before = cuda::memory_allocated(1);
  EXPECT_THROW(safetensors::load(bytes, Device("cuda:1")), safetensors::SafetensorError);
  EXPECT_THROW(safetensors::load(bytes.substr(0, bytes.size() - 1), Device("cuda:1")), safetensors::SafetensorError);
  EXPECT_EQ(cuda::memory_allocated(1), before);
}

}  // namespace
}  // namespace ctorch
