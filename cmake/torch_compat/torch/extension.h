// <torch/extension.h>: C++ extensions of Python's torch are not built against ctorch.
#pragma once
#error "ctorch: <torch/extension.h> (C++ extensions for Python's torch) is out of scope; ctorch's Python package is python/"
