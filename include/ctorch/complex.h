// Complex tensors (complex64, complex128): views between complex and real layouts, parts, conjugate.
// Arithmetic on complex tensors goes through the usual Tensor methods (+ - * /, ==, abs, neg).
#pragma once

#include "ctorch/tensor.h"

namespace ctorch::inline api {

/// torch.view_as_real: a complex tensor's (..., 2) float view of its real and imaginary parts.
Tensor view_as_real(const Tensor& self);
/// torch.view_as_complex: a (..., 2) float32/float64 tensor with a last stride of 1 seen as complex.
Tensor view_as_complex(const Tensor& self);
/// torch.real: the real parts (a view); a real tensor itself.
inline Tensor real(const Tensor& self) { return self.real(); }
/// torch.imag: the imaginary parts (a view); raises for real tensors.
inline Tensor imag(const Tensor& self) { return self.imag(); }
/// torch.conj (materialized).
inline Tensor conj(const Tensor& self) { return self.conj(); }
/// torch.complex(real, imag): a new complex tensor from two float32 or float64 tensors of one dtype.
Tensor complex(const Tensor& real, const Tensor& imag);
/// torch.polar(abs, angle): abs * (cos(angle) + i sin(angle)).
Tensor polar(const Tensor& abs, const Tensor& angle);

}  // namespace ctorch::api
