# SPDX-License-Identifier: MIT
# The version is written in six places that must agree: the CMake project
# (which reads the file VERSION, as pyproject.toml does), the macros of
# include/onyx.h, `onyx --version` (which prints onyx_version()), the manual
# page's title line, the Doxygen PROJECT_NUMBER and js/package.json. (The
# Python package's __version__ comes from onyx_version(); the pkg-config and
# CMake package files from the project, which ecosystem.install checks.)
#
#   cmake -DVERSION=X.Y.Z -DHEADER=onyx.h -DONYX=onyx -DMAN=onyx.1
#         -DDOXYFILE=Doxyfile -DPACKAGE_JSON=js/package.json -P version.cmake
cmake_minimum_required(VERSION 3.18)
set(failed "")
file(READ "${HEADER}" header)
foreach(part MAJOR MINOR PATCH)
  if(NOT header MATCHES "#define ONYX_VERSION_${part} ([0-9]+)")
    string(APPEND failed "${HEADER}: no ONYX_VERSION_${part}\n")
  endif()
  set(h_${part} "${CMAKE_MATCH_1}")
endforeach()
set(header_version "${h_MAJOR}.${h_MINOR}.${h_PATCH}")
if(NOT header_version STREQUAL VERSION)
  string(APPEND failed "onyx.h says ${header_version}, CMakeLists.txt project() says ${VERSION}\n")
endif()

execute_process(COMMAND "${ONYX}" --version OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^onyx ([^ ]+) ")
  string(APPEND failed "onyx --version failed or printed '${out}'\n")
elseif(NOT CMAKE_MATCH_1 STREQUAL VERSION)
  string(APPEND failed "onyx --version says ${CMAKE_MATCH_1}, the project ${VERSION}\n")
endif()

file(READ "${MAN}" man)
if(NOT man MATCHES "\n\\.TH ONYX 1 \"[^\"]*\" \"onyx ([^\"]+)\"")
  string(APPEND failed "${MAN}: no .TH line with \"onyx VERSION\"\n")
elseif(NOT CMAKE_MATCH_1 STREQUAL VERSION)
  string(APPEND failed "${MAN} says ${CMAKE_MATCH_1}, the project ${VERSION}\n")
endif()

# The npm package cannot read VERSION (which CMakeLists.txt and
# pyproject.toml read), so its version is checked against it.
file(READ "${PACKAGE_JSON}" package_json)
if(NOT package_json MATCHES "\n  \"version\": \"([^\"]+)\"")
  string(APPEND failed "${PACKAGE_JSON}: no \"version\"\n")
elseif(NOT CMAKE_MATCH_1 STREQUAL VERSION)
  string(APPEND failed "${PACKAGE_JSON} says ${CMAKE_MATCH_1}, VERSION ${VERSION}\n")
endif()

file(READ "${DOXYFILE}" doxyfile)
if(NOT doxyfile MATCHES "\nPROJECT_NUMBER *= *([^\n ]+)")
  string(APPEND failed "${DOXYFILE}: no PROJECT_NUMBER\n")
elseif(NOT CMAKE_MATCH_1 STREQUAL VERSION)
  string(APPEND failed "${DOXYFILE} says ${CMAKE_MATCH_1}, the project ${VERSION}\n")
endif()

if(failed)
  message(FATAL_ERROR "${failed}")
endif()
message("version ${VERSION} everywhere")
