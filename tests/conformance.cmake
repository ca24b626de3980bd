# SPDX-License-Identifier: MIT
# Conformance tests: generated cases, Debian's ONNX test data, invalid models
# and the README example. Included from tests/CMakeLists.txt, which sets
# ONYX_PYTHON and ONYX_TESTDATA_DIR. See tests/README.md.

# The generator needs numpy and onnx; Debian's /usr/bin/python3 has both
# (python3-numpy, python3-onnx).
if(NOT ONYX_PYTHON)
  message(FATAL_ERROR "onyx tests: /usr/bin/python3 was not found. The conformance cases are "
    "generated with Python 3, numpy and onnx (Debian: apt-get install python3-numpy "
    "python3-onnx); or configure with -DONYX_BUILD_TESTS=OFF.")
endif()
execute_process(
  COMMAND ${ONYX_PYTHON} -c "import numpy, onnx; print(numpy.__version__, onnx.__version__)"
  RESULT_VARIABLE ONYX_PYTHON_RC
  OUTPUT_VARIABLE ONYX_PYTHON_VERSIONS
  ERROR_VARIABLE ONYX_PYTHON_ERROR
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT ONYX_PYTHON_RC EQUAL 0)
  message(FATAL_ERROR "onyx tests: ${ONYX_PYTHON} cannot import numpy and onnx, which "
    "generate the conformance cases (Debian: apt-get install python3-numpy python3-onnx); "
    "or configure with -DONYX_BUILD_TESTS=OFF.\n${ONYX_PYTHON_ERROR}")
endif()
message(STATUS "onyx tests: generating cases with ${ONYX_PYTHON} (numpy, onnx: "
  "${ONYX_PYTHON_VERSIONS})")

