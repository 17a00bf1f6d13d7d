// The CUDA backend's KernelTable::conv2d: cuDNN's legacy convolution API, as PyTorch's cudnn
// convolution used it before the v8 graph API (aten/src/ATen/native/cudnn/Conv_v7.cpp).
//
// Note [cuDNN convolution]
// - What runs: Forward is cudnnConvolutionForward, then cudnnAddTensor for the bias (a [1, OC, 1, 1]
//   tensor added in place); BackwardData is cudnnConvolutionBackwardData (also the transposed
//   convolution's forward, Note [Convolution]); BackwardWeights is cudnnConvolutionBackwardFilter,
//   then cudnnConvolutionBackwardBias for grad_bias when asked. Tensors are contiguous NCHW, the
//   filter KCRS with groups set by cudnnSetConvolutionGroupCount; padding, stride and dilation
//   are the descriptor's; the mode is cross-correlation, as PyTorch's.
// - Types (PyTorch's choices): float32 computes in float with CUDNN_DEFAULT_MATH when
//   backends::cudnn::allow_tf32() (TF32 tensor cores on Ampere and newer; PyTorch's default) and
//   CUDNN_FMA_MATH otherwise; float64 in double; float16 in float (CUDNN_DATA_FLOAT compute) with
//   CUDNN_TENSOR_OP_MATH. The chosen algorithm's math type is set on the descriptor before it runs
//   (PyTorch's Note [behavior of cudnnFind and cudnnGet]).
// - Algorithm: the cudnnGet*Algorithm_v7 heuristic's list, keeping entries that succeeded, are
//   deterministic under backends::cudnn::deterministic() (CUDNN_DETERMINISTIC, PyTorch's filter)
//   and, for float32 without TF32, use FMA math. Without benchmark() the first entry runs; with
//   benchmark() the first whose workspace the allocator can give (an OutOfMemoryError moves on to
//   the next). PyTorch's benchmark mode times the algorithms with cudnnFind*AlgorithmEx; ctorch does
//   not. The list is cached per (device, pass, dtype, geometry, math, deterministic).
// - Workspace: a block of the device's caching allocator for the op's stream (memory::allocate_cuda),
//   freed when the call returns: stream-ordered like any temporary tensor, never a cudaMalloc per call.
// - Handles: one per (thread, device), made on first use with the device current and returned to a
//   per-device pool when the thread exits (as blas.cpp's cuBLAS handles and PyTorch's cuDNN handle
//   pool); each call binds it to the op's stream with cudnnSetStream. Never destroyed.
// - Falls back (returns false before anything is queued; the op layer runs im2col + GEMM):
//   backends::cudnn::enabled() false; libcudnn.so.9 (or a symbol) not loadable, asked once per
//   process; a dtype other than the three; a dimension or tensor above INT_MAX elements (the legacy
//   API's int sizes; PyTorch splits the batch instead); an output size the geometry does not give (a
//   transposed convolution's output padding beyond the stride); no usable algorithm. Emulated
//   devices and the cpu never come here.
// - Errors: every cuDNN status is checked; a failure throws with cudnnGetErrorString's text and
//   cudnnGetLastErrorString's detail (OutOfMemoryError for allocation failures, DeviceError for
//   CUDNN_STATUS_NOT_INITIALIZED, else Error). Descriptor destruction in destructors is not checked.
// - libcudnn is opened with dlopen on first use (lazy_library.h), not linked: a process that never
//   convolves on a GPU never loads it. The legacy API is deprecated in cuDNN 9 but still shipped.
// Status: compiled against cuDNN 9.19 headers; never run (the development machine has no GPU).
#include "backends/cuda/cudnn_conv.h"

#include <cudnn.h>

#include <array>
#include <climits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cuda/check.h"
#include "backends/cuda/lazy_library.h"
#include "backends/cuda/stream.h"
#include "core/math_settings.h"
#include "ctorch/error.h"
#include "memory/device_allocator.h"

