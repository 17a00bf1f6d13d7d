// Layout: how a tensor's elements are stored (torch.strided, torch.sparse_coo, ...). ctorch
// implements strided tensors only; the other values exist so that options can name them, and a
// factory given one throws NotImplementedError.
#pragma once

#include <cstdint>
#include <iosfwd>

namespace ctorch::inline api {

/// The memory layouts PyTorch names (c10::Layout).
enum class Layout : int8_t { Strided, Sparse, SparseCsr, Mkldnn, SparseCsc, SparseBsr, SparseBsc };

inline constexpr Layout kStrided = Layout::Strided;
inline constexpr Layout kSparse = Layout::Sparse;
inline constexpr Layout kSparseCsr = Layout::SparseCsr;
inline constexpr Layout kMkldnn = Layout::Mkldnn;
inline constexpr Layout kSparseCsc = Layout::SparseCsc;
inline constexpr Layout kSparseBsr = Layout::SparseBsr;
inline constexpr Layout kSparseBsc = Layout::SparseBsc;

/// c10's names: "Strided", "Sparse", "SparseCsr", ...
std::ostream& operator<<(std::ostream& os, Layout layout);

}  // namespace ctorch::api
