# SPDX-License-Identifier: MIT
# run(WHAT COMMAND...): runs COMMAND and stops the check with its output
# when it fails; sets run_out to its stdout. Included by the check scripts.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()
