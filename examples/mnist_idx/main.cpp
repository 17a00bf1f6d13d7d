// Writes ctorch's SyntheticMNIST as MNIST's four IDX files (train-images-idx3-ubyte, ...), so that
// programs reading MNIST from disk -- PyTorch's C++ MNIST example, libtorch's and ctorch's
// datasets::MNIST, torchvision -- run on a machine without the download. Pixels are the synthetic
// images scaled to 0..255; labels are their digits.
// Usage: mnist_idx <directory> [--train N] [--test N]   (MNIST's readers expect 60000 and 10000)
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "ctorch/ctorch.h"

namespace {

void put_u32(std::ofstream& out, uint32_t v) {
  const unsigned char b[4] = {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                              static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
  out.write(reinterpret_cast<const char*>(b), 4);
}

// One split: `count` samples of SyntheticMNIST(seed) as an images file and a labels file.
void write_split(const std::string& dir, const char* images_name, const char* labels_name, uint32_t count,
                 uint64_t seed) {
  ctorch::data::datasets::SyntheticMNIST data(count, seed);
  std::ofstream images(dir + "/" + images_name, std::ios::binary), labels(dir + "/" + labels_name, std::ios::binary);
  CTORCH_CHECK(images.good() && labels.good(), "cannot write into ", dir);
  put_u32(images, 2051);
  put_u32(images, count);
  put_u32(images, 28);
  put_u32(images, 28);
  put_u32(labels, 2049);
  put_u32(labels, count);
  for (uint32_t i = 0; i < count; ++i) {
    const ctorch::Tensor pixels = data.get(i).data.mul(255).round().clamp(0, 255).to(ctorch::kUInt8).contiguous();
    images.write(static_cast<const char*>(pixels.data_ptr()), 28 * 28);
    const auto label = static_cast<unsigned char>(data.label(i));
    labels.write(reinterpret_cast<const char*>(&label), 1);
  }
  CTORCH_CHECK(images.good() && labels.good(), "writing into ", dir, " failed");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <directory> [--train N] [--test N]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  uint32_t train = 60000, test = 10000;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--train") == 0) train = static_cast<uint32_t>(std::stoul(argv[i + 1]));
    if (std::strcmp(argv[i], "--test") == 0) test = static_cast<uint32_t>(std::stoul(argv[i + 1]));
  }
  try {
    write_split(dir, "train-images-idx3-ubyte", "train-labels-idx1-ubyte", train, /*seed=*/1);
    write_split(dir, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", test, /*seed=*/2);
  } catch (const ctorch::Error& e) {
    std::fprintf(stderr, "mnist_idx: %s\n", e.what_without_backtrace());
    return 1;
  }
  std::printf("wrote %u training and %u test samples of SyntheticMNIST as MNIST IDX files into %s\n", train, test,
              dir.c_str());
  return 0;
}
