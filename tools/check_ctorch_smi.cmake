# ctest driver for ctorch-smi: -DSMI=<exe> -DVERSION=<ctorch version> [-DMODE=none]
# default: with CTORCH_EMULATED_CUDA=2 in the environment, one table with two GPU rows, then a
#          loop of two tables (-l 0.1 --count 2);
# none:    without any device, exit code 9 and nvidia-smi's kind of message.
if(MODE STREQUAL "none")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=CTORCH_EMULATED_CUDA CUDA_VISIBLE_DEVICES= ${SMI}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 9)
    message(FATAL_ERROR "expected exit code 9 without devices, got '${rc}':\n${out}${err}")
  endif()
  if(NOT out MATCHES "ctorch-smi has failed because it found no CUDA device")
    message(FATAL_ERROR "unexpected message without devices:\n${out}")
  endif()
  return()
endif()

execute_process(COMMAND ${SMI} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ctorch-smi failed (${rc}):\n${out}${err}")
endif()
string(REGEX MATCHALL "\n\\| N/A +[0-9]+C +P0 +[0-9]+W / +[0-9]+W \\| +[0-9]+MiB / +[0-9]+MiB \\| +[0-9]+% +Default \\|" rows "${out}")
list(LENGTH rows n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "expected 2 GPU rows, found ${n}:\n${out}")
endif()
if(NOT out MATCHES "CTORCH-SMI ${VERSION} +Driver Version: ctorch ${VERSION} \\(emulated\\) +CUDA Version: N/A")
  message(FATAL_ERROR "unexpected banner:\n${out}")
endif()
if(NOT out MATCHES "\\|   0  ctorch Virtual [^\n]* Emu  \\| 0000" OR NOT out MATCHES "\\|   1  ctorch Virtual ")
  message(FATAL_ERROR "expected the rows of GPU 0 and GPU 1:\n${out}")
endif()

execute_process(COMMAND ${SMI} -l 0.1 --count 2 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCHALL "CTORCH-SMI" banners "${out}")
list(LENGTH banners n)
if(NOT rc EQUAL 0 OR NOT n EQUAL 2)
  message(FATAL_ERROR "expected 2 tables from -l 0.1 --count 2, got ${n} (exit ${rc}):\n${out}${err}")
endif()
