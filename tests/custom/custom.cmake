# SPDX-License-Identifier: MIT
# Registered operators (docs/custom-ops.md): the test op library, the
# official backend-test folders of its ops run through `onyx test --ops`,
# the unit test of the API, and the example.

# libtestops.so: Abs, Neg, Relu, Add, Mul, Identity, Cast float<->float16, Sum
# (any number of inputs of one shape), Split (equal parts, one per output).
add_library(testops MODULE ${CMAKE_CURRENT_SOURCE_DIR}/custom/testops.c)
target_include_directories(testops PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
target_compile_options(testops PRIVATE ${ONYX_WARNINGS})
# The library resolves onyx_* from the program that loads it (the onyx
# command, the Python package's libonyx.so), as op libraries do.
if(APPLE)
  target_link_options(testops PRIVATE -undefined dynamic_lookup)
endif()

# Every folder of Debian's libonnx-testdata for these ops whose model uses
# tensors only (test_identity_opt and _sequence use optional and sequence
# types, which onyx does not run; test_split_variable_parts_* and
# test_split_zero_size_splits give a 'split' input, which this Split does
# not take). Listed by name, so that a missing
# folder fails the test instead of shrinking it; --strict counts a skip
# as a failure.
set(ONYX_CUSTOM_CASES
  test_abs test_neg test_neg_example test_relu
  test_add test_add_bcast test_add_uint8
  test_mul test_mul_bcast test_mul_example test_mul_uint8
  test_identity test_cast_FLOAT_to_FLOAT16 test_cast_FLOAT16_to_FLOAT
  test_sum_example test_sum_one_input test_sum_two_inputs
  test_split_equal_parts_1d test_split_equal_parts_2d test_split_equal_parts_default_axis)
list(LENGTH ONYX_CUSTOM_CASES ONYX_CUSTOM_COUNT)
list(TRANSFORM ONYX_CUSTOM_CASES PREPEND ${ONYX_TESTDATA_DIR}/node/)
add_test(NAME onyx.custom.backend COMMAND $<TARGET_FILE:onyx> test --strict -v --ops
  $<TARGET_FILE:testops> ${ONYX_CUSTOM_CASES})
set_tests_properties(onyx.custom.backend PROPERTIES LABELS "conformance;custom"
  PASS_REGULAR_EXPRESSION "${ONYX_CUSTOM_COUNT} passed, 0 failed, 0 skipped")
# Without the library the same folders are skipped: the ops are not onyx's.
add_test(NAME onyx.custom.backend.without_ops COMMAND $<TARGET_FILE:onyx> test ${ONYX_CUSTOM_CASES})
set_tests_properties(onyx.custom.backend.without_ops PROPERTIES LABELS custom
  PASS_REGULAR_EXPRESSION "0 passed, 0 failed, ${ONYX_CUSTOM_COUNT} skipped")

# The C API (tests/custom/test_custom.c). It exports onyx_* so that the op
# library it loads resolves them, as the onyx command does.
add_executable(test_custom ${CMAKE_CURRENT_SOURCE_DIR}/custom/test_custom.c)
target_include_directories(test_custom PRIVATE ${PROJECT_SOURCE_DIR}/src
  ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_compile_options(test_custom PRIVATE ${ONYX_WARNINGS})
target_compile_definitions(test_custom PRIVATE _POSIX_C_SOURCE=200809L
  ONYX_TESTOPS_PATH="$<TARGET_FILE:testops>")
target_link_libraries(test_custom PRIVATE onyx_static PkgConfig::CMOCKA m Threads::Threads)
set_target_properties(test_custom PROPERTIES ENABLE_EXPORTS ON)
add_dependencies(test_custom testops)
add_test(NAME onyx.custom.api COMMAND test_custom)
set_tests_properties(onyx.custom.api PROPERTIES LABELS custom)

# One engine: registered ops that broadcast, have two outputs or any
# number of inputs, mixed with onyx's Ceil, Clip, Sign and Floor under a
# symbolic batch dimension, against numpy at 1 and 3 threads
# (tests/custom/one_engine.py writes the model and numpy's results).
add_executable(test_one_engine ${CMAKE_CURRENT_SOURCE_DIR}/custom/test_one_engine.c)
target_compile_options(test_one_engine PRIVATE ${ONYX_WARNINGS})
target_link_libraries(test_one_engine PRIVATE onyx_static PkgConfig::CMOCKA)
if(ONYX_PYTHON)
  add_test(NAME onyx.custom.one_engine.data COMMAND ${ONYX_PYTHON} -B
    ${CMAKE_CURRENT_SOURCE_DIR}/custom/one_engine.py ${CMAKE_CURRENT_BINARY_DIR}/one_engine)
  set_tests_properties(onyx.custom.one_engine.data PROPERTIES FIXTURES_SETUP one_engine
    LABELS custom)
  add_test(NAME onyx.custom.one_engine COMMAND test_one_engine
    ${CMAKE_CURRENT_BINARY_DIR}/one_engine)
  set_tests_properties(onyx.custom.one_engine PROPERTIES FIXTURES_REQUIRED one_engine
    LABELS custom)
  # The same through Python, the registered ops numpy functions.
  if(TEST onyx.python.custom_ops)
    add_test(NAME onyx.custom.one_engine.py COMMAND ${ONYX_PYTHON} -B
      ${CMAKE_CURRENT_SOURCE_DIR}/custom/one_engine_py.py ${CMAKE_CURRENT_BINARY_DIR}/one_engine)
    set_tests_properties(onyx.custom.one_engine.py PROPERTIES FIXTURES_REQUIRED one_engine
      LABELS "custom;python" ENVIRONMENT "${ONYX_PYTHON_ENV}"
      PASS_REGULAR_EXPRESSION "^4 batches at 1 and 3 threads, 0 outputs differ\n$")
  endif()
  # onyx info shows the shapes known at creation through onyx's ops and
  # registered ones: N by name where the model declares it and through the
  # test library's Add and Abs, which say whose dimension each output's is
  # (onyx_op_set_output_dim_from), and none for what follows an input
  # without a shape.
  add_test(NAME onyx.custom.info COMMAND onyx info --ops $<TARGET_FILE:testops>
    ${CMAKE_CURRENT_BINARY_DIR}/one_engine/info.onnx)
  set_tests_properties(onyx.custom.info PROPERTIES FIXTURES_REQUIRED one_engine LABELS "custom;cli"
    PASS_REGULAR_EXPRESSION [=[
inputs:
  x: float \[N, 4\]
  y: float \[4\]
  u: float \(shape not declared\)
outputs:
  a: float \[N, 4\]
  z: float \[N, 4\]
  w: float \(shape not known before a run\)
values:
  a: float \[N, 4\]
  c: float \[N, 4\]
  z: float \[N, 4\]
  w: float \(shape not known before a run\)
nodes:
]=])
  # The test op library's Sum, which may write over input 0, reading one
  # value three times, and its Split's two outputs summed again.
  add_test(NAME onyx.custom.sum_repeated COMMAND onyx test --strict -v --ops $<TARGET_FILE:testops>
    ${CMAKE_CURRENT_BINARY_DIR}/one_engine/sum_repeated)
  set_tests_properties(onyx.custom.sum_repeated PROPERTIES FIXTURES_REQUIRED one_engine
    LABELS custom PASS_REGULAR_EXPRESSION "1 passed, 0 failed, 0 skipped")
  add_test(NAME onyx.custom.info.json COMMAND onyx info --json --ops $<TARGET_FILE:testops>
    ${CMAKE_CURRENT_BINARY_DIR}/one_engine/info.onnx)
  set_tests_properties(onyx.custom.info.json PROPERTIES FIXTURES_REQUIRED one_engine
    LABELS "custom;cli" PASS_REGULAR_EXPRESSION [=["outputs": \[{"name": "a", "type": "float", "shape": \["N", 4\]}, {"name": "z", "type": "float", "shape": \["N", 4\]}, {"name": "w", "type": "float", "shape": null}\], "values": \[{"name": "a", "type": "float", "shape": \["N", 4\]}, {"name": "c", "type": "float", "shape": \["N", 4\]}, {"name": "z", "type": "float", "shape": \["N", 4\]}, {"name": "w", "type": "float", "shape": null}\], "nodes"]=])
else()
  add_test(NAME onyx.custom.one_engine COMMAND ${CMAKE_COMMAND} -E echo
    "SKIP custom.one_engine: no /usr/bin/python3 to compute numpy's results")
  set_tests_properties(onyx.custom.one_engine PROPERTIES SKIP_REGULAR_EXPRESSION "^SKIP"
    LABELS custom)
endif()

# examples/custom_op.c, built and run from the repository root.
add_executable(example_custom_op ${PROJECT_SOURCE_DIR}/examples/custom_op.c)
target_compile_options(example_custom_op PRIVATE ${ONYX_WARNINGS})
target_link_libraries(example_custom_op PRIVATE onyx_static)
add_test(NAME onyx.example.custom_op COMMAND example_custom_op WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(onyx.example.custom_op PROPERTIES LABELS "custom;example" PASS_REGULAR_EXPRESSION
  "^-0.25 -0.25 -0.1 -0.05 0 0.5 3.5 6\n-1 -1 -1 -1 0 0 3 6\n$")

# tests/python/test_custom_ops.py also loads the test op library.
if(TEST onyx.python.custom_ops)
  set_tests_properties(onyx.python.custom_ops PROPERTIES LABELS "python;custom"
    ENVIRONMENT "${ONYX_PYTHON_ENV};ONYX_TESTOPS=$<TARGET_FILE:testops>")
endif()

# The bad-model suite with the test op library registered: nodes its checks
# and functions refuse (tests/custom/bad_cases.py writes the cases).
set_target_properties(check_bad_models PROPERTIES ENABLE_EXPORTS ON)
if(ONYX_PYTHON)
  add_test(NAME onyx.custom.bad_models.cases COMMAND ${ONYX_PYTHON} -B
    ${CMAKE_CURRENT_SOURCE_DIR}/custom/bad_cases.py ${CMAKE_CURRENT_BINARY_DIR}/bad_custom)
  set_tests_properties(onyx.custom.bad_models.cases PROPERTIES FIXTURES_SETUP custom_bad LABELS custom)
  add_test(NAME onyx.custom.bad_models COMMAND check_bad_models --ops $<TARGET_FILE:testops>
    ${CMAKE_CURRENT_BINARY_DIR}/bad_custom)
  set_tests_properties(onyx.custom.bad_models PROPERTIES FIXTURES_REQUIRED custom_bad
    LABELS "custom;conformance")
endif()

# examples/custom_op.py: the same with LeakyRelu as a numpy function.
if(ONYX_PYTHON)
  add_test(NAME onyx.example.custom_op.py COMMAND ${ONYX_PYTHON} -B examples/custom_op.py
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(onyx.example.custom_op.py PROPERTIES LABELS "custom;example;python"
    ENVIRONMENT "${ONYX_PYTHON_ENV}" PASS_REGULAR_EXPRESSION
    "^-0.25 -0.25 -0.1 -0.05 0 0.5 3.5 6\n-1 -1 -1 -1 0 0 3 6\n$")
endif()

# The API test and the bad custom models under valgrind (when installed):
# no leak or invalid access on the paths of failing user functions.
if(ONYX_MEMCHECK)
  add_test(NAME onyx.custom.api.memcheck COMMAND ${ONYX_MEMCHECK} $<TARGET_FILE:test_custom>)
  set_tests_properties(onyx.custom.api.memcheck PROPERTIES LABELS "custom;memcheck")
  if(ONYX_PYTHON)
    add_test(NAME onyx.custom.bad_models.memcheck COMMAND ${ONYX_MEMCHECK}
      $<TARGET_FILE:check_bad_models> --ops $<TARGET_FILE:testops> ${CMAKE_CURRENT_BINARY_DIR}/bad_custom)
    set_tests_properties(onyx.custom.bad_models.memcheck PROPERTIES FIXTURES_REQUIRED custom_bad
      LABELS "custom;memcheck")
  endif()
endif()
