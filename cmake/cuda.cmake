# The real CUDA backend (src/backends/cuda): kernels compiled by nvcc, runtime over cudart, cuBLAS.
# Included from the top-level CMakeLists.txt when CTORCH_BUILD_CUDA is ON, after the ctorch target.
#
# CTORCH_CUDA_ARCHITECTURES: the GPUs the kernels are built for, in CMAKE_CUDA_ARCHITECTURES
# syntax, e.g. -DCTORCH_CUDA_ARCHITECTURES="75;80;86;90". CUDA 13 supports 75 (Turing) and newer.
# Each architecture adds to the nvcc time of every .cu file.
set(CTORCH_CUDA_ARCHITECTURES "80" CACHE STRING
    "CUDA architectures of the kernels (CMAKE_CUDA_ARCHITECTURES syntax), e.g. 75;80;86;90")

if(NOT CMAKE_CUDA_COMPILER)
  if(NOT CTORCH_NVCC)
    message(FATAL_ERROR "CTORCH_BUILD_CUDA=ON but nvcc was not found in /usr/local/cuda/bin; "
                        "set CMAKE_CUDA_COMPILER or configure with -DCTORCH_BUILD_CUDA=OFF")
  endif()
  set(CMAKE_CUDA_COMPILER ${CTORCH_NVCC})
endif()
set(CMAKE_CUDA_ARCHITECTURES ${CTORCH_CUDA_ARCHITECTURES})
# cudart is linked once, explicitly and shared (CUDA::cudart), never CMake's implicit cudart_static.
set(CMAKE_CUDA_RUNTIME_LIBRARY None)
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

# Kernels: an object library, so that nvcc gets its own flags (not the library's g++ warnings or
# the sanitizer flags, which nvcc does not accept) and its objects join libctorch.
file(GLOB CTORCH_CUDA_KERNEL_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/backends/cuda/*.cu)
file(GLOB CTORCH_CUDA_HOST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/backends/cuda/*.cpp)
add_library(ctorch_cuda_kernels OBJECT ${CTORCH_CUDA_KERNEL_SOURCES})
set_property(TARGET ctorch_cuda_kernels PROPERTY COMPILE_OPTIONS "")
# CUDA C++20 (nvcc 13 with g++ 12 compiles it). CMake learned nvcc's C++20 flag in 3.26; teach
# older CMake the flag.
if(CMAKE_VERSION VERSION_LESS 3.26 AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0
   AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()
set_target_properties(ctorch_cuda_kernels PROPERTIES CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF)
set_target_properties(ctorch_cuda_kernels PROPERTIES
  CUDA_ARCHITECTURES "${CTORCH_CUDA_ARCHITECTURES}"
  POSITION_INDEPENDENT_CODE ON
  CUDA_VISIBILITY_PRESET default)
target_include_directories(ctorch_cuda_kernels PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/src)
target_link_libraries(ctorch_cuda_kernels PRIVATE CUDA::cudart)
# --expt-relaxed-constexpr: the shared CTORCH_HD functors call constexpr std:: functions such as
# std::numeric_limits<float>::infinity() (kernels/reduce_functors.h), as PyTorch's kernels do.
# 186: "pointless comparison of unsigned integer with zero" from generic functors on unsigned types.
target_compile_options(ctorch_cuda_kernels PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr --diag-suppress=186 -Xcompiler=-Wall,-Wno-unused-parameter,-Werror=switch>)

target_sources(ctorch PRIVATE ${CTORCH_CUDA_HOST_SOURCES} $<TARGET_OBJECTS:ctorch_cuda_kernels>)
# torch.distributed's NCCL backend (src/distributed/nccl), when the toolkit has NCCL (CUDA 13's does).
find_library(CTORCH_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
find_path(CTORCH_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
if(CTORCH_NCCL_LIBRARY AND CTORCH_NCCL_INCLUDE)
  file(GLOB CTORCH_NCCL_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/distributed/nccl/*.cpp)
  target_sources(ctorch PRIVATE ${CTORCH_NCCL_SOURCES})
  target_include_directories(ctorch PRIVATE ${CTORCH_NCCL_INCLUDE})
  target_link_libraries(ctorch PRIVATE ${CTORCH_NCCL_LIBRARY})
else()
  message(STATUS "ctorch: NCCL not found next to the CUDA toolkit; torch.distributed has no nccl backend")
endif()
# cuBLAS and NVRTC are opened on first use (backends/cuda/lazy_library.h), not linked: their static
# initialization cost every process ~100 ms at start, GPU or not. Their headers are still needed.
target_link_libraries(ctorch PRIVATE CUDA::cudart)
target_include_directories(ctorch PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_compile_definitions(ctorch PRIVATE CTORCH_CUDA_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}")
# ctorch was created before enable_language(CUDA), so CMAKE_CUDA_ARCHITECTURES did not initialize it.
set_target_properties(ctorch PROPERTIES CUDA_RUNTIME_LIBRARY None CUDA_ARCHITECTURES "${CTORCH_CUDA_ARCHITECTURES}")
set_property(TARGET ctorch APPEND PROPERTY INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")

# torch.cuda.get_arch_list(): the architectures as "75;80" (suffixes such as -real dropped).
set(_ctorch_arch_list "")
foreach(_arch IN LISTS CTORCH_CUDA_ARCHITECTURES)
  string(REGEX REPLACE "-(real|virtual)$" "" _arch "${_arch}")
  list(APPEND _ctorch_arch_list "${_arch}")
endforeach()
string(REPLACE ";" "\\;" _ctorch_arch_list "${_ctorch_arch_list}")
set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/src/cuda/device.cpp APPEND PROPERTY
  COMPILE_DEFINITIONS "CTORCH_CUDA_ARCH_LIST=\"${_ctorch_arch_list}\"")

# Tells tests (tests/device/cuda_backend_test.cpp) that the CUDA backend is part of this build.
add_compile_definitions(CTORCH_HAS_CUDA_BACKEND=1)
