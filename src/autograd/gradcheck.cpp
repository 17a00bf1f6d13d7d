// gradcheck: analytical gradients against central finite differences (torch.autograd.gradcheck).
#include <cmath>
#include <sstream>

#include "ctorch/autograd.h"
#include "ctorch/factories.h"
#include "ctorch/random.h"

namespace ctorch::autograd {

namespace {

// d outputs / d inputs[i] by central differences: one column per element of inputs[i].
std::vector<std::vector<double>> numerical_jacobian(const std::function<variable_list(const variable_list&)>& fn,
                                                    const variable_list& inputs, size_t i, size_t out_index,
                                                    double eps) {
  // The inputs are perturbed in copies: writing into them would bump the version of tensors the
  // analytical graph saved (PyTorch perturbs x.data, which has its own version counter). The copy
  // of an input that requires grad requires grad too, so `fn` may differentiate (gradgradcheck).
  Tensor data = inputs[i].detach().clone();
  variable_list perturbed = inputs;
  perturbed[i] = inputs[i].requires_grad() ? data.detach().requires_grad_() : data;
  Tensor flat = data.view({-1});
  const int64_t n = flat.numel();
  std::vector<std::vector<double>> columns;
  for (int64_t j = 0; j < n; ++j) {
    Tensor element = flat.select(0, j);
    const double original = element.item<double>();
    element.fill_(original + eps);
    const std::vector<double> plus = fn(perturbed).at(out_index).to(kDouble).contiguous().to_vector<double>();
    element.fill_(original - eps);
    const std::vector<double> minus = fn(perturbed).at(out_index).to(kDouble).contiguous().to_vector<double>();
    element.fill_(original);
    std::vector<double> column(plus.size());
    for (size_t k = 0; k < plus.size(); ++k) column[k] = (plus[k] - minus[k]) / (2 * eps);
    columns.push_back(std::move(column));
  }
  return columns;
}

}  // namespace

bool gradcheck(const std::function<variable_list(const variable_list&)>& fn, const variable_list& inputs,
               const GradcheckOptions& options) {
  for (const Tensor& t : inputs) {
    CTORCH_CHECK(!t.requires_grad() || t.is_contiguous(), "gradcheck expects contiguous inputs that require grad");
  }
  const variable_list outputs = fn(inputs);
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& out = outputs[o];
    const int64_t m = out.numel();
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].requires_grad()) continue;
      const auto numerical = numerical_jacobian(fn, inputs, i, o, options.eps);
      // Analytical: one backward per output element.
      for (int64_t k = 0; k < m; ++k) {
        Tensor seed = zeros_like(out);
        seed.view({-1}).select(0, k).fill_(1);
        // An output that does not require grad has a zero analytical Jacobian (a missed recording
        // shows up as a mismatch, not as a vacuous pass).
        const variable_list g = out.requires_grad() ? grad({out}, {inputs[i]}, {seed}, /*retain_graph=*/true, false,
                                                           /*allow_unused=*/true)
                                                    : variable_list{Tensor()};
        std::vector<double> row = g[0].defined() ? g[0].to(kDouble).contiguous().to_vector<double>()
                                                 : std::vector<double>(static_cast<size_t>(inputs[i].numel()), 0.0);
        for (size_t j = 0; j < row.size(); ++j) {
          const double a = row[j], n = numerical[j][static_cast<size_t>(k)];
          if (std::abs(a - n) <= options.atol + options.rtol * std::abs(n)) continue;
          if (!options.raise_exception) return false;
          std::ostringstream os;
          os << "Jacobian mismatch for output " << o << " with respect to input " << i << ",\nnumerical:" << n
             << "\nanalytical:" << a << "\n(at output element " << k << ", input element " << j << ")";
          CTORCH_CHECK(false, os.str());
        }
      }
    }
  }
  return true;
}

bool gradgradcheck(const std::function<variable_list(const variable_list&)>& fn, const variable_list& inputs,
                   const GradcheckOptions& options) {
  variable_list grad_outputs;
  for (const Tensor& out : fn(inputs)) grad_outputs.push_back(randn_like(out.detach()).requires_grad_());
  const size_t n = inputs.size();
  // The first derivatives as a function of the inputs and the grad_outputs (PyTorch's new_func).
  auto first_derivatives = [&fn, n](const variable_list& all) {
    const variable_list in(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
    const variable_list seeds(all.begin() + static_cast<std::ptrdiff_t>(n), all.end());
    variable_list wanted;
    for (const Tensor& t : in) {
      if (t.requires_grad()) wanted.push_back(t);
    }
    variable_list out;
    for (Tensor& g : grad(fn(in), wanted, seeds, /*retain_graph=*/true, /*create_graph=*/true, /*allow_unused=*/true)) {
      if (g.defined()) out.push_back(std::move(g));
    }
    return out;
  };
  variable_list all = inputs;
  all.insert(all.end(), grad_outputs.begin(), grad_outputs.end());
  return gradcheck(first_derivatives, all, options);
}

}  // namespace ctorch::autograd
