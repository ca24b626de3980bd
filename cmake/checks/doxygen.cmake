# SPDX-License-Identifier: MIT
# Builds the HTML reference with docs/Doxyfile, every warning an error (an
# undocumented function, parameter or field of include/onyx.h fails).
#
#   cmake -DDOXYGEN=doxygen -DSOURCE_DIR=repo -DOUT=folder -P doxygen.cmake
cmake_minimum_required(VERSION 3.18)
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
file(WRITE "${OUT}/Doxyfile" "@INCLUDE = ${SOURCE_DIR}/docs/Doxyfile\n"
  "OUTPUT_DIRECTORY = ${OUT}\nWARN_AS_ERROR = YES\nQUIET = YES\n")
execute_process(COMMAND "${DOXYGEN}" "${OUT}/Doxyfile" WORKING_DIRECTORY "${SOURCE_DIR}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "doxygen failed (exit status ${rc})")
endif()
foreach(page index.html onyx_8h.html md_errors.html structonyx__tensor.html)
  if(NOT EXISTS "${OUT}/html/${page}")
    message(FATAL_ERROR "doxygen wrote no html/${page}")
  endif()
endforeach()
file(READ "${OUT}/html/onyx_8h.html" page)
foreach(fn onyx_session_run onyx_clip onyx_version)
  if(NOT page MATCHES "${fn}")
    message(FATAL_ERROR "html/onyx_8h.html does not document ${fn}")
  endif()
endforeach()
message("doxygen: ${OUT}/html/index.html")
