# SPDX-License-Identifier: MIT
# A buildconfig.* test: builds the library of one build configuration and
# tests/buildconfig/check_config.c in BINARY_DIR (the library and that
# program only, two jobs), then runs it on the conformance case folders.
#
#   cmake -DSOURCE_DIR=... -DBINARY_DIR=... [-DCONFIG=file.config] -DKEEP=...
#         -DCASES=dir|dir -DCOMPILER=cc [-DC_FLAGS=...] [-DNO_FILES=ON] -P check.cmake
# CONFIG empty is the full build. KEEP is what check_config expects the
# build to keep (check_config.c), written independently of CONFIG. With
# -DONYX=onyx -DMODELS=a.onnx|b.onnx, CONFIG is what `onyx info
# --build-config` writes for those models (BINARY_DIR/models.config).
# NO_FILES: the configuration leaves files out (check_config --no-files).
cmake_minimum_required(VERSION 3.18)
if(MODELS)
  string(REPLACE "|" ";" models "${MODELS}")
  set(CONFIG "${BINARY_DIR}/models.config")
  file(MAKE_DIRECTORY "${BINARY_DIR}")
  execute_process(COMMAND "${ONYX}" info --build-config ${models} RESULT_VARIABLE rc
    OUTPUT_FILE "${CONFIG}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "onyx info --build-config: exit status ${rc}")
  endif()
  file(READ "${CONFIG}" text)
  message("onyx info --build-config wrote ${CONFIG}:\n${text}")
endif()
set(args -S "${SOURCE_DIR}/tests/buildconfig" -B "${BINARY_DIR}" "-DCMAKE_C_COMPILER=${COMPILER}"
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=${C_FLAGS}" "-DONYX_ROOT=${SOURCE_DIR}"
  "-DONYX_BUILD_CONFIG=${CONFIG}" -DONYX_WERROR=ON)
execute_process(COMMAND ${CMAKE_COMMAND} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring ${CONFIG} failed:\n${out}")
endif()
string(REGEX MATCH "onyx: reduced build from[^\n]*" said "${out}")
message("${said}")
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BINARY_DIR}" --target check_config -j2
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building ${CONFIG} failed:\n${out}")
endif()
file(SIZE "${BINARY_DIR}/onyx/libonyx.a" bytes)
message("libonyx.a: ${bytes} bytes")
string(REPLACE "|" ";" cases "${CASES}")
set(flags)
if(NO_FILES)
  set(flags --no-files) # the configuration leaves files out
endif()
execute_process(COMMAND "${BINARY_DIR}/check_config" ${flags} "${KEEP}" ${cases}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_config ${KEEP}: exit status ${rc}")
endif()
