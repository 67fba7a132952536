// SPDX-License-Identifier: MIT
/*
 * cmd_prog.c - the commands that are programs of their own, run with the
 * command's arguments and the -d device (tools/common/prog.c): "bench",
 * hellofpga-bench (tools/bench/, docs/benchmarks.md), and "test",
 * hellofpga-test (tools/selftest/, docs/test-program.md).
 */
#include "commands.h"

int cmd_bench(int argc, char **argv)
{
	return cli_run_program("hellofpga-bench", argc, argv);
}

int cmd_test(int argc, char **argv)
{
	return cli_run_program("hellofpga-test", argc, argv);
}
