# SPDX-License-Identifier: MIT
# Tests of what surrounds the library: installation and packaging, the
# version, the exported symbols, the Python package, the onyx command's .npy
# files and bench command, and the documentation (manual page, status list,
# Doxygen reference). Included from tests/CMakeLists.txt after the unit-test
# loop (it adds cli/npy.c to unit test test_npy); uses ONYX_PYTHON,
# ONYX_TESTDATA_DIR and ONYX_WARNINGS from there. The helper scripts are in
# cmake/checks/; the Python tests in tests/python/.

set(ONYX_CHECKS ${PROJECT_SOURCE_DIR}/cmake/checks)
set(ONYX_ECO_DIR ${CMAKE_CURRENT_BINARY_DIR}/ecosystem)

# ---- Fixtures: .npy files numpy writes, and models for `onyx bench` ---------
if(ONYX_PYTHON)
  add_custom_command(
    OUTPUT ${ONYX_ECO_DIR}/stamp
    COMMAND ${ONYX_PYTHON} -B ${CMAKE_CURRENT_SOURCE_DIR}/python/make_fixtures.py
      ${ONYX_ECO_DIR}
    COMMAND ${CMAKE_COMMAND} -E touch ${ONYX_ECO_DIR}/stamp
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/python/make_fixtures.py
    COMMENT "Writing .npy files and models for the ecosystem tests in ${ONYX_ECO_DIR}"
    VERBATIM)
  add_custom_target(onyx_eco_fixtures ALL DEPENDS ${ONYX_ECO_DIR}/stamp)
endif()

# The .npy reader and writer are part of the command (cli/npy.c); the unit
# test tests/unit/test_npy.c compiles them in.
if(TARGET test_npy)
  target_sources(test_npy PRIVATE ${PROJECT_SOURCE_DIR}/cli/npy.c ${ONYX_CLI_SYS})
  target_include_directories(test_npy PRIVATE ${PROJECT_SOURCE_DIR}/cli)
  target_compile_definitions(test_npy PRIVATE ONYX_NPY_FIXTURES="${ONYX_ECO_DIR}/npy")
  if(TARGET onyx_eco_fixtures)
    add_dependencies(test_npy onyx_eco_fixtures)
  endif()
  set_tests_properties(onyx.unit.test_npy PROPERTIES LABELS "ecosystem;cli")
endif()

# ---- Version, exports, installation -----------------------------------------
add_test(NAME onyx.ecosystem.version
  COMMAND ${CMAKE_COMMAND} -DVERSION=${PROJECT_VERSION}
    -DHEADER=${PROJECT_SOURCE_DIR}/include/onyx.h -DONYX=$<TARGET_FILE:onyx>
    -DMAN=${PROJECT_SOURCE_DIR}/man/onyx.1 -DDOXYFILE=${PROJECT_SOURCE_DIR}/docs/Doxyfile
    -DPACKAGE_JSON=${PROJECT_SOURCE_DIR}/js/package.json -P ${ONYX_CHECKS}/version.cmake)

add_test(NAME onyx.ecosystem.exports
  COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:onyx_shared>
    -DHEADER=${PROJECT_SOURCE_DIR}/include/onyx.h -DNM=${CMAKE_NM}
    -P ${ONYX_CHECKS}/exports.cmake)

add_test(NAME onyx.ecosystem.install
  COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR}
    -DWORK_DIR=${ONYX_ECO_DIR}/install -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DVERSION=${PROJECT_VERSION} -DVERSION_MAJOR=${PROJECT_VERSION_MAJOR}
    -DLIBDIR=${CMAKE_INSTALL_LIBDIR} -DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}
    -DBINDIR=${CMAKE_INSTALL_BINDIR} -DMANDIR=${CMAKE_INSTALL_MANDIR}
    -DDOCDIR=${CMAKE_INSTALL_DOCDIR}
    -DCC=${CMAKE_C_COMPILER} -DPKG_CONFIG=${PKG_CONFIG_EXECUTABLE} -DNM=${CMAKE_NM}
    -DOBJDUMP=${CMAKE_OBJDUMP} -DCASE=${ONYX_TESTDATA_DIR}/node/test_ceil
    -DPYTHON=${ONYX_PYTHON} -DPYDIR=${ONYX_PYTHON_INSTALL_DIR} "-DDL_LIBS=${CMAKE_DL_LIBS}"
    -P ${ONYX_CHECKS}/install.cmake)
set_tests_properties(onyx.ecosystem.version onyx.ecosystem.exports onyx.ecosystem.install PROPERTIES
  LABELS ecosystem)
set_tests_properties(onyx.ecosystem.install PROPERTIES TIMEOUT 600)

