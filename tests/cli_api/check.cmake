# SPDX-License-Identifier: MIT
# cli.public_api: configures and builds tests/cli_api/ (the onyx command's
# sources, include/ alone on the include path, the built library file),
# then runs the program it made where it can.
#
#   cmake -DSOURCE_DIR=... -DBINARY_DIR=... -DSOURCES=a.c|b.c -DDEFINITIONS=...
#         -DLIBRARY=libonyx.a -DCOMPILER=cc [-DC_FLAGS=...] [-DTOOLCHAIN=file] [-DRUN=1]
#         -P check.cmake
# C_FLAGS are the parent build's CMAKE_C_FLAGS: a library built with
# sanitizers or coverage links only into a program built the same way.
cmake_minimum_required(VERSION 3.18)
file(REMOVE_RECURSE "${BINARY_DIR}")
set(args -S "${SOURCE_DIR}/tests/cli_api" -B "${BINARY_DIR}" "-DCMAKE_C_COMPILER=${COMPILER}"
  "-DONYX_CLI_SOURCES=${SOURCES}" "-DONYX_CLI_DEFINITIONS=${DEFINITIONS}"
  "-DONYX_ROOT=${SOURCE_DIR}" "-DONYX_INCLUDE_DIR=${SOURCE_DIR}/include" "-DONYX_LIBRARY=${LIBRARY}"
  "-DCMAKE_C_FLAGS=${C_FLAGS}")
if(TOOLCHAIN)
  list(APPEND args "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${args} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring tests/cli_api failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BINARY_DIR}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the onyx command does not build from include/onyx.h alone (see above)")
endif()
if(RUN)
  execute_process(COMMAND "${BINARY_DIR}/onyx_public" --version RESULT_VARIABLE rc
    OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^onyx [0-9]+\\.[0-9]+\\.[0-9]+ ")
    message(FATAL_ERROR "the command built from the public API: --version gave ${rc}: ${out}")
  endif()
  message("onyx_public --version: ${out}")
endif()
