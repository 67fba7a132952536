// SPDX-License-Identifier: MIT
/*
 * main.c - the hellofpga command-line tool: global options and the
 * command table.
 *
 *	hellofpga [-d DEVICE] COMMAND [ARGS]
 *
 * docs/cli.md is the user's reference.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "info", cmd_info, "show the card, its channels and counters" },
	{ "write", cmd_write, "copy a file to card memory (H2C DMA)" },
	{ "read", cmd_read, "copy card memory to a file (C2H DMA)" },
	{ "reg", cmd_reg, "read or write a 32-bit user-BAR register" },
	{ "events", cmd_events, "wait for user interrupts and print them, or raise them" },
	{ "stream", cmd_stream, "take and verify frames from an AXI-Stream card's source" },
	{ "demo", cmd_demo, "move and verify a test pattern on every channel" },
	{ "bench", cmd_bench, "latency and bandwidth against the memcpy ceiling" },
	{ "test", cmd_test, "the GPU Direct test program: 15 cases, optional soak" },
	{ "doctor", cmd_doctor, "is this machine ready for GPU Direct? checks and fixes" },
	{ "version", cmd_version, "show the tool and library versions" },
	{ "help", cmd_help, "show this help; 'help COMMAND': a command's" },
};

static void usage(FILE *f)
{
	size_t i;

	fputs("Usage: hellofpga [-d DEVICE] COMMAND [ARGS]\n"
	      "\n"
	      "Move data between host memory and the memory of a Xilinx XDMA FPGA card.\n"
	      "\n"
	      "Options:\n"
	      "  -d, --device DEVICE  card to use: /dev/hellofpgaN, emu, emu:N[,opts]\n"
	      "                       (default: $HELLOFPGA_DEVICE, else the first\n"
	      "                       hardware card)\n"
	      "  -h, --help           show this help\n"
	      "  -V, --version        show the versions\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'hellofpga help COMMAND' is 'hellofpga COMMAND --help'.\n", f);
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	cli_err("unknown command '%s'", name);
	fputs("Try 'hellofpga --help'.\n", stderr);
	return NULL;
}

/* "help [COMMAND]": the global help, or exactly what "COMMAND --help" says. */
static int cmd_help(int argc, char **argv)
{
	static char opt_help[] = "--help";
	const struct command *cmd;
	char *cargv[3];

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 2) {
		cli_usage_err("help", "unexpected argument '%s'", argv[2]);
		return CLI_EXIT_USAGE;
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return CLI_EXIT_USAGE;
	cargv[0] = argv[1];
	cargv[1] = opt_help;
	cargv[2] = NULL;
	optind = 0;
	return cmd->fn(2, cargv);
}

static int cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("Usage: hellofpga version\n\n"
		     "Show the versions of the tool and of libhellofpga.");
		return CLI_EXIT_OK;
	}
	if (argc > 1) {
		cli_usage_err("version", "unexpected argument '%s'", argv[1]);
		return CLI_EXIT_USAGE;
	}
	printf("hellofpga %s (libhellofpga %s)\n", HELLOFPGA_VERSION_STRING,
	       HelloFPGA_Version());
	return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd;
	char **cargv;
	int c, cargc;

	/* '+': stop at the command; its options are its own. */
	while ((c = getopt_long(argc, argv, "+d:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			cli_device = optarg;
			break;
		case 'h':
			usage(stdout);
			return CLI_EXIT_OK;
		case 'V':
			return cmd_version(1, argv);
		default:
			fputs("Try 'hellofpga --help'.\n", stderr);
			return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		cli_err("no command given");
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	cmd = find_command(argv[optind]);
	if (!cmd)
		return CLI_EXIT_USAGE;
	cargc = argc - optind;
	cargv = argv + optind;
	optind = 0;	/* re-initialise getopt for the command */
	return cmd->fn(cargc, cargv);
}
