# SPDX-License-Identifier: MIT
# hf_add_test_program(<target> SOURCES <src>... [LIBS <lib>...] [TIMEOUT <s>]
#                     [LABELS <label>...] [EMU_CARD])
# Builds a test program linked with tests/harness.c and registers each of its
# HF_TEST cases as its own CTest test "<target>.<case>", discovered after the
# build by running "<target> --list" (so cases are written once, in C).
# EMU_CARD: the program runs emulated cards; every case then also checks
# that they made no DMA fault (tests/dma_faults.c).
# LABELS threads: the program runs transfers from several threads; target
# threads_tests builds all of those (the ThreadSanitizer stage of ./run test).
# hf_discover_cases(<target> <prefix> <file> <timeout> <labels> [<env> <match>]):
# after <target> is built, "<target> --list" writes one add_test() per case
# ("<prefix>.<case>") into <file> (cmake/HfTestDiscover.cmake), which CTest
# includes; until then one failing placeholder stands for them.  <env>:
# VAR=VALUE entries separated by "|"; <match>: a regex of the cases to take.
function(hf_discover_cases target prefix file timeout labels)
  set(env "")
  set(match "")
  if(ARGC GREATER 5)
    set(env "${ARGV5}")
  endif()
  if(ARGC GREATER 6)
    set(match "${ARGV6}")
  endif()
  # A cross build (tests/guest's arm64 user space) cannot run the program
  # here: no discovery, its cases run in the guest (--list there).
  if(NOT CMAKE_CROSSCOMPILING)
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_COMMAND}
              -DTEST_EXE=$<TARGET_FILE:${target}>
              -DTEST_PREFIX=${prefix}
              -DTEST_TIMEOUT=${timeout}
              "-DTEST_LABELS=${labels}"
              "-DTEST_ENV=${env}"
              "-DTEST_MATCH=${match}"
              -DOUT=${file}
              -P ${PROJECT_SOURCE_DIR}/cmake/HfTestDiscover.cmake
      BYPRODUCTS ${file}
      VERBATIM)
  endif()
  if(NOT EXISTS ${file})
    file(WRITE ${file}
         "add_test(${prefix}.NOT_BUILT \"${CMAKE_COMMAND}\" -E false)\n")
  endif()
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${file})
endfunction()

function(hf_add_test_program target)
  cmake_parse_arguments(T "EMU_CARD" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  if(T_EMU_CARD)
    list(APPEND T_SOURCES ${PROJECT_SOURCE_DIR}/tests/dma_faults.c)
  endif()
  add_executable(${target} ${T_SOURCES} ${PROJECT_SOURCE_DIR}/tests/harness.c)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${target} PRIVATE ${T_LIBS})
  hf_discover_cases(${target} ${target}
                    ${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake
                    ${T_TIMEOUT} "${T_LABELS}")
  if("threads" IN_LIST T_LABELS)
    if(NOT TARGET threads_tests)
      add_custom_target(threads_tests)
    endif()
    add_dependencies(threads_tests ${target})
  endif()
endfunction()

# hf_add_test_variant(<target> <variant> [ENV <VAR=VALUE>...] [MATCH <regex>]
#                     [LABELS <label>...])
# Registers the cases of test program <target> (hf_add_test_program) whose
# names match MATCH (all without it) a second time, as
# "<variant>/<target>.<case>", run with the environment ENV and the labels
# LABELS: the same cases on another configuration of the card (e.g.
# HELLOFPGA_EMU_OPTS=rtl: the reference design's RTL).
function(hf_add_test_variant target variant)
  cmake_parse_arguments(V "" "MATCH" "ENV;LABELS" ${ARGN})
  string(REPLACE ";" "|" env "${V_ENV}")
  hf_discover_cases(${target} ${variant}/${target}
                    ${CMAKE_CURRENT_BINARY_DIR}/${target}_${variant}_tests.cmake
                    300 "${V_LABELS}" "${env}" "${V_MATCH}")
endfunction()
