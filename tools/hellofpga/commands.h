/* SPDX-License-Identifier: MIT */
/*
 * commands.h - the commands of the hellofpga command-line tool.
 *
 * Each command lives in its own cmd_*.c file and is entered through a
 * cmd_*() function taking the command's own argc/argv (argv[0] is the
 * command name) and returning the process exit status.  "bench" and
 * "test" run a program of their own (tools/bench/, tools/selftest/;
 * cmd_prog.c).
 */
#ifndef HF_CLI_COMMANDS_H
#define HF_CLI_COMMANDS_H

#include "cli.h"

int cmd_info(int argc, char **argv);
int cmd_write(int argc, char **argv);
int cmd_read(int argc, char **argv);
int cmd_reg(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_stream(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

#endif /* HF_CLI_COMMANDS_H */
