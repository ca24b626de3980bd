# SPDX-License-Identifier: MIT
# docs/errors.md lists exactly the status codes of ONYX_STATUS_MAP in
# include/onyx.h, in order, with the same numbers, as headings
# "## `ONYX_NAME` (N)", each error with a **Cause** and a **What to do**.
#
#   cmake -DHEADER=onyx.h -DDOC=errors.md -P errors.cmake
cmake_minimum_required(VERSION 3.18)
file(READ "${HEADER}" header)
if(NOT header MATCHES "#define ONYX_STATUS_MAP\\(X\\)(([^\n]*\\\\\n)*[^\n]*)")
  message(FATAL_ERROR "no ONYX_STATUS_MAP in ${HEADER}")
endif()
string(REGEX MATCHALL "X\\(([A-Z_0-9]+), ([0-9]+)," entries "${CMAKE_MATCH_1}")
set(expected "")
foreach(e IN LISTS entries)
  string(REGEX REPLACE "X\\(([A-Z_0-9]+), ([0-9]+)," "ONYX_\\1=\\2" e "${e}")
  list(APPEND expected "${e}")
endforeach()

file(READ "${DOC}" doc)
string(REGEX MATCHALL "\n## `ONYX_[A-Z_0-9]+` \\([0-9]+\\)\n" headings "${doc}")
set(listed "")
foreach(h IN LISTS headings)
  string(REGEX REPLACE "\n## `(ONYX_[A-Z_0-9]+)` \\(([0-9]+)\\)\n" "\\1=\\2" h "${h}")
  list(APPEND listed "${h}")
endforeach()

set(failed "")
if(NOT listed STREQUAL expected)
  string(APPEND failed "${DOC} lists\n  ${listed}\nbut ONYX_STATUS_MAP has\n  ${expected}\n")
endif()
# Every section but ONYX_OK says what causes it and what to do. (The text
# is made a CMake list of sections: its own ';' become ',' first.)
string(REPLACE ";" "," sections "${doc}")
string(REPLACE "\n## " ";## " sections "${sections}")
foreach(s IN LISTS sections)
  if(NOT s MATCHES "^## `(ONYX_[A-Z_0-9]+)`")
    continue()
  endif()
  set(name "${CMAKE_MATCH_1}")
  if(NOT name STREQUAL "ONYX_OK" AND NOT (s MATCHES "\\*\\*Cause\\*\\*" AND
      s MATCHES "\\*\\*What to do\\*\\*"))
    string(APPEND failed "${DOC}: ${name} lacks a **Cause** or a **What to do**\n")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
list(LENGTH expected n)
message("${DOC} lists the ${n} status codes of ONYX_STATUS_MAP")
