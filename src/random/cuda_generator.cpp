// CUDAGeneratorImpl, the per-device default CUDA generators, and the torch.cuda random API
// (ctorch/cuda_random.h). Seeding calls are queued with impl::lazy_call until CUDA is
// initialized, as torch.cuda's _lazy_call; see ctorch/cuda_random.h for which calls are kept.
#include "random/cuda_generator.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <cstring>
#include <mutex>

#include "ctorch/cuda_random.h"
#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "runtime/current.h"

namespace ctorch::inline api::impl {
namespace {

static_assert(std::endian::native == std::endian::little,
              "CUDA RNG state bytes are defined little-endian (PyTorch's layout on x86-64)");
static_assert(sizeof(void*) >= sizeof(uint64_t), "seeds travel through lazy_call's void* argument");

constexpr size_t kSeedSize = sizeof(uint64_t);

// Reads and checks PyTorch's CUDA state bytes; throws before anything changes.
PhiloxState parse_state(const uint8_t* data, size_t size) {
  CTORCH_CHECK(size == kSeedSize || size == CUDAGeneratorImpl::kStateSize, "RNG state is wrong size");
  PhiloxState s;
  std::memcpy(&s.seed, data, kSeedSize);
  if (size == CUDAGeneratorImpl::kStateSize) {
    int64_t offset = 0;
    std::memcpy(&offset, data + kSeedSize, sizeof(offset));
    s.offset = static_cast<uint64_t>(offset);
  }
  CTORCH_CHECK(s.offset % 4 == 0, "offset must be a multiple of 4");
  return s;
}

// The default generators, one slot per device index; a slot is filled once and never reset.
struct DefaultGenerators {
  std::mutex mutex;
  std::shared_ptr<CUDAGeneratorImpl> gens[kMaxDevices];
};

DefaultGenerators& default_generators() {
  static DefaultGenerators* g = new DefaultGenerators();  // leaked: used during static destruction
  return *g;
}

void* encode_seed(uint64_t seed) { return reinterpret_cast<void*>(static_cast<uintptr_t>(seed)); }
uint64_t decode_seed(void* arg) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(arg)); }

void reseed(CUDAGeneratorImpl& gen, uint64_t seed) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_current_seed(seed);
}

// The queued torch.cuda calls (run at initialization, or at once when CUDA is initialized).
void run_manual_seed(void* arg) { reseed(*default_cuda_generator(-1), decode_seed(arg)); }

void run_manual_seed_all(void* arg) {
  const uint64_t seed = decode_seed(arg);
  const int count = lazy_init(DeviceType::CUDA).device_count();
  for (int i = 0; i < count; ++i) reseed(*default_cuda_generator(static_cast<DeviceIndex>(i)), seed);
}

void run_seed(void*) {
  CUDAGeneratorImpl& gen = *default_cuda_generator(-1);
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.seed();
}

void run_seed_all(void*) {
  const int count = lazy_init(DeviceType::CUDA).device_count();
  uint64_t seed = 0;
  for (int i = 0; i < count; ++i) {
    CUDAGeneratorImpl& gen = *default_cuda_generator(static_cast<DeviceIndex>(i));
    std::lock_guard<std::mutex> lock(gen.mutex());
    if (i == 0) {
      seed = gen.seed();
    } else {
      gen.set_current_seed(seed);
    }
  }
}

// A queued set_rng_state: the device as given (resolved when the call runs) and checked bytes.
struct QueuedState {
  cuda::DeviceArg device;
  PhiloxState state;
};

void run_set_rng_state(void* arg) {
  std::unique_ptr<QueuedState> q(static_cast<QueuedState*>(arg));
  CUDAGeneratorImpl& gen = *default_cuda_generator(static_cast<DeviceIndex>(q->device.resolve()));
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_current_seed(q->state.seed);
  gen.set_philox_offset_per_thread(q->state.offset);
}

}  // namespace

void CUDAGeneratorImpl::set_current_seed(uint64_t seed) {
  assert_not_capturing("Cannot call CUDAGeneratorImpl::set_current_seed");
  seed_ = seed;
  offset_ = 0;
}

uint64_t CUDAGeneratorImpl::current_seed() const {
  assert_not_capturing("Cannot call CUDAGeneratorImpl::current_seed");
  return seed_;
}

uint64_t CUDAGeneratorImpl::seed() {
  assert_not_capturing("Cannot call CUDAGeneratorImpl::seed");
  const uint64_t s = get_non_deterministic_random(/*is_cuda=*/true);
  set_current_seed(s);
  return s;
}

