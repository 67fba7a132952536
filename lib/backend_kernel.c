// SPDX-License-Identifier: MIT
/*
 * backend_kernel.c - cards driven by the hellofpga kernel driver, through
 * /dev/hellofpga<N>_* nodes.
 *
 * The driver (driver/, hellofpga.ko) and its ioctl ABI are not part of this
 * release yet: this backend finds out whether a driver and card are present
 * and says precisely why a card cannot be opened, pointing at the emulated
 * card when there is none.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hf_lib.h"

#define HF_EMU_HINT \
	"To develop without a card, use the emulated card: set HELLOFPGA_DEVICE=emu or open \"emu\"."

static bool driver_loaded(void)
{
	struct stat st;

	return stat("/sys/module/hellofpga", &st) == 0;
}

static bool any_card_node(void)
{
	glob_t g;
	bool found;

	if (glob("/dev/hellofpga[0-9]*", GLOB_NOSORT, NULL, &g))
		return false;
	found = g.gl_pathc > 0;
	globfree(&g);
	return found;
}

/**
 * hf_kernel_open() - open a hardware card.
 * @path: "/dev/hellofpgaN", or NULL for the first card
 * Return: negative errno; the kernel backend arrives with hellofpga.ko.
 */
int hf_kernel_open(struct hellofpga_dev *dev, const char *path)
{
	const char *what = path ? path : "the first hardware card";

	if (!driver_loaded() && !any_card_node())
		return hf_set_error(dev, -ENODEV,
				    "cannot open %s: no hellofpga card found (driver not loaded: no /sys/module/hellofpga, no /dev/hellofpga*). "
				    HF_EMU_HINT, what);
	if (path && access(path, F_OK))
		return hf_set_error(dev, -ENODEV, "cannot open %s: %s. "
				    HF_EMU_HINT, path, strerror(errno));
	return hf_set_error(dev, -EOPNOTSUPP,
			    "cannot open %s: this library has no kernel-driver backend yet (it comes with hellofpga.ko). "
			    HF_EMU_HINT, what);
}
