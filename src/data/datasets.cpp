// TensorDataset, MNIST, SyntheticMNIST, collate and DataLoaderOptions::seed (ctorch/data.h).
#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>

#include "ctorch/data.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"

namespace ctorch::data {

// ---- MNIST (libtorch's reader: its file names, header checks and messages) -------------------------

namespace {

constexpr uint32_t kImageMagic = 2051, kTargetMagic = 2049, kRows = 28, kColumns = 28;

// A big-endian uint32 that must equal `expected`.
void expect_int32(std::ifstream& in, uint32_t expected, const std::string& path) {
  unsigned char b[4] = {0, 0, 0, 0};
  in.read(reinterpret_cast<char*>(b), 4);
  CTORCH_CHECK(in.gcount() == 4, "MNIST file ", path, " ends inside its header");
  const uint32_t value = (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
  CTORCH_CHECK(value == expected, "Expected to read number ", expected, " but found ", value, " instead");
}

// The file's payload of `bytes` bytes after its header, as uint8 tensor `shape`.
Tensor read_payload(std::ifstream& in, IntArrayRef shape, const std::string& path) {
  Tensor t = empty(shape, TensorOptions().dtype(kUInt8));
  in.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(t.numel()));
  CTORCH_CHECK(in.gcount() == static_cast<std::streamsize>(t.numel()), "MNIST file ", path, " is truncated: expected ",
               t.numel(), " bytes of data, read ", in.gcount());
  return t;
}

std::string join_paths(std::string head, const std::string& tail) {
  if (head.empty() || head.back() != '/') head.push_back('/');
  return head + tail;
}

}  // namespace

datasets::MNIST::MNIST(const std::string& root, Mode mode) : train_(mode == Mode::kTrain) {
  const int64_t count = train_ ? 60000 : 10000;
  const std::string images_path = join_paths(root, train_ ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte");
  std::ifstream images(images_path, std::ios::binary);
  CTORCH_CHECK(images.good(), "Error opening images file at ", images_path);
  expect_int32(images, kImageMagic, images_path);
  expect_int32(images, static_cast<uint32_t>(count), images_path);
  expect_int32(images, kRows, images_path);
  expect_int32(images, kColumns, images_path);
  images_ = read_payload(images, {count, 1, kRows, kColumns}, images_path).to(kFloat).div_(255);
  const std::string targets_path = join_paths(root, train_ ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte");
  std::ifstream targets(targets_path, std::ios::binary);
  CTORCH_CHECK(targets.good(), "Error opening targets file at ", targets_path);
  expect_int32(targets, kTargetMagic, targets_path);
  expect_int32(targets, static_cast<uint32_t>(count), targets_path);
  targets_ = read_payload(targets, {count}, targets_path).to(kLong);
}

Example datasets::MNIST::get(size_t index) {
  CTORCH_CHECK_INDEX(index < static_cast<size_t>(images_.size(0)), "MNIST: index ", index, " is out of range for ",
                     images_.size(0), " samples");
  const auto i = static_cast<int64_t>(index);
  return {images_[i], targets_[i]};
}

// ---- TensorDataset ------------------------------------------------------------------------------

TensorDataset::TensorDataset(std::vector<Tensor> tensors) : tensors_(std::move(tensors)) {
  CTORCH_CHECK_VALUE(!tensors_.empty() && tensors_.size() <= 2,
                     "TensorDataset takes one tensor (data) or two (data, target), got ", tensors_.size());
  for (const Tensor& t : tensors_) {
    CTORCH_CHECK_VALUE(t.defined() && t.dim() > 0, "TensorDataset: every tensor needs a first dimension");
  }
  // torch.utils.data.TensorDataset: assert all(... size(0) == ...), "Size mismatch between tensors"
  for (const Tensor& t : tensors_) {
    CTORCH_CHECK_VALUE(t.size(0) == tensors_[0].size(0), "Size mismatch between tensors");
  }
}

TensorDataset::TensorDataset(Tensor data, Tensor target)
    : TensorDataset(std::vector<Tensor>{std::move(data), std::move(target)}) {}

Example TensorDataset::get(size_t index) {
  const auto i = static_cast<int64_t>(index);
  Example e;
  e.data = tensors_[0].select(0, i);
  if (tensors_.size() > 1) e.target = tensors_[1].select(0, i);
  return e;
}

std::optional<size_t> TensorDataset::size() const { return static_cast<size_t>(tensors_[0].size(0)); }

// ---- collate ------------------------------------------------------------------------------------

Example collate(const std::vector<Example>& examples) {
  CTORCH_CHECK_VALUE(!examples.empty(), "collate: no examples");
  const bool has_target = examples.front().target.defined();
  std::vector<Tensor> data;
  std::vector<Tensor> target;
  data.reserve(examples.size());
  if (has_target) target.reserve(examples.size());
  for (const Example& e : examples) {
    CTORCH_CHECK_VALUE(e.data.defined(), "collate: an example has no data");
    CTORCH_CHECK_VALUE(e.target.defined() == has_target, "collate: some examples have a target and some do not");
    data.push_back(e.data);
    if (has_target) target.push_back(e.target);
  }
  Example batch;
  batch.data = stack(data, 0);
  if (has_target) batch.target = stack(target, 0);
  return batch;
}

DataLoaderOptions& DataLoaderOptions::seed(uint64_t seed) {
  Generator g;
  g.manual_seed(seed);
  generator_ = g;
  return *this;
}

// ---- SyntheticMNIST -----------------------------------------------------------------------------

namespace datasets {
namespace {

// SplitMix64: a fixed, portable stream per (seed, index, salt).
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

class Stream {
 public:
  Stream(uint64_t seed, uint64_t index, uint64_t salt)
      : state_(splitmix64(seed ^ splitmix64(index ^ splitmix64(salt)))) {}
  uint64_t next() { return state_ = splitmix64(state_); }
  // Uniform [0, 1) from the top 24 bits (exact in float).
  float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

// Seven-segment encodings of 0..9: bits a b c d e f g (top, top right, bottom right, bottom,
// bottom left, top left, middle).
constexpr std::array<uint8_t, 10> kSegments = {
    0b1111110, 0b0110000, 0b1101101, 0b1111001, 0b0110011,
    0b1011011, 0b1011111, 0b1110000, 0b1111111, 0b1111011,
};
constexpr int kSide = 28;

void fill_rect(float* img, int x0, int y0, int x1, int y1, float v) {
  for (int y = std::max(y0, 0); y < std::min(y1, kSide); ++y) {
    for (int x = std::max(x0, 0); x < std::min(x1, kSide); ++x) img[y * kSide + x] = std::max(img[y * kSide + x], v);
  }
}

}  // namespace

SyntheticMNIST::SyntheticMNIST(size_t size, uint64_t seed) : size_(size), seed_(seed) {}

int64_t SyntheticMNIST::label(size_t index) const {
  Stream s(seed_, index, 1);
  return s.below(10);
}

Example SyntheticMNIST::get(size_t index) {
  CTORCH_CHECK_INDEX(index < size_, "index ", index, " is out of range for SyntheticMNIST of size ", size_);
  const int64_t digit = label(index);
  Stream s(seed_, index, 2);
  std::array<float, kSide * kSide> img{};
  // The digit's box: 9-11 wide, 16-19 tall at (9, 5), moved by up to 2 pixels, strokes 2 or 3 wide.
  const int dx = static_cast<int>(s.below(5)) - 2;
  const int dy = static_cast<int>(s.below(5)) - 2;
  const int t = 2 + static_cast<int>(s.below(2));
  const int w = 9 + static_cast<int>(s.below(3));
  const int h = 16 + static_cast<int>(s.below(4));
  const float ink = 0.75f + 0.25f * s.uniform();
  const int x0 = 9 + dx, y0 = 5 + dy, x1 = x0 + w, y1 = y0 + h, ym = y0 + h / 2;
  const uint8_t seg = kSegments[static_cast<size_t>(digit)];
  if (seg & 0b1000000) fill_rect(img.data(), x0, y0, x1, y0 + t, ink);               // a
  if (seg & 0b0100000) fill_rect(img.data(), x1 - t, y0, x1, ym + 1, ink);           // b
  if (seg & 0b0010000) fill_rect(img.data(), x1 - t, ym, x1, y1, ink);               // c
  if (seg & 0b0001000) fill_rect(img.data(), x0, y1 - t, x1, y1, ink);               // d
  if (seg & 0b0000100) fill_rect(img.data(), x0, ym, x0 + t, y1, ink);               // e
  if (seg & 0b0000010) fill_rect(img.data(), x0, y0, x0 + t, ym + 1, ink);           // f
  if (seg & 0b0000001) fill_rect(img.data(), x0, ym - t / 2, x1, ym - t / 2 + t, ink);  // g
  for (float& v : img) v = std::clamp(v + 0.2f * s.uniform() - 0.05f, 0.0f, 1.0f);

  Example e;
  e.data = empty({1, kSide, kSide}, TensorOptions().dtype(kFloat));
  std::memcpy(e.data.data_ptr(), img.data(), sizeof(img));
  e.target = full({}, digit, TensorOptions().dtype(kLong));
  return e;
}

}  // namespace datasets
}  // namespace ctorch::data
