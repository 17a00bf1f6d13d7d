// ctorch::cuda::jiterator: create_jit_fn and create_multi_output_jit_fn (torch/cuda/jiterator.py,
// aten/src/ATen/cuda/jiterator.cu).
//
// Note [Jiterator]
// - create_*: the entry function's name is parsed as PyTorch's _CodeParser does (a template, a
//   return type, a name, parameters, a body; the last function of the string is the entry); a
//   string that does not parse throws at once. Nothing is compiled until the first call.
// - A call: at most 8 tensors, kwargs only of declared names; all tensors on one device (no cpu
//   0-dim exception: TensorIterator's allow_cpu_scalars(false)); the common dtype is
//   torch.result_type of the inputs; every input is converted to it, outputs are allocated in it
//   with the broadcast shape (laid out as an elementwise op's output). The kernel computes in
//   the common dtype: `name<T>(inputs..., extras...)`, each extra as its value's kind (double,
//   int64_t or bool), in declaration order. float16 and bfloat16 compute in float (T = float,
//   PyTorch's opmath type) and round once when stored: the inputs are converted to float before
//   the launch and the float result converted back, which gives the same values.
// - The kernel comes from the device's backend (KernelTable::jit_compile: the system compiler for
//   cpu and emulated devices, NVRTC for real CUDA), compiled before anything is allocated, so a
//   compile error leaves every tensor and allocator statistic as it was. The launch goes through
//   the op boundary (ops/launch.h, OpFamily::Jit) on the device's current stream.
#include "ctorch/cuda_jiterator.h"

#include <algorithm>
#include <regex>
#include <span>
#include <utility>

#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ops/elementwise.h"
#include "ops/kernel_table.h"
#include "ops/launch.h"

