# SPDX-License-Identifier: MIT
# onyx as a subproject: a parent project that takes onyx with
# add_subdirectory, and one that takes it with FetchContent (from this
# source tree, SOURCE_DIR), each links a program to onyx::onyx and one to
# onyx::onyx_static and runs the README's example. The parent's `ctest -N`
# lists the parent's test only, its cache keeps an empty build type, and
# its `cmake --install` installs the parent's program only.
#
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -P subproject.cmake
cmake_minimum_required(VERSION 3.18)

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

file(REMOVE_RECURSE "${WORK_DIR}")
foreach(way add_subdirectory FetchContent)
  set(dir "${WORK_DIR}/${way}")
  if(way STREQUAL "add_subdirectory")
    set(take "add_subdirectory(\"${SOURCE_DIR}\" onyx)")
  else()
    set(take "include(FetchContent)
FetchContent_Declare(onyx SOURCE_DIR \"${SOURCE_DIR}\")
FetchContent_MakeAvailable(onyx)")
  endif()
  file(WRITE "${dir}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.18)
project(parent C)
enable_testing()
${take}
add_executable(app \"${SOURCE_DIR}/examples/example.c\")
target_link_libraries(app PRIVATE onyx::onyx)
add_executable(app_static \"${SOURCE_DIR}/examples/example.c\")
target_link_libraries(app_static PRIVATE onyx::onyx_static)
add_test(NAME parent.app COMMAND app WORKING_DIRECTORY \"${SOURCE_DIR}\")
add_test(NAME parent.app_static COMMAND app_static WORKING_DIRECTORY \"${SOURCE_DIR}\")
set_tests_properties(parent.app parent.app_static PROPERTIES
  PASS_REGULAR_EXPRESSION \"^-2 -1 -0 0 1 2 2 2 \\n$\")
install(TARGETS app)
")
  run("${way}: configure" "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}")
  file(STRINGS "${dir}/build/CMakeCache.txt" type REGEX "^CMAKE_BUILD_TYPE:")
  if(NOT type MATCHES "^CMAKE_BUILD_TYPE:[A-Z]*=$")
    message(FATAL_ERROR "${way}: onyx set the parent's build type: ${type}")
  endif()
  run("${way}: build" "${CMAKE_COMMAND}" --build "${dir}/build" -j 2)
  run("${way}: ctest -N" "${CMAKE_CTEST_COMMAND}" --test-dir "${dir}/build" -N)
  if(NOT run_out MATCHES "Total Tests: 2\n" OR NOT run_out MATCHES "parent\\.app_static")
    message(FATAL_ERROR "${way}: the parent's ctest -N lists more than its 2 tests:\n${run_out}")
  endif()
  run("${way}: ctest" "${CMAKE_CTEST_COMMAND}" --test-dir "${dir}/build" --output-on-failure)
  run("${way}: cmake --install" "${CMAKE_COMMAND}" --install "${dir}/build" --prefix "${dir}/prefix")
  file(GLOB_RECURSE installed RELATIVE "${dir}/prefix" "${dir}/prefix/*")
  if(NOT installed STREQUAL "bin/app")
    message(FATAL_ERROR "${way}: the parent's install holds more than bin/app: ${installed}")
  endif()
  message(STATUS "${way}: 2 parent tests, parent's build type kept, install holds bin/app only")
endforeach()
