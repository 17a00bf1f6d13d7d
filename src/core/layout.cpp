// Layout names, as c10 prints them.
#include "ctorch/layout.h"

#include <ostream>

namespace ctorch::inline api {

std::ostream& operator<<(std::ostream& os, Layout layout) {
  switch (layout) {
    case Layout::Strided: return os << "Strided";
    case Layout::Sparse: return os << "Sparse";
    case Layout::SparseCsr: return os << "SparseCsr";
    case Layout::Mkldnn: return os << "Mkldnn";
    case Layout::SparseCsc: return os << "SparseCsc";
    case Layout::SparseBsr: return os << "SparseBsr";
    case Layout::SparseBsc: return os << "SparseBsc";
  }
  return os << "Layout(" << static_cast<int>(layout) << ")";
}

}  // namespace ctorch::api