namespace ctorch::inline api::backends::cuda {
namespace {

constexpr int kMaxDevices = 64;
/// Workspaces at or above this are refused (cuDNN has reported sizes above 2^63; PyTorch's limit).
constexpr size_t kMaxWorkspaceBytes = size_t{1} << 40;

// cuDNN, opened on first use (lazy_library.h).
struct Cudnn {
  static constexpr const char* kSoname = "libcudnn.so." CTORCH_LAZY_XSTR_(CUDNN_MAJOR);
  void* lib = open_cuda_library(kSoname);
#define CTORCH_CUDNN_FN_(fn) decltype(&fn) fn##_ = CTORCH_LAZY_SYMBOL(lib, kSoname, fn)
  CTORCH_CUDNN_FN_(cudnnGetVersion);
  CTORCH_CUDNN_FN_(cudnnGetErrorString);
  CTORCH_CUDNN_FN_(cudnnGetLastErrorString);
  CTORCH_CUDNN_FN_(cudnnCreate);
  CTORCH_CUDNN_FN_(cudnnSetStream);
  CTORCH_CUDNN_FN_(cudnnCreateTensorDescriptor);
  CTORCH_CUDNN_FN_(cudnnDestroyTensorDescriptor);
  CTORCH_CUDNN_FN_(cudnnSetTensor4dDescriptor);
  CTORCH_CUDNN_FN_(cudnnCreateFilterDescriptor);
  CTORCH_CUDNN_FN_(cudnnDestroyFilterDescriptor);
  CTORCH_CUDNN_FN_(cudnnSetFilter4dDescriptor);
  CTORCH_CUDNN_FN_(cudnnCreateConvolutionDescriptor);
  CTORCH_CUDNN_FN_(cudnnDestroyConvolutionDescriptor);
  CTORCH_CUDNN_FN_(cudnnSetConvolution2dDescriptor);
  CTORCH_CUDNN_FN_(cudnnSetConvolutionGroupCount);
  CTORCH_CUDNN_FN_(cudnnSetConvolutionMathType);
  CTORCH_CUDNN_FN_(cudnnGetConvolutionForwardAlgorithm_v7);
  CTORCH_CUDNN_FN_(cudnnGetConvolutionBackwardDataAlgorithm_v7);
  CTORCH_CUDNN_FN_(cudnnGetConvolutionBackwardFilterAlgorithm_v7);
  CTORCH_CUDNN_FN_(cudnnGetConvolutionForwardWorkspaceSize);
  CTORCH_CUDNN_FN_(cudnnGetConvolutionBackwardDataWorkspaceSize);
  CTORCH_CUDNN_FN_(cudnnGetConvolutionBackwardFilterWorkspaceSize);
  CTORCH_CUDNN_FN_(cudnnConvolutionForward);
  CTORCH_CUDNN_FN_(cudnnConvolutionBackwardData);
  CTORCH_CUDNN_FN_(cudnnConvolutionBackwardFilter);
  CTORCH_CUDNN_FN_(cudnnConvolutionBackwardBias);
  CTORCH_CUDNN_FN_(cudnnAddTensor);
#undef CTORCH_CUDNN_FN_
};

// The loaded library, or null when it (or one of its symbols) is absent; the loader is asked once.
const Cudnn* cudnn() noexcept {
  static const Cudnn* api = []() -> const Cudnn* {
    try {
      return new Cudnn();  // never unloaded, as a linked library
    } catch (const Error&) {
      return nullptr;
    }
  }();
  return api;
}

[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* expr, const char* file, int line) {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  std::array<char, 512> last{};  // cuDNN's description of this thread's last failure
  cudnn()->cudnnGetLastErrorString_(last.data(), last.size());
  const std::string msg = detail::str_cat("cuDNN error: ", cudnn()->cudnnGetErrorString_(status), " when calling `",
                                          expr, "` (", last[0] ? last.data() : "no detail", "; cuda:", device, " at ",
                                          file, ":", line, ")");
  switch (status) {
    case CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED:
    case CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED: throw OutOfMemoryError(msg);
    case CUDNN_STATUS_NOT_INITIALIZED: throw DeviceError(msg);
    default: throw Error(msg);
  }
}

#define CTORCH_CUDNN_CHECK(expr)                                             \
  do {                                                                       \
    const cudnnStatus_t ctorch_cudnn_status_ = (expr);                       \
    if (ctorch_cudnn_status_ != CUDNN_STATUS_SUCCESS) {                      \
      throw_cudnn_error(ctorch_cudnn_status_, #expr, __FILE__, __LINE__);    \
    }                                                                        \
  } while (0)

// ---- handles: one per (thread, device), pooled per device --------------------------------------

struct HandlePool {
  std::mutex mutex;  // guards free
  std::vector<cudnnHandle_t> free[kMaxDevices];
};

HandlePool& pool() {
  static HandlePool* p = new HandlePool();  // leaked: threads may exit during static destruction
  return *p;
}

struct ThreadHandles {
  std::array<cudnnHandle_t, kMaxDevices> handles{};
  ~ThreadHandles() {
    HandlePool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (int d = 0; d < kMaxDevices; ++d) {
      if (handles[d]) p.free[d].push_back(handles[d]);
    }
  }
};

// The calling thread's handle for `device`, which must be current, bound to `stream`.
cudnnHandle_t handle(const Cudnn& api, DeviceIndex device, cudaStream_t stream) {
  thread_local ThreadHandles mine;
  cudnnHandle_t& h = mine.handles[device];
  if (!h) {
    HandlePool& p = pool();
    {
      std::lock_guard<std::mutex> lock(p.mutex);
      if (!p.free[device].empty()) {
        h = p.free[device].back();
        p.free[device].pop_back();
      }
    }
    if (!h) CTORCH_CUDNN_CHECK(api.cudnnCreate_(&h));
  }
  CTORCH_CUDNN_CHECK(api.cudnnSetStream_(h, stream));
  return h;
}

// ---- descriptors -------------------------------------------------------------------------------

// The descriptors of one call: x [N, C, H, W] (input or grad_input), y [N, OC, OH, OW] (output or
// grad_output), w [OC, C / groups, KH, KW], bias [1, OC, 1, 1] (only with a bias or grad_bias).
struct Descriptors {
  const Cudnn& api;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  explicit Descriptors(const Cudnn& a) : api(a) {}
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
  ~Descriptors() {  // statuses unchecked: destruction cannot report them
    if (x) api.cudnnDestroyTensorDescriptor_(x);
    if (y) api.cudnnDestroyTensorDescriptor_(y);
    if (bias) api.cudnnDestroyTensorDescriptor_(bias);
    if (w) api.cudnnDestroyFilterDescriptor_(w);
    if (conv) api.cudnnDestroyConvolutionDescriptor_(conv);
  }
};

// The tensor data type of `dtype`, or false for a dtype cuDNN is not asked to cover.
bool data_type_of(ScalarType dtype, cudnnDataType_t* out) {
  switch (dtype) {
    case kFloat32: *out = CUDNN_DATA_FLOAT; return true;
    case kFloat64: *out = CUDNN_DATA_DOUBLE; return true;
    case kFloat16: *out = CUDNN_DATA_HALF; return true;
    default: return false;
  }
}

// The math type asked of the heuristic (PyTorch's ConvolutionDescriptor::set).
cudnnMathType_t requested_math(cudnnDataType_t type, bool allow_tf32) {
  if (type == CUDNN_DATA_HALF) return CUDNN_TENSOR_OP_MATH;
  if (type == CUDNN_DATA_FLOAT && !allow_tf32) return CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}

int to_int(int64_t v) { return static_cast<int>(v); }

void describe(const ops::ConvKernelArgs& a, cudnnDataType_t type, cudnnMathType_t math, bool with_bias,
              Descriptors* d) {
  const Cudnn& api = d->api;
  const ops::ConvParams& p = a.params;
  CTORCH_CUDNN_CHECK(api.cudnnCreateTensorDescriptor_(&d->x));
  CTORCH_CUDNN_CHECK(api.cudnnSetTensor4dDescriptor_(d->x, CUDNN_TENSOR_NCHW, type, to_int(a.n), to_int(a.c),
                                                     to_int(a.h), to_int(a.w)));
  CTORCH_CUDNN_CHECK(api.cudnnCreateTensorDescriptor_(&d->y));
  CTORCH_CUDNN_CHECK(api.cudnnSetTensor4dDescriptor_(d->y, CUDNN_TENSOR_NCHW, type, to_int(a.n), to_int(a.oc),
                                                     to_int(a.oh), to_int(a.ow)));
  CTORCH_CUDNN_CHECK(api.cudnnCreateFilterDescriptor_(&d->w));
  CTORCH_CUDNN_CHECK(api.cudnnSetFilter4dDescriptor_(d->w, type, CUDNN_TENSOR_NCHW, to_int(a.oc),
                                                     to_int(a.c / p.groups), to_int(a.kh), to_int(a.kw)));
  if (with_bias) {
    CTORCH_CUDNN_CHECK(api.cudnnCreateTensorDescriptor_(&d->bias));
    CTORCH_CUDNN_CHECK(api.cudnnSetTensor4dDescriptor_(d->bias, CUDNN_TENSOR_NCHW, type, 1, to_int(a.oc), 1, 1));
  }
  const cudnnDataType_t compute = type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  CTORCH_CUDNN_CHECK(api.cudnnCreateConvolutionDescriptor_(&d->conv));
  CTORCH_CUDNN_CHECK(api.cudnnSetConvolution2dDescriptor_(d->conv, to_int(p.padding[0]), to_int(p.padding[1]),
                                                          to_int(p.stride[0]), to_int(p.stride[1]),
                                                          to_int(p.dilation[0]), to_int(p.dilation[1]),
                                                          CUDNN_CROSS_CORRELATION, compute));
  CTORCH_CUDNN_CHECK(api.cudnnSetConvolutionGroupCount_(d->conv, to_int(p.groups)));
  CTORCH_CUDNN_CHECK(api.cudnnSetConvolutionMathType_(d->conv, math));
}

// True when every size fits the legacy API's ints and the output size is the one the geometry gives.
bool covered(const ops::ConvKernelArgs& a) {
  const ops::ConvParams& p = a.params;
  for (int64_t v : {a.n, a.c, a.h, a.w, a.oc, a.kh, a.kw, a.oh, a.ow, p.groups}) {
    if (v <= 0 || v > INT_MAX) return false;
  }
  for (int i = 0; i < 2; ++i) {
    if (p.stride[i] > INT_MAX || p.padding[i] > INT_MAX || p.dilation[i] > INT_MAX) return false;
  }
  const int64_t numels[3] = {a.n * a.c * a.h * a.w, a.n * a.oc * a.oh * a.ow, a.oc * (a.c / p.groups) * a.kh * a.kw};
  for (int64_t v : numels) {
    if (v > INT_MAX) return false;
  }
  const int64_t oh = (a.h + 2 * p.padding[0] - p.dilation[0] * (a.kh - 1) - 1) / p.stride[0] + 1;
  const int64_t ow = (a.w + 2 * p.padding[1] - p.dilation[1] * (a.kw - 1) - 1) / p.stride[1] + 1;
  return oh == a.oh && ow == a.ow;
}

// ---- algorithm choice --------------------------------------------------------------------------

// One usable algorithm of a pass (a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t value).
struct Algorithm {
  int algo;
  cudnnMathType_t math;
  size_t workspace;
};

// What the algorithm list depends on: device, pass, dtype, geometry, requested math, deterministic().
using Key = std::array<int64_t, 21>;

Key key_of(DeviceIndex device, const ops::ConvKernelArgs& a, cudnnMathType_t math, bool deterministic) {
  const ops::ConvParams& p = a.params;
  return {device, static_cast<int64_t>(a.pass), static_cast<int64_t>(a.dtype), a.n, a.c, a.h, a.w, a.oc, a.kh, a.kw,
          a.oh, a.ow, p.stride[0], p.stride[1], p.padding[0], p.padding[1], p.dilation[0], p.dilation[1], p.groups,
          static_cast<int64_t>(math), deterministic};
}

// The workspace bytes of `algo` for the pass, with the descriptor's math type already set; false when
// cuDNN refuses the combination (that algorithm is then not usable).
bool workspace_of(const Cudnn& api, cudnnHandle_t h, ops::ConvPass pass, const Descriptors& d, int algo,
                  size_t* bytes) {
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  switch (pass) {
    case ops::ConvPass::Forward:
      status = api.cudnnGetConvolutionForwardWorkspaceSize_(h, d.x, d.w, d.conv, d.y,
                                                            static_cast<cudnnConvolutionFwdAlgo_t>(algo), bytes);
      break;
    case ops::ConvPass::BackwardData:
      status = api.cudnnGetConvolutionBackwardDataWorkspaceSize_(
          h, d.w, d.y, d.conv, d.x, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), bytes);
      break;
    case ops::ConvPass::BackwardWeights:
      status = api.cudnnGetConvolutionBackwardFilterWorkspaceSize_(
          h, d.x, d.y, d.conv, d.w, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), bytes);
      break;
  }
  return status == CUDNN_STATUS_SUCCESS && *bytes < kMaxWorkspaceBytes;
}

// The heuristic's entries kept by Note [cuDNN convolution]'s filter, with their workspace sizes.
template <class Perf>
std::vector<Algorithm> usable(const Cudnn& api, cudnnHandle_t h, ops::ConvPass pass, const Descriptors& d,
                              const Perf* perf, int count, cudnnMathType_t requested, bool deterministic) {
  std::vector<Algorithm> out;
  for (int i = 0; i < count; ++i) {
    const Perf& r = perf[i];
    if (r.status != CUDNN_STATUS_SUCCESS) continue;
    if (deterministic && r.determinism != CUDNN_DETERMINISTIC) continue;
    if (requested == CUDNN_FMA_MATH && r.mathType != CUDNN_FMA_MATH) continue;  // float32 without TF32
    CTORCH_CUDNN_CHECK(api.cudnnSetConvolutionMathType_(d.conv, r.mathType));
    size_t bytes = 0;
    if (workspace_of(api, h, pass, d, static_cast<int>(r.algo), &bytes)) {
      out.push_back({static_cast<int>(r.algo), r.mathType, bytes});
    }
  }
  CTORCH_CUDNN_CHECK(api.cudnnSetConvolutionMathType_(d.conv, requested));
  return out;
}

// The usable algorithms of the pass, best first (cached per key).
std::vector<Algorithm> algorithms(const Cudnn& api, cudnnHandle_t h, const ops::ConvKernelArgs& a, const Descriptors& d,
                                  const Key& key, cudnnMathType_t requested, bool deterministic) {
  static std::mutex mutex;
  static auto* cache = new std::map<Key, std::vector<Algorithm>>();  // leaked, as the handles
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
  }
  std::vector<Algorithm> found;
  int count = 0;
  switch (a.pass) {
    case ops::ConvPass::Forward: {
      std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT> perf{};
      CTORCH_CUDNN_CHECK(api.cudnnGetConvolutionForwardAlgorithm_v7_(h, d.x, d.w, d.conv, d.y,
                                                                     static_cast<int>(perf.size()), &count, perf.data()));
      found = usable(api, h, a.pass, d, perf.data(), count, requested, deterministic);
      break;
    }
    case ops::ConvPass::BackwardData: {
      std::array<cudnnConvolutionBwdDataAlgoPerf_t, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT> perf{};
      CTORCH_CUDNN_CHECK(api.cudnnGetConvolutionBackwardDataAlgorithm_v7_(h, d.w, d.y, d.conv, d.x,
                                                                          static_cast<int>(perf.size()), &count,
                                                                          perf.data()));
      found = usable(api, h, a.pass, d, perf.data(), count, requested, deterministic);
      break;
    }
    case ops::ConvPass::BackwardWeights: {
      std::array<cudnnConvolutionBwdFilterAlgoPerf_t, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT> perf{};
      CTORCH_CUDNN_CHECK(api.cudnnGetConvolutionBackwardFilterAlgorithm_v7_(h, d.x, d.y, d.conv, d.w,
                                                                            static_cast<int>(perf.size()), &count,
                                                                            perf.data()));
      found = usable(api, h, a.pass, d, perf.data(), count, requested, deterministic);
      break;
    }
  }
  std::lock_guard<std::mutex> lock(mutex);
  cache->emplace(key, found);
  return found;
}

