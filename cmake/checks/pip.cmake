# SPDX-License-Identifier: MIT
# The Python package as pip users get it, offline: a copy of the source tree
# (no build folders, no .git), a venv that sees Debian's numpy and
# setuptools, `pip install --no-build-isolation` of the copy, which builds
# libonyx with CMake into the package; `pip show`; the example model run
# with the library from the venv, from outside the source tree; `pip
# uninstall`; and `python3 -m build`, whose sdist and wheel must hold the C
# sources and the compiled library with py.typed.
#
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DPYTHON=/usr/bin/python3
#         -DVERSION=X.Y.Z -DVERSION_MAJOR=X -P pip.cmake
cmake_minimum_required(VERSION 3.18)

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
execute_process(COMMAND "${PYTHON}" -c "import venv, ensurepip, setuptools, wheel"
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message("SKIP: ${PYTHON} lacks venv, ensurepip, setuptools or wheel (Debian: python3-venv "
    "python3-setuptools python3-wheel): ${err}")
  return()
endif()

# What pip sees must be the tree alone: no ONYX_LIBRARY or PYTHONPATH from
# the caller, and no package index.
unset(ENV{ONYX_LIBRARY})
unset(ENV{PYTHONPATH})
set(ENV{PIP_NO_INDEX} 1)
set(ENV{PIP_DISABLE_PIP_VERSION_CHECK} 1)
set(ENV{PYTHONDONTWRITEBYTECODE} 1)

set(src "${WORK_DIR}/onyx")
file(COPY "${SOURCE_DIR}/" DESTINATION "${src}"
  REGEX "^${SOURCE_DIR}/(build[^/]*|tmp|\\.git)$" EXCLUDE
  REGEX "/(__pycache__|node_modules)$" EXCLUDE)

set(venv "${WORK_DIR}/venv")
run("python3 -m venv" "${PYTHON}" -m venv --system-site-packages "${venv}")
set(py "${venv}/bin/python")
run("pip install" "${py}" -m pip install --no-build-isolation "${src}")
run("pip show" "${py}" -m pip show onyx)
foreach(want "Name: onyx" "Version: ${VERSION}" "License: MIT" "Requires: numpy"
    "Location: ${venv}/lib")
  string(FIND "${run_out}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "pip show onyx lacks '${want}':\n${run_out}")
  endif()
endforeach()

# The example model, from the venv's package and the library in it.
execute_process(COMMAND "${py}" "${SOURCE_DIR}/tests/python/installed_use.py"
    "${SOURCE_DIR}/examples/chain.onnx" "${venv}/lib"
  WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the pip-installed package:\n${out}${err}")
endif()
message("pip install: ${out}")

# The in-tree build keeps out of the package's folder.
file(GLOB stray "${src}/python/*.egg-info" "${src}/python/onyx/libonyx*")
if(stray)
  message(FATAL_ERROR "pip install left files in python/: ${stray}")
endif()

run("pip uninstall" "${py}" -m pip uninstall -y onyx)
execute_process(COMMAND "${py}" -m pip show onyx RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
file(GLOB left "${venv}/lib/python3*/site-packages/onyx")
if(rc EQUAL 0 OR left)
  message(FATAL_ERROR "pip uninstall onyx left it installed: ${left}")
endif()

# python3 -m build: an sdist, and a wheel built from it.
execute_process(COMMAND "${PYTHON}" -c "import build" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
  message("SKIP (python3 -m build): ${PYTHON} has no build module (Debian: python3-build)")
  return()
endif()
run("python3 -m build" "${PYTHON}" -m build --no-isolation --outdir "${WORK_DIR}/dist" "${src}")
file(GLOB sdist "${WORK_DIR}/dist/onyx-${VERSION}.tar.gz")
file(GLOB wheel "${WORK_DIR}/dist/onyx-${VERSION}-py3-none-*.whl")
if(NOT sdist OR NOT wheel)
  file(GLOB got "${WORK_DIR}/dist/*")
  message(FATAL_ERROR "python3 -m build made ${got}, not onyx-${VERSION}.tar.gz and "
    "onyx-${VERSION}-py3-none-PLATFORM.whl")
endif()
run("tar" "${CMAKE_COMMAND}" -E tar tf "${sdist}")
foreach(f CMakeLists.txt VERSION LICENSE include/onyx.h src/ops/ceil.c python/onyx/_capi.py
    python/onyx/py.typed)
  string(FIND "${run_out}" "onyx-${VERSION}/${f}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the sdist lacks ${f}:\n${run_out}")
  endif()
endforeach()
run("unzip" "${PYTHON}" -m zipfile -l "${wheel}")
foreach(f onyx/libonyx.so.${VERSION_MAJOR} onyx/py.typed onyx/_capi.py onyx/capi/__init__.py
    onyx-${VERSION}.dist-info/LICENSE)
  string(FIND "${run_out}" "${f} " at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the wheel lacks ${f}:\n${run_out}")
  endif()
endforeach()
message("python3 -m build: ${sdist}, ${wheel}")
