// SPDX-License-Identifier: MIT
/*
 * prog.c - the programs of the tool: "hellofpga bench" and "hellofpga test"
 * run the programs hellofpga-bench (tools/bench/) and hellofpga-test
 * (tools/selftest/), and the bench runs its renderer (bench_render.py).
 * A program or file of the tool is found beside the running program (the
 * build tree: every program in BUILD/bin) or, installed, in its directory
 * relative to the running program's (bin -> libexec/hellofpga -> share/
 * hellofpga; HF_REL_* from CMake), so an install under any prefix works.
 *
 * The verb hands the program its arguments with argv[0] the verb's name
 * (getopt's messages read as before) and, first, the device slot:
 * "--device=DEVICE" for -d DEVICE, "--device" without -d.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define DEVICE_SLOT	"--device"

/**
 * cli_find() - the path of the tool's program or file @name: beside the
 * running program, else in @rel relative to its directory.
 * @buf, @len: receive the path
 * Return: 0, or -1 after reporting.
 */
int cli_find(const char *name, const char *rel, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0) {
		cli_err("cannot find %s: /proc/self/exe: %s", name,
			strerror(n ? errno : ENOENT));
		return -1;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(buf, len, "%s/%s", self, name);
	if (!access(buf, F_OK))
		return 0;
	snprintf(buf, len, "%s/%s/%s", self, rel, name);
	if (!access(buf, F_OK))
		return 0;
	cli_err("cannot find %s: not in %s nor in %s/%s", name, self, self, rel);
	return -1;
}

/**
 * cli_run_program() - a verb's program: exec @prog (in the install's
 * libexec directory, or beside the running CLI) with the verb's
 * arguments, the device slot first.
 * @argc, @argv: the verb's, argv[0] its name
 *
 * Return: only when the program cannot run: CLI_EXIT_FAIL, reported.
 */
int cli_run_program(const char *prog, int argc, char **argv)
{
	char path[PATH_MAX], **av;
	char *slot = NULL;

	if (cli_find(prog, HF_REL_LIBEXEC, path, sizeof(path)))
		return CLI_EXIT_FAIL;
	av = calloc((size_t)argc + 2, sizeof(*av));
	if (cli_device && asprintf(&slot, DEVICE_SLOT "=%s", cli_device) < 0)
		slot = NULL;
	if (!av || (cli_device && !slot)) {
		cli_err("out of memory");
		return CLI_EXIT_FAIL;
	}
	av[0] = argv[0];
	av[1] = slot ? slot : (char *)DEVICE_SLOT;
	memcpy(av + 2, argv + 1, (size_t)(argc - 1) * sizeof(*av));
	fflush(stdout);
	execv(path, av);
	cli_err("%s: cannot run %s: %s", argv[0], path, strerror(errno));
	free(slot);
	free(av);
	return CLI_EXIT_FAIL;
}

/**
 * cli_program_args() - the start of a verb's program: take the device
 * slot, if @argv has one, into cli_device; argv[0] stays.
 */
void cli_program_args(int *argc, char ***argv)
{
	char **av = *argv;
	size_t n = strlen(DEVICE_SLOT);

	if (*argc < 2 || strncmp(av[1], DEVICE_SLOT, n) ||
	    (av[1][n] != '=' && av[1][n] != '\0'))
		return;
	cli_device = av[1][n] == '=' ? av[1] + n + 1 : NULL;
	av[1] = av[0];
	(*argv)++;
	(*argc)--;
}