# ---- The onyx command: bench --------------------------------------------------
set(ONYX_US "[0-9]+\\.[0-9]+ us")
string(CONCAT ONYX_BENCH_OUTPUT
  "model: examples/chain.onnx\n"
  "inputs: x float \\[8\\]\n"
  "outputs: clipped float \\[8\\], sign float \\[8\\], floor float \\[8\\]\n"
  "session: threads 0 \\(onyx's default\\), isa cap best \\(detected [a-z0-9]+\\)\n"
  "runs: 50 timed in [0-9.]+ s, after 2 warm-up runs\n"
  "latency: median ${ONYX_US}, p90 ${ONYX_US}, p99 ${ONYX_US} "
  "\\(min ${ONYX_US}, mean ${ONYX_US}, max ${ONYX_US}\\)\n"
  "throughput: [0-9.]+ runs/s, [0-9.]+ GB/s \\(128 bytes of inputs and outputs per run\\)\n$")
add_test(NAME onyx.cli.bench.example
  COMMAND ${CMAKE_COMMAND} -DEXPECT_RC=0 "-DEXPECT_STDOUT=^${ONYX_BENCH_OUTPUT}"
    "-DCOMMAND=$<TARGET_FILE:onyx>|bench|examples/chain.onnx|--runs|50|--warmup|2"
    -P ${ONYX_CHECKS}/expect.cmake
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

string(CONCAT ONYX_PER_NODE_OUTPUT
  "\nper-node: 20 profiled session runs after 5 warm-up runs, as the session ran\n"
  "  them \\(onyx_run_options.profile\\); nodes fused into one pass share its time\n"
  "  node 2 Ceil 'ceil_x' float \\[8\\] \\(onyx, pass 0 of 3 nodes\\): median ${ONYX_US}, "
  "p90 ${ONYX_US}, p99 ${ONYX_US}, [0-9.]+% of the passes' total\n"
  "  node 3 Clip 'clip_ceil' float \\[8\\] \\(onyx, pass 0 of 3 nodes\\): median [^\n]*\n"
  "  node 4 Sign 'sign_clipped' float \\[8\\] \\(onyx, pass 0 of 3 nodes\\): median [^\n]*\n"
  "  node 5 Floor 'floor_x' float \\[8\\] \\(onyx\\): median [^\n]*\n"
  "  2 nodes folded when the session was created, not run\n$")
add_test(NAME onyx.cli.bench.per_node
  COMMAND ${CMAKE_COMMAND} -DEXPECT_RC=0 "-DEXPECT_STDOUT=${ONYX_PER_NODE_OUTPUT}"
    "-DCOMMAND=$<TARGET_FILE:onyx>|bench|--per-node|--runs=20|--threads|2|--isa|scalar|\
examples/chain.onnx"
    -P ${ONYX_CHECKS}/expect.cmake
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

# A symbolic dimension without --shape: a usage error that names it; with it,
# a run of that shape.
add_test(NAME onyx.cli.bench.missing_shape
  COMMAND ${CMAKE_COMMAND} -DEXPECT_RC=2
    "-DEXPECT_STDERR=input 'x': dimension 0 is the symbolic 'N': give its size with --shape N=SIZE"
    "-DCOMMAND=$<TARGET_FILE:onyx>|bench|${ONYX_ECO_DIR}/models/symbolic.onnx|--runs|3"
    -P ${ONYX_CHECKS}/expect.cmake)
add_test(NAME onyx.cli.bench.shape
  COMMAND ${CMAKE_COMMAND} -DEXPECT_RC=0 "-DEXPECT_STDOUT=\ninputs: x float \\[7, 3\\]\n"
    "-DCOMMAND=$<TARGET_FILE:onyx>|bench|${ONYX_ECO_DIR}/models/symbolic.onnx|--runs|3|--shape|N=7"
    -P ${ONYX_CHECKS}/expect.cmake)
# A run longer than a second shows the progress line, updated with '\r'.
add_test(NAME onyx.cli.bench.progress
  COMMAND ${CMAKE_COMMAND} -DEXPECT_RC=0 "-DEXPECT_STDERR=\ronyx bench: [0-9]+ runs, 1\\.[0-9] s"
    "-DCOMMAND=$<TARGET_FILE:onyx>|bench|examples/chain.onnx|--duration|1.5|--progress"
    -P ${ONYX_CHECKS}/expect.cmake
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(onyx.cli.bench.example onyx.cli.bench.per_node onyx.cli.bench.missing_shape
  onyx.cli.bench.shape onyx.cli.bench.progress PROPERTIES LABELS cli)

# ---- Python ---------------------------------------------------------------------
# Debian's /usr/bin/python3 with python3-numpy and python3-onnx, the package
# from python/, and the library just built.
if(ONYX_PYTHON)
  set(ONYX_PYTHON_ENV
    "PYTHONPATH=${PROJECT_SOURCE_DIR}/python"
    "ONYX_LIBRARY=$<TARGET_FILE:onyx_shared>"
    "ONYX_CLI=$<TARGET_FILE:onyx>"
    "ONYX_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
    "ONYX_TESTDATA_DIR=${ONYX_TESTDATA_DIR}"
    "PYTHONDONTWRITEBYTECODE=1")
  file(GLOB ONYX_PYTHON_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/python/test_*.py)
  foreach(src ${ONYX_PYTHON_TESTS})
    get_filename_component(name ${src} NAME_WE)
    string(REGEX REPLACE "^test_" "" name "${name}")
    add_test(NAME onyx.python.${name} COMMAND ${ONYX_PYTHON} -B ${src} -v)
    set_tests_properties(onyx.python.${name} PROPERTIES LABELS python
      ENVIRONMENT "${ONYX_PYTHON_ENV}")
  endforeach()
else()
  message(WARNING "onyx tests: no /usr/bin/python3, so the Python tests are not registered")
endif()

# ---- pip ---------------------------------------------------------------------
# `pip install` of a copy of the tree into a venv, offline, and `python3 -m
# build` (cmake/checks/pip.cmake); each builds libonyx into the package.
if(ONYX_PYTHON AND NOT CMAKE_CROSSCOMPILING)
  add_test(NAME onyx.ecosystem.pip
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DWORK_DIR=${ONYX_ECO_DIR}/pip
      -DPYTHON=${ONYX_PYTHON} -DVERSION=${PROJECT_VERSION} -DVERSION_MAJOR=${PROJECT_VERSION_MAJOR}
      -P ${ONYX_CHECKS}/pip.cmake)
  set_tests_properties(onyx.ecosystem.pip PROPERTIES LABELS "ecosystem;python" TIMEOUT 900
    SKIP_REGULAR_EXPRESSION "^SKIP: ")
endif()

# ---- Type hints -----------------------------------------------------------------
# mypy --strict (Debian's mypy, with numpy's hints) over the package and two
# programs that use it, as a user's typed code would; then the typed program
# runs. The configuration is pyproject.toml's [tool.mypy]; the cache stays
# in the build folder.
if(ONYX_PYTHON)
  execute_process(COMMAND ${ONYX_PYTHON} -c "import mypy" RESULT_VARIABLE ONYX_NO_MYPY
    OUTPUT_QUIET ERROR_QUIET)
  if(ONYX_NO_MYPY)
    add_test(NAME onyx.ecosystem.mypy COMMAND ${CMAKE_COMMAND} -E echo
      "skipped: ${ONYX_PYTHON} has no mypy (Debian: apt-get install mypy)")
    set_tests_properties(onyx.ecosystem.mypy PROPERTIES SKIP_REGULAR_EXPRESSION "^skipped: ")
  else()
    add_test(NAME onyx.ecosystem.mypy
      COMMAND ${ONYX_PYTHON} -m mypy --strict --cache-dir ${ONYX_ECO_DIR}/mypy
        python/onyx tests/python/typed_api.py tests/python/installed_use.py
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(onyx.ecosystem.mypy PROPERTIES ENVIRONMENT "MYPYPATH=${PROJECT_SOURCE_DIR}/python")
  endif()
  add_test(NAME onyx.ecosystem.typed_api
    COMMAND ${ONYX_PYTHON} -B ${CMAKE_CURRENT_SOURCE_DIR}/python/typed_api.py
      ${PROJECT_SOURCE_DIR}/examples/chain.onnx)
  set_tests_properties(onyx.ecosystem.typed_api PROPERTIES ENVIRONMENT "${ONYX_PYTHON_ENV}")
  set_tests_properties(onyx.ecosystem.mypy onyx.ecosystem.typed_api PROPERTIES LABELS "ecosystem;python")
endif()

# ---- Documentation ------------------------------------------------------------
add_test(NAME onyx.docs.man
  COMMAND ${CMAKE_COMMAND} -DONYX=$<TARGET_FILE:onyx> -DMAN=${PROJECT_SOURCE_DIR}/man/onyx.1
    -P ${ONYX_CHECKS}/man.cmake)
add_test(NAME onyx.docs.errors
  COMMAND ${CMAKE_COMMAND} -DHEADER=${PROJECT_SOURCE_DIR}/include/onyx.h
    -DDOC=${PROJECT_SOURCE_DIR}/docs/errors.md -P ${ONYX_CHECKS}/errors.cmake)
set_tests_properties(onyx.docs.man onyx.docs.errors PROPERTIES LABELS docs)
find_program(ONYX_DOXYGEN doxygen)
if(ONYX_DOXYGEN)
  add_test(NAME onyx.docs.doxygen
    COMMAND ${CMAKE_COMMAND} -DDOXYGEN=${ONYX_DOXYGEN} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
      -DOUT=${ONYX_ECO_DIR}/doxygen -P ${ONYX_CHECKS}/doxygen.cmake)
  set_tests_properties(onyx.docs.doxygen PROPERTIES LABELS docs)
else()
  message(STATUS "onyx tests: doxygen not found, so docs.doxygen is not registered "
    "(Debian: apt-get install doxygen)")
endif()

# ---- onyx as a subproject: add_subdirectory and FetchContent parents ----------
# Skipped in cross builds: the parent would build for the host.
if(NOT CMAKE_CROSSCOMPILING)
  add_test(NAME onyx.ecosystem.subproject
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DWORK_DIR=${ONYX_ECO_DIR}/subproject
      -DGENERATOR=${CMAKE_GENERATOR} -P ${ONYX_CHECKS}/subproject.cmake)
  set_tests_properties(onyx.ecosystem.subproject PROPERTIES LABELS ecosystem TIMEOUT 900)
endif()
