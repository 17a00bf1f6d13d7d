"""pytest set-up: ctorch from PYTHONPATH (the build tree or an install), two emulated GPUs unless
the environment chose otherwise (read at ctorch's first CUDA call)."""
import os
import sys

os.environ.setdefault("CTORCH_EMULATED_CUDA", "2")
sys.path.insert(0, os.path.dirname(__file__))
