# SPDX-License-Identifier: MIT
# The manual page man/onyx.1 is in step with the command's help: every option
# that `onyx --help` or `onyx COMMAND --help` shows appears in the page, every
# option the page names is in some help text, and every command has its own
# section (.SS "onyx COMMAND ...").
#
#   cmake -DONYX=onyx -DMAN=onyx.1 -P man.cmake
cmake_minimum_required(VERSION 3.18)
set(failed "")

# The option names in a text: "-x" or "--word-word", not inside a word.
function(options_in text out)
  # Brackets and semicolons would upset CMake's lists.
  string(REGEX REPLACE "[][;]" " " text "${text}")
  string(REGEX MATCHALL "(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*" found "${text}")
  set(result "")
  foreach(f IN LISTS found)
    string(REGEX MATCH "--?[A-Za-z][A-Za-z0-9-]*" f "${f}")
    list(APPEND result "${f}")
  endforeach()
  list(REMOVE_DUPLICATES result)
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND "${ONYX}" --help OUTPUT_VARIABLE main RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "onyx --help failed")
endif()
# Commands: the lines "  NAME ..." under "Commands:".
string(REGEX REPLACE ".*\nCommands:\n" "" commands_block "${main}")
string(REGEX REPLACE "\n\n.*" "" commands_block "${commands_block}")
string(REGEX MATCHALL "(^|\n)  [a-z]+ " commands "${commands_block}")
list(TRANSFORM commands REPLACE "[\n ]" "")
list(LENGTH commands n_commands)
if(n_commands LESS 4)
  message(FATAL_ERROR "found only the commands '${commands}' in onyx --help")
endif()

set(help_text "${main}")
foreach(cmd IN LISTS commands)
  if(cmd STREQUAL "help")
    continue()
  endif()
  execute_process(COMMAND "${ONYX}" ${cmd} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(APPEND failed "onyx ${cmd} --help failed\n")
  endif()
  string(APPEND help_text "\n${text}")
endforeach()
options_in("${help_text}" help_options)

# The page as plain text: "\-" is "-", font changes and quotes dropped.
file(READ "${MAN}" page)
string(REPLACE "\\-" "-" page "${page}")
string(REGEX REPLACE "\\\\f[BIRP]" "" page "${page}")
string(REGEX REPLACE "\\\\&" "" page "${page}")
string(REGEX REPLACE "(^|\n)\\.\\\\\"[^\n]*" "" page "${page}") # comments
options_in("${page}" man_options)

foreach(opt IN LISTS help_options)
  if(NOT opt IN_LIST man_options)
    string(APPEND failed "option ${opt} is in the help but not in ${MAN}\n")
  endif()
endforeach()
foreach(opt IN LISTS man_options)
  if(NOT opt IN_LIST help_options)
    string(APPEND failed "option ${opt} is in ${MAN} but in no help text\n")
  endif()
endforeach()
foreach(cmd IN LISTS commands)
  if(NOT page MATCHES "\n\\.SS \"onyx ${cmd}[ \"]")
    string(APPEND failed "command ${cmd} has no section (.SS \"onyx ${cmd} ...\") in ${MAN}\n")
  endif()
endforeach()

if(failed)
  message(FATAL_ERROR "${failed}")
endif()
list(LENGTH help_options n)
message("${MAN}: all ${n} options of the help (${help_options}) and the commands ${commands}")