# ---- Generated cases (part of ALL) ------------------------------------------
set(ONYX_GENERATED_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated)
# The op registry as text: the generator takes the version tables from it.
add_executable(list_ops ${CMAKE_CURRENT_SOURCE_DIR}/gen/list_ops.c)
target_include_directories(list_ops PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_options(list_ops PRIVATE ${ONYX_WARNINGS})
target_link_libraries(list_ops PRIVATE onyx_static)
# Rewritten only when it changes, so that a library change that leaves the
# tables alone does not regenerate every case.
set(ONYX_OPS_LIST ${CMAKE_CURRENT_BINARY_DIR}/ops.txt)
add_custom_target(onyx_ops_list ALL
  COMMAND list_ops ${ONYX_OPS_LIST}.new
  COMMAND ${CMAKE_COMMAND} -E copy_if_different ${ONYX_OPS_LIST}.new ${ONYX_OPS_LIST}
  BYPRODUCTS ${ONYX_OPS_LIST}
  COMMENT "Listing the op registry"
  VERBATIM)
file(GLOB ONYX_GENERATOR_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/gen/*.py)
add_custom_command(
  OUTPUT ${ONYX_GENERATED_DIR}/stamp
  COMMAND ${ONYX_PYTHON} -B ${CMAKE_CURRENT_SOURCE_DIR}/gen/gen_cases.py ${ONYX_GENERATED_DIR}
    ${ONYX_OPS_LIST}
  COMMAND ${CMAKE_COMMAND} -E touch ${ONYX_GENERATED_DIR}/stamp
  # The version tables come from the library: a change to them regenerates.
  DEPENDS ${ONYX_GENERATOR_SOURCES} ${ONYX_OPS_LIST}
  COMMENT "Generating conformance cases in ${ONYX_GENERATED_DIR}"
  VERBATIM)
add_custom_target(onyx_generated_cases ALL DEPENDS ${ONYX_GENERATED_DIR}/stamp)
add_dependencies(onyx_generated_cases onyx_ops_list)

# ---- The invalid-model checker ----------------------------------------------
add_executable(check_bad_models ${CMAKE_CURRENT_SOURCE_DIR}/check_bad_models.c)
target_compile_options(check_bad_models PRIVATE ${ONYX_WARNINGS})
target_compile_definitions(check_bad_models PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(check_bad_models PRIVATE onyx_static)

# A command whose exit status and output must both be right: written into the
# build folder and run as
#   cmake -DEXPECT_RC=N -DEXPECT_REGEX=RE -DCOMMAND=PROGRAM|ARG|... -P FILE
set(ONYX_EXPECT_SCRIPT ${CMAKE_CURRENT_BINARY_DIR}/expect_command.cmake)
file(WRITE ${ONYX_EXPECT_SCRIPT} [=[
string(REPLACE "|" ";" command "${COMMAND}")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${rc}" STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}")
endif()
if(NOT "${out}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "the output does not match: ${EXPECT_REGEX}")
endif()
]=])

# ---- CTest tests ----------------------------------------------------------
foreach(group spec ops graphs)
  add_test(NAME onyx.conformance.${group}
    COMMAND $<TARGET_FILE:onyx> test ${ONYX_GENERATED_DIR}/${group})
  set_tests_properties(onyx.conformance.${group} PROPERTIES LABELS conformance)
endforeach()

# The comparison the conformance tests rely on: `onyx test` must accept any
# NaN for a NaN, and must reject each wrong expectation under runner/fail
# (+0 for -0, a number for NaN and back, another type, shape or rank, the
# last element, high int64 bits, one low bit of bfloat16 / float16, a
# second data set, a second output). The names match RUNNER_FAIL in
# tests/gen/gen_cases.py.
add_test(NAME onyx.conformance.runner.pass
  COMMAND $<TARGET_FILE:onyx> test ${ONYX_GENERATED_DIR}/runner/pass)
set_tests_properties(onyx.conformance.runner.pass PROPERTIES LABELS "conformance;runner")
foreach(name neg_zero_for_pos_zero number_for_nan nan_for_number wrong_dtype wrong_shape
    wrong_rank last_element int64_high_bits bfloat16_low_bit float16_low_bit second_dataset
    second_output)
  add_test(NAME onyx.conformance.runner.fail.${name}
    COMMAND ${CMAKE_COMMAND} -DEXPECT_RC=1 "-DEXPECT_REGEX=0 passed, 1 failed"
      "-DCOMMAND=$<TARGET_FILE:onyx>|test|${ONYX_GENERATED_DIR}/runner/fail/${name}"
      -P ${ONYX_EXPECT_SCRIPT})
  set_tests_properties(onyx.conformance.runner.fail.${name} PROPERTIES LABELS "conformance;runner")
endforeach()

# The kernels at every ISA level (ONYX_ISA lowers the detected level; a level
# the CPU lacks runs the best it has).
if(ONYX_HAVE_X86)
  foreach(isa scalar sse41 avx2 avx512)
    foreach(group ops graphs)
      add_test(NAME onyx.conformance.${group}.isa_${isa}
        COMMAND $<TARGET_FILE:onyx> test ${ONYX_GENERATED_DIR}/${group})
      set_tests_properties(onyx.conformance.${group}.isa_${isa} PROPERTIES
        ENVIRONMENT ONYX_ISA=${isa} LABELS "conformance;isa")
    endforeach()
  endforeach()
endif()

# Thread counts: the large graph cases split work across workers.
foreach(threads 1 3 8)
  add_test(NAME onyx.conformance.graphs.threads_${threads}
    COMMAND $<TARGET_FILE:onyx> test --threads ${threads} ${ONYX_GENERATED_DIR}/graphs)
  set_tests_properties(onyx.conformance.graphs.threads_${threads} PROPERTIES
    LABELS "conformance;threads")
endforeach()

# Debian's libonnx-testdata cases for these operators, listed one by one so
# that a missing folder fails the test instead of shrinking it.
set(ONYX_DEBIAN_CASES
  node/test_ceil
  node/test_ceil_example
  node/test_floor
  node/test_floor_example
  node/test_sign
  node/test_clip
  node/test_clip_default_inbounds
  node/test_clip_default_int8_inbounds
  node/test_clip_default_int8_max
  node/test_clip_default_int8_min
  node/test_clip_default_max
  node/test_clip_default_min
  node/test_clip_example
  node/test_clip_inbounds
  node/test_clip_outbounds
  node/test_clip_splitbounds
  simple/test_sign_model
  pytorch-operator/test_operator_clip)
list(TRANSFORM ONYX_DEBIAN_CASES PREPEND ${ONYX_TESTDATA_DIR}/)
if(NOT IS_DIRECTORY ${ONYX_TESTDATA_DIR})
  message(WARNING "onyx tests: ${ONYX_TESTDATA_DIR} does not exist, so conformance.debian "
    "will fail (Debian: apt-get install libonnx-testdata, or set ONYX_TESTDATA_DIR)")
endif()
add_test(NAME onyx.conformance.debian COMMAND $<TARGET_FILE:onyx> test ${ONYX_DEBIAN_CASES})
set_tests_properties(onyx.conformance.debian PROPERTIES LABELS conformance)

add_test(NAME onyx.bad_models COMMAND check_bad_models ${ONYX_GENERATED_DIR}/bad)
set_tests_properties(onyx.bad_models PROPERTIES LABELS conformance)

# The same under valgrind: every error path must free what it allocated.
find_program(ONYX_VALGRIND valgrind)
if(ONYX_VALGRIND)
  set(ONYX_MEMCHECK ${ONYX_VALGRIND} --quiet --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite,indirect,possible
    --show-leak-kinds=definite,indirect,possible)
  add_test(NAME onyx.bad_models.memcheck
    COMMAND ${ONYX_MEMCHECK} $<TARGET_FILE:check_bad_models> ${ONYX_GENERATED_DIR}/bad)
  foreach(group spec ops graphs)
    add_test(NAME onyx.conformance.${group}.memcheck
      COMMAND ${ONYX_MEMCHECK} $<TARGET_FILE:onyx> test --threads 3
        ${ONYX_GENERATED_DIR}/${group})
  endforeach()
  # Data races are ThreadSanitizer's business (scripts/hardening.sh): the
  # pool publishes jobs through C11 atomics, which helgrind does not model,
  # so it would report the pool's correct hand-offs as races.
  # These report memory errors, leaks and races only (valgrind's "==PID=="
  # lines); wrong results are the plain tests' business.
  set_tests_properties(onyx.bad_models.memcheck onyx.conformance.spec.memcheck onyx.conformance.ops.memcheck
    onyx.conformance.graphs.memcheck PROPERTIES
    LABELS memcheck TIMEOUT 900
    PASS_REGULAR_EXPRESSION "[0-9]+ passed, [0-9]+ failed"
    FAIL_REGULAR_EXPRESSION "==[0-9]+==")
endif()

# The README's example command, run from the source tree as written there.
# It must exit 0 and print each output as "NAME: TYPE [SHAPE]" and its values
# (spacing free).
set(ONYX_WS "[ \t\r\n]+")
string(CONCAT ONYX_EXAMPLE_OUTPUT
  "clipped: float \\[8\\]${ONYX_WS}\\[-2, +-1, +-0, +0, +1, +2, +2, +2\\]${ONYX_WS}"
  "sign: float \\[8\\]${ONYX_WS}\\[-1, +-1, +0, +0, +1, +1, +1, +1\\]${ONYX_WS}"
  "floor: float \\[8\\]${ONYX_WS}\\[-4, +-2, +-1, +0, +0, +1, +2, +5\\]")
add_test(NAME onyx.example.readme
  COMMAND ${CMAKE_COMMAND} -DEXPECT_RC=0 "-DEXPECT_REGEX=${ONYX_EXAMPLE_OUTPUT}"
    "-DCOMMAND=$<TARGET_FILE:onyx>|run|examples/chain.onnx|--input|x=examples/chain_input_x.pb"
    -P ${ONYX_EXPECT_SCRIPT}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(onyx.example.readme PROPERTIES LABELS example)
