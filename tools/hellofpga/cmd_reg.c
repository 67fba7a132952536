// SPDX-License-Identifier: MIT
/*
 * cmd_reg.c - "hellofpga reg": read or write a 32-bit register of the
 * card's user (AXI-Lite) BAR.
 */
#include <getopt.h>
#include <inttypes.h>

#include "commands.h"

static void reg_usage(FILE *f)
{
	fputs("Usage: hellofpga [-d DEVICE] reg OFFSET [VALUE]\n"
	      "\n"
	      "Read the 32-bit user-BAR register at byte OFFSET and print its value,\n"
	      "or write VALUE to it and print the value read back.  OFFSET and\n"
	      "VALUE are decimal or 0x hexadecimal; OFFSET is 4-byte aligned.\n"
	      "\n"
	      "  -h, --help   show this help\n"
	      "\n"
	      "Output: '0xVALUE' for a read; 'OFFSET: wrote 0xVALUE, read back\n"
	      "0xVALUE' for a write.\n", f);
}

/**
 * cmd_reg() - "hellofpga reg OFFSET [VALUE]": read a user-BAR register, or
 * write it and read it back.
 * @argc: argument count, argv[0] being "reg"
 * @argv: arguments
 *
 * Return: the exit status.
 */
int cmd_reg(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t off, val = 0, back;
	HELLOFPGA_HANDLE h;
	bool write;
	int c, ret;

	c = getopt_long(argc, argv, "+h", opts, NULL);
	if (c != -1)	/* -h or a bad option */
		return cli_opt_help(c, reg_usage);
	if (optind >= argc || argc - optind > 2) {
		cli_usage_err("reg", optind >= argc ? "no register OFFSET given" :
			      "too many arguments");
		return CLI_EXIT_USAGE;
	}
	if (cli_parse_u32(argv[optind], &off)) {
		cli_usage_err("reg", "bad register offset '%s'", argv[optind]);
		return CLI_EXIT_USAGE;
	}
	write = argc - optind == 2;
	if (write && cli_parse_u32(argv[optind + 1], &val)) {
		cli_usage_err("reg", "bad 32-bit value '%s'", argv[optind + 1]);
		return CLI_EXIT_USAGE;
	}

	if (cli_open(&h))
		return CLI_EXIT_FAIL;
	if (write) {
		ret = HelloFPGA_UserWrite32(h, off, val);
		if (ret) {
			cli_lib_err(h, ret, "cannot write user register 0x%04"
				    PRIx32, off);
			goto fail;
		}
	}
	ret = HelloFPGA_UserRead32(h, off, &back);
	if (ret) {
		cli_lib_err(h, ret, "cannot read user register 0x%04" PRIx32,
			    off);
		goto fail;
	}
	if (write)
		printf("0x%04" PRIx32 ": wrote 0x%08" PRIx32
		       ", read back 0x%08" PRIx32 "\n", off, val, back);
	else
		printf("0x%08" PRIx32 "\n", back);
	HelloFPGA_Close(h);
	return CLI_EXIT_OK;
fail:
	HelloFPGA_Close(h);
	return CLI_EXIT_FAIL;
}
