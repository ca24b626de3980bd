# SPDX-License-Identifier: MIT
# Reduced builds (docs/build-config.md), label buildconfig: each test builds
# one configuration's library in its own folder and checks it against the
# generated conformance cases (check.cmake, check_config.c): what the
# configuration keeps runs and matches, the rest is refused at session
# creation with ONYX_UNSUPPORTED_OP or ONYX_TYPE, saying the build left it
# out. The second argument is what the build must keep, written by hand.
# Included from tests/CMakeLists.txt after conformance.cmake.
set(ONYX_BUILDCONFIG_DIR ${CMAKE_CURRENT_SOURCE_DIR}/buildconfig)
# config.h's attribute-type table against the op registry (check_attr_table.c).
add_executable(check_attr_table ${ONYX_BUILDCONFIG_DIR}/check_attr_table.c)
target_include_directories(check_attr_table PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_options(check_attr_table PRIVATE ${ONYX_WARNINGS})
target_link_libraries(check_attr_table PRIVATE onyx_static)
add_test(NAME onyx.buildconfig.attr_table COMMAND check_attr_table)
set_tests_properties(onyx.buildconfig.attr_table PROPERTIES LABELS buildconfig)
function(onyx_buildconfig_test name keep config)
  add_test(NAME onyx.buildconfig.${name} COMMAND ${CMAKE_COMMAND} ${ARGN}
    -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DBINARY_DIR=${CMAKE_CURRENT_BINARY_DIR}/buildconfig/${name} "-DCONFIG=${config}"
    "-DKEEP=${keep}" "-DCASES=${ONYX_GENERATED_DIR}/spec|${ONYX_GENERATED_DIR}/ops|${ONYX_GENERATED_DIR}/graphs"
    -DCOMPILER=${CMAKE_C_COMPILER} "-DC_FLAGS=${CMAKE_C_FLAGS}"
    -P ${ONYX_BUILDCONFIG_DIR}/check.cmake)
  set_tests_properties(onyx.buildconfig.${name} PROPERTIES LABELS buildconfig TIMEOUT 900)
endfunction()
if(NOT CMAKE_CROSSCOMPILING AND ONYX_GENERATED_DIR)
  # One op, one type: Ceil-13 on float32.
  # It leaves files out, so the checker loads from memory.
  onyx_buildconfig_test(ceil_float "Ceil@13:float" ${ONYX_BUILDCONFIG_DIR}/ceil-float.config
    -DNO_FILES=ON)
  # The four element-wise ops, every version, float32 only.
  onyx_buildconfig_test(four_float "Ceil,Floor,Sign,Clip:float"
    ${ONYX_BUILDCONFIG_DIR}/four-float.config)
  # The full build: everything runs.
  onyx_buildconfig_test(full all "")
  # What `onyx info --build-config` writes for four models of the suites:
  # Ceil-6 and -13, Sign-13, Clip-13 and Constant-13 on float and double.
  set(g ${ONYX_GENERATED_DIR})
  onyx_buildconfig_test(from_models "Ceil@6,Sign@13,Clip@13,Constant@13-18:float,double" ""
    -DONYX=$<TARGET_FILE:onyx> "-DMODELS=${g}/spec/test_ceil/model.onnx|${g}/spec/test_sign/model.onnx|${g}/graphs/chain_const_bounds/model.onnx|${g}/ops/ceil_v6_double/model.onnx")
endif()
