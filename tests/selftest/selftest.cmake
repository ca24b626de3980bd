# SPDX-License-Identifier: MIT
# The self-test (src/verify/, onyx selftest). Included by tests/CMakeLists.txt.
#   selftest.check    SHA-256 and onyx_selftest() on the quick set (every
#                     platform: cross targets run it under their emulator)
#   selftest.cli      `onyx selftest --quick` passes and prints its summary
#   selftest.full     `onyx selftest`: all 2^32 float32 patterns (native only)
#   selftest.digests  src/verify/selftest_digests.h is what numpy gives now
add_executable(check_selftest ${CMAKE_CURRENT_LIST_DIR}/check_selftest.c)
target_include_directories(check_selftest PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_options(check_selftest PRIVATE ${ONYX_WARNINGS})
target_link_libraries(check_selftest PRIVATE onyx_static m)
add_test(NAME onyx.selftest.check COMMAND check_selftest)

if(CMAKE_CROSSCOMPILING)
  # Under an emulator the quick set takes a minute; selftest.check runs it.
  add_test(NAME onyx.selftest.cli COMMAND ${CMAKE_COMMAND} -E echo
    "SKIP selftest.cli: selftest.check runs the same quick set through the library")
  set_tests_properties(onyx.selftest.cli PROPERTIES SKIP_REGULAR_EXPRESSION "^SKIP")
else()
  add_test(NAME onyx.selftest.cli COMMAND onyx selftest --quick)
  set_tests_properties(onyx.selftest.cli PROPERTIES
    PASS_REGULAR_EXPRESSION "selftest: [0-9]+ cases, [0-9]+ kernel runs, 0 failed"
    FAIL_REGULAR_EXPRESSION "FAIL")
endif()

if(CMAKE_CROSSCOMPILING)
  add_test(NAME onyx.selftest.full COMMAND ${CMAKE_COMMAND} -E echo
    "SKIP selftest.full: all 2^32 float32 patterns take hours under an emulator; selftest.check covers the subset")
  set_tests_properties(onyx.selftest.full PROPERTIES SKIP_REGULAR_EXPRESSION "^SKIP")
else()
  add_test(NAME onyx.selftest.full COMMAND onyx selftest)
  set_tests_properties(onyx.selftest.full PROPERTIES
    PASS_REGULAR_EXPRESSION "selftest: [0-9]+ cases, [0-9]+ kernel runs, 0 failed"
    FAIL_REGULAR_EXPRESSION "FAIL" TIMEOUT 1800 LABELS slow)
endif()

if(ONYX_PYTHON)
  add_test(NAME onyx.selftest.digests COMMAND ${ONYX_PYTHON}
    ${PROJECT_SOURCE_DIR}/tests/gen/selftest_digests.py --check
    ${PROJECT_SOURCE_DIR}/src/verify/selftest_digests.h)
  set_tests_properties(onyx.selftest.digests PROPERTIES TIMEOUT 900 LABELS slow)
else()
  add_test(NAME onyx.selftest.digests COMMAND ${CMAKE_COMMAND} -E echo
    "SKIP selftest.digests: no /usr/bin/python3 with numpy")
  set_tests_properties(onyx.selftest.digests PROPERTIES SKIP_REGULAR_EXPRESSION "^SKIP")
endif()
