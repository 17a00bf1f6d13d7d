// CPUGeneratorImpl, the default cpu generator, and the tensor-free parts of ctorch::Generator
// and of the global seed functions. State bytes follow PyTorch's CPUGeneratorImplState
// (x86-64 layout, little-endian), written field by field so the layout never depends on
// this compiler's struct padding.
#include "random/cpu_generator.h"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>

#include "ctorch/error.h"
#include "ctorch/random.h"
#include "random/cuda_generator.h"

namespace ctorch::inline api::impl {
namespace {

static_assert(std::endian::native == std::endian::little,
              "CPU RNG state bytes are defined for little-endian hosts (PyTorch's x86-64 layout)");

// Offsets of CPUGeneratorImplState (spec §5.4).
constexpr size_t kOffSeed = 0;
constexpr size_t kOffLeft = 8;
constexpr size_t kOffSeeded = 12;
constexpr size_t kOffNext = 16;
constexpr size_t kOffState = 24;
constexpr size_t kOffNormalX = kOffState + 8 * kMt19937StateSize;  // 5016
constexpr size_t kOffNormalY = kOffNormalX + 8;                    // 5024
constexpr size_t kOffNormalRho = kOffNormalY + 8;                  // 5032
constexpr size_t kOffNormalIsValid = kOffNormalRho + 8;            // 5040
constexpr size_t kOffNextFloat = kOffNormalIsValid + 8;            // 5048 (4 bytes padding before)
constexpr size_t kOffNextFloatValid = kOffNextFloat + 4;           // 5052
static_assert(kOffNextFloatValid + 4 == CPUGeneratorImpl::kStateSize);
constexpr size_t kLegacyStateSize = kOffNormalIsValid + 8;  // 5048


template <class T>
void put(std::vector<uint8_t>& out, size_t offset, T value) {
  std::memcpy(out.data() + offset, &value, sizeof(T));
}

template <class T>
T get(const uint8_t* in, size_t offset) {
  T value;
  std::memcpy(&value, in + offset, sizeof(T));
  return value;
}

uint64_t read_urandom() {
  uint64_t value = 0;
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t got = ::read(fd, &value, sizeof(value));
  ::close(fd);
  return got == static_cast<ssize_t>(sizeof(value)) ? value : 0;
}

}  // namespace

uint64_t get_non_deterministic_random(bool is_cuda) {
  if (!is_cuda) {
    const uint64_t v = read_urandom();
    if (v != 0) return v;
  }
  std::random_device rd;
  const uint64_t hi = rd();
  const uint64_t lo = rd();
  const uint64_t v = (hi << 32) + lo;
  return is_cuda ? (v & 0x1FFFFFFFFFFFFFULL) : v;
}

void CPUGeneratorImpl::set_current_seed(uint64_t seed) {
  next_float_normal_sample_.reset();
  next_double_normal_sample_.reset();
  engine_ = Mt19937(seed);
}

uint64_t CPUGeneratorImpl::seed() {
  const uint64_t s = get_non_deterministic_random(false);
  set_current_seed(s);
  return s;
}

std::vector<uint8_t> CPUGeneratorImpl::get_state() const {
  std::vector<uint8_t> out(kStateSize, 0);
  const Mt19937Data& d = engine_.data();
  put<uint64_t>(out, kOffSeed, d.seed);
  put<int32_t>(out, kOffLeft, d.left);
  put<int32_t>(out, kOffSeeded, d.seeded ? 1 : 0);
  put<uint64_t>(out, kOffNext, d.next);
  for (int i = 0; i < kMt19937StateSize; ++i) put<uint64_t>(out, kOffState + 8 * i, d.state[i]);
  put<double>(out, kOffNormalX, 0.0);
  put<double>(out, kOffNormalY, next_double_normal_sample_.value_or(0.0));
  put<double>(out, kOffNormalRho, 0.0);
  put<int32_t>(out, kOffNormalIsValid, next_double_normal_sample_ ? 1 : 0);
  put<float>(out, kOffNextFloat, next_float_normal_sample_.value_or(0.0f));
  put<uint8_t>(out, kOffNextFloatValid, next_float_normal_sample_ ? 1 : 0);
  return out;
}

void CPUGeneratorImpl::set_state(const uint8_t* data, size_t size) {
  // PyTorch 1.13 also accepts the 5048-byte CPUGeneratorImplStateLegacy (no float cache; the
  // cached double is rebuilt from normal_rho and normal_x).
  CTORCH_CHECK_VALUE(size == kStateSize || size == kLegacyStateSize,
                     "Expected either a CPUGeneratorImplStateLegacy of size ", kLegacyStateSize,
                     " or a CPUGeneratorImplState of size ", kStateSize,
                     " but found the input RNG state size to be ", size);
  Mt19937Data d;
  d.seed = get<uint64_t>(data, kOffSeed);
  d.left = get<int32_t>(data, kOffLeft);
  d.seeded = get<int32_t>(data, kOffSeeded) != 0;
  d.next = static_cast<uint32_t>(get<uint64_t>(data, kOffNext));
  for (int i = 0; i < kMt19937StateSize; ++i) {
    d.state[i] = static_cast<uint32_t>(get<uint64_t>(data, kOffState + 8 * i));
  }
  Mt19937 engine;
  engine.set_data(d);
  CTORCH_CHECK_VALUE(engine.is_valid(), "Invalid mt19937 state");
  std::optional<double> double_sample;
  std::optional<float> float_sample;
  if (get<int32_t>(data, kOffNormalIsValid) != 0) {
    if (size == kLegacyStateSize) {
      const double theta = 2.0 * std::numbers::pi * get<double>(data, kOffNormalX);
      double_sample = get<double>(data, kOffNormalRho) * std::sin(theta);
    } else {
      double_sample = get<double>(data, kOffNormalY);
    }
  }
  if (size == kStateSize && get<uint8_t>(data, kOffNextFloatValid) != 0) {
    float_sample = get<float>(data, kOffNextFloat);
  }
  engine_ = engine;
  next_double_normal_sample_ = double_sample;
  next_float_normal_sample_ = float_sample;
}

std::shared_ptr<GeneratorImpl> CPUGeneratorImpl::clone() const {
  auto copy = std::make_shared<CPUGeneratorImpl>();
  copy->engine_ = engine_;
  copy->next_float_normal_sample_ = next_float_normal_sample_;
  copy->next_double_normal_sample_ = next_double_normal_sample_;
  return copy;
}

namespace {

const std::shared_ptr<CPUGeneratorImpl>& default_cpu_generator_ptr() {
  static const auto gen = std::make_shared<CPUGeneratorImpl>(get_non_deterministic_random(false));
  return gen;
}

}  // namespace

CPUGeneratorImpl& default_cpu_generator_impl() { return *default_cpu_generator_ptr(); }

CPUGeneratorImpl& cpu_generator_or_default(const std::optional<Generator>& gen) {
  if (!gen.has_value()) return default_cpu_generator_impl();
  CTORCH_CHECK(gen->impl() != nullptr, "Expected a defined generator");
  CTORCH_CHECK(gen->device().is_cpu(), "Expected a 'cpu' device type for generator but found '",
               gen->device().type(), "'");
  return static_cast<CPUGeneratorImpl&>(*gen->impl());
}

}  // namespace ctorch::api::impl

namespace ctorch::inline api {

Generator::Generator(Device device) {
  if (device.is_cuda()) {
    impl_ = impl::make_cuda_generator(device);
    return;
  }
  impl_ = std::make_shared<impl::CPUGeneratorImpl>(kDefaultRngSeed);
}

Generator& Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(impl_->mutex());
  impl_->set_current_seed(seed);
  return *this;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(impl_->mutex());
  return impl_->current_seed();
}

uint64_t Generator::seed() {
  std::lock_guard<std::mutex> lock(impl_->mutex());
  return impl_->seed();
}

Device Generator::device() const { return impl_->device(); }

Generator default_generator() { return Generator(impl::default_cpu_generator_ptr()); }

Generator manual_seed(uint64_t seed) {
  impl::queue_cuda_manual_seed_all(seed);
  Generator gen = default_generator();
  gen.manual_seed(seed);
  return gen;
}

uint64_t seed() {
  const uint64_t s = default_generator().seed();
  impl::queue_cuda_manual_seed_all(s);
  return s;
}

uint64_t initial_seed() { return default_generator().initial_seed(); }

}  // namespace ctorch::api
