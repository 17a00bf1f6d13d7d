# find_package(Torch) for libtorch projects: installs <prefix>/lib/cmake/Torch/TorchConfig.cmake
# (TORCH_LIBRARIES -> ctorch) and an include directory in which the headers libtorch code includes
# (<torch/torch.h>, <ATen/ATen.h>, <c10/cuda/CUDAGuard.h>, ...) are ctorch's <ctorch/torch.h>.
# TorchScript's <torch/script.h> and <torch/extension.h> stop the build with a message saying why.
set(CTORCH_TORCH_HEADERS
  torch/torch.h torch/all.h torch/nn.h torch/optim.h torch/data.h torch/serialize.h torch/cuda.h torch/types.h
  torch/utils.h torch/csrc/api/include/torch/torch.h torch/expanding_array.h torch/nn/module.h torch/nn/pimpl.h
  torch/nn/modules/linear.h torch/nn/modules/conv.h torch/nn/options/activation.h torch/nn/functional/activation.h
  torch/nn/parallel/data_parallel.h torch/optim/sgd.h
  ATen/ATen.h ATen/Functions.h ATen/Tensor.h ATen/Context.h ATen/cuda/CUDAContext.h ATen/cuda/CUDAEvent.h
  ATen/cuda/CUDAGraph.h ATen/cuda/CUDAGeneratorImpl.h
  c10/core/Device.h c10/core/DeviceType.h c10/core/ScalarType.h c10/core/TensorOptions.h c10/cuda/CUDAGuard.h
  c10/cuda/CUDAStream.h c10/cuda/CUDAFunctions.h c10/cuda/CUDACachingAllocator.h c10/util/Exception.h
  c10/util/ArrayRef.h c10/util/Optional.h c10/util/irange.h
  torch/optim/optimizer.h torch/optim/adam.h torch/optim/adamw.h torch/optim/adagrad.h torch/optim/rmsprop.h
  torch/optim/lbfgs.h torch/optim/serialize.h torch/optim/schedulers/lr_scheduler.h torch/optim/schedulers/step_lr.h
  torch/serialize/archive.h torch/serialize/input-archive.h torch/serialize/output-archive.h
  c10/util/tempfile.h c10/util/flat_hash_map.h)
set(_compat ${CMAKE_CURRENT_BINARY_DIR}/torch_compat)
foreach(h IN LISTS CTORCH_TORCH_HEADERS)
  file(CONFIGURE OUTPUT ${_compat}/${h} CONTENT
    "// libtorch's <${h}> for code built with find_package(Torch) against ctorch.\n#pragma once\n#include <ctorch/torch.h>\n")
endforeach()
install(DIRECTORY ${_compat}/ cmake/torch_compat/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ctorch/compat)

configure_package_config_file(cmake/TorchConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/TorchConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Torch PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/TorchConfigVersion.cmake VERSION 1.13.1
  COMPATIBILITY SameMajorVersion)  # the libtorch API ctorch spells
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/TorchConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/TorchConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Torch)