namespace ctorch::cuda::jiterator {

namespace detail {

struct JitFunctionState {
  std::string code;
  std::string name;
  int noutputs = 1;
  bool return_by_ref = false;
  Kwargs kwargs;
};

JitFunction make_jit_function(std::shared_ptr<const JitFunctionState> state) { return JitFunction(std::move(state)); }

}  // namespace detail

namespace {

constexpr int kMaxInputs = 8;
constexpr int kMaxOutputs = 8;

// _CodeParser's pattern, `.` spelled [\s\S] (re.DOTALL), anchored at the start (re.match).
std::string parse_kernel_name(const std::string& code) {
  static const std::regex pattern(
      R"(\s*template\s*(<[\s\S]+>)\s*(\w+)\s+(\w+)\s*(\([\s\S]+\))\s*(\{[\s\S]+\})\s*)");
  std::smatch m;
  if (!std::regex_search(code, m, pattern, std::regex_constants::match_continuous)) {
    throw Error("Couldn't parse code, please check correctness:\n " + code);
  }
  return m[3].str();
}

// Calls see(list) with the operands as one initializer_list (the op boundary's form).
template <size_t... I, class See>
void see_operands(const std::vector<ops::OpOperand>& list, See& see, std::index_sequence<I...>) {
  see(std::initializer_list<ops::OpOperand>{list[I]...});
}

template <size_t N, class See>
void see_operands_n(const std::vector<ops::OpOperand>& list, See& see) {
  if constexpr (N <= static_cast<size_t>(kMaxInputs + kMaxOutputs)) {
    if (list.size() == N) return see_operands(list, see, std::make_index_sequence<N>{});
    see_operands_n<N + 1>(list, see);
  }
}

const char* input_name(int i) {
  static constexpr const char* names[] = {"input0", "input1", "input2", "input3",
                                          "input4", "input5", "input6", "input7"};
  return names[i];
}

ScalarType extra_type(const Scalar& v) {
  if (v.is_bool()) return kBool;
  return v.is_integral(false) ? kInt64 : kDouble;
}

ops::JitValue extra_value(const Scalar& v) {
  ops::JitValue value{};
  if (v.is_bool()) {
    value.b = v.to<bool>();
  } else if (v.is_integral(false)) {
    value.i = v.to_long();
  } else {
    value.d = v.to_double();
  }
  return value;
}

std::vector<Tensor> run(const detail::JitFunctionState& st, const std::vector<Tensor>& inputs,
                        const Kwargs& overrides) {
  CTORCH_CHECK_VALUE(inputs.size() <= static_cast<size_t>(kMaxInputs), "jiterator only supports up to 8 tensor inputs.");
  CTORCH_CHECK_VALUE(!inputs.empty(), "jiterator needs at least one tensor input, got 0");
  Kwargs kwargs = st.kwargs;
  for (const auto& [key, value] : overrides) {
    auto it = std::find_if(kwargs.begin(), kwargs.end(), [&](const auto& kv) { return kv.first == key; });
    CTORCH_CHECK_VALUE(it != kwargs.end(), key, " is not declared in function definition");
    it->second = value;
  }
  const int n = static_cast<int>(inputs.size());
  std::vector<const Tensor*> in(inputs.size());
  for (int i = 0; i < n; ++i) {
    CTORCH_CHECK_VALUE(inputs[i].defined(), "jiterator: input ", i, " is an undefined tensor");
    in[i] = &inputs[i];
  }
  const Device device = ops::common_device(std::span<const Tensor* const>(in));
  const ScalarType common = ops::common_dtype(std::span<const Tensor* const>(in));
  CTORCH_CHECK_NOT_IMPLEMENTED(!is_complex(common), "jiterator: complex dtypes are not supported by ctorch's jiterator, got ",
                               scalar_type_cpp_name(common));
  const bool reduced = common == kHalf || common == kBFloat16;
  const ScalarType compute = reduced ? kFloat : common;
  DimVector shape(inputs[0].sizes());
  for (int i = 1; i < n; ++i) shape = broadcast_shapes(shape, inputs[i].sizes());

  ops::JitSpec spec;
  spec.code = st.code;
  spec.name = st.name;
  spec.ninputs = n;
  spec.noutputs = st.noutputs;
  spec.dtype = compute;
  spec.return_by_ref = st.return_by_ref;
  std::vector<ops::JitValue> extra;
  for (const auto& kv : kwargs) {
    spec.extra.push_back(extra_type(kv.second));
    extra.push_back(extra_value(kv.second));
  }
  const ops::KernelTable& table = ops::kernels_for(device);
  const ops::JitKernel* kernel = table.jit_compile(spec, device);

  std::vector<Tensor> converted(inputs.size());
  std::vector<const Tensor*> ops_list;  // outputs, then inputs
  for (int i = 0; i < n; ++i) converted[i] = inputs[i].to(compute);
  std::vector<Tensor> outputs;
  const TensorOptions options = TensorOptions().dtype(compute).device(device);
  for (int i = 0; i < st.noutputs; ++i) outputs.push_back(ops::empty_output(shape, options, in));
  for (const Tensor& t : outputs) ops_list.push_back(&t);
  for (const Tensor& t : converted) ops_list.push_back(&t);
  if (outputs[0].numel() != 0) {
    const kernels::JitPlan plan = ops::make_jit_plan(ops_list.data(), static_cast<int>(ops_list.size()));
    char* data[kernels::kMaxJitOperands];
    for (size_t k = 0; k < ops_list.size(); ++k) data[k] = static_cast<char*>(ops_list[k]->data_ptr());
    auto operands = [&](auto&& see) {
      std::vector<ops::OpOperand> list;
      for (const Tensor& t : outputs) list.push_back(ops::OpOperand{t, nullptr, true, true});
      for (int i = 0; i < n; ++i) list.push_back(ops::OpOperand{converted[i], input_name(i)});
      see_operands_n<1>(list, see);
    };
    ops::launch_jit(st.name.c_str(), *kernel, plan, data, extra.data(), static_cast<int>(extra.size()), device,
                    operands);
  }
  if (reduced) {
    for (Tensor& t : outputs) t = t.to(common);
  }
  return outputs;
}

JitFunction make_state(const std::string& code, int64_t num_outputs, bool return_by_ref, const Kwargs& kwargs) {
  auto state = std::make_shared<detail::JitFunctionState>();
  state->code = code;
  state->name = parse_kernel_name(code);
  state->noutputs = static_cast<int>(num_outputs);
  state->return_by_ref = return_by_ref;
  for (size_t i = 0; i < kwargs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      CTORCH_CHECK_VALUE(kwargs[i].first != kwargs[j].first, "jiterator: keyword argument '", kwargs[i].first,
                         "' repeated");
    }
  }
  state->kwargs = kwargs;
  return detail::make_jit_function(std::move(state));
}

}  // namespace

Tensor JitFunction::operator()(const std::vector<Tensor>& inputs, const Kwargs& kwargs) const {
  CTORCH_CHECK_VALUE(state_->noutputs == 1, "jiterator: this function has ", state_->noutputs,
                     " outputs; call() returns them all");
  return run(*state_, inputs, kwargs)[0];
}

std::vector<Tensor> JitFunction::call(const std::vector<Tensor>& inputs, const Kwargs& kwargs) const {
  return run(*state_, inputs, kwargs);
}

const std::string& JitFunction::kernel_name() const { return state_->name; }

int64_t JitFunction::num_outputs() const { return state_->noutputs; }

JitFunction create_jit_fn(const std::string& code_string, const Kwargs& kwargs) {
  return make_state(code_string, 1, false, kwargs);
}

JitFunction create_multi_output_jit_fn(const std::string& code_string, int64_t num_outputs, const Kwargs& kwargs) {
  CTORCH_CHECK_VALUE(num_outputs >= 1 && num_outputs <= kMaxOutputs,
                     "jiterator only supports 1 to 8 outputs, got num_outputs=", num_outputs);
  return make_state(code_string, num_outputs, true, kwargs);
}

}  // namespace ctorch::cuda::jiterator
