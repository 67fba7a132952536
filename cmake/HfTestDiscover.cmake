# SPDX-License-Identifier: MIT
# Run by hf_add_test_program() after a test program is built: lists its
# cases and writes one add_test() per case into OUT.
execute_process(COMMAND ${TEST_EXE} --list
                OUTPUT_VARIABLE cases RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TEST_EXE} --list failed (${rc})")
endif()
string(REPLACE "\n" ";" cases "${cases}")
set(content "")
foreach(c IN LISTS cases)
  if(c STREQUAL "")
    continue()
  endif()
  if(TEST_MATCH AND NOT c MATCHES "${TEST_MATCH}")
    continue()
  endif()
  string(APPEND content "add_test(\"${TEST_PREFIX}.${c}\" \"${TEST_EXE}\" \"${c}\")\n")
  string(APPEND content "set_tests_properties(\"${TEST_PREFIX}.${c}\" PROPERTIES TIMEOUT ${TEST_TIMEOUT} SKIP_RETURN_CODE 77 LABELS \"${TEST_LABELS}\")\n")
  if(TEST_ENV)
    string(APPEND content "set_tests_properties(\"${TEST_PREFIX}.${c}\" PROPERTIES ENVIRONMENT \"${TEST_ENV}\")\n")
  endif()
endforeach()
file(WRITE ${OUT} "${content}")