// 1 and 0 as the scaling factors of `type` (double for double tensors, float otherwise).
struct Scale {
  double d;
  float f;
  const void* of(cudnnDataType_t type) const { return type == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&d) : &f; }
};

// Queues the pass with `algo` on the handle's stream.
void run(const Cudnn& api, cudnnHandle_t h, const ops::ConvKernelArgs& a, const Descriptors& d, cudnnDataType_t type,
         const Algorithm& algo, void* workspace) {
  static constexpr Scale kOne{1.0, 1.0f}, kZero{0.0, 0.0f};
  const void* one = kOne.of(type);
  const void* zero = kZero.of(type);
  CTORCH_CUDNN_CHECK(api.cudnnSetConvolutionMathType_(d.conv, algo.math));
  switch (a.pass) {
    case ops::ConvPass::Forward:
      CTORCH_CUDNN_CHECK(api.cudnnConvolutionForward_(h, one, d.x, a.input, d.w, a.weight, d.conv,
                                                      static_cast<cudnnConvolutionFwdAlgo_t>(algo.algo), workspace,
                                                      algo.workspace, zero, d.y, a.output));
      if (a.bias != nullptr) CTORCH_CUDNN_CHECK(api.cudnnAddTensor_(h, one, d.bias, a.bias, one, d.y, a.output));
      break;
    case ops::ConvPass::BackwardData:
      CTORCH_CUDNN_CHECK(api.cudnnConvolutionBackwardData_(h, one, d.w, a.weight, d.y, a.grad_output, d.conv,
                                                           static_cast<cudnnConvolutionBwdDataAlgo_t>(algo.algo),
                                                           workspace, algo.workspace, zero, d.x, a.grad_input));
      break;
    case ops::ConvPass::BackwardWeights:
      CTORCH_CUDNN_CHECK(api.cudnnConvolutionBackwardFilter_(h, one, d.x, a.input, d.y, a.grad_output, d.conv,
                                                             static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo.algo),
                                                             workspace, algo.workspace, zero, d.w, a.grad_weight));
      if (a.grad_bias != nullptr) {
        CTORCH_CUDNN_CHECK(api.cudnnConvolutionBackwardBias_(h, one, d.y, a.grad_output, zero, d.bias, a.grad_bias));
      }
      break;
  }
}

}  // namespace

