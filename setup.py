"""pip install . : builds libctorch and the extension ctorch._C with CMake (no network needed) and
installs the Python package from python/ctorch with libctorch beside the extension.

    python3 -m venv --system-site-packages /tmp/venv && /tmp/venv/bin/pip install --no-build-isolation .
"""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures and builds the ctorch_python target, then copies _C and libctorch into the package."""

    def build_extension(self, ext):
        build = pathlib.Path(self.build_temp).resolve() / "cmake"
        build.mkdir(parents=True, exist_ok=True)
        cuda = os.environ.get("CTORCH_BUILD_CUDA", "OFF")
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                               "-DCTORCH_BUILD_TESTS=OFF", "-DCTORCH_BUILD_EXAMPLES=OFF", "-DCTORCH_BUILD_PYTHON=ON",
                               f"-DCTORCH_BUILD_CUDA={cuda}", f"-DPython3_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", str(build), "-j", str(os.cpu_count() or 2),
                               "--target", "ctorch_python"])
        dest = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        dest.mkdir(parents=True, exist_ok=True)
        for so in (build / "python" / "ctorch").glob("_C*.so"):
            shutil.copy2(so, dest / so.name)
        # The extension needs libctorch by its soname only (found through its $ORIGIN run path).
        shutil.copy2(build / "libctorch.so.0", dest / "libctorch.so.0", follow_symlinks=True)


setup(
    name="ctorch",
    version="0.1.0",
    description="PyTorch's tensor core and torch.cuda in C++, with torch's Python API and emulated GPUs",
    package_dir={"": "python"},
    packages=find_packages("python", include=["ctorch", "ctorch.*"]),
    ext_modules=[CMakeExtension("ctorch._C")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
