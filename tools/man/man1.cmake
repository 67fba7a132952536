# SPDX-License-Identifier: MIT
# cmake -DHELP2MAN=... -DCLI=... -DCMD=... -DVERSION=... -DINCLUDE=... -DOUT=...
#       -P man1.cmake
# One page of hellofpga(1) by help2man: CMD empty for the global page
# ("hellofpga --help", "hellofpga --version"), else hellofpga-CMD(1) from
# "hellofpga CMD --help", named by the command's line of the global help.
get_filename_component(dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
if(CMD STREQUAL "")
  set(args
    "--name=move data between host or GPU memory and an XDMA FPGA card"
    "--version-string=${VERSION}")
else()
  execute_process(COMMAND ${CLI} --help OUTPUT_VARIABLE global
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CLI} --help failed")
  endif()
  if(NOT global MATCHES "\n  ${CMD} +([^\n]+)")
    message(FATAL_ERROR "'${CMD}' is not in the commands of '${CLI} --help'")
  endif()
  set(args "--name=${CMAKE_MATCH_1}" "--help-option=${CMD} --help"
           "--version-string=${VERSION}")
endif()
execute_process(COMMAND ${HELP2MAN} --no-info --no-discard-stderr
                        --section=1 --include=${INCLUDE} ${args}
                        --output=${OUT}.tmp ${CLI}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "help2man failed for '${CLI} ${CMD}'")
endif()
file(READ ${OUT}.tmp page)
file(REMOVE ${OUT}.tmp)
# help2man takes the indented lines of a long usage for the description:
# they go back to the synopsis
if(page MATCHES "\n\\.SH DESCRIPTION\n\\.IP\n((\\[[^\n]*\n)+)")
  set(more "${CMAKE_MATCH_1}")
  string(REPLACE "\n.SH DESCRIPTION\n.IP\n${more}" "\n.br\n${more}.SH DESCRIPTION\n"
         page "${page}")
endif()
if(NOT CMD STREQUAL "")
  # the page is hellofpga-CMD(1), not a second hellofpga(1)
  string(TOUPPER "hellofpga-${CMD}" title)
  string(REPLACE ".TH HELLOFPGA \"1\"" ".TH ${title} \"1\"" page "${page}")
  string(REPLACE "\n.SH NAME\nhellofpga \\-" "\n.SH NAME\nhellofpga-${CMD} \\-"
         page "${page}")
endif()
file(WRITE ${OUT} "${page}")