bool cudnn_conv2d(const ops::ConvKernelArgs& a, Stream s) {
  cudnnDataType_t type{};
  if (!impl::cudnn_enabled() || !data_type_of(a.dtype, &type) || !covered(a)) return false;
  const Cudnn* api = cudnn();
  if (api == nullptr) return false;
  const DeviceIndex device = s.device().index();
  CTORCH_CHECK(device >= 0 && device < kMaxDevices, "[conv2d] expected a cuda stream, but got ", s.device());
  const bool deterministic = impl::cudnn_deterministic();
  const cudnnMathType_t math = requested_math(type, impl::cudnn_allow_tf32());
  const bool with_bias = a.pass == ops::ConvPass::Forward ? a.bias != nullptr : a.grad_bias != nullptr;

  ScopedDevice guard(device);
  cudnnHandle_t h = handle(*api, device, native_stream(s));
  Descriptors d(*api);
  describe(a, type, math, with_bias, &d);
  const std::vector<Algorithm> candidates = algorithms(*api, h, a, d, key_of(device, a, math, deterministic), math,
                                                       deterministic);
  if (candidates.empty()) return false;
  if (!impl::cudnn_benchmark()) {
    const DataPtr workspace = memory::allocate_cuda(device, candidates.front().workspace, s);
    run(*api, h, a, d, type, candidates.front(), workspace.get());
    return true;
  }
  for (size_t i = 0; i < candidates.size(); ++i) {  // the first whose workspace the allocator can give
    DataPtr workspace;
    try {
      workspace = memory::allocate_cuda(device, candidates[i].workspace, s);
    } catch (const OutOfMemoryError&) {
      if (i + 1 == candidates.size()) throw;
      continue;
    }
    run(*api, h, a, d, type, candidates[i], workspace.get());
    return true;
  }
  return false;
}

int64_t cudnn_version() noexcept {
  const Cudnn* api = cudnn();
  return api != nullptr ? static_cast<int64_t>(api->cudnnGetVersion_()) : -1;
}

}  // namespace ctorch::api::backends::cuda
