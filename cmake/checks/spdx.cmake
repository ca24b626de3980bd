# SPDX-License-Identifier: MIT
# onyx is MIT-licensed, and every source file says so in an SPDX line within
# its first three lines (after a shebang or an XML declaration), so that a
# file copied out of the tree still carries its license. Generated and
# binary files (test data, the fuzz corpus, lock files) are not sources.
#
#   cmake -DROOT=<repository> -P spdx.cmake
cmake_minimum_required(VERSION 3.18)
set(globs)
foreach(dir src include cli tests fuzz bench python js scripts cmake baremetal examples man docs debian .ci)
  foreach(ext c h S ld py sh cmake js mjs ts in 1 dict)
    list(APPEND globs "${ROOT}/${dir}/*.${ext}")
  endforeach()
  list(APPEND globs "${ROOT}/${dir}/CMakeLists.txt")
endforeach()
file(GLOB_RECURSE files ${globs})
list(APPEND files "${ROOT}/CMakeLists.txt" "${ROOT}/.ci/run" "${ROOT}/setup.py" "${ROOT}/pyproject.toml"
  "${ROOT}/MANIFEST.in")
list(FILTER files EXCLUDE REGEX "/node_modules/|/fuzz/corpus/|/tests/regress/|/build[^/]*/")
set(bad "")
set(checked 0)
foreach(f IN LISTS files)
  if(NOT EXISTS "${f}")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  file(STRINGS "${f}" head LIMIT_COUNT 3)
  if(NOT head MATCHES "SPDX-License-Identifier: MIT")
    file(RELATIVE_PATH rel "${ROOT}" "${f}")
    string(APPEND bad "  ${rel}\n")
  endif()
endforeach()
if(NOT EXISTS "${ROOT}/LICENSE")
  message(FATAL_ERROR "LICENSE is missing")
endif()
if(bad)
  message(FATAL_ERROR "files without an SPDX-License-Identifier: MIT line in their first 3 lines:\n${bad}")
endif()
message(STATUS "${checked} source files carry the MIT SPDX line")