std::vector<uint8_t> CUDAGeneratorImpl::get_state() const {
  std::vector<uint8_t> out(kStateSize);
  const int64_t offset = static_cast<int64_t>(offset_);
  const uint64_t seed = current_seed();  // refused during capture
  std::memcpy(out.data(), &seed, kSeedSize);
  std::memcpy(out.data() + kSeedSize, &offset, sizeof(offset));
  return out;
}

void CUDAGeneratorImpl::set_state(const uint8_t* data, size_t size) {
  assert_not_capturing("Please ensure to utilize the CUDAGeneratorImpl::set_state_index method during capturing.");
  const PhiloxState s = parse_state(data, size);
  seed_ = s.seed;
  offset_ = s.offset;
}

std::shared_ptr<GeneratorImpl> CUDAGeneratorImpl::clone() const {
  auto copy = std::make_shared<CUDAGeneratorImpl>(device_, seed_);
  copy->offset_ = offset_;
  return copy;
}

void CUDAGeneratorImpl::set_philox_offset_per_thread(uint64_t offset) {
  CTORCH_CHECK(offset % 4 == 0, "offset must be a multiple of 4");
  offset_ = offset;
}

kernels::PhiloxArgs CUDAGeneratorImpl::philox_cuda_state(uint64_t increment) {
  increment = ((increment + 3) / 4) * 4;
  kernels::PhiloxArgs args;
  if (current_stream_capture_status(DeviceType::CUDA) != CaptureStatus::None) {
    CTORCH_CHECK(capturing_, "Attempt to increase offset for a CUDA generator not in capture mode.");
    CTORCH_INTERNAL_ASSERT(offset_intragraph_ <= std::numeric_limits<uint32_t>::max() - increment,
                           "Increment causes overflow in the offset value.");
    args.captured = true;
    args.seed_ptr = static_cast<const int64_t*>(seed_extragraph_.data_ptr());
    args.offset_ptr = static_cast<const int64_t*>(offset_extragraph_.data_ptr());
    args.offset_intragraph = static_cast<uint32_t>(offset_intragraph_);
    offset_intragraph_ += increment;
    return args;
  }
  CTORCH_CHECK(!capturing_, "Offset increment outside graph capture encountered unexpectedly.");
  CTORCH_INTERNAL_ASSERT(offset_ % 4 == 0, "Philox offset must stay a multiple of 4");
  args.seed = seed_;
  args.offset = offset_;
  offset_ += increment;
  return args;
}

void CUDAGeneratorImpl::register_graph(const void* graph) {
  assert_not_capturing("Cannot register the state during capturing stage.");
  if (registered_graphs_.empty()) {
    const TensorOptions options = TensorOptions().dtype(kInt64).device(Device(DeviceType::CUDA, device_));
    seed_extragraph_ = empty({1}, options);
    offset_extragraph_ = empty({1}, options);
  }
  if (std::find(registered_graphs_.begin(), registered_graphs_.end(), graph) == registered_graphs_.end()) {
    registered_graphs_.push_back(graph);
  }
}

void CUDAGeneratorImpl::unregister_graph(const void* graph) noexcept {
  auto it = std::find(registered_graphs_.begin(), registered_graphs_.end(), graph);
  if (it == registered_graphs_.end()) return;
  registered_graphs_.erase(it);
  if (registered_graphs_.empty()) {
    seed_extragraph_ = Tensor();
    offset_extragraph_ = Tensor();
  }
}

void CUDAGeneratorImpl::capture_prologue() {
  capturing_ = true;
  offset_intragraph_ = 0;
  // PyTorch also fills seed/offset here, on the capture stream; nothing reads them before a replay,
  // and every replay fills them on its own stream first, so ctorch skips the fill (which raced, for
  // the stream sanitizer, with the replay's fill on another stream).
}

uint64_t CUDAGeneratorImpl::capture_epilogue() {
  capturing_ = false;
  return offset_intragraph_;
}

void CUDAGeneratorImpl::replay_prologue(uint64_t wholegraph_increment) {
  assert_not_capturing("Cannot prepare for replay during capturing stage.");
  // A graph without random kernels reads neither value: its replay costs no fill (ctorch's shortcut;
  // every replay of a graph that reads them fills them first, on its own stream).
  if (wholegraph_increment == 0) return;
  seed_extragraph_.fill_(static_cast<int64_t>(seed_));
  offset_extragraph_.fill_(static_cast<int64_t>(offset_));
  offset_ += ((wholegraph_increment + 3) / 4) * 4;
}

