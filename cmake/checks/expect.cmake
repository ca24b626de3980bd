# SPDX-License-Identifier: MIT
# Runs a command and checks its exit status and output. Used by the tests in
# tests/ecosystem.cmake as
#
#   cmake -DCOMMAND=PROGRAM|ARG|... -DEXPECT_RC=N [-DEXPECT_STDOUT=REGEX]
#         [-DEXPECT_STDERR=REGEX] [-DFORBID_STDOUT=REGEX] -P expect.cmake
#
# (arguments separated by '|'). Both outputs are echoed for the test log.
cmake_minimum_required(VERSION 3.18)
string(REPLACE "|" ";" command "${COMMAND}")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("---- stdout ----\n${out}---- stderr ----\n${err}----------------")
set(failed "")
if(NOT "${rc}" STREQUAL "${EXPECT_RC}")
  string(APPEND failed "exit status ${rc}, expected ${EXPECT_RC}\n")
endif()
if(DEFINED EXPECT_STDOUT AND NOT "${out}" MATCHES "${EXPECT_STDOUT}")
  string(APPEND failed "stdout does not match: ${EXPECT_STDOUT}\n")
endif()
if(DEFINED EXPECT_STDERR AND NOT "${err}" MATCHES "${EXPECT_STDERR}")
  string(APPEND failed "stderr does not match: ${EXPECT_STDERR}\n")
endif()
if(DEFINED FORBID_STDOUT AND "${out}" MATCHES "${FORBID_STDOUT}")
  string(APPEND failed "stdout matches what it must not: ${FORBID_STDOUT}\n")
endif()
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
