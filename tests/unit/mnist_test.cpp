// datasets::MNIST reads MNIST's IDX files as libtorch does (file names, header checks and texts),
// and refuses missing, mislabelled and truncated files with an error naming the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"
#include "ctorch/torch.h"
#include "test_util.h"

namespace ctorch {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

void put_u32(std::ofstream& out, uint32_t v) {
  const unsigned char b[4] = {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                              static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
  out.write(reinterpret_cast<const char*>(b), 4);
}

// The test split: 10000 images whose pixel j of image i is (i + j) % 256, labels i % 10.
fs::path write_test_split(const std::string& name, uint32_t image_magic = 2051, size_t pixels_written = 10000 * 784) {
  const fs::path dir = fs::temp_directory_path() / ("ctorch_mnist_" + name + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream images(dir / "t10k-images-idx3-ubyte", std::ios::binary);
  put_u32(images, image_magic);
  put_u32(images, 10000);
  put_u32(images, 28);
  put_u32(images, 28);
  for (size_t k = 0; k < pixels_written; ++k) images.put(static_cast<char>((k / 784 + k % 784) % 256));
  std::ofstream labels(dir / "t10k-labels-idx1-ubyte", std::ios::binary);
  put_u32(labels, 2049);
  put_u32(labels, 10000);
  for (int i = 0; i < 10000; ++i) labels.put(static_cast<char>(i % 10));
  return dir;
}

TEST(Mnist, ReadsImagesAsFloatsInZeroOneAndLabelsAsInt64) {
  const fs::path dir = write_test_split("ok");
  data::datasets::MNIST test(dir.string(), data::datasets::MNIST::Mode::kTest);
  EXPECT_FALSE(test.is_train());
  ASSERT_EQ(test.size().value(), 10000u);
  EXPECT_EQ(test.images().sizes(), IntArrayRef({10000, 1, 28, 28}));
  EXPECT_EQ(test.images().dtype(), kFloat);
  EXPECT_EQ(test.targets().dtype(), kLong);
  const data::Example e = test.get(3);
  EXPECT_FLOAT_EQ(e.data[0][0][5].item<float>(), 8.0f / 255);
  EXPECT_FLOAT_EQ(e.data[0][9][9].item<float>(), static_cast<float>((3 + 9 * 28 + 9) % 256) / 255);
  EXPECT_EQ(e.target.item<int64_t>(), 3);
  EXPECT_THROW(test.get(10000), IndexError);
  fs::remove_all(dir);
}

TEST(Mnist, LibtorchSpellingsNormalizeAndBatch) {
  const fs::path dir = write_test_split("libtorch");
  auto dataset = torch::data::datasets::MNIST(dir.string(), torch::data::datasets::MNIST::Mode::kTest)
                     .map(torch::data::transforms::Normalize<>(0.5, 0.25))
                     .map(torch::data::transforms::Stack<>());
  EXPECT_EQ(dataset.size().value(), 10000u);
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(std::move(dataset), 64);
  auto it = loader->begin();  // the iterator owns its batch: keep it alive while reading
  const auto batch = *it;
  EXPECT_EQ(batch.data.sizes(), IntArrayRef({64, 1, 28, 28}));
  EXPECT_FLOAT_EQ(batch.data[1][0][0][2].item<float>(), (3.0f / 255 - 0.5f) / 0.25f);
  EXPECT_EQ(batch.target[7].item<int64_t>(), 7);
  fs::remove_all(dir);
}

TEST(Mnist, MissingMislabelledAndTruncatedFilesAreNamed) {
  const fs::path nowhere = fs::temp_directory_path() / "ctorch_mnist_nowhere";
  EXPECT_THAT(testing::error_of([&] { data::datasets::MNIST(nowhere.string()); }),
              HasSubstr("Error opening images file at " + (nowhere / "train-images-idx3-ubyte").string()));
  const fs::path wrong = write_test_split("magic", /*image_magic=*/2049);
  EXPECT_THAT(testing::error_of([&] { data::datasets::MNIST(wrong.string(), data::datasets::MNIST::Mode::kTest); }),
              HasSubstr("Expected to read number 2051 but found 2049 instead"));
  const fs::path truncated = write_test_split("truncated", 2051, /*pixels_written=*/1000);
  EXPECT_THAT(
      testing::error_of([&] { data::datasets::MNIST(truncated.string(), data::datasets::MNIST::Mode::kTest); }),
      HasSubstr("t10k-images-idx3-ubyte is truncated: expected 7840000 bytes of data, read 1000"));
  fs::remove_all(wrong);
  fs::remove_all(truncated);
}

}  // namespace
}  // namespace ctorch
