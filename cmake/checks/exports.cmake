# SPDX-License-Identifier: MIT
# The shared library exports exactly the functions include/onyx.h declares
# with ONYX_API: nothing internal (onyx__*, kernels, helpers) and nothing
# missing.
#
#   cmake -DLIB=libonyx.so -DHEADER=onyx.h -DNM=nm -P exports.cmake
cmake_minimum_required(VERSION 3.18)
file(READ "${HEADER}" header)
string(REGEX MATCHALL "ONYX_API [^;(]*[ *](onyx_[a-z0-9_]+)\\(" decls "${header}")
set(declared "")
foreach(d IN LISTS decls)
  string(REGEX REPLACE ".*[ *](onyx_[a-z0-9_]+)\\($" "\\1" name "${d}")
  list(APPEND declared "${name}")
endforeach()
list(SORT declared)
list(LENGTH declared n_declared)
if(n_declared LESS 30)
  message(FATAL_ERROR "found only ${n_declared} ONYX_API functions in ${HEADER}")
endif()

execute_process(COMMAND "${NM}" -D --defined-only "${LIB}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D ${LIB} failed: ${err}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(exported "")
# Only global symbols (an upper-case type letter) are exported. Local ones
# can sit in the dynamic table too: a sanitizer-coverage build (clang's
# -fsanitize=fuzzer-no-link) leaves the linker's section bounds there,
# __start___sancov_cntrs and the like, as 'd', and nothing can bind to them.
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-fA-F]* *([A-Z]) (.+)$")
    list(APPEND exported "${CMAKE_MATCH_2}")
  endif()
endforeach()
list(SORT exported)

set(extra ${exported})
list(REMOVE_ITEM extra ${declared})
set(missing ${declared})
list(REMOVE_ITEM missing ${exported})
if(extra OR missing)
  message(FATAL_ERROR "${LIB}: exported but not ONYX_API in onyx.h: ${extra}\n"
    "declared ONYX_API but not exported: ${missing}")
endif()
message("${LIB} exports exactly the ${n_declared} ONYX_API functions")
