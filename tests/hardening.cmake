# SPDX-License-Identifier: MIT
# Hardening tests: the fuzz targets' replay drivers (built in every build),
# the libFuzzer targets themselves (-DONYX_FUZZ=ON, clang), and valgrind
# runs of the unit tests, Debian's conformance cases and the replays.
# Included from tests/CMakeLists.txt after conformance.cmake. See
# scripts/hardening.sh for the sanitizer, fuzzing and ThreadSanitizer runs
# and fuzz/README.md for the targets.

option(ONYX_MEMCHECK_SLOW
  "Also run the slow unit tests under valgrind (scripts/hardening.sh turns this on)" OFF)
option(ONYX_FUZZ "Build the libFuzzer targets fuzz_<target> (clang only; see scripts/hardening.sh)"
  OFF)
if(ONYX_FUZZ AND NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "onyx: -DONYX_FUZZ=ON needs clang (CC=clang) for -fsanitize=fuzzer")
endif()

# model: ONNX model bytes; tensor: TensorProto bytes; npy: .npy files, read
# by the onyx command's cli/npy.c.
set(ONYX_FUZZ_TARGETS model tensor)
# fuzz_model registers the test op library's element-wise ops.
set(ONYX_FUZZ_EXTRA_model ${CMAKE_CURRENT_SOURCE_DIR}/custom/testops.c)
set(ONYX_FUZZ_EXTRA_tensor)
if(EXISTS ${PROJECT_SOURCE_DIR}/cli/npy.c AND EXISTS ${PROJECT_SOURCE_DIR}/cli/npy.h)
  list(APPEND ONYX_FUZZ_TARGETS npy)
  set(ONYX_FUZZ_EXTRA_npy ${PROJECT_SOURCE_DIR}/cli/npy.c ${ONYX_CLI_SYS})
endif()

