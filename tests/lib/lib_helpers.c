// SPDX-License-Identifier: MIT
/* lib_helpers.c - shared helpers of the library tests. */
#include "lib_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static char emu_dir[64];

static void remove_emu_dir(void)
{
	char cmd[128];

	if (!emu_dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", emu_dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", emu_dir);
}

const char *t_emu_dir(void)
{
	if (emu_dir[0])
		return emu_dir;
	strcpy(emu_dir, "/tmp/hf-test-XXXXXX");
	if (!mkdtemp(emu_dir)) {
		perror("mkdtemp");
		exit(2);
	}
	setenv("HELLOFPGA_EMU_DIR", emu_dir, 1);
	atexit(remove_emu_dir);
	return emu_dir;
}

HELLOFPGA_HANDLE t_open(const char *name)
{
	HELLOFPGA_HANDLE h = NULL;
	int ret;

	t_emu_dir();
	ret = HelloFPGA_Open(name, &h);
	HF_CHECK_MSG(ret == 0, "HelloFPGA_Open(%s) = %d (%s): %s", name, ret,
		     HelloFPGA_StrError(ret), HelloFPGA_GetLastError(NULL));
	return h;
}

static inline uint8_t pattern_byte(size_t i, uint32_t seed)
{
	uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u;

	return (uint8_t)(x >> 13 ^ x >> 5 ^ i >> 12);
}

void t_fill(void *buf, size_t len, uint32_t seed)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = pattern_byte(i, seed);
}

long t_check(const void *buf, size_t len, uint32_t seed)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern_byte(i, seed))
			return (long)i;
	return -1;
}

uint64_t t_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}