std::shared_ptr<CUDAGeneratorImpl> make_cuda_generator(Device device) {
  DeviceRuntime& runtime = lazy_init(DeviceType::CUDA);
  const int index = device.has_index() ? device.index() : runtime.current_device();
  CTORCH_CHECK(index >= 0 && index < runtime.device_count(), "The device_index is invalid.");
  return std::make_shared<CUDAGeneratorImpl>(static_cast<DeviceIndex>(index), kDefaultRngSeed);
}

const std::shared_ptr<CUDAGeneratorImpl>& default_cuda_generator(DeviceIndex index) {
  // Initialize first (without holding our lock): queued seed calls come back here.
  DeviceRuntime& runtime = lazy_init(DeviceType::CUDA);
  if (index < 0) index = runtime.current_device();
  const int count = runtime.device_count();
  CTORCH_CHECK_INDEX(index >= 0 && index < count && index < kMaxDevices,
                     "tuple index out of range: no default CUDA generator for device ", index, " (",
                     count, " CUDA devices)");
  DefaultGenerators& d = default_generators();
  std::lock_guard<std::mutex> lock(d.mutex);
  std::shared_ptr<CUDAGeneratorImpl>& slot = d.gens[index];
  if (!slot) slot = std::make_shared<CUDAGeneratorImpl>(index, get_non_deterministic_random(/*is_cuda=*/true));
  return slot;
}

CUDAGeneratorImpl& cuda_generator_or_default(const std::optional<Generator>& gen, Device device) {
  if (!gen.has_value()) return *default_cuda_generator(device.has_index() ? device.index() : -1);
  CTORCH_CHECK(gen->impl() != nullptr, "Expected a defined generator");
  CTORCH_CHECK(gen->device().is_cuda(), "Expected a 'cuda' device type for generator but found '",
               gen->device().type(), "'");
  return static_cast<CUDAGeneratorImpl&>(*gen->impl());
}

void queue_cuda_manual_seed_all(uint64_t seed) {
  lazy_call(DeviceType::CUDA, "manual_seed_all", run_manual_seed_all, encode_seed(seed));
}

}  // namespace ctorch::api::impl

namespace ctorch::cuda {

void manual_seed(uint64_t seed) {
  impl::lazy_call(DeviceType::CUDA, "manual_seed", impl::run_manual_seed, impl::encode_seed(seed));
}

void manual_seed_all(uint64_t seed) { impl::queue_cuda_manual_seed_all(seed); }

void seed() { impl::lazy_call(DeviceType::CUDA, "", impl::run_seed, nullptr); }

void seed_all() { impl::lazy_call(DeviceType::CUDA, "", impl::run_seed_all, nullptr); }

uint64_t initial_seed() {
  impl::CUDAGeneratorImpl& gen = *impl::default_cuda_generator(-1);
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.current_seed();
}

Tensor get_rng_state(DeviceArg device) {
  impl::lazy_init(DeviceType::CUDA);
  return Generator(impl::default_cuda_generator(static_cast<DeviceIndex>(device.resolve()))).get_state();
}

void set_rng_state(const Tensor& new_state, DeviceArg device) {
  CTORCH_CHECK_TYPE(new_state.defined() && new_state.is_cpu() && new_state.dtype() == kUInt8,
                    "RNG state must be a torch.ByteTensor");
  const Tensor bytes = new_state.contiguous();
  auto q = std::make_unique<impl::QueuedState>();
  q->device = device;
  q->state = impl::parse_state(static_cast<const uint8_t*>(bytes.data_ptr()), static_cast<size_t>(bytes.numel()));
  impl::lazy_call(DeviceType::CUDA, "", impl::run_set_rng_state, q.release());
}

std::vector<Tensor> get_rng_state_all() {
  const int count = impl::lazy_init(DeviceType::CUDA).device_count();
  std::vector<Tensor> states;
  states.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) states.push_back(get_rng_state(i));
  return states;
}

void set_rng_state_all(const std::vector<Tensor>& new_states) {
  for (size_t i = 0; i < new_states.size(); ++i) set_rng_state(new_states[i], static_cast<int>(i));
}

Generator default_generator(int device) {
  const int count = impl::lazy_init(DeviceType::CUDA).device_count();
  const int index = device < 0 ? device + count : device;  // Python tuple indexing
  CTORCH_CHECK_INDEX(index >= 0 && index < count, "tuple index out of range: no default CUDA generator for device ",
                     device, " (", count, " CUDA devices)");
  return Generator(impl::default_cuda_generator(static_cast<DeviceIndex>(index)));
}

}  // namespace ctorch::cuda