function(onyx_fuzz_executable name target)
  add_executable(${name} ${PROJECT_SOURCE_DIR}/fuzz/fuzz_${target}.c ${ONYX_FUZZ_EXTRA_${target}}
    ${ARGN})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/fuzz ${PROJECT_SOURCE_DIR}/cli
    ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(${name} PRIVATE ${ONYX_WARNINGS})
  target_compile_definitions(${name} PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(${name} PRIVATE onyx_static)
endfunction()

foreach(target ${ONYX_FUZZ_TARGETS})
  # The replay driver: a main() that feeds files to the same
  # LLVMFuzzerTestOneInput. Every input that once broke onyx is a file in
  # tests/regress/<target>/ and is replayed by every build.
  onyx_fuzz_executable(fuzz_${target}_replay ${target} ${PROJECT_SOURCE_DIR}/fuzz/replay.c)
  add_test(NAME onyx.fuzz.replay.${target}
    COMMAND fuzz_${target}_replay ${CMAKE_CURRENT_SOURCE_DIR}/regress/${target})
  set_tests_properties(onyx.fuzz.replay.${target} PROPERTIES LABELS fuzz)
  if(ONYX_FUZZ)
    onyx_fuzz_executable(fuzz_${target} ${target})
    target_compile_options(fuzz_${target} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_${target} PRIVATE -fsanitize=fuzzer)
  endif()
endforeach()

# The structure-aware mutator (fuzz/model_mutator.c): fuzz_model_graph is
# fuzz_model with it, so that libFuzzer edits models as graphs rather than
# bytes. fuzz_model_mutator_check runs it without libFuzzer in every build:
# chains of mutants of each file, each through fuzz_model's checks
# (fuzz/mutator_check.c).
set(ONYX_FUZZ_MUTATOR ${PROJECT_SOURCE_DIR}/fuzz/model_mutator.c)
add_library(fuzz_model_entry OBJECT ${PROJECT_SOURCE_DIR}/fuzz/fuzz_model.c)
target_include_directories(fuzz_model_entry PRIVATE ${PROJECT_SOURCE_DIR}/fuzz
  ${PROJECT_SOURCE_DIR}/include)
target_compile_options(fuzz_model_entry PRIVATE ${ONYX_WARNINGS})
target_compile_definitions(fuzz_model_entry PRIVATE LLVMFuzzerTestOneInput=fuzz_model_one_input)
add_executable(fuzz_model_mutator_check ${PROJECT_SOURCE_DIR}/fuzz/mutator_check.c
  ${PROJECT_SOURCE_DIR}/fuzz/replay.c ${ONYX_FUZZ_MUTATOR} $<TARGET_OBJECTS:fuzz_model_entry>
  ${ONYX_FUZZ_EXTRA_model})
target_include_directories(fuzz_model_mutator_check PRIVATE ${PROJECT_SOURCE_DIR}/fuzz
  ${PROJECT_SOURCE_DIR}/src)
target_compile_options(fuzz_model_mutator_check PRIVATE ${ONYX_WARNINGS})
target_compile_definitions(fuzz_model_mutator_check PRIVATE _POSIX_C_SOURCE=200809L
  REPLAY_FINISH=replay_finish)
target_link_libraries(fuzz_model_mutator_check PRIVATE onyx_static)
set(ONYX_FUZZ_MUTATOR_INPUTS ${PROJECT_SOURCE_DIR}/examples ${CMAKE_CURRENT_SOURCE_DIR}/regress/model
  ${ONYX_GENERATED_DIR}/graphs ${ONYX_GENERATED_DIR}/spec)
add_test(NAME onyx.fuzz.mutator.model
  COMMAND fuzz_model_mutator_check --suffix .onnx ${ONYX_FUZZ_MUTATOR_INPUTS})
set_tests_properties(onyx.fuzz.mutator.model PROPERTIES LABELS fuzz)
if(ONYX_FUZZ)
  onyx_fuzz_executable(fuzz_model_graph model ${ONYX_FUZZ_MUTATOR})
  target_compile_options(fuzz_model_graph PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_model_graph PRIVATE -fsanitize=fuzzer)
endif()

# The seed corpora through the same checks: every generated model and
# tensor, Debian's cases for these operators, the bundled example.
set(ONYX_FUZZ_SEED_DIRS ${ONYX_GENERATED_DIR} ${PROJECT_SOURCE_DIR}/examples)
foreach(dir ${ONYX_DEBIAN_CASES})
  if(IS_DIRECTORY ${dir})
    list(APPEND ONYX_FUZZ_SEED_DIRS ${dir})
  endif()
endforeach()
# The checked-in corpus (fuzz/corpus/model, the minimized finds of earlier
# runs, from which scripts/hardening.sh starts).
add_test(NAME onyx.fuzz.replay.model.corpus
  COMMAND fuzz_model_replay ${PROJECT_SOURCE_DIR}/fuzz/corpus/model)
set_tests_properties(onyx.fuzz.replay.model.corpus PROPERTIES LABELS fuzz)
add_test(NAME onyx.fuzz.replay.model.seeds
  COMMAND fuzz_model_replay --suffix .onnx ${ONYX_FUZZ_SEED_DIRS})
add_test(NAME onyx.fuzz.replay.tensor.seeds
  COMMAND fuzz_tensor_replay --suffix .pb ${ONYX_FUZZ_SEED_DIRS})
set_tests_properties(onyx.fuzz.replay.model.seeds onyx.fuzz.replay.tensor.seeds PROPERTIES LABELS fuzz)

# ---- valgrind -------------------------------------------------------------
# The existing *.memcheck tests (conformance.cmake) cover the bad models and
# every generated case. These add the unit tests, Debian's cases and the
# replays. Any error, and any definite, indirect or possible leak, fails.
find_program(ONYX_VALGRIND valgrind)
if(ONYX_VALGRIND)
  set(ONYX_MEMCHECK_STRICT ${ONYX_VALGRIND} --quiet --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite,indirect,possible
    --show-leak-kinds=definite,indirect,possible)
  set(ONYX_MEMCHECK_TESTS)
  foreach(src ${ONYX_UNIT_TESTS})
    get_filename_component(name ${src} NAME_WE)
    # These take a minute or more under valgrind (every half-float bit
    # pattern, every kernel at many lengths, large tensors on many threads):
    # scripts/hardening.sh runs them, the ordinary suite does not.
    if(name MATCHES "^test_(half|kernels|simd|concurrency)$" AND NOT ONYX_MEMCHECK_SLOW)
      continue()
    endif()
    add_test(NAME onyx.unit.${name}.memcheck COMMAND ${ONYX_MEMCHECK_STRICT} $<TARGET_FILE:${name}>)
    list(APPEND ONYX_MEMCHECK_TESTS onyx.unit.${name}.memcheck)
  endforeach()
  add_test(NAME onyx.conformance.debian.memcheck
    COMMAND ${ONYX_MEMCHECK_STRICT} $<TARGET_FILE:onyx> test --threads 3 ${ONYX_DEBIAN_CASES})
  set_tests_properties(onyx.conformance.debian.memcheck PROPERTIES
    PASS_REGULAR_EXPRESSION "[0-9]+ passed, 0 failed")
  list(APPEND ONYX_MEMCHECK_TESTS onyx.conformance.debian.memcheck)
  foreach(target ${ONYX_FUZZ_TARGETS})
    add_test(NAME onyx.fuzz.replay.${target}.memcheck
      COMMAND ${ONYX_MEMCHECK_STRICT} $<TARGET_FILE:fuzz_${target}_replay>
        ${CMAKE_CURRENT_SOURCE_DIR}/regress/${target})
    list(APPEND ONYX_MEMCHECK_TESTS onyx.fuzz.replay.${target}.memcheck)
  endforeach()
  # A representative part of the seeds: the bad models and the graphs.
  add_test(NAME onyx.fuzz.replay.model.seeds.memcheck
    COMMAND ${ONYX_MEMCHECK_STRICT} $<TARGET_FILE:fuzz_model_replay> --suffix .onnx
      ${ONYX_GENERATED_DIR}/bad ${ONYX_GENERATED_DIR}/graphs ${ONYX_GENERATED_DIR}/spec)
  list(APPEND ONYX_MEMCHECK_TESTS onyx.fuzz.replay.model.seeds.memcheck)
  # The checked-in corpus (about 10 s), and the mutator's own check on
  # the spec cases, the example and the regressions (about 25 s).
  add_test(NAME onyx.fuzz.replay.model.corpus.memcheck
    COMMAND ${ONYX_MEMCHECK_STRICT} $<TARGET_FILE:fuzz_model_replay>
      ${PROJECT_SOURCE_DIR}/fuzz/corpus/model)
  add_test(NAME onyx.fuzz.mutator.model.memcheck
    COMMAND ${ONYX_MEMCHECK_STRICT} $<TARGET_FILE:fuzz_model_mutator_check> --suffix .onnx
      ${PROJECT_SOURCE_DIR}/examples ${CMAKE_CURRENT_SOURCE_DIR}/regress/model
      ${ONYX_GENERATED_DIR}/spec)
  list(APPEND ONYX_MEMCHECK_TESTS onyx.fuzz.replay.model.corpus.memcheck
    onyx.fuzz.mutator.model.memcheck)
  set_tests_properties(${ONYX_MEMCHECK_TESTS} PROPERTIES LABELS memcheck TIMEOUT 900
    FAIL_REGULAR_EXPRESSION "==[0-9]+==")
endif()
